import Foundation

/// A bounded pool of PostgreSQL connections, each owned by a thread of its own.
///
/// libpq calls block, so they never run on Swift's cooperative thread pool: `withConnection`
/// queues the work for one of `size` worker threads and suspends the caller until it is done.
/// A worker whose connection broke drops it and connects again before its next job, so after a
/// server restart the statement in flight fails with a retriable `connectionLost` error and
/// later ones succeed without restarting the process.
package final class ConnectionPool: Sendable {
    /// How to connect and how many connections to keep.
    package struct Configuration: Sendable {
        package var conninfo: String
        package var size: Int
        /// Statements run once on every new connection (e.g. `SET ROLE`, timeouts).
        package var setupStatements: [String]
        /// Requests allowed to wait for a free connection before new ones fail as `unavailable`.
        package var maxWaiting: Int
        /// A name for the worker threads, visible in debuggers and `top -H`.
        package var name: String

        package init(conninfo: String, size: Int = 4, setupStatements: [String] = [], maxWaiting: Int = 100_000, name: String = "pg") {
            self.conninfo = conninfo
            self.size = max(1, size)
            self.setupStatements = setupStatements
            self.maxWaiting = maxWaiting
            self.name = name
        }
    }

    package let configuration: Configuration
    private let queue: JobQueue

    package init(_ configuration: Configuration) {
        self.configuration = configuration
        self.queue = JobQueue(maxWaiting: configuration.maxWaiting, workers: configuration.size)
        for index in 0..<configuration.size {
            let queue = self.queue
            let config = configuration
            let thread = Thread { Self.workerLoop(queue: queue, configuration: config) }
            thread.name = "\(configuration.name)-\(index)"
            thread.start()
        }
    }

    /// Runs `body` with a connection on a pool thread and returns its result.
    package func withConnection<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let accepted = queue.enqueue { connection, connectError in
                guard let connection else {
                    continuation.resume(throwing: connectError ?? PostgresError(.connectionFailed, "no connection"))
                    return
                }
                do {
                    continuation.resume(returning: try body(connection))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            if !accepted {
                continuation.resume(throwing: PostgresError(.unavailable, "connection pool \(configuration.name) is shut down or its queue is full"))
            }
        }
    }

    /// Runs `body` inside a transaction on a pool connection.
    package func withTransaction<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withConnection { connection in try connection.withTransaction(body) }
    }

    /// Convenience: one statement on any connection.
    @discardableResult
    package func query(_ sql: String, _ parameters: [String?] = []) async throws -> QueryResult {
        try await withConnection { connection in try connection.query(sql, parameters) }
    }

    /// Stops accepting work, lets queued jobs finish, closes every connection and waits for the workers.
    package func shutdown() async {
        queue.close()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queue = self.queue
            let thread = Thread {
                queue.waitForWorkersToExit()
                continuation.resume()
            }
            thread.start()
        }
    }

    private static func workerLoop(queue: JobQueue, configuration: Configuration) {
        var connection: Connection?
        while let job = queue.next() {
            var connectError: PostgresError?
            if connection == nil || connection?.isHealthy == false {
                connection = nil
                do {
                    connection = try Connection(conninfo: configuration.conninfo, setupStatements: configuration.setupStatements)
                } catch {
                    connectError = error
                }
            }
            job(connection, connectError)
            if connection?.isHealthy == false { connection = nil }
        }
        connection = nil
        queue.workerExited()
    }
}

/// The pool's queue of jobs: a FIFO guarded by one condition variable.
///
/// `@unchecked Sendable`: every stored property is read and written only while `condition` is locked.
private final class JobQueue: @unchecked Sendable {
    typealias Job = @Sendable (Connection?, PostgresError?) -> Void

    private let condition = NSCondition()
    /// Waiting jobs from `head` on; the slots before `head` are nil. A job taken is cleared from its
    /// slot at once: a finished job must not keep what it captured alive (a projection batch's
    /// statements hold every changed document's text, and up to 1,024 finished jobs used to stay
    /// here until the array was compacted: about 90 MB across the projection runners' pools).
    private var jobs: [Job?] = []
    private var head = 0
    private var closed = false
    private var liveWorkers: Int
    private let maxWaiting: Int

    init(maxWaiting: Int, workers: Int) {
        self.maxWaiting = maxWaiting
        self.liveWorkers = workers
    }

    func enqueue(_ job: @escaping Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, jobs.count - head < maxWaiting else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// The next job, waiting for one; nil once the queue is closed and empty.
    func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count && !closed { condition.wait() }
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        jobs[head] = nil
        head += 1
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 && head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    func workerExited() {
        condition.lock()
        liveWorkers -= 1
        condition.broadcast()
        condition.unlock()
    }

    func waitForWorkersToExit() {
        condition.lock()
        while liveWorkers > 0 { condition.wait() }
        condition.unlock()
    }
}
