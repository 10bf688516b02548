import EventStore
import Foundation
import JSON
import Journey
import Synchronization

/// A loaded aggregate: its state and the stream version it reflects.
struct Loaded<State: Sendable>: Sendable {
    var state: State
    var version: Int64
    /// Where the latest event that changes more than a vehicle's location (see
    /// `Aggregate.changesOnlyLocation`) sits in the global feed; nil when not known.
    var structuralPosition: FeedPosition? = nil
}

/// Loads aggregates from their streams and appends their new events.
///
/// A bounded in-memory cache keeps each stream's folded state and its version, and a load that
/// finds the stream cached trusts it without a read. That is safe because appends carry the
/// loaded version as the expected version: if anything (another node, another request) wrote
/// since, the append fails with a conflict, the caller `forget`s the stream and reloads it from
/// the store (catching up from the cached version), and decides again.
final class AggregateRepository: Sendable {
    let store: EventStore
    /// Writers of this process that name the same streams take turns (see `StreamLeases`).
    let leases = StreamLeases()
    /// A cached stream: a committed state and its version, and whether a conflict showed it is behind.
    private struct Entry<State: Sendable>: Sendable {
        var loaded: Loaded<State>
        var behind = false
    }

    private let trips: Mutex<RecentCache<Entry<Trip.State>>>
    private let vehicles: Mutex<RecentCache<Entry<Vehicle.State>>>
    /// Where this node's latest append to each stream sits in the feed, until a read has seen it applied.
    private let written = Mutex<[String: FeedPosition]>([:])
    /// The feed position of this node's latest append to any stream.
    private let latest = Mutex<FeedPosition?>(nil)
    /// Unseen writes remembered before that map is cleared (a cheap bound: entries are small and
    /// dropped as reads see them applied).
    private let writtenCapacity = 200_000

    /// The default number of streams cached per aggregate kind.
    static let defaultCapacity = 10_000

    /// `capacity`: streams cached per aggregate kind, least recently used evicted first. Only a
    /// cache: a miss reloads the stream from the store.
    init(store: EventStore, capacity: Int = AggregateRepository.defaultCapacity) {
        self.store = store
        trips = Mutex(RecentCache(capacity: capacity))
        vehicles = Mutex(RecentCache(capacity: capacity))
    }

    static func tripStream(provider: String, tripId: String) -> String { "trip:\(provider)/\(tripId)" }
    static func vehicleStream(provider: String, vehicleId: String) -> String { "vehicle:\(provider)/\(vehicleId)" }

    func loadTrip(provider: String, tripId: String) async throws(APIError) -> Loaded<Trip.State> {
        try await load(TripAggregate.self, Self.tripStream(provider: provider, tripId: tripId), cache: trips)
    }

    func loadVehicle(provider: String, vehicleId: String) async throws(APIError) -> Loaded<Vehicle.State> {
        try await load(VehicleAggregate.self, Self.vehicleStream(provider: provider, vehicleId: vehicleId), cache: vehicles)
    }

    private func load<A: Aggregate>(_: A.Type, _ stream: String, cache: borrowing Mutex<RecentCache<Entry<A.State>>>) async throws(APIError) -> Loaded<A.State> {
        let cached = cache.withLock { $0.get(stream) }
        if let cached, !cached.behind { return cached.loaded }
        // A cached state is a committed prefix of the stream: catch up from its version.
        var loaded = cached?.loaded ?? Loaded(state: A.initial, version: 0)
        let pageSize = 1000
        while true {
            let events: [RecordedEvent]
            do throws(EventStoreError) {
                events = try await store.readStream(stream, from: loaded.version + 1, limit: pageSize)
            } catch {
                throw APIError(error, doing: "read \(A.kind) stream")
            }
            for event in events {
                do {
                    let decoded = try A.decode(type: event.type, json: event.data)
                    loaded.state = A.evolve(loaded.state, with: decoded)
                    if !A.changesOnlyLocation(decoded) { loaded.structuralPosition = event.feedPosition }
                } catch {
                    // An event this build cannot read: it counts for the version, as it does in the projections.
                    loaded.structuralPosition = event.feedPosition
                }
                loaded.version = event.streamVersion
            }
            if events.count < pageSize { break }
        }
        remember(loaded, stream, cache: cache)
        return loaded
    }

    private func remember<S>(_ loaded: Loaded<S>, _ stream: String, cache: borrowing Mutex<RecentCache<Entry<S>>>) {
        cache.withLock { entries in Self.remember(loaded, stream, in: &entries) }
    }

    /// Caches `loaded` for `stream` unless a later version is cached already.
    private static func remember<S>(_ loaded: Loaded<S>, _ stream: String, in entries: inout RecentCache<Entry<S>>) {
        entries.set(stream, Entry(loaded: loaded)) { cached in cached.loaded.version > loaded.version }
    }

    /// Events of one aggregate ready to append.
    struct Pending<A: Aggregate> {
        var stream: String
        var before: Loaded<A.State>
        var events: [A.Event]
        /// The state after the events.
        var after: A.State

        init(stream: String, before: Loaded<A.State>, events: [A.Event]) {
            self.stream = stream
            self.before = before
            self.events = events
            after = events.reduce(before.state) { A.evolve($0, with: $1) }
        }
    }

    func pendingTrip(provider: String, tripId: String, before: Loaded<Trip.State>, events: [Trip.Event]) -> Pending<TripAggregate> {
        Pending(stream: Self.tripStream(provider: provider, tripId: tripId), before: before, events: events)
    }

    func pendingVehicle(provider: String, vehicleId: String, before: Loaded<Vehicle.State>, events: [Vehicle.Event]) -> Pending<VehicleAggregate> {
        Pending(stream: Self.vehicleStream(provider: provider, vehicleId: vehicleId), before: before, events: events)
    }

    /// The append for `pending`, expecting the version it was decided on; `ids` names the events
    /// (one per event, for idempotent retries), random ids otherwise.
    func append<A: Aggregate>(_ pending: Pending<A>, metadata: JSONValue, ids: [UUID]? = nil) throws(APIError) -> StreamAppend {
        var events: [EventData] = []
        for (index, event) in pending.events.enumerated() {
            let id = ids?[index] ?? UUID.random()
            if let canonical = A.canonicalPayload(of: event) {
                events.append(EventData(id: id, type: A.type(of: event), canonicalData: canonical, metadata: metadata))
                continue
            }
            let data: JSONValue
            do { data = try A.payload(of: event) } catch { throw APIError(error) }
            events.append(EventData(id: id, type: A.type(of: event), data: data, metadata: metadata))
        }
        let expected: ExpectedVersion = pending.before.version == 0 ? .noStream : .exact(pending.before.version)
        return StreamAppend(streamId: pending.stream, expectedVersion: expected, events: events)
    }

    /// Remembers the state after a successful append, and where the append sits in the feed.
    func committed<A: Aggregate>(_ pending: Pending<A>, _ result: AppendResult) {
        committed([(pending, result)])
    }

    /// Remembers the states after successful appends of one kind, taking each lock once for all
    /// of them (a batch of location reports commits hundreds of vehicles at a time).
    func committed<A: Aggregate>(_ appends: [(pending: Pending<A>, result: AppendResult)]) {
        let positions = appends.compactMap { append in append.result.feedPosition.map { (append.pending.stream, $0) } }
        if let highest = positions.lazy.map(\.1).max() {
            latest.withLock { latest in latest = max(latest ?? highest, highest) }
            let capacity = writtenCapacity
            written.withLock { written in
                for (stream, position) in positions {
                    if written.count >= capacity { written.removeAll(keepingCapacity: true) }
                    if let known = written.updateValue(position, forKey: stream), known > position { written[stream] = known }
                }
            }
        }
        let loaded = appends.map { pending, result in
            // A deduplicated append wrote nothing: where its events sit is not known here.
            let structural = result.deduplicated ? nil
                : pending.events.allSatisfy(A.changesOnlyLocation) ? pending.before.structuralPosition : result.feedPosition
            return (stream: pending.stream, loaded: Loaded(state: pending.after, version: result.lastVersion, structuralPosition: structural))
        }
        A.remember(loaded, in: self)
    }

    func rememberTrips(_ states: [(stream: String, loaded: Loaded<Trip.State>)]) {
        trips.withLock { entries in for (stream, loaded) in states { Self.remember(loaded, stream, in: &entries) } }
    }

    func rememberVehicles(_ states: [(stream: String, loaded: Loaded<Vehicle.State>)]) {
        vehicles.withLock { entries in for (stream, loaded) in states { Self.remember(loaded, stream, in: &entries) } }
    }

    /// The feed position of this node's latest append to `stream` that no read has yet seen applied.
    func unseenWrite(_ stream: String) -> FeedPosition? {
        written.withLock { $0[stream] }
    }

    /// The feed position of this node's latest append, for reads over many streams (read-your-writes).
    var latestWrite: FeedPosition? { latest.withLock { $0 } }

    /// Drops `stream`'s unseen write once a read saw `position` applied (unless a later append came in).
    func sawApplied(_ stream: String, _ position: FeedPosition) {
        written.withLock { written in
            if written[stream] == position { written[stream] = nil }
        }
    }

    /// Marks a stream whose cached state turned out to be behind (after a conflict): the next load catches up.
    func forget(_ stream: String) {
        trips.withLock { $0.modify(stream) { $0.behind = true } }
        vehicles.withLock { $0.modify(stream) { $0.behind = true } }
    }

    /// Appends in one transaction; results in order.
    func commit(_ appends: [StreamAppend]) async -> [Result<AppendResult, EventStoreError>] {
        await store.appendBatch(appends)
    }
}
