import Foundation
import JSON
import Postgres
import ReadModels
import ReadSide
import WaymarkCLI

/// `waymark report trip T [--provider P] [--out-dir DIR]`: the trip's route audit for people, and
/// `trip-T.svg` (planned route against driven path, off-route stretches in red) in DIR (default: here).
///
/// Reads the `route_audit` read model (what `GET .../routeAudit` serves), in a read-only session,
/// never migrating (`Database.existing`). Without `--provider` the trip id must belong to exactly
/// one provider.
enum ReportCommand {
    static let spec = CommandSpec(
        name: "report", synopsis: "trip T [--provider P] [--out-dir DIR]",
        summary: """
            Prints the trip's route audit for people (status, times, planned against driven distance,
            stops, route token execution, off-route episodes) and writes DIR/trip-T.svg: the planned
            route against the driven path, off-route stretches in red. Exit status 1 when the trip has no
            route audit.
            """ + AuditCommands.readOnlyNote,
        flags: [
            .value("provider", "P", "the trip's provider (needed only when several providers use the id)"),
            .value("out-dir", "DIR", "where the SVG goes (default: the current directory)"),
        ] + CommandSpec.Flag.database,
        operands: 2)

    static func run(_ arguments: [String], environment: [String: String]) throws {
        let flags = try Flags(arguments, for: spec)
        guard flags.positional.first == "trip" else { throw UsageError("report needs a subject: waymark report trip T [--provider P]") }
        guard flags.positional.count == 2, let tripId = flags.positional.last, !tripId.isEmpty else {
            throw UsageError("report trip needs exactly one trip id: waymark report trip T [--provider P]")
        }
        guard !tripId.contains("/") else { throw UsageError("a trip id cannot contain \"/\" (got \(tripId.debugDescription))") }
        let settings = try Settings.load(environment, flags: flags)
        let directory = flags.value("out-dir") ?? "."
        let database = try Database.existing(settings, command: "report")
        let connection = try Connection(conninfo: database.url, setupStatements: ["SET default_transaction_read_only = on"])
        try Database.requireCurrentSchema(on: connection, command: "report")
        let rows = try RouteAuditReader.audits(ofTrip: tripId, provider: flags.value("provider"), on: connection)
        guard let (key, text) = rows.first else {
            throw ReportError("no route audit of trip \(tripId.debugDescription)\(flags.value("provider").map { " (provider \($0))" } ?? "") in the route_audit read model")
        }
        guard rows.count == 1 else {
            let providers = rows.map { $0.0.split(separator: "/")[1] }.joined(separator: ", ")
            throw ReportError("trip \(tripId.debugDescription) exists for several providers (\(providers)): name one with --provider (\(key))")
        }
        let audit = try JSONValue.parse(text)
        let path = (directory as NSString).appendingPathComponent("trip-\(tripId).svg")
        guard FileManager.default.createFile(atPath: path, contents: Data(RouteAuditReport.svg(audit).utf8)) else {
            throw ReportError("could not write \(path)")
        }
        FileHandle.standardOutput.write(Data(RouteAuditReport.text(audit).utf8))
        printOut("\nmap: \(path)")
    }
}

/// A report that cannot be made (exit status 1).
struct ReportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
