import EventStore
import Foundation
import JSON
import Postgres
import Synchronization
import Testing
import TestSupport

/// A clock that starts at a given instant and moves `step` microseconds per reading.
final class SteppingClock: Sendable {
    private let now: Mutex<Int64>
    private let step: Int64
    init(start: Int64, step: Int64 = 1) {
        now = Mutex(start)
        self.step = step
    }
    func read() -> Int64 { now.withLock { $0 += step; return $0 } }
}

@Suite(.timeLimit(.minutes(6))) struct ArchiveCommandTests {
    /// Every document of the journey and route-audit read models, as one digest.
    private func readModels(_ url: String) async throws -> [String?] {
        [
            try await scalar(url, "SELECT count(*) || ':' || md5(string_agg(collection || '|' || key || '|' || document::text, ',' ORDER BY collection, key)) FROM rm_journey"),
            try await scalar(url, "SELECT count(*) || ':' || md5(string_agg(collection || '|' || key || '|' || document::text, ',' ORDER BY collection, key)) FROM rm_route_audit"),
        ]
    }

    @Test func archivingOldVehicleDaysKeepsVerifyGreenAndTheReadModelsUnchanged() async throws {
        let file = "/tmp/wm-archive-\(UUID().uuidString.prefix(8)).ndjson"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await TestDatabase.withTestDatabase { url in
            let day: Int64 = 86_400_000_000
            let today = Int64(Date().timeIntervalSince1970 * 1_000_000) / day * day
            // Three days ago: trips with their vehicles (completed), and location reports.
            let old = SteppingClock(start: today - 3 * day + day / 2)
            try await loadWorkload(url, events: 3_000, provider: "acme", tripShare: 0.9, clock: { old.read() })
            // Today: more of the same for another provider, and one more report for an old vehicle
            // stream, whose chain then spans the archive and the live table.
            try await loadWorkload(url, events: 1_000, provider: "fresh")
            let spanning = try #require(try await scalar(url, "SELECT stream_id FROM streams WHERE stream_id LIKE 'vehicle:acme/%' ORDER BY version DESC LIMIT 1"))
            let store = EventStore(.init(conninfo: url, readPoolSize: 1, committers: 1, listen: false))
            _ = try await store.append([EventData(id: UUID(), type: "VehicleLocationReported", data: ["late": true])], to: spanning, expectedVersion: .any)
            await store.shutdown()
            let completed = try await scalar(url, "SELECT count(*) FROM events WHERE stream_id LIKE 'trip:acme/%' AND event_type = 'TripCompleted'")
            try #require(Int(completed ?? "0")! > 0, "the workload completes trips")
            let rebuild = try await WaymarkBinary.run(["rebuild"], environment: ["DATABASE_URL": url])
            try #require(rebuild.status == 0, "\(rebuild.stderr)")
            let models = try await readModels(url)
            let oldVehicleEvents = try #require(try await scalar(url, "SELECT count(*) FROM events WHERE category = 'vehicle' AND recorded_at < $1::timestamptz",
                                                                [PostgresText.timestamp(microseconds: today - day)]).flatMap { Int($0) })
            let tripEvents = try await scalar(url, "SELECT count(*) FROM events WHERE category = 'trip'")

            // Signed roots over what is there now (as `serve` would write them with a key).
            try await waitForHorizon(url)
            let roots = try await Blocking.run {
                let connection = try Connection(conninfo: url)
                var written = 0
                while try AuditRoots.appendNext(on: connection, key: Array("archive-key".utf8), every: 500, force: true) != nil { written += 1 }
                return written
            }
            try #require(roots > 0)

            let archive = try await WaymarkBinary.run(["archive", "--before", "2999-01-01T00:00:00Z", "--to", file], environment: ["DATABASE_URL": url])
            #expect(archive.status == 0, "\(archive.stdout)\(archive.stderr)")
            #expect(archive.stdout.contains("archived \(oldVehicleEvents) vehicle events"), "\(archive.stdout)")
            #expect(try await scalar(url, "SELECT count(*) FROM events WHERE category = 'vehicle' AND recorded_at < $1::timestamptz",
                                     [PostgresText.timestamp(microseconds: today)]) == "0")
            #expect(try await scalar(url, "SELECT count(*) FROM events WHERE stream_id LIKE 'vehicle:fresh/%'") != "0", "today's partition stays")
            #expect(try await scalar(url, "SELECT count(*) FROM events WHERE category = 'trip'") == tripEvents)
            #expect(try await scalar(url, "SELECT count(*) FROM audit_anchors") != "0")
            let anchor = try await scalar(url, "SELECT stream_version FROM audit_anchors WHERE stream_id = $1", [spanning])
            let live = try await scalar(url, "SELECT min(stream_version) - 1 FROM events WHERE stream_id = $1", [spanning])
            #expect(anchor != nil && anchor == live, "the spanning stream continues right after its anchor")

            let verify = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": url, "WAYMARK_AUDIT_KEY": "archive-key"])
            #expect(verify.status == 0, "\(verify.stdout)")
            #expect(verify.stdout.contains("not rechecked (they cover archived vehicle events)"), "\(verify.stdout)")
            // The anchor is what verify continues from: change it and the spanning stream breaks there.
            try await tamper(url, [("UPDATE audit_anchors SET hash = sha256(hash) WHERE stream_id = $1", [spanning])])
            let broken = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(broken.status == 1 && broken.stdout.contains("\(spanning) version \(Int(live ?? "0")! + 1): hash mismatch"), "\(broken.stdout)")
            #expect(try await readModels(url) == models)
            let onItsOwn = try await WaymarkBinary.run(["verify", "--file", file])
            #expect(onItsOwn.status == 0 && onItsOwn.stdout.contains("\(oldVehicleEvents) events"), "\(onItsOwn.stdout)")
            #expect(onItsOwn.stdout.contains("0 streams continue an earlier archive"), "\(onItsOwn.stdout)")

            // Nothing left to archive; a tampered archive file fails on its own.
            let again = try await WaymarkBinary.run(["archive", "--before", "2999-01-01T00:00:00Z", "--to", file + ".2"], environment: ["DATABASE_URL": url])
            #expect(again.status == 0 && again.stdout.contains("nothing to archive"), "\(again.stdout)\(again.stderr)")
            var lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
            let target = try #require(lines.indices.dropFirst(lines.count / 2).first { lines[$0].contains("\"VehicleLocationReported\"") })
            lines[target] = lines[target].replacingOccurrences(of: "\"VehicleLocationReported\"", with: "\"VehicleLocationReportedX\"")
            try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let tampered = try await WaymarkBinary.run(["verify", "--file", file])
            #expect(tampered.status == 1 && tampered.stdout.contains("hash mismatch"), "\(tampered.stdout)")
        }
    }

    @Test func archiveRefusesAMissingCutoffOrAnExistingFile() async throws {
        let missing = try await WaymarkBinary.run(["archive", "--to", "/tmp/x.ndjson"], environment: ["DATABASE_URL": "postgresql:///x?host=/nonexistent-wm"])
        #expect(missing.status == 2 && missing.stderr.contains("archive needs --before T"))
        let existing = try await WaymarkBinary.run(["archive", "--before", "2026-01-01T00:00:00Z", "--to", "/etc/hostname"],
                                                   environment: ["DATABASE_URL": "postgresql:///x?host=/nonexistent-wm"])
        #expect(existing.status == 2 && existing.stderr.contains("archive never overwrites a file"))
    }
}
