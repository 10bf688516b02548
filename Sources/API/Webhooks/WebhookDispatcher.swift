import EventStore
import Foundation
import HTTP
import JSON
import Journey
import Postgres
import Synchronization

/// Delivers the global feed to webhook subscriptions: each subscription has its own task, its own
/// feed reader and its own checkpoint, so a slow or dead receiver holds back only itself.
///
/// Guarantees, per subscription: every matching event is delivered at least once (the checkpoint
/// moves only past events that were answered 2xx, or that the filter skips), and a stream's events
/// are delivered one after another in log order, each only after the previous one was answered.
/// Different streams of a batch are delivered concurrently, at most `maxInFlight` at a time. A
/// failed delivery is retried with exponential backoff and jitter; after `maxFailures` failed
/// attempts of one event the subscription pauses, keeping its checkpoint (nothing is dropped),
/// until `:resume` or `:replay`.
///
/// Of several `waymark serve` nodes, one delivers (`FeedFollower`: a session-level advisory lock, which
/// the supervisor confirms each time it reads the subscriptions); every node keeps a copy of the
/// subscriptions' state for its `/metrics`. Each subscription's task follows the feed through the
/// follower's reader and stores its checkpoint in the subscription's row.
package final class WebhookDispatcher: Sendable {
    /// Tuning, read from the environment by the executable.
    package struct Options: Sendable {
        /// Admit loopback, private and link-local targets (`WAYMARK_WEBHOOKS_ALLOW_PRIVATE`).
        package var allowPrivate = false
        /// Failed attempts of one event before the subscription pauses (`WAYMARK_WEBHOOKS_MAX_FAILURES`).
        package var maxFailures = 10
        /// The first retry's delay; it doubles per attempt up to `retryMax` (`WAYMARK_WEBHOOKS_RETRY_BASE_MS`, `..._RETRY_MAX_MS`).
        package var retryBase: Duration = .milliseconds(500)
        package var retryMax: Duration = .seconds(300)
        /// One delivery's whole exchange (`WAYMARK_WEBHOOKS_TIMEOUT_MS`).
        package var timeout: Duration = .seconds(10)
        /// Streams delivered concurrently per subscription (`WAYMARK_WEBHOOKS_MAX_IN_FLIGHT`).
        package var maxInFlight = 4
        package var batchSize = 100
        /// How often the subscriptions are read again (changes made on this node wake it at once).
        package var syncInterval: Duration = .seconds(1)

        package init() {}
    }

    /// What this node knows of one subscription, for `/metrics` and the API.
    package struct Status: Sendable, Hashable {
        package var subscription: WebhookSubscription
        /// Seconds from the recording of the oldest event waiting for delivery to now (0 when caught up).
        package var lagSeconds: Double = 0
        package var attempts: Int64 = 0
        package var failedAttempts: Int64 = 0
        /// Whether this node's task is delivering it.
        package var active = false
    }

    private struct Worker {
        var generation: Int64
        var task: Task<Void, Never>
        var finished: Bool
    }

    private struct State {
        var workers: [String: Worker] = [:]
        var statuses: [String: Status] = [:]
    }

    let options: Options
    private let subscriptions: WebhookStore
    /// The dispatcher's ownership (its supervisor claims it) and each subscription's feed reading.
    private let follower: FeedFollower
    private let state = Mutex(State())
    private let wake = FeedSignal()
    private let loop = BackgroundTask()

    package init(store: EventStore, options: Options, conninfo: String? = nil, setupStatements: [String] = []) {
        self.options = options
        self.subscriptions = WebhookStore(pool: store.pool)
        self.follower = FeedFollower(store: store, conninfo: conninfo ?? store.configuration.conninfo,
                                     setupStatements: setupStatements.isEmpty ? store.configuration.setupStatements : setupStatements,
                                     options: .init(name: "webhooks", lockNamespace: Self.lockNamespace, connectionName: "webhooks"))
    }

    static func key(_ provider: String, _ id: String) -> String { "\(provider)/\(id)" }

    /// Starts the supervising loop in the background.
    package func start() {
        loop.start { await self.supervise() }
    }

    /// Stops every delivery (a request in flight is abandoned; its event is delivered again later).
    package func stop() async {
        await loop.stop()
        await cancelWorkers()
        await follower.stop()
    }

    /// Reads the subscriptions again now (after a change made through this node's API).
    package func poke() { wake.notify() }

    /// This node's view of every subscription.
    package var statuses: [Status] { state.withLock { $0.statuses.values.sorted { ($0.subscription.provider, $0.subscription.id) < ($1.subscription.provider, $1.subscription.id) } } }

    package func status(provider: String, id: String) -> Status? { state.withLock { $0.statuses[Self.key(provider, id)] } }

    package var isOwner: Bool { follower.status.isOwner }

    // MARK: - Supervision

    private func supervise() async {
        while !Task.isCancelled {
            let seen = wake.generation
            do {
                let owner = try await claim()
                let rows = try await subscriptions.all()
                sync(rows, owner: owner)
            } catch {
                follower.lost(error)
                await cancelWorkers()
            }
            await wake.wait(after: seen, timeout: options.syncInterval)
        }
    }

    /// Takes (or confirms) the dispatcher lock on this node's session; nil when another node holds it.
    /// The tasks stop when the lock is not this node's, or was taken again on a new session.
    private func claim() async throws -> FeedFollower.Owner? {
        let before = follower.status
        let owner = try await follower.claim()
        if owner == nil || (before.isOwner && before.backendPID != owner?.backendPID) { await cancelWorkers() }
        return owner
    }

    static let lockNamespace: Int32 = 0x5748  // "WH"

    private func sync(_ rows: [WebhookSubscription], owner: FeedFollower.Owner?) {
        var toCancel: [Task<Void, Never>] = []
        var toStart: [WebhookSubscription] = []
        state.withLock { state in
            let keys = Set(rows.map { Self.key($0.provider, $0.id) })
            for (key, worker) in state.workers where !keys.contains(key) {
                toCancel.append(worker.task)
                state.workers[key] = nil
            }
            for key in state.statuses.keys where !keys.contains(key) { state.statuses[key] = nil }
            for row in rows {
                let key = Self.key(row.provider, row.id)
                var status = state.statuses[key] ?? Status(subscription: row)
                let worker = state.workers[key]
                if let worker, worker.generation == row.generation, !worker.finished {
                    // The running task owns the delivery state; take only what the API may change.
                    status.subscription.url = row.url
                } else {
                    status.subscription = row
                    if let worker {
                        toCancel.append(worker.task)
                        state.workers[key] = nil
                    }
                    status.active = false
                    if owner != nil && !row.paused { toStart.append(row) }
                }
                state.statuses[key] = status
            }
        }
        for task in toCancel { task.cancel() }
        guard let owner else { return }
        for row in toStart {
            let key = Self.key(row.provider, row.id)
            state.withLock { state in
                let task = Task { await self.run(row, owner) }
                state.workers[key] = Worker(generation: row.generation, task: task, finished: false)
                state.statuses[key]?.active = true
            }
        }
    }

    private func cancelWorkers() async {
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            let tasks = state.workers.values.map(\.task)
            state.workers.removeAll()
            for key in state.statuses.keys { state.statuses[key]?.active = false }
            return tasks
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    // MARK: - One subscription

    private func run(_ initial: WebhookSubscription, _ owner: FeedFollower.Owner) async {
        let key = Self.key(initial.provider, initial.id)
        defer {
            state.withLock { state in
                if state.workers[key]?.generation == initial.generation { state.workers[key]?.finished = true }
                state.statuses[key]?.active = false
            }
        }
        var subscription = initial
        var lastSave = ContinuousClock.now
        var target: (WebhookTarget, ContinuousClock.Instant)?
        // A failed read or save ends the task: the supervisor starts a new one from the stored checkpoint.
        try? await owner.follow(after: subscription.checkpoint, batchSize: options.batchSize) { batch in
            let matched = batch.enumerated().filter { subscription.matches($0.element) }
            if matched.isEmpty && ContinuousClock.now - lastSave < .seconds(1) {
                subscription.checkpoint = batch.last!.feedPosition  // filtered out; saved with the next write
                publish(key, subscription, lag: 0)
                return true
            }
            if let first = matched.first { publish(key, subscription, lag: Self.secondsSince(first.element.recordedAtMicros)) }
            let outcome = await deliver(matched, of: subscription, target: &target)
            // The checkpoint moves past the longest prefix of the batch that is handled: events the
            // filter skips and events answered 2xx. Anything after a gap is delivered again later.
            let matchedIndexes = Set(matched.map(\.offset))
            var handled = 0
            for index in batch.indices {
                if matchedIndexes.contains(index) && !outcome.delivered.contains(index) { break }
                handled = index + 1
            }
            if handled > 0 { subscription.checkpoint = batch[handled - 1].feedPosition }
            subscription.paused = outcome.paused
            subscription.consecutiveFailures = outcome.failures
            if let error = outcome.lastError { subscription.lastError = error }
            subscription.deliveredEvents += Int64(outcome.delivered.count)
            let progress = WebhookStore.Progress(checkpoint: subscription.checkpoint, delivered: Int64(outcome.delivered.count), paused: outcome.paused,
                                                 consecutiveFailures: outcome.failures, lastError: outcome.lastError, attempted: outcome.attempts > 0,
                                                 deliveredAny: !outcome.delivered.isEmpty)
            let saved = try await subscriptions.saveProgress(provider: subscription.provider, id: subscription.id, generation: subscription.generation, progress)
            lastSave = .now
            let pendingLag = handled < batch.count ? Self.secondsSince(batch[handled].recordedAtMicros) : 0
            state.withLock { state in
                state.statuses[key]?.attempts += Int64(outcome.attempts)
                state.statuses[key]?.failedAttempts += Int64(outcome.failedAttempts)
            }
            publish(key, subscription, lag: pendingLag)
            guard saved else {
                wake.notify()  // changed through the API meanwhile: start again from the stored row
                return false
            }
            // A pause or an event not delivered ends the task; the supervisor starts it again from the stored row.
            return !outcome.paused && handled == batch.count
        }
    }

    private func publish(_ key: String, _ subscription: WebhookSubscription, lag: Double) {
        state.withLock { state in
            guard state.statuses[key]?.subscription.generation == subscription.generation else { return }
            state.statuses[key]?.subscription = subscription
            state.statuses[key]?.lagSeconds = lag
        }
    }

    static func secondsSince(_ micros: Int64) -> Double {
        max(0, Date().timeIntervalSince1970 - Double(micros) / 1_000_000)
    }

    private struct BatchOutcome: Sendable {
        var delivered: Set<Int> = []
        var paused = false
        var failures = 0
        var lastError: String?
        var attempts = 0
        var failedAttempts = 0
        /// Failed attempts of the event each stream is stuck on.
        var stuck: [String: Int] = [:]
    }

    /// Delivers the matched events of one batch: streams concurrently (bounded), each stream in order.
    private func deliver(_ matched: [(offset: Int, element: RecordedEvent)], of subscription: WebhookSubscription,
                         target: inout (WebhookTarget, ContinuousClock.Instant)?) async -> BatchOutcome {
        guard !matched.isEmpty else { return BatchOutcome() }
        var order: [String] = []
        var byStream: [String: [(Int, RecordedEvent)]] = [:]
        for (index, event) in matched {
            if byStream[event.streamId] == nil { order.append(event.streamId) }
            byStream[event.streamId, default: []].append((index, event))
        }
        let outcome = Locked(BatchOutcome())
        let resolved = Locked(target)
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func startNext() {
                guard next < order.count else { return }
                let events = byStream[order[next]]!
                next += 1
                group.addTask {
                    for (index, event) in events {
                        if Task.isCancelled || outcome.withLock({ $0.paused }) { return }
                        guard await self.deliverWithRetries(event, subscription, outcome: outcome, target: resolved) else { return }
                        outcome.withLock { _ = $0.delivered.insert(index) }
                    }
                }
            }
            for _ in 0..<min(options.maxInFlight, order.count) { startNext() }
            while await group.next() != nil {
                if outcome.withLock({ $0.paused }) { continue }
                startNext()
            }
        }
        target = resolved.withLock { $0 }
        var result = outcome.withLock { $0 }
        result.failures = result.stuck.values.max() ?? 0
        return result
    }

    /// One event until it is answered 2xx (true), or the subscription pauses or stops (false).
    private func deliverWithRetries(_ event: RecordedEvent, _ subscription: WebhookSubscription, outcome: Locked<BatchOutcome>,
                                    target: Locked<(WebhookTarget, ContinuousClock.Instant)?>) async -> Bool {
        let body = Self.body(event)
        var attempt = 0
        while !Task.isCancelled {
            attempt += 1
            let error = await post(body, event: event, subscription, target: target)
            if error == nil {
                outcome.withLock { state in
                    state.attempts += 1
                    state.stuck[event.streamId] = nil
                }
                return true
            }
            let pause = attempt >= options.maxFailures
            outcome.withLock { state in
                state.attempts += 1
                state.failedAttempts += 1
                state.lastError = "event \(event.id.uuidString.lowercased()) (position \(event.globalPosition)), attempt \(attempt): \(error!)"
                state.stuck[event.streamId] = attempt
                if pause { state.paused = true }
            }
            if pause { return false }
            // Exponential backoff with "equal jitter": half the delay fixed, half random.
            let exponent = min(attempt - 1, 30)
            let delay = min(options.retryMax, options.retryBase * (1 << exponent))
            let jittered = delay / 2 + delay / 2 * Double.random(in: 0...1)
            try? await Task.sleep(for: jittered)
            if outcome.withLock({ $0.paused }) { return false }
        }
        return false
    }

    /// The delivery body: `{"eventId","globalPosition","streamId","streamVersion","type","data","recordedTime"}`.
    static func body(_ event: RecordedEvent) -> [UInt8] {
        JSONValue.object(JSONObject([
            ("eventId", .string(event.id.uuidString.lowercased())),
            ("globalPosition", .number(JSONNumber(event.globalPosition))),
            ("streamId", .string(event.streamId)),
            ("streamVersion", .number(JSONNumber(event.streamVersion))),
            ("type", .string(event.type)),
            ("data", event.data),
            ("recordedTime", .string(Timestamp(microsecondsSinceEpoch: event.recordedAtMicros).rfc3339)),
        ])).compactBytes()
    }

    /// One attempt; nil when answered 2xx, else what went wrong.
    private func post(_ body: [UInt8], event: RecordedEvent, _ subscription: WebhookSubscription,
                      target: Locked<(WebhookTarget, ContinuousClock.Instant)?>) async -> String? {
        var checked = target.withLock { $0 }
        if checked == nil || checked!.0.url != subscription.url || ContinuousClock.now - checked!.1 > .seconds(60) {
            do throws(APIError) {
                checked = (try await WebhookTarget.resolve(subscription.url, allowPrivate: options.allowPrivate), ContinuousClock.now)
                target.withLock { $0 = checked }
            } catch {
                return error.message
            }
        }
        let seconds = Int64(Date().timeIntervalSince1970)
        let request = HTTPClient.Request(
            url: subscription.url, method: "POST",
            headers: [("Content-Type", "application/json"), ("User-Agent", "waymark-webhooks/1"),
                      ("Waymark-Event-Id", event.id.uuidString.lowercased()),
                      ("Waymark-Signature", WebhookSignature.header(secret: subscription.secret, body: body, unixSeconds: seconds))],
            body: body, timeout: options.timeout, connectTimeout: min(options.timeout, .seconds(5)), pinnedAddress: checked!.0.address)
        do throws(HTTPError) {
            let response = try await HTTPClient.send(request)
            if (200..<300).contains(response.status) { return nil }
            let snippet = String(decoding: response.body.prefix(200), as: UTF8.self)
            return "the receiver answered \(response.status)\(snippet.isEmpty ? "" : ": \(snippet)")"
        } catch {
            return error.message
        }
    }
}

/// A value shared by the tasks of one batch (a `Mutex` cannot be captured by escaping closures).
private final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<T>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}
