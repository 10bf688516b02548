import EventStore
import Foundation
import JSON
import Postgres
import Projections
import ReadModels
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3))) struct DocumentMirrorTests {
    @Test func theOwnersMirrorHoldsWhatTheTableHoldsOnceItsCheckpointIsPublished() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 3, each: 4)
            let mirror = DocumentMirror()
            #expect(mirror.document("counts", "test:s0") == nil, "invalid before the runner loads")
            let runner = ProjectionRunner(store: store, conninfo: url, options: .init(batchSize: 5, mirror: mirror)) { StreamCountProjector() }
            runner.start()
            try await waitFor("12 applied") { runner.status.eventsApplied == 12 }
            #expect(mirror.isValid)
            let appended = try await store.append([event()], to: "test:s0", expectedVersion: .exact(4))
            let position = try #require(appended.feedPosition)
            #expect(await runner.waitUntilApplied(position))
            // Right after the checkpoint says so, the mirror has the new state (read-your-writes).
            #expect(mirror.document("counts", "test:s0")??["events"]?.int64Value == 5)
            #expect(mirror.document("counts", "test:none") == .some(nil), "known absent")
            let stored = try await storedCounts(url)
            for (key, events) in stored {
                #expect(mirror.document("counts", key)??["events"]?.int64Value == events)
            }
            await runner.stop()
            #expect(!mirror.isValid, "a stopped runner's mirror must not be read")
            await store.shutdown()
        }
    }

    @Test func aStandbyRunnersMirrorStaysInvalidUntilItTakesOver() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 2, each: 3)
            let mirrors = [DocumentMirror(), DocumentMirror()]
            let runners = mirrors.map { mirror in
                ProjectionRunner(store: store, conninfo: url, options: .init(standbyInterval: .milliseconds(100), mirror: mirror)) { StreamCountProjector() }
            }
            for runner in runners { runner.start() }
            try await waitFor("6 applied") { try await checkpointEvents(url).applied == 6 }
            try await waitFor("one owner") { runners.contains { $0.status.isOwner } }
            let owner = runners[0].status.isOwner ? 0 : 1
            #expect(mirrors[owner].isValid)
            #expect(!mirrors[1 - owner].isValid)
            await runners[owner].stop()
            try await waitFor("the standby takes over") { mirrors[1 - owner].isValid }
            #expect(mirrors[1 - owner].document("counts", "test:s1")??["events"]?.int64Value == 3)
            await runners[1 - owner].stop()
            await store.shutdown()
        }
    }
}
