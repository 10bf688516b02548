import Foundation
import JSON
import Journey
import Projections
import ReadModels
import Synchronization

/// Keeps the encoded journey views and fans their changes out to riders: SSE streams and long polls.
///
/// One hub per server, no task or thread per rider. Changes arrive from the journey runner's
/// `DocumentMirror` (`mirrorUpdated`, on the runner's task, right after each committed batch) while
/// this node owns the journey projection. Otherwise the owner's NOTIFY on `waymark_journey` (sent
/// when its batch commits, naming the changed trips; see `ProjectionNotification`) makes the hub
/// re-read just those of them riders are subscribed to, at once; and as a fallback (a notification
/// missed while the listening connection was down) one ticker task polls the table for every
/// subscribed trip, once a second (`pollInterval`). Table reads run one at a time. The same ticker
/// (every 250 ms) times out long polls, and once a second writes heartbeats to streams idle for
/// 15 s, ends streams whose token or share link expired, and drops streams whose client left.
///
/// Ordering: every write to a stream happens under the `subscribers` lock and only a version newer
/// than the last one sent to that stream is written, so a rider sees versions in increasing order,
/// each at most once, whatever races between the runner, the poller and a new subscription.
/// Stream `onClose` actions are not used (a close can run inside `write`, under the lock); closed
/// streams are swept instead. Lock order: `subscribers`, then a stream's or the mirror's lock.
final class JourneyHub: Sendable {
    /// How a long poll ended.
    enum WaitResult: Sendable {
        case changed
        case deleted
        case timedOut
    }

    /// What the hub can say from memory about a trip's view.
    enum Lookup {
        case found(JourneySnapshot)
        case missing
        /// The mirror is not valid (this node does not own the journey projection): ask the table.
        case unknown
    }

    /// What keeps a stream allowed, besides its trip.
    struct Access: Sendable {
        /// Unix seconds when the token or link stops working; the stream ends then.
        var expires: Int64?
        /// The share link the stream reads through, checked at every change of the trip's links.
        var shareLinkId: String?
        /// Whether the reader may still read the trip, for access that follows the trip's state (a
        /// driver's vehicle being assigned, a rider's consumerId): asked every `recheckInterval`,
        /// and the stream ends with `ACCESS_WITHDRAWN` once it says no. nil: nothing to re-check.
        var stillAllowed: (@Sendable () async -> Bool)?
    }

    private struct Subscription {
        let stream: any EventSink
        /// The `rank` of the last snapshot sent.
        var lastSent: Int64?
        var lastWrite: ContinuousClock.Instant
        let access: Access
    }

    private struct Waiter {
        /// The `rank` of the snapshot the caller has.
        let after: Int64
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<WaitResult, Never>
    }

    private struct Subscribers {
        var streams: [String: [UInt64: Subscription]] = [:]
        var waiters: [String: [UInt64: Waiter]] = [:]
        /// Share-link documents read by the poller while the mirror is not valid.
        var polledShares: [String: JourneyViewShares] = [:]
        var nextId: UInt64 = 1
        var stopped = false
    }

    let readModel: JourneyReadModel
    private let clock: @Sendable () -> Timestamp
    private let cache = Mutex<[String: JourneySnapshot]>([:])
    private let subscribers = Mutex(Subscribers())
    private let ticker = Mutex<Task<Void, Never>?>(nil)
    private let pollInterval: Duration
    /// Where to LISTEN for the journey runner's notifications (the primary); nil: poll only.
    private let listenConninfo: String?
    private let listener = Mutex<ProjectionNotification.Listener?>(nil)
    private let refreshes = Mutex(PendingRefreshes())

    /// Trips waiting to be re-read from the table, and whether a task is reading.
    private struct PendingRefreshes {
        var all = false
        var keys: Set<String> = []
        var running = false
    }

    static let cacheCapacity = 100_000
    static let heartbeatInterval: Duration = .seconds(15)
    /// How often streams whose access follows the trip's state are re-checked (every node checks its own).
    static let recheckInterval: Duration = .seconds(2)
    private let rechecking = Atomic<Bool>(false)
    static let viewsCollection = JourneyViewProjection.viewsCollection

    /// - Parameters:
    ///   - pollInterval: how often a node that does not own the journey projection re-reads every subscribed trip.
    ///   - listenConninfo: the primary database, to LISTEN on the journey projection's channel; nil: poll only.
    init(readModel: JourneyReadModel, clock: @escaping @Sendable () -> Timestamp, pollInterval: Duration = .seconds(1),
         listenConninfo: String? = nil) {
        self.readModel = readModel
        self.clock = clock
        self.pollInterval = pollInterval
        self.listenConninfo = listenConninfo
        readModel.mirror?.observe { [weak self] update in self?.mirrorUpdated(update) }
    }

    /// Starts the ticker (timeouts, heartbeats, expiry, polling) and the listener.
    func start() {
        let pollTicks = max(1, Int(pollInterval / .milliseconds(250)))
        let recheckTicks = max(1, Int(Self.recheckInterval / .milliseconds(250)))
        let task = Task { [weak self] in
            var tick = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                guard let self else { return }
                self.expireWaiters(now: .now)
                tick += 1
                if tick % 4 == 0 { self.sweep(now: .now) }
                if tick % recheckTicks == 0 { self.recheckAccess() }
                if tick % pollTicks == 0, !(self.readModel.mirror?.isValid ?? false) { self.requestRefresh(nil) }
            }
        }
        ticker.withLock { $0 = task }
        if let listenConninfo {
            let started = ProjectionNotification.Listener(conninfo: listenConninfo, projection: JourneyViewProjection.name) { [weak self] notification in
                self?.notified(notification)
            }
            listener.withLock { $0 = started }
        }
    }

    /// Stops the ticker and answers every long poll (as timed out). Streams are left to the HTTP
    /// server's shutdown, which ends each with its `finalBytesOnShutdown`.
    func stop() async {
        let task = ticker.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
        await listener.withLock({ listener -> ProjectionNotification.Listener? in
            defer { listener = nil }
            return listener
        })?.stop()
        let waiting = subscribers.withLock { state -> [Waiter] in
            state.stopped = true
            defer { state.waiters = [:] }
            return state.waiters.values.flatMap(\.values)
        }
        for waiter in waiting { waiter.continuation.resume(returning: .timedOut) }
    }

    /// Open streams (for tests and metrics).
    var streamCount: Int {
        subscribers.withLock { $0.streams.values.reduce(0) { $0 + $1.count } }
    }

    // MARK: - Snapshots

    /// The current view of a trip from memory only (mirror plus encoded cache); never blocks.
    func memorySnapshot(_ key: String) -> Lookup {
        guard let mirrored = readModel.memoryDocument(Self.viewsCollection, key) else { return .unknown }
        guard let document = mirrored else { return .missing }
        return snapshot(key, of: document).map { Lookup.found($0.seen(at: clock())) } ?? .missing
    }

    /// The current view of a trip, from memory when possible, else from the table; nil when there is none.
    func snapshot(_ key: String) async throws(APIError) -> JourneySnapshot? {
        switch memorySnapshot(key) {
        case .found(let snapshot): return snapshot
        case .missing: return nil
        case .unknown: break
        }
        guard let document = try await readModel.documents(Self.viewsCollection, keys: [key])[key] else { return nil }
        return snapshot(key, of: document)?.seen(at: clock())
    }

    /// The encoded snapshot of a view document: the cached one when its version matches, else made and cached.
    private func snapshot(_ key: String, of document: JSONValue) -> JourneySnapshot? {
        let version = document["version"]?.int64Value
        if let cached = cache.withLock({ $0[key] }), cached.version == version { return cached }
        guard let made = JourneySnapshot(key: key, document: document) else { return nil }
        remember(made)
        return made
    }

    /// Caches a snapshot unless a newer one is cached already (bounded: cleared when full).
    private func remember(_ snapshot: JourneySnapshot) {
        cache.withLock { cache in
            if let cached = cache[snapshot.key], cached.version >= snapshot.version { return }
            if cache.count >= Self.cacheCapacity { cache.removeAll(keepingCapacity: true) }
            cache[snapshot.key] = snapshot
        }
    }

    // MARK: - Long polls

    /// Waits until the view of `key` moves past the snapshot of rank `after` (a new version, or the
    /// vehicle turning stale), it is deleted, or `timeout` passes.
    func wait(_ key: String, after rank: Int64, timeout: Duration) async -> WaitResult {
        let deadline = ContinuousClock.now + timeout
        return await withCheckedContinuation { (continuation: CheckedContinuation<WaitResult, Never>) in
            let immediate = subscribers.withLock { state -> WaitResult? in
                if state.stopped { return .timedOut }
                // A change that landed after the caller looked: answer now (memory only; the poller covers the rest).
                if let mirrored = readModel.memoryDocument(Self.viewsCollection, key) {
                    guard let document = mirrored else { return .deleted }
                    if snapshot(key, of: document)?.seen(at: clock()).rank != rank { return .changed }
                }
                let id = state.nextId
                state.nextId += 1
                state.waiters[key, default: [:]][id] = Waiter(after: rank, deadline: deadline, continuation: continuation)
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }

    private func expireWaiters(now: ContinuousClock.Instant) {
        let expired = subscribers.withLock { state -> [Waiter] in
            var expired: [Waiter] = []
            for (key, waiters) in state.waiters {
                for (id, waiter) in waiters where waiter.deadline <= now {
                    expired.append(waiter)
                    state.waiters[key]?.removeValue(forKey: id)
                }
                if state.waiters[key]?.isEmpty == true { state.waiters[key] = nil }
            }
            return expired
        }
        for waiter in expired { waiter.continuation.resume(returning: .timedOut) }
    }

    // MARK: - Streams

    /// Subscribes `stream` to the trip's view: sends `initial` unless the rider has it (`lastEventId`),
    /// then every newer version, and ends the stream when the trip ends.
    func subscribe(_ key: String, stream: any EventSink, lastEventId: Int64?, access: Access, initial: JourneySnapshot) {
        let now = ContinuousClock.now
        // A Last-Event-ID above the current version belongs to another lifecycle of the trip id: start afresh.
        let resumeFrom = lastEventId.flatMap { $0 <= initial.version ? JourneySnapshot.rank(ofVersion: $0) : nil }
        let id = subscribers.withLock { state -> UInt64 in
            let id = state.nextId
            state.nextId += 1
            state.streams[key, default: [:]][id] = Subscription(stream: stream, lastSent: resumeFrom, lastWrite: now, access: access)
            offer(initial, to: id, key: key, in: &state, now: now)
            return id
        }
        // A change applied between the caller's read and the registration was delivered to others only.
        if case .found(let latest) = memorySnapshot(key), latest.rank > initial.rank {
            subscribers.withLock { state in offer(latest, to: id, key: key, in: &state, now: .now) }
        }
    }

    /// Writes `snapshot` to one stream if it is newer than what the stream has; ends the stream at trip end.
    private func offer(_ snapshot: JourneySnapshot, to id: UInt64, key: String, in state: inout Subscribers, now: ContinuousClock.Instant) {
        guard var subscription = state.streams[key]?[id] else { return }
        if subscription.lastSent.map({ snapshot.rank > $0 }) ?? true {
            guard subscription.stream.write(snapshot.frame) else {
                remove(id, key: key, in: &state)
                return
            }
            subscription.lastSent = snapshot.rank
            subscription.lastWrite = now
            state.streams[key]?[id] = subscription
        }
        if let reason = snapshot.endReason, subscription.lastSent.map({ $0 >= snapshot.rank }) == true {
            subscription.stream.finish(JourneySnapshot.endFrame(reason))
            remove(id, key: key, in: &state)
        }
    }

    /// Ends one stream with `event: end` and the reason.
    private func end(_ id: UInt64, key: String, reason: String, in state: inout Subscribers) {
        state.streams[key]?[id]?.stream.finish(JourneySnapshot.endFrame(reason))
        remove(id, key: key, in: &state)
    }

    private func remove(_ id: UInt64, key: String, in state: inout Subscribers) {
        state.streams[key]?.removeValue(forKey: id)
        if state.streams[key]?.isEmpty == true {
            state.streams[key] = nil
            state.polledShares[key] = nil
        }
    }

    /// Delivers a new version (or its stale variant) to every stream and long poll of its trip.
    private func deliver(_ fresh: JourneySnapshot) {
        let key = fresh.key
        let snapshot = fresh.seen(at: clock())
        let woken = subscribers.withLock { state -> [Waiter] in
            let now = ContinuousClock.now
            for id in (state.streams[key] ?? [:]).keys.sorted() { offer(snapshot, to: id, key: key, in: &state, now: now) }
            var woken: [Waiter] = []
            for (id, waiter) in state.waiters[key] ?? [:] where waiter.after < snapshot.rank {
                woken.append(waiter)
                state.waiters[key]?.removeValue(forKey: id)
            }
            if state.waiters[key]?.isEmpty == true { state.waiters[key] = nil }
            return woken
        }
        for waiter in woken { waiter.continuation.resume(returning: .changed) }
    }

    /// The trip's view is gone (trip deleted): end its streams, answer its long polls.
    private func deliverDeleted(_ key: String) {
        cache.withLock { _ = $0.removeValue(forKey: key) }
        let woken = subscribers.withLock { state -> [Waiter] in
            for id in (state.streams[key] ?? [:]).keys.sorted() { end(id, key: key, reason: "TRIP_DELETED", in: &state) }
            defer { state.waiters[key] = nil }
            return Array((state.waiters[key] ?? [:]).values)
        }
        for waiter in woken { waiter.continuation.resume(returning: .deleted) }
    }

    /// The share links of a trip: from the mirror while it is valid, else as last polled; nil when
    /// not known yet (a stream opened since the last poll: it was checked when it opened).
    private func shares(_ key: String, in state: Subscribers) -> JourneyViewShares? {
        if let mirrored = readModel.memoryDocument(JourneyViewProjection.sharesCollection, key) {
            return mirrored.flatMap(JourneyViewShares.init(document:)) ?? JourneyViewShares()
        }
        return state.polledShares[key]
    }

    /// Ends the trip's streams whose share link was revoked or has expired.
    private func checkLinks(_ key: String, in state: inout Subscribers, at time: Timestamp) {
        guard let streams = state.streams[key], streams.values.contains(where: { $0.access.shareLinkId != nil }),
              let links = shares(key, in: state)
        else { return }
        for (id, subscription) in streams.sorted(by: { $0.key < $1.key }) {
            guard let linkId = subscription.access.shareLinkId, let reason = links.refusal(of: linkId, at: time) else { continue }
            end(id, key: key, reason: reason, in: &state)
        }
    }

    /// Asks every stream whose access follows the trip's state whether it may still read, one at a
    /// time on a task of its own (a round still running is not overlapped), and ends those refused.
    private func recheckAccess() {
        guard !rechecking.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let checks = subscribers.withLock { state -> [(key: String, id: UInt64, allowed: @Sendable () async -> Bool)] in
            state.streams.flatMap { key, streams in
                streams.compactMap { id, subscription in subscription.access.stillAllowed.map { (key, id, $0) } }
            }
        }
        guard !checks.isEmpty else {
            rechecking.store(false, ordering: .releasing)
            return
        }
        Task { [weak self] in
            var refused: [(String, UInt64)] = []
            for check in checks where !(await check.allowed()) { refused.append((check.key, check.id)) }
            if let self {
                self.subscribers.withLock { state in
                    for (key, id) in refused where state.streams[key]?[id] != nil { self.end(id, key: key, reason: "ACCESS_WITHDRAWN", in: &state) }
                }
                self.rechecking.store(false, ordering: .releasing)
            }
        }
    }

    /// Once a second: drop closed streams, end expired ones, check share links, send heartbeats,
    /// and push the stale variant of views whose vehicle went silent.
    private func sweep(now: ContinuousClock.Instant) {
        let time = clock()
        let unix = time.microsecondsSinceEpoch / 1_000_000
        let watched = subscribers.withLock { Set($0.streams.keys).union($0.waiters.keys) }
        let turnedStale = cache.withLock { cache in
            watched.compactMap { key in cache[key].flatMap { $0.staleTime.map { at in at <= time } == true ? $0 : nil } }
        }
        for snapshot in turnedStale { deliver(snapshot) }
        subscribers.withLock { state in
            for key in Array(state.streams.keys) {
                checkLinks(key, in: &state, at: time)
                for (id, subscription) in state.streams[key] ?? [:] {
                    if subscription.stream.isClosed {
                        remove(id, key: key, in: &state)
                    } else if let expires = subscription.access.expires, expires <= unix {
                        end(id, key: key, reason: subscription.access.shareLinkId == nil ? "TOKEN_EXPIRED" : "LINK_EXPIRED", in: &state)
                    } else if now - subscription.lastWrite >= Self.heartbeatInterval {
                        if subscription.stream.write(JourneySnapshot.heartbeatFrame) {
                            state.streams[key]?[id]?.lastWrite = now
                        } else {
                            remove(id, key: key, in: &state)
                        }
                    }
                }
            }
        }
    }

    // MARK: - Sources of change

    /// The journey runner's mirror changed (runs on the runner's task, before it publishes the checkpoint).
    func mirrorUpdated(_ update: DocumentMirror.Update) {
        switch update {
        case .invalidated:
            cache.withLock { $0.removeAll() }
        case .reset:
            cache.withLock { $0.removeAll() }
            let keys = subscribers.withLock { Set($0.streams.keys).union($0.waiters.keys) }
            for key in keys.sorted() { refreshFromMemory(key) }
        case .applied(let changes):
            let time = clock()
            for change in changes {
                switch change.collection {
                case Self.viewsCollection:
                    let watched = subscribers.withLock { $0.streams[change.key] != nil || $0.waiters[change.key] != nil }
                    guard watched else {
                        cache.withLock { _ = $0.removeValue(forKey: change.key) }
                        continue
                    }
                    if let document = change.document, let snapshot = snapshot(change.key, of: document) {
                        deliver(snapshot)
                    } else {
                        deliverDeleted(change.key)
                    }
                case JourneyViewProjection.sharesCollection:
                    subscribers.withLock { state in checkLinks(change.key, in: &state, at: time) }
                default:
                    continue
                }
            }
        }
    }

    /// Re-reads one watched trip from the mirror and delivers what changed.
    private func refreshFromMemory(_ key: String) {
        switch memorySnapshot(key) {
        case .found(let snapshot): deliver(snapshot)
        case .missing: deliverDeleted(key)
        case .unknown: return
        }
        let time = clock()
        subscribers.withLock { state in checkLinks(key, in: &state, at: time) }
    }

    /// The journey runner (on whichever node owns it) committed changes (runs on the listener's thread).
    private func notified(_ notification: ProjectionNotification) {
        // The owner's own hub has them from its mirror already.
        guard !(readModel.mirror?.isValid ?? false) else { return }
        requestRefresh(notification.keys)
    }

    /// Asks for the watched trips among `keys` (nil: all watched trips) to be re-read from the table.
    ///
    /// Requests gather while a read runs; one task reads at a time, so an older read never lands
    /// after a newer one (`deliver` would drop an older view anyway; share links would go back).
    private func requestRefresh(_ keys: Set<String>?) {
        let startTask = refreshes.withLock { pending -> Bool in
            if let keys { pending.keys.formUnion(keys) } else { pending.all = true }
            guard !pending.running else { return false }
            pending.running = true
            return true
        }
        if startTask { Task { await self.drainRefreshes() } }
    }

    private func drainRefreshes() async {
        while true {
            let next = refreshes.withLock { pending -> Set<String>?? in
                guard pending.all || !pending.keys.isEmpty else {
                    pending.running = false
                    return .none
                }
                defer { (pending.all, pending.keys) = (false, []) }
                return .some(pending.all ? nil : pending.keys)
            }
            guard case .some(let keys) = next else { return }
            await poll(only: keys)
        }
    }

    /// While another node owns the journey projection: read the watched trips' views and links from
    /// the table (those among `only`, or all of them).
    private func poll(only: Set<String>?) async {
        let (keys, shareKeys) = subscribers.withLock { state -> ([String], [String]) in
            var keys = Set(state.streams.keys).union(state.waiters.keys)
            var shareKeys = Set(state.streams.filter { $0.value.values.contains { $0.access.shareLinkId != nil } }.keys)
            if let only {
                keys.formIntersection(only)
                shareKeys.formIntersection(only)
            }
            return (keys.sorted(), shareKeys.sorted())
        }
        guard !keys.isEmpty else { return }
        guard let views = try? await readModel.documents(Self.viewsCollection, keys: keys),
              let links = try? await readModel.documents(JourneyViewProjection.sharesCollection, keys: shareKeys)
        else { return }
        guard !(readModel.mirror?.isValid ?? false) else { return }  // the runner took over meanwhile
        let time = clock()
        subscribers.withLock { state in
            for key in shareKeys {
                state.polledShares[key] = links[key].flatMap(JourneyViewShares.init(document:)) ?? JourneyViewShares()
                checkLinks(key, in: &state, at: time)
            }
        }
        for key in keys {
            if let document = views[key], let snapshot = snapshot(key, of: document) {
                deliver(snapshot)
            } else {
                deliverDeleted(key)
            }
        }
    }
}
