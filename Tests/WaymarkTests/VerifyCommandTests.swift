import EventStore
import Foundation
import JSON
import Postgres
import Signing
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3))) struct VerifyCommandTests {
    /// Three trip events and two vehicle events; returns nothing (the streams are fixed).
    private func seed(_ url: String) async throws {
        let store = EventStore(.init(conninfo: url, readPoolSize: 1, committers: 1, listen: false))
        _ = try await store.append([EventData(id: UUID(), type: "TripCreated", data: ["fare": 1200]),
                                    EventData(id: UUID(), type: "TripStatusChanged", data: ["status": "ENROUTE_TO_PICKUP"]),
                                    EventData(id: UUID(), type: "TripStatusChanged", data: ["status": "COMPLETE"])],
                                   to: "trip:acme/t-1", expectedVersion: .noStream)
        _ = try await store.append([EventData(id: UUID(), type: "VehicleLocationReported", data: ["lat": 52.5]),
                                    EventData(id: UUID(), type: "VehicleLocationReported", data: ["lat": 52.6])],
                                   to: "vehicle:acme/v-1", expectedVersion: .noStream)
        await store.shutdown()
    }

    private func hash(_ url: String, _ stream: String, _ version: Int) async throws -> String {
        let text = try await scalar(url, "SELECT encode(hash, 'hex') FROM events WHERE stream_id = $1 AND stream_version = $2", [stream, String(version)])
        return try #require(text)
    }

    @Test func verifyPassesOnAnUntouchedLogAndSummarisesStreamsEventsAndRate() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await seed(url)
            let result = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("verify OK: 2 streams, 5 events in "), "\(result.stdout)")
            #expect(result.stdout.contains("events/s); signed roots not checked (WAYMARK_AUDIT_KEY is not set)"), "\(result.stdout)")
            // Pages of two rows split streams across pages; the outcome is the same.
            let paged = try await WaymarkBinary.run(["verify", "--page-size", "2"], environment: ["DATABASE_URL": url])
            #expect(paged.status == 0 && paged.stdout.contains("verify OK: 2 streams, 5 events in "), "\(paged.stdout)")
        }
    }

    @Test func anEventEditedAsSuperuserIsNamedByStreamVersionAndBothHashes() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await seed(url)
            let stored = try await hash(url, "trip:acme/t-1", 2)
            try await tamper(url, [("UPDATE events SET data = '{\"status\": \"CANCELED\"}' WHERE stream_id = 'trip:acme/t-1' AND stream_version = 2", [])])
            let result = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(result.status == 1)
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let broken = lines.filter { $0.hasPrefix("trip:") || $0.hasPrefix("vehicle:") }
            #expect(broken.count == 1, "\(result.stdout)")
            #expect(broken.first?.hasPrefix("trip:acme/t-1 version 2: hash mismatch: expected ") == true, "\(result.stdout)")
            #expect(broken.first?.hasSuffix(", found \(stored)") == true, "\(result.stdout)")
            #expect(result.stdout.contains("verify FAILED: 1 broken streams"))
        }
    }

    @Test func aDeletedEventIsNamedAsTheGapItLeaves() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await seed(url)
            try await tamper(url, [("DELETE FROM events WHERE stream_id = 'vehicle:acme/v-1' AND stream_version = 1", [])])
            let result = try await WaymarkBinary.run(["verify", "--page-size", "1"], environment: ["DATABASE_URL": url])
            #expect(result.status == 1)
            #expect(result.stdout.contains("vehicle:acme/v-1 version 1: missing: expected version 1, found version 2 (gap)"), "\(result.stdout)")
            #expect(!result.stdout.contains("trip:acme/t-1"))
        }
    }

    @Test func aDeletedLastEventIsCaughtThroughTheStreamHead() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await seed(url)
            try await tamper(url, [("DELETE FROM events WHERE stream_id = 'trip:acme/t-1' AND stream_version = 3", [])])
            let result = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(result.status == 1)
            #expect(result.stdout.contains("trip:acme/t-1 version 3: missing: the stream head is at version 3, the stored events end at version 2"), "\(result.stdout)")
        }
    }

    @Test func twoEventsWhoseDataWasSwappedAreCaught() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await seed(url)
            try await tamper(url, [("""
                UPDATE events e SET data = o.data FROM events o
                WHERE e.stream_id = 'trip:acme/t-1' AND o.stream_id = 'trip:acme/t-1' AND e.stream_version + o.stream_version = 5 AND e.stream_version IN (2, 3)
                """, [])])
            let swapped = try await scalar(url, "SELECT data->>'status' FROM events WHERE stream_id = 'trip:acme/t-1' AND stream_version = 2")
            try #require(swapped == "COMPLETE")
            let result = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(result.status == 1)
            #expect(result.stdout.contains("trip:acme/t-1 version 2: hash mismatch"), "\(result.stdout)")
        }
    }

    @Test func twoEventsWhoseVersionsWereSwappedAreCaught() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await seed(url)
            try await tamper(url, [
                ("UPDATE events SET stream_version = 100 WHERE stream_id = 'vehicle:acme/v-1' AND stream_version = 1", []),
                ("UPDATE events SET stream_version = 1 WHERE stream_id = 'vehicle:acme/v-1' AND stream_version = 2", []),
                ("UPDATE events SET stream_version = 2 WHERE stream_id = 'vehicle:acme/v-1' AND stream_version = 100", []),
            ])
            let result = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(result.status == 1)
            #expect(result.stdout.contains("vehicle:acme/v-1 version 1: hash mismatch"), "\(result.stdout)")
        }
    }

    @Test func verifyOfOneStreamOrOfRecentEventsLooksOnlyThere() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await seed(url)
            try await tamper(url, [("UPDATE events SET data = '{\"lat\": 1}' WHERE stream_id = 'vehicle:acme/v-1' AND stream_version = 1", [])])
            let trip = try await WaymarkBinary.run(["verify", "--stream", "trip:acme/t-1"], environment: ["DATABASE_URL": url])
            #expect(trip.status == 0, "\(trip.stdout)")
            #expect(trip.stdout.contains("verify OK: 1 streams, 3 events"), "\(trip.stdout)")
            let vehicle = try await WaymarkBinary.run(["verify", "--stream", "vehicle:acme/v-1"], environment: ["DATABASE_URL": url])
            #expect(vehicle.status == 1)
            // Since a time after every event: nothing to check.
            let later = try await WaymarkBinary.run(["verify", "--since", "2999-01-01T00:00:00Z"], environment: ["DATABASE_URL": url])
            #expect(later.status == 0 && later.stdout.contains("verify OK: 0 streams, 0 events"), "\(later.stdout)")
            let bad = try await WaymarkBinary.run(["verify", "--since", "yesterday"], environment: ["DATABASE_URL": url])
            #expect(bad.status == 2 && bad.stderr.contains("--since must be an RFC 3339 time"))
        }
    }

    @Test func verifySinceStartsEachStreamFromTheStoredHashBeforeIt() async throws {
        try await TestDatabase.withTestDatabase { url in
            let hour: Int64 = 3_600_000_000
            let clock = SteppingClock(start: 1_767_225_600_000_000, step: hour)  // 2026-01-01T00:00:00Z, an hour per reading
            let store = EventStore(.init(conninfo: url, readPoolSize: 1, committers: 1, listen: false, clock: { clock.read() }))
            for index in 1...3 {
                _ = try await store.append([EventData(id: UUID(), type: "TripStatusChanged", data: ["n": .number(JSONNumber(index))])],
                                           to: "trip:acme/t-9", expectedVersion: .any)
            }
            await store.shutdown()
            let since = try #require(try await scalar(url, """
                SELECT to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') FROM events WHERE stream_id = 'trip:acme/t-9' AND stream_version = 2
                """))
            let recent = try await WaymarkBinary.run(["verify", "--since", since], environment: ["DATABASE_URL": url])
            #expect(recent.status == 0 && recent.stdout.contains("verify OK: 1 streams, 2 events"), "\(recent.stdout)")
            // An edit before --since is outside what it checks; the full run names it.
            try await tamper(url, [("UPDATE events SET data = '{\"n\": 0}' WHERE stream_id = 'trip:acme/t-9' AND stream_version = 1", [])])
            let stillRecent = try await WaymarkBinary.run(["verify", "--since", since], environment: ["DATABASE_URL": url])
            #expect(stillRecent.status == 0, "\(stillRecent.stdout)")
            let full = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(full.status == 1 && full.stdout.contains("trip:acme/t-9 version 1: hash mismatch"), "\(full.stdout)")
            // An edit at or after --since is caught, linked from the stored hash of the event before.
            try await tamper(url, [("UPDATE events SET data = '{\"n\": 0}' WHERE stream_id = 'trip:acme/t-9' AND stream_version = 3", [])])
            let caught = try await WaymarkBinary.run(["verify", "--since", since], environment: ["DATABASE_URL": url])
            #expect(caught.status == 1 && caught.stdout.contains("trip:acme/t-9 version 3: hash mismatch"), "\(caught.stdout)")
        }
    }

    @Test func verifyWithStderrNotATerminalLogsItsProgressAsJSONLines() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await loadWorkload(url, events: 120)
            let result = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(result.status == 0, "\(result.output)")
            let entries = result.stderr.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
            let total = entries.first { $0["message"]?.stringValue?.hasPrefix("verify: 120 events in ") == true }
            #expect(total?["logger"]?.stringValue == "waymark.verify" && total?["level"]?.stringValue == "info", "\(result.stderr)")
            #expect(total?["time"]?.stringValue != nil, "\(result.stderr)")
        }
    }

    @Test func aBadSignedRootSettingStopsServeNamingTheVariable() async throws {
        let result = try await WaymarkBinary.run(["serve"], environment: ["WAYMARK_AUDIT_ROOT_EVERY": "often", "DATABASE_URL": "postgresql:///x?host=/nonexistent-wm"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("WAYMARK_AUDIT_ROOT_EVERY must be a whole number of events from 1 to 1000000, got \"often\""), "\(result.stderr)")
    }
}
