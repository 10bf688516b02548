import EventStore
import Foundation
import JSON
import Postgres
import Projections
import ReadModels
import Synchronization
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct ProjectionNotificationTests {
    @Test func aPayloadNamesTheChangedKeysOfTheNotifiedCollectionsOnly() throws {
        let changes = [
            DocumentChange(collection: "views", key: "providers/acme/trips/t-2", document: ["version": 1]),
            DocumentChange(collection: "state", key: "providers/acme/vehicles/v-1", document: ["x": 1]),
            DocumentChange(collection: "views", key: "providers/acme/trips/t-1", document: nil),
            DocumentChange(collection: "views", key: "providers/acme/trips/t-2", document: ["version": 2]),
            DocumentChange(collection: "shares", key: "providers/acme/trips/t-1", document: ["links": []]),
        ]
        let payload = try #require(ProjectionNotification.payload(changes, collections: ["views", "shares"]))
        #expect(payload == #"{"shares":["providers/acme/trips/t-1"],"views":["providers/acme/trips/t-1","providers/acme/trips/t-2"]}"#)
        let read = ProjectionNotification(payload: payload)
        #expect(read == .changed(["shares": ["providers/acme/trips/t-1"], "views": ["providers/acme/trips/t-1", "providers/acme/trips/t-2"]]))
        #expect(read.keys == ["providers/acme/trips/t-1", "providers/acme/trips/t-2"])
        #expect(ProjectionNotification.payload(changes, collections: ["riders"]) == nil, "nothing to say: no notification")
    }

    @Test func tooManyKeysForOneNotificationBecomeManyAndSoDoesAPayloadNotUnderstood() {
        let changes = (0..<500).map { DocumentChange(collection: "views", key: "providers/acme/trips/trip-\($0)", document: ["version": 1]) }
        let payload = ProjectionNotification.payload(changes, collections: ["views"])
        #expect(payload == "*")
        #expect(ProjectionNotification(payload: "*") == .many)
        #expect(ProjectionNotification(payload: "*").keys == nil)
        for garbage in ["", "{", "[]", #"{"views":"t-1"}"#, #"{"views":[1]}"#] {
            #expect(ProjectionNotification(payload: garbage) == .many, "\(garbage.debugDescription)")
        }
        let fits = (0..<10).map { DocumentChange(collection: "views", key: "providers/acme/trips/trip-\($0)", document: ["version": 1]) }
        #expect(ProjectionNotification.payload(fits, collections: ["views"])!.utf8.count <= ProjectionNotification.maximumPayloadBytes)
    }

    @Test func theRunnerNotifiesTheChangedKeysOnlyWhenItsBatchCommits() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let received = Mutex<[PostgresNotification]>([])
            let markers = Mutex<Set<String>>([])
            let connected = Mutex(false)
            let channel = ProjectionNotification.channel("test_counts")
            let listener = NotificationListener(conninfo: url, channels: [channel]) { signal in
                switch signal {
                case .connected: connected.withLock { $0 = true }
                case .notification(let notice) where notice.payload.hasPrefix("marker-"): markers.withLock { _ = $0.insert(notice.payload) }
                case .notification(let notice): received.withLock { $0.append(notice) }
                }
            }
            try await waitFor("listening") { connected.withLock { $0 } }
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 2, each: 1)
            // The feed shows a transaction once no older one can still commit: other tests' may.
            // Waiting for both lets the runner's first batch hold them together.
            try await waitFor("the events in the feed") { try await store.readAll(after: .start).count == 2 }
            let seenBeforeCommit = Mutex<[Int]>([])
            let options = ProjectionRunner.Options(batchSize: 100, beforeCommit: { _ in
                // The batch is written; nothing may reach a listener before COMMIT. The marker: a
                // notification committed now on a connection of its own. Listeners get notifications
                // in commit order, so one the runner sent earlier arrives before the marker does.
                let marker = "marker-\(UUID().uuidString)"
                try Connection(conninfo: url).query("SELECT pg_notify($1, $2)", [channel, marker])
                let deadline = Date().addingTimeInterval(30)
                while !markers.withLock({ $0.contains(marker) }), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
                let count = markers.withLock { $0.contains(marker) } ? received.withLock { $0.count } : -1
                seenBeforeCommit.withLock { $0.append(count) }
            }, notifyCollections: ["counts"])
            let runner = ProjectionRunner(store: store, conninfo: url, options: options) { StreamCountProjector() }
            runner.start()
            try await waitFor("a notification") { received.withLock { !$0.isEmpty } }
            #expect(seenBeforeCommit.withLock { $0.first } == 0, "-1: the marker did not arrive within 30 s")
            let first = try #require(received.withLock { $0.first })
            #expect(ProjectionNotification(payload: first.payload) == .changed(["counts": ["test:s0", "test:s1"]]))

            try await appendMany(store, streams: 1, each: 1, prefix: "late")
            let notifiedKeys: @Sendable () -> Set<String> = { received.withLock { $0.map { ProjectionNotification(payload: $0.payload).keys ?? [] }.reduce(Set()) { $0.union($1) } } }
            try await waitFor("the late stream's notification") { notifiedKeys().contains("test:late0") }
            #expect(notifiedKeys() == ["test:s0", "test:s1", "test:late0"])
            await runner.stop()
            await listener.stop()
            await store.shutdown()
        }
    }

    @Test func aRebuildTellsOtherNodesToReReadEverythingOnceItsTableIsSwappedIn() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: false))
            try await appendMany(store, streams: 2, each: 2)
            // The feed shows a transaction once no older one can still commit: other tests' may.
            try await waitFor("the events in the feed") { try await store.readAll(after: .start).count == 4 }
            let received = Mutex<[PostgresNotification]>([])
            let connected = Mutex(false)
            let name = StreamCountProjector().name
            let listener = NotificationListener(conninfo: url, channels: [ProjectionNotification.channel(name)]) { signal in
                switch signal {
                case .connected: connected.withLock { $0 = true }
                case .notification(let notice): received.withLock { $0.append(notice) }
                }
            }
            try await waitFor("listening") { connected.withLock { $0 } }
            let report = try await Rebuilder.rebuild(store: store, conninfo: url) { StreamCountProjector() }
            #expect(report.documents == 2)
            try await waitFor("the rebuild's notification") { received.withLock { !$0.isEmpty } }
            let payloads = received.withLock { $0.map(\.payload) }
            #expect(payloads == ["*"])
            #expect(ProjectionNotification(payload: payloads[0]) == .many)
            await listener.stop()
            await store.shutdown()
        }
    }
}
