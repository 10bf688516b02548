@testable import API
import Synchronization
import Testing

@Suite struct StreamLeasesTests {
    final class Counters: Sendable {
        let inUse = Mutex([String: Int]())
        let overlaps = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let got = Atomic<Bool>(false)
    }

    @Test func aStreamNamedTwiceIsLeasedOnceAndReleasedWhole() async {
        let leases = StreamLeases()
        let leased = await leases.acquire(["vehicle:acme/b", "vehicle:acme/a", "vehicle:acme/b", "vehicle:acme/c", "vehicle:acme/a"])
        #expect(leased == ["vehicle:acme/a", "vehicle:acme/b", "vehicle:acme/c"])
        let held = leases.heldCount
        #expect(held == 3)
        leases.release(leased)
        let left = leases.heldCount
        #expect(left == 0)
        // Free again: a second writer gets them at once.
        let again = await leases.acquire(["vehicle:acme/a", "vehicle:acme/a"])
        #expect(again == ["vehicle:acme/a"])
    }

    /// Writers take random, overlapping sets of streams in random order: no stream is ever used by
    /// two writers at once, every writer finishes (no deadlock), and nothing stays leased.
    @Test func writersWithOverlappingStreamsTakeTurnsAndAllFinish() async throws {
        let leases = StreamLeases()
        let counters = Counters()
        let streams = (0..<12).map { "vehicle:acme/v-\($0)" }
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<64 {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    for round in 0..<20 {
                        let wanted = streams.shuffled(using: &generator).prefix(1 + (writer + round) % 5)
                        let leased = await leases.acquire(wanted.reversed())
                        #expect(Set(leased) == Set(wanted))
                        counters.inUse.withLock { used in
                            for stream in leased {
                                used[stream, default: 0] += 1
                                if used[stream]! > 1 { counters.overlaps.add(1, ordering: .relaxed) }
                            }
                        }
                        await Task.yield()
                        counters.inUse.withLock { used in for stream in leased { used[stream]! -= 1 } }
                        leases.release(leased)
                    }
                    counters.finished.add(1, ordering: .relaxed)
                }
            }
        }
        let (overlapping, done) = (counters.overlaps.load(ordering: .relaxed), counters.finished.load(ordering: .relaxed))
        #expect(overlapping == 0)
        #expect(done == 64)
        #expect(leases.heldCount == 0)
    }

    @Test func aWriterWaitsForAHeldStreamAndGetsItWhenItIsReleased() async throws {
        let leases = StreamLeases()
        let first = await leases.acquire(["vehicle:acme/v-1", "vehicle:acme/v-2"])
        let counters = Counters()
        let waiter = Task {
            let leased = await leases.acquire(["vehicle:acme/v-3", "vehicle:acme/v-2", "vehicle:acme/v-0"])
            counters.got.store(true, ordering: .relaxed)
            return leased
        }
        // The marker: leases go in order, so the waiter holds v-0 once it has come to v-2.
        #expect(await waitFor { leases.heldCount == 3 }, "the waiter did not take v-0")
        let early = counters.got.load(ordering: .relaxed)
        #expect(!early, "v-2 is held")
        leases.release(first)
        let leased = await waiter.value
        let late = counters.got.load(ordering: .relaxed)
        #expect(late && leased == ["vehicle:acme/v-0", "vehicle:acme/v-2", "vehicle:acme/v-3"])
        #expect(leases.heldCount == 3)
        leases.release(leased)
        #expect(leases.heldCount == 0)
    }
}
