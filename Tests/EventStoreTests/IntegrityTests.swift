import EventStore
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct IntegrityTests {
    @Test func recomputingTheChainFromStoredJsonbMatchesTheStoredHashes() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            // jsonb re-renders these: key order, 1.50, 1e2, escaped slash, unicode.
            let awkward = try JSONValue.parse(#"{"zeta": 1.50, "alpha": [1e2, "x\/y", -0.0], "ü": {"b": true, "a": null}}"#)
            _ = try await store.append([event("A", awkward), event("B"), event("C", ["n": 52.5200081])], to: "trip:acme/t-1", expectedVersion: .any)
            _ = try await store.append([event("D")], to: "trip:acme/t-1", expectedVersion: .exact(3))
            let events = try await store.readStream("trip:acme/t-1")
            #expect(events.count == 4)
            #expect(events[0].data == awkward)
            #expect(HashChain.firstBreak(in: events, previous: HashChain.genesis) == nil)
            await store.shutdown()
        }
    }

    @Test func anEventEditedBehindTheStoresBackBreaksTheChainAtThatVersion() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            _ = try await store.append([event("A"), event("B", ["fare": 1200]), event("C")], to: "trip:acme/t-1", expectedVersion: .any)
            try await Blocking.run {
                let superuser = try Connection(conninfo: url)
                try superuser.execute("SET session_replication_role = replica")  // bypasses the append-only trigger
                try superuser.query("UPDATE events SET data = $1::jsonb WHERE stream_id = $2 AND stream_version = 2", [#"{"fare": 900}"#, "trip:acme/t-1"])
            }
            let events = try await store.readStream("trip:acme/t-1")
            let broken = HashChain.firstBreak(in: events, previous: HashChain.genesis)
            #expect(broken?.event.streamVersion == 2)
            await store.shutdown()
        }
    }

    @Test func theServerRoleCannotUpdateOrDeleteEvents() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            _ = try await store.append([event()], to: "trip:acme/t-1", expectedVersion: .any)
            try await Blocking.run {
                let app = try Connection(conninfo: url, setupStatements: ["SET ROLE waymark_app"])
                for sql in ["UPDATE events SET event_type = 'X'", "DELETE FROM events", "TRUNCATE events", "UPDATE events_main SET event_type = 'X'"] {
                    do {
                        try app.execute(sql)
                        Issue.record("\(sql) must be refused")
                    } catch let error as PostgresError {
                        #expect(error.sqlState == "42501", "\(sql): \(error)")
                    }
                }
                // Even the owner is stopped by the append-only trigger.
                let owner = try Connection(conninfo: url)
                #expect(throws: PostgresError.self) { try owner.execute("UPDATE events SET event_type = 'X'") }
                #expect(throws: PostgresError.self) { try owner.execute("DELETE FROM events") }
                #expect(try owner.query("SELECT count(*) FROM events WHERE event_type = 'ThingHappened'").first!.int64(0) == 1)
            }
            await store.shutdown()
        }
    }

    @Test func vehicleEventsLandInADailyPartitionAndTripEventsInTheMainOne() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            _ = try await store.append([event("Loc")], to: "vehicle:acme/v-1", expectedVersion: .any)
            _ = try await store.append([event("Created")], to: "trip:acme/t-1", expectedVersion: .any)
            let rows = try await Blocking.run {
                try Connection(conninfo: url).query("SELECT tableoid::regclass::text, stream_id FROM events ORDER BY stream_id").rows.map { [$0[0]!, $0[1]!] }
            }
            #expect(rows[0][0] == "events_main" && rows[0][1] == "trip:acme/t-1")
            #expect(rows[1][0].hasPrefix("events_vehicle_2") && rows[1][1] == "vehicle:acme/v-1")
            await store.shutdown()
        }
    }
}
