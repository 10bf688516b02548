import Synchronization

/// Exclusive leases on streams, for the writers of one process that would otherwise race.
///
/// Two requests that decide on the same stream at once both read its state at one version and
/// append expecting it: one wins, the other gets a conflict, reloads and decides again. For a few
/// writers that is cheap. Batches of location reports from many connections of one gateway name
/// the same vehicles many times at once, and then every round of retries is lost again to another
/// batch until the reports are aborted. Here a writer holds the leases of its streams from its
/// decision to its commit, so writers of this process that share streams take turns, and the
/// next one decides on the state the previous one committed (cached by the repository). Writers
/// with no stream in common never wait for each other. Writers of other nodes still meet in the
/// expected-version check, and retry.
///
/// Deadlock-free: a writer takes its leases in ascending order of stream id, so no two writers
/// wait for each other in a cycle. Each stream's waiters are served first come, first served.
final class StreamLeases: Sendable {
    private struct State {
        var held: Set<String> = []
        /// Writers waiting for a held stream, oldest first.
        var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    }

    private let state = Mutex(State())

    /// Takes the lease of every stream in `streams` (any order, duplicates allowed), waiting for
    /// each one held by another writer. Returns the streams to give to `release`.
    func acquire(_ streams: some Sequence<String>) async -> [String] {
        var ordered = streams.sorted()
        ordered.removeAdjacentDuplicates()
        var next = 0
        while next < ordered.count {
            // The free streams in order, up to the first held one, under one lock.
            let held: String? = state.withLock { state in
                while next < ordered.count {
                    guard state.held.insert(ordered[next]).inserted else { return ordered[next] }
                    next += 1
                }
                return nil
            }
            guard let stream = held else { break }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let freed = state.withLock { state in
                    if state.held.insert(stream).inserted { return true }
                    state.waiting[stream, default: []].append(continuation)
                    return false
                }
                if freed { continuation.resume() }
            }
            // Handed over by its holder (or found free): it is held for this writer now.
            next += 1
        }
        return ordered
    }

    /// Gives the leases back; each stream goes straight to its oldest waiter, if any.
    func release(_ streams: [String]) {
        var handedOver: [CheckedContinuation<Void, Never>] = []
        state.withLock { state in
            if state.waiting.isEmpty {
                // No writer waits for anything: nothing to hand over.
                for stream in streams { state.held.remove(stream) }
                return
            }
            for stream in streams {
                if var queue = state.waiting[stream], !queue.isEmpty {
                    handedOver.append(queue.removeFirst())
                    state.waiting[stream] = queue.isEmpty ? nil : queue
                } else {
                    state.held.remove(stream)
                }
            }
        }
        for waiter in handedOver { waiter.resume() }
    }

    /// Runs `body` holding the leases of `streams`, and gives them back however it ends.
    func holding<T, E: Error>(_ streams: some Sequence<String>, _ body: () async throws(E) -> T) async throws(E) -> T {
        let leased = await acquire(streams)
        do {
            let result = try await body()
            release(leased)
            return result
        } catch {
            release(leased)
            throw error
        }
    }

    /// Streams leased now (for tests).
    var heldCount: Int { state.withLock { $0.held.count } }
}

extension Array where Element: Equatable {
    /// Keeps the first of each run of equal neighbours (on a sorted array: each value once).
    fileprivate mutating func removeAdjacentDuplicates() {
        guard count > 1 else { return }
        var kept = 1
        for index in 1..<count where self[index] != self[kept - 1] {
            swapAt(kept, index)
            kept += 1
        }
        removeLast(count - kept)
    }
}
