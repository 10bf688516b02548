import EventStore
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(8))) struct ExportImportTests {
    /// What must survive the round trip, as one digest per database: every event's position,
    /// stream, version, id, type, recorded time, hash and JSON, and every stream head.
    private func fingerprint(_ url: String, provider: String) async throws -> [String?] {
        let pattern = "%:\(provider)/%"
        return [
            try await scalar(url, """
                SELECT count(*) || ':' || md5(string_agg(concat_ws('|', global_position, stream_id, stream_version, event_id, event_type,
                    (extract(epoch FROM recorded_at) * 1000000)::bigint, encode(hash, 'hex'), data::text, metadata::text), ',' ORDER BY global_position))
                FROM events WHERE stream_id LIKE $1
                """, [pattern]),
            try await scalar(url, """
                SELECT count(*) || ':' || md5(string_agg(concat_ws('|', stream_id, category, version, encode(last_hash, 'hex')), ',' ORDER BY stream_id))
                FROM streams WHERE stream_id LIKE $1
                """, [pattern]),
            try await scalar(url, """
                SELECT count(*) || ':' || md5(string_agg(concat_ws('|', event_id, stream_id, stream_version, global_position, encode(payload_hash, 'hex')), ',' ORDER BY event_id))
                FROM event_ids WHERE stream_id LIKE $1
                """, [pattern]),
        ]
    }

    /// Runs `body` with the URL of an empty database on a cluster started for it, then removes the cluster.
    private static func withPrivateDatabase(_ body: @Sendable (String) async throws -> Void) async throws {
        try await PrivateCluster.with { _, url in try await body(url) }
    }

    private func shell(_ command: String, _ environment: [String: String]) async throws -> Subprocess.Outcome {
        try await WaymarkBinary.runTool("/bin/sh", ["-c", command], environment: environment.merging(["WAYMARK": WaymarkBinary.path]) { $1 })
    }

    @Test func exportThenImportIntoAFreshDatabaseKeepsEveryEventAndVerifiesOnAHundredThousandEvents() async throws {
        let file = "/tmp/wm-export-\(UUID().uuidString.prefix(8)).ndjson"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await TestDatabase.withTestDatabase { source in
            try await loadWorkload(source, events: 100_000, provider: "acme")
            try await loadWorkload(source, events: 300, provider: "other")
            let export = try await shell("\"$WAYMARK\" export --provider acme --format ndjson > \(file)", ["DATABASE_URL": source])
            #expect(export.status == 0, "\(export.stderr)")
            #expect(export.stderr.contains("export: 100000 events in "), "\(export.stderr)")
            #expect(!export.stderr.contains("\r"), "no progress line when stderr is not a terminal")
            let expected = try await fingerprint(source, provider: "acme")

            // Into a cluster of its own: the import is one transaction with a transaction id for all
            // 100,000 events and their verification, and on the shared test cluster it would hold
            // every other test's projections back meanwhile (they read below the oldest one).
            try await Self.withPrivateDatabase { target in
                // Import never migrates: an empty database without the schema is refused and left as it was.
                let unmigrated = try await WaymarkBinary.run(["import", file], environment: ["DATABASE_URL": target])
                #expect(unmigrated.status == 1 && unmigrated.stderr.contains("run `waymark migrate` against this database first"), "\(unmigrated.stderr)")
                #expect(try await scalar(target, "SELECT to_regclass('events') IS NULL") == "t")
                let migrated = try await WaymarkBinary.run(["migrate"], environment: ["DATABASE_URL": target])
                try #require(migrated.status == 0, "\(migrated.stderr)")
                let imported = try await WaymarkBinary.run(["import", file], environment: ["DATABASE_URL": target])
                #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
                #expect(imported.stdout.contains("imported 100000 events"), "\(imported.stdout)")
                #expect(try await fingerprint(target, provider: "acme") == expected)
                #expect(try await scalar(target, "SELECT count(*) FROM events WHERE stream_id LIKE '%:other/%'") == "0")
                let verify = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": target])
                #expect(verify.status == 0, "\(verify.stdout)")
                #expect(verify.stdout.contains("100000 events"), "\(verify.stdout)")
                // The sequence continues after the imported positions: a new append lands above them.
                let store = EventStore(.init(conninfo: target, readPoolSize: 1, committers: 1, listen: false))
                let appended = try await store.append([EventData(id: UUID(), type: "TripCreated", data: ["n": 1])], to: "trip:acme/after-import", expectedVersion: .noStream)
                await store.shutdown()
                let maximum = try #require(try await scalar(target, "SELECT max(global_position) FROM events WHERE stream_id <> 'trip:acme/after-import'").flatMap { Int64($0) })
                #expect(appended.positions.first! > maximum)
                // A second import is refused: the database is no longer empty.
                let again = try await WaymarkBinary.run(["import", file], environment: ["DATABASE_URL": target])
                #expect(again.status == 1 && again.stderr.contains("import needs an empty event store"), "\(again.stderr)")
            }
        }
    }

    @Test func csvExportHasAHeaderAndOneRowPerEventOfTheStreamAndTimeRange() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await loadWorkload(url, events: 500, provider: "acme")
            let stream = try #require(try await scalar(url, "SELECT stream_id FROM streams WHERE category = 'trip' ORDER BY stream_id LIMIT 1"))
            let count = try #require(try await scalar(url, "SELECT count(*) FROM events WHERE stream_id = $1", [stream]))
            let csv = try await WaymarkBinary.run(["export", "--provider", "acme", "--stream", stream, "--format", "csv"], environment: ["DATABASE_URL": url])
            #expect(csv.status == 0, "\(csv.stderr)")
            let lines = csv.stdout.split(separator: "\n")
            #expect(lines.first == "global_position,transaction_id,stream_id,stream_version,event_id,type,data,metadata,recorded_time,hash")
            #expect(lines.count == Int(count)! + 1, "\(lines.count) lines for \(count) events")
            let future = try await WaymarkBinary.run(["export", "--provider", "acme", "--since", "2999-01-01T00:00:00Z"], environment: ["DATABASE_URL": url])
            #expect(future.status == 0 && future.stdout.isEmpty)
            let past = try await WaymarkBinary.run(["export", "--provider", "acme", "--until", "2000-01-01T00:00:00Z"], environment: ["DATABASE_URL": url])
            #expect(past.status == 0 && past.stdout.isEmpty)
            let nobody = try await WaymarkBinary.run(["export", "--provider", "nobody"], environment: ["DATABASE_URL": url])
            #expect(nobody.status == 0 && nobody.stdout.isEmpty)
            let missing = try await WaymarkBinary.run(["export"], environment: ["DATABASE_URL": url])
            #expect(missing.status == 2 && missing.stderr.contains("export needs --provider P"))
        }
    }

    @Test func anImportFileWithAnEditedEventIsRefusedAndLeavesTheDatabaseEmpty() async throws {
        let file = "/tmp/wm-export-\(UUID().uuidString.prefix(8)).ndjson"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await TestDatabase.withTestDatabase { source in
            try await loadWorkload(source, events: 200, provider: "acme")
            let export = try await WaymarkBinary.run(["export", "--provider", "acme"], environment: ["DATABASE_URL": source])
            try #require(export.status == 0)
            var lines = export.stdout.split(separator: "\n").map(String.init)
            // Change one recorded time by a microsecond: valid JSON, wrong hash.
            var edited = try JSONValue.parse(lines[7])
            guard case .object(var object) = edited, let time = object["recordedTime"]?.stringValue else { throw AuditTestError("no recordedTime") }
            let last = time.index(time.endIndex, offsetBy: -2)
            object["recordedTime"] = .string(String(time[..<last]) + (time[last] == "0" ? "1" : "0") + "Z")
            edited = .object(object)
            lines[7] = edited.compactString
            try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            try await TestDatabase.withTestDatabase { target in
                let imported = try await WaymarkBinary.run(["import", file], environment: ["DATABASE_URL": target])
                #expect(imported.status == 1)
                #expect(imported.stderr.contains("the file's hash chains do not verify") && imported.stderr.contains("hash mismatch"), "\(imported.stderr)")
                #expect(try await scalar(target, "SELECT count(*) FROM events") == "0")
                #expect(try await scalar(target, "SELECT count(*) FROM streams") == "0")
            }
        }
    }
}
