import EventStore
import Foundation
import Postgres
import Schema
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3))) struct RestartTests {
    @Test func theStoreRecoversAfterPostgreSQLRestartsWithoutRestartingTheProcess() async throws {
        try await PrivateCluster.with { cluster, url in try await Self.restart(cluster, url) }
    }

    private static func restart(_ cluster: PrivateCluster, _ url: String) async throws {
        try await Blocking.run { try Migrator().migrate(try Connection(conninfo: url)) }
        let store = makeStore(url, listen: true)
        let received = Bag<UUID>()
        let tail = Task { for try await event in store.subscribe(after: .start) { received.add(event.id) } }

        let before = event("Before")
        _ = try await store.append([before], to: "trip:acme/t-1", expectedVersion: .noStream)
        try await waitUntil("first event tailed") { received.all.contains(before.id) }

        try await cluster.stop()
        switch await appendResult(store, [event("During")], to: "trip:acme/t-1", expectedVersion: .exact(1)) {
        case .success:
            Issue.record("an append while the database is down must fail")
        case .failure(let error):
            #expect(error.isRetriable, "got \(error)")
            #expect(error.code == .unavailable)
        }
        _ = try await cluster.start()

        // The client retries the same event: it is stored exactly once.
        let after = event("After")
        var stored = false
        for _ in 0..<20 where !stored {
            switch await appendResult(store, [after], to: "trip:acme/t-1", expectedVersion: .exact(1)) {
            case .success:
                stored = true
            case .failure(let error):
                #expect(error.isRetriable, "got \(error)")
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        #expect(stored)
        // A read-pool connection that no statement used since the restart finds out only now, as
        // the pool documents: that read fails retriably, and a later one succeeds.
        var read = await readStreamResult(store, "trip:acme/t-1")
        for _ in 0..<3 {
            guard case .failure(let error) = read, error.isRetriable else { break }
            try await Task.sleep(for: .milliseconds(200))
            read = await readStreamResult(store, "trip:acme/t-1")
        }
        let events = try read.get()
        #expect(events.map(\.type) == ["Before", "After"])
        try await waitUntil("tail caught up after the restart") { received.all.contains(after.id) }
        tail.cancel()
        await store.shutdown()
    }
}
