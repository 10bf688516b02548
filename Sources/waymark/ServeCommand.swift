import Dispatch
import EventStore
import Foundation
import Synchronization

/// `waymark serve`: the server process.
///
/// Today it runs the storage layer only: database (embedded or `DATABASE_URL`), migrations, the
/// event store with group commit, and a live tail of the global feed that prints progress. The
/// HTTP API arrives with its own issue; until then this says so plainly instead of pretending.
/// On SIGINT/SIGTERM it stops in reverse order: feed tail, store (committing what is queued),
/// and the embedded cluster if this process started it.
enum ServeCommand {
    static func run(_ arguments: [String], environment: [String: String]) async throws {
        let flags = try Flags(arguments)
        let settings = try Settings.load(environment, flags: flags)
        let logger = Logger(label: "waymark.serve", minimum: settings.logLevel)
        let database = try Database.open(settings, logger: logger)
        do {
            try database.migrate(logger: logger)
            let setup = try database.sessionSetup(role: settings.databaseRole, logger: logger)
            let store = EventStore(.init(conninfo: database.url, setupStatements: setup))
            logger.info("event store ready", [LogKey.databaseURL: database.startedEmbedded != nil || settings.databaseURL == nil ? database.url : "DATABASE_URL"])
            logger.warning("the HTTP API is not implemented yet: this server runs the event store and tails its feed; press Ctrl-C to stop")

            let progress = FeedProgress()
            let tail = Task {
                do {
                    for try await event in store.subscribe(after: .start) { progress.record(event.feedPosition) }
                } catch {
                    logger.error("feed tail stopped: \(error)")
                }
            }
            let reporter = Task {
                var last = 0
                while !Task.isCancelled {
                    let (count, position) = progress.snapshot()
                    if count != last || last == 0 {
                        logger.info("feed: \(count) events read", [LogKey.feedPosition: position.description])
                        last = max(count, 1)
                    }
                    try? await Task.sleep(for: .seconds(5))
                }
            }
            let signal = await SignalWaiter.waitForTermination()
            logger.info("received signal \(signal), shutting down")
            reporter.cancel()
            tail.cancel()
            await store.shutdown()
            database.close(logger: logger)
        } catch {
            database.close(logger: logger)
            throw error
        }
    }
}

/// Events read by the feed tail so far.
final class FeedProgress: Sendable {
    private let state = Mutex<(Int, FeedPosition)>((0, .start))

    func record(_ position: FeedPosition) { state.withLock { $0 = ($0.0 + 1, position) } }
    func snapshot() -> (Int, FeedPosition) { state.withLock { $0 } }
}

/// Waits for SIGINT or SIGTERM.
enum SignalWaiter {
    /// Returns the first termination signal received.
    static func waitForTermination() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let resumed = Mutex(false)
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    let first = resumed.withLock { done -> Bool in
                        defer { done = true }
                        return !done
                    }
                    if first { continuation.resume(returning: number) }
                }
                source.resume()
                // Signal sources live for the rest of the process: retain this one on purpose.
                _ = Unmanaged.passRetained(source as AnyObject)
            }
        }
    }
}
