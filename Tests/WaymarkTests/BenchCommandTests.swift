import Foundation
import Postgres
import Testing
import TestSupport

/// `waymark bench memory` and `bench http`'s propagation options: bad flags are usage errors
/// (exit 2, naming the flag) found before any database is touched. Each runs through `waymark bench`,
/// which runs the `waymark-bench` binary beside it; without that binary it says so (exit 1).
@Suite(.timeLimit(.minutes(2))) struct BenchCommandTests {
    /// An unreachable database: a run that got past flag checking would fail with exit 1, not 2.
    static let unreachable = ["DATABASE_URL": "postgresql:///x?host=/nonexistent-wm&port=1"]

    func usage(_ arguments: [String]) async throws -> String {
        let result = try await WaymarkBinary.run(["bench"] + arguments, environment: Self.unreachable)
        #expect(result.status == 2, "exit \(result.status): \(result.stderr)")
        return result.stderr
    }

    @Test func anUnknownBenchmarkNameListsMemoryAmongTheKnownOnes() async throws {
        let stderr = try await usage(["heap"])
        #expect(stderr.contains("append, rebuild, http, ingest, export, grpc, memory or peer"))
    }

    @Test func memoryRejectsANonPositiveCount() async throws {
        #expect(try await usage(["memory", "--streams", "0"]).contains("--streams must be a positive whole number, got \"0\""))
        #expect(try await usage(["memory", "--vehicles", "many"]).contains("--vehicles must be a positive whole number, got \"many\""))
        #expect(try await usage(["memory", "--malloc-arena-max", "-1"]).contains("--malloc-arena-max must be a positive whole number"))
    }

    @Test func memoryRejectsMoreTripsThanVehiclesAndMoreStreamsThanTrips() async throws {
        #expect(try await usage(["memory", "--vehicles", "10", "--trips", "20"]).contains("--trips (20) must not exceed --vehicles (10)"))
        #expect(try await usage(["memory", "--trips", "5", "--streams", "6"]).contains("--streams (6) must not exceed --trips (5)"))
    }

    @Test func memoryRejectsAFormatOtherThanTextOrMarkdown() async throws {
        #expect(try await usage(["memory", "--format", "html"]).contains("--format must be text or markdown, got \"html\""))
    }

    @Test func httpRejectsAnUnknownPropagationMode() async throws {
        #expect(try await usage(["http", "--propagation", "grpc"]).contains("--propagation must be update or batch, got \"grpc\""))
    }

    @Test func httpBatchReportsNeedBatchPropagationAndAReportLocationsSizedBatch() async throws {
        #expect(try await usage(["http", "--batch-reports", "100"]).contains("--batch-reports needs --propagation batch"))
        #expect(try await usage(["http", "--propagation", "batch", "--batch-reports", "6000"]).contains("--batch-reports must be from 3 to 5000"))
    }

    @Test func httpBatchPropagationNeedsVehiclesForEveryLane() async throws {
        let stderr = try await usage(["http", "--propagation", "batch", "--batch-reports", "100", "--vehicles", "200"])
        #expect(stderr.contains("needs --vehicles ≥ 510"))
    }

    @Test func httpCasesTakeOnlyReadsAndPropagation() async throws {
        #expect(try await usage(["http", "--cases", "reads,writes"]).contains("--cases takes reads and propagation"))
    }

    @Test func benchWithoutWaymarkBenchBesideItExitsOneSayingWhereItLooked() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wm-lone-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: WaymarkBinary.path, toPath: directory + "/waymark")
        let result = try await WaymarkBinary.runTool(directory + "/waymark", ["bench", "append", "--events", "10"], environment: Self.unreachable)
        #expect(result.status == 1, "exit \(result.status): \(result.stderr)")
        #expect(result.stderr.contains("waymark-bench is not installed next to this binary (no executable \(directory)/waymark-bench)"), "\(result.stderr)")
    }

    @Test func ingestCasesAreCheckedBeforeAnyDatabaseIsTouched() async throws {
        let stderr = try await usage(["ingest", "--cases", "update,update-alone"])
        #expect(stderr.contains("--cases takes update, ingest, sustained, update-fleet, ingest-alone, comma-separated (got [\"update-alone\"])"))
    }

    @Test func sustainedOfferedRatesAreCheckedBeforeAnyDatabaseIsTouched() async throws {
        let stderr = try await usage(["ingest", "--cases", "sustained", "--offered-rates", "20000,fast"])
        #expect(stderr.contains("--offered-rates takes events/s or multiples of the COPY ceiling such as 0.25x, comma-separated; got \"fast\""))
        let zero = try await usage(["ingest", "--cases", "sustained", "--offered-rates", "0.2x", "--rate-seconds", "0"])
        #expect(zero.contains("--rate-seconds must be a positive whole number, got \"0\""))
    }
}
