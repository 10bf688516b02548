import EventStore
import Foundation
import Projections
import Testing
import TestSupport

/// The name and nice value of the thread that runs the caller (synchronous, so it may ask).
private func currentThread() -> (name: String, nice: Int32) {
    let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
    let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    return (name.trimmingCharacters(in: .whitespacesAndNewlines), nice)
}

@Suite struct ThreadExecutorTests {
    @Test func aTaskThatPrefersTheExecutorRunsOnItsThreadAtItsNiceValueAndSoDoItsChildren() async throws {
        let base = currentThread().nice
        try #require(base <= 12, "the tests run at nice \(base); a thread cannot be lowered by 7 from there")
        let executor = ThreadExecutor(name: "wm-test-exec", nice: 7)
        defer { executor.close() }
        let seen = await Task(executorPreference: executor) { () async -> [(name: String, nice: Int32)] in
            let own = currentThread()
            try? await Task.sleep(for: .milliseconds(5))
            let afterSuspension = currentThread()
            let child = await withTaskGroup(of: (name: String, nice: Int32).self) { group in
                group.addTask { currentThread() }
                return await group.next()!
            }
            return [own, afterSuspension, child]
        }.value
        for thread in seen {
            #expect(thread.name == "wm-test-exec")
            #expect(thread.nice == base + 7)
        }
        // The process's other threads keep their priority.
        #expect(currentThread().nice == base)
    }

    @Test func aTaskThatPrefersAClosedExecutorStillRunsOnTheGlobalOne() async throws {
        let executor = ThreadExecutor(name: "wm-test-closed")
        executor.close()
        let ran = await Task(executorPreference: executor) { currentThread().name }.value
        #expect(ran != "wm-test-closed")
    }

    @Test func runnersOnThreadsOfTheirOwnApplyEveryEventOnce() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 3, each: 4)
            let runner = ProjectionRunner(store: store, conninfo: url, options: .init(threadNice: 3)) { StreamCountProjector() }
            runner.start()
            try await waitFor("every event applied") { runner.status.eventsApplied == 12 }
            await runner.stop()
            await store.shutdown()
        }
    }
}
