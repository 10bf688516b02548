import Foundation
import Testing

/// The seams `Sources/API` is split along, checked on the sources: the application services call
/// the event store, the read side and the pure modules, and know nothing of HTTP or SQL; the front
/// doors (`REST/`, `Table/`, the GRPC module) adapt them.
@Suite struct LayeringTests {
    /// The folders of `Sources/API` that hold application services and what they share.
    static let serviceFolders = ["Audit", "Auth", "Commands", "Driver", "Errors", "FleetEngine", "Ingest", "Queries", "Rider"]

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/API")

    static func serviceFiles() throws -> [(name: String, text: String)] {
        try serviceFolders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: sources.appendingPathComponent(folder).path).sorted()
                .filter { $0.hasSuffix(".swift") }
                .map { ("\(folder)/\($0)", try String(contentsOf: sources.appendingPathComponent(folder).appendingPathComponent($0), encoding: .utf8)) }
        }
    }

    @Test func applicationServicesImportNeitherHTTPNorPostgres() throws {
        let files = try Self.serviceFiles()
        #expect(files.count > 20)
        for (name, text) in files {
            let imports = text.split(separator: "\n").filter { $0.hasPrefix("import ") || $0.contains(" import ") }.map { $0.split(separator: " ").last.map(String.init) ?? "" }
            #expect(!imports.contains("HTTP") && !imports.contains("Postgres") && !imports.contains("CLibPQ"), "\(name) imports \(imports)")
        }
    }

    @Test func applicationServicesNameNoReadModelTableAndRunNoSQL() throws {
        for (name, text) in try Self.serviceFiles() {
            #expect(!text.contains("rm_"), "\(name) names a read-model table")
            #expect(!text.contains(".query(\"") && !text.contains("SELECT "), "\(name) runs SQL")
        }
    }
}
