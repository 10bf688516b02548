import EventStore
import Foundation
import JSON
import Journey
import Postgres
import ReadModels
import Signing
import Synchronization

/// The process manager that turns vehicles' location events into arrival facts.
///
/// It tails the global feed, folds each vehicle's events through the pure `StopArrival.detect`,
/// and appends what it decides to the trip's `arrival:{provider}/{tripId}` stream. Each appended
/// event's id is derived from the id of the vehicle event that caused it, so running the same
/// events again (after a crash between the append and the checkpoint, or on another node) appends
/// nothing new: the store ignores an event id it already has. The detector state of each vehicle
/// and the feed checkpoint are written in one transaction after the appends, on the session that
/// holds the detector's lock (`FeedFollower`: one node detects, the others stand by).
///
/// Why here and not in a projection or the vehicle aggregate: arrivals are facts others subscribe
/// to (webhooks, audits), so they belong in the log; deciding them in the ingest path would put a
/// second stream's write into every location report; a projection must not write events. The
/// decision itself stays in `Journey`, pure and replayable from the vehicle's stream alone.
package final class ArrivalDetector: Sendable {
    /// Geofence and dwell per provider.
    package struct Settings: Sendable {
        package var enabled = true
        package var defaults = StopArrival.Options()
        package var perProvider: [String: StopArrival.Options] = [:]
        /// Moves a trip that is NEW or ENROUTE_TO_PICKUP to ARRIVED_AT_PICKUP when its vehicle arrives at the
        /// pickup (`WAYMARK_ARRIVALS_ADVANCE_TRIP_STATUS`, off by default: Fleet Engine leaves this to the app).
        package var advanceTripStatus = false
        /// Vehicle states kept in memory between batches (`WAYMARK_PROJECTION_RECORDS`); beyond an
        /// eighth more, the least recently changed are dropped, and read back from
        /// `arrival_detector_vehicles` when the vehicle's next input arrives.
        package var cachedVehicles = 10_000

        package init() {}

        package func options(for provider: String) -> StopArrival.Options { perProvider[provider] ?? defaults }
    }

    /// Progress, for `/metrics`.
    package struct Status: Sendable, Hashable {
        package var isOwner = false
        package var checkpoint = FeedPosition.start
        package var eventsAppended: Int64 = 0
        package var lastError: String?
    }

    /// Vehicle event types the detector reads; others are skipped without decoding.
    static let inputTypes: Set<String> = [
        Vehicle.Event.vehicleLocationReported, Vehicle.Event.vehicleTripAssigned, Vehicle.Event.vehicleTripWaypointsUpdated,
        Vehicle.Event.vehicleTripReleased, Vehicle.Event.vehicleWaypointsReordered,
    ]
    static let checkpointName = "arrivals"

    let settings: Settings
    private let store: EventStore
    /// Ownership of the arrivals lock, the checkpoint's status, retries.
    private let follower: FeedFollower
    private let eventsAppended = Mutex<Int64>(0)
    /// Called for each pickup arrival this node appended (not for ones already in the log), when `advanceTripStatus` is on.
    private let advance: (@Sendable (_ provider: String, _ arrival: StopArrival.Event.Arrived) async -> Void)?

    package init(store: EventStore, settings: Settings, advance: (@Sendable (_ provider: String, _ arrival: StopArrival.Event.Arrived) async -> Void)? = nil) {
        self.store = store
        self.settings = settings
        self.advance = settings.advanceTripStatus ? advance : nil
        follower = FeedFollower(store: store, conninfo: store.configuration.conninfo, setupStatements: store.configuration.setupStatements,
                                options: .init(name: "arrivals", lockNamespace: Self.lockNamespace, connectionName: "arrivals",
                                               standbyInterval: .seconds(1), retryDelay: .milliseconds(500)))
    }

    package var status: Status {
        let following = follower.status
        return Status(isOwner: following.isOwner, checkpoint: following.checkpoint, eventsAppended: eventsAppended.withLock { $0 },
                      lastError: following.lastError)
    }

    package func start() {
        guard settings.enabled else { return }
        follower.start { owner in try await self.follow(owner) }
    }

    package func stop() async {
        await follower.stop()
    }

    static let lockNamespace: Int32 = 0x4152  // "AR"

    /// Loads the checkpoint and turns each batch into appends, then stores the changed vehicle states
    /// with the checkpoint on the session that holds the lock.
    private func follow(_ owner: FeedFollower.Owner) async throws {
        let checkpoint = try await owner.withConnection { connection -> FeedPosition in
            try connection.query("INSERT INTO arrival_detector_checkpoint (name) VALUES ($1) ON CONFLICT DO NOTHING", [Self.checkpointName])
            let row = try connection.query("SELECT transaction_id, global_position FROM arrival_detector_checkpoint WHERE name = $1", [Self.checkpointName]).first!
            return FeedPosition(transactionId: try row.uint64(0), globalPosition: try row.int64(1))
        }
        follower.loaded(checkpoint)
        // Each vehicle's state, with the number of the batch that last changed or loaded it.
        var cache: [String: (state: StopArrival.State, batch: UInt32)] = [:]
        var batchNumber: UInt32 = 0
        try await owner.follow(after: checkpoint, batchSize: 500) { batch in
            batchNumber &+= 1
            let inputs = batch.filter { $0.streamId.hasPrefix("vehicle:") && Self.inputTypes.contains($0.type) }
            // Load the states of vehicles not seen since this runner started.
            let missing = Set(inputs.map(\.streamId)).subtracting(cache.keys)
            if !missing.isEmpty {
                let loaded = try await owner.withConnection { connection -> [(String, String)] in
                    try connection.query("SELECT stream_id, state::text FROM arrival_detector_vehicles WHERE stream_id = ANY($1::text[])",
                                         [WebhookStore.arrayLiteral(missing.sorted())]).rows.map { (try $0.string(0), try $0.string(1)) }
                }
                for (stream, text) in loaded {
                    cache[stream] = (try JSONValueDecoder().decode(StopArrival.State.self, from: try JSONValue.parse(Array(text.utf8))), batchNumber)
                }
            }
            var changed: [String: StopArrival.State] = [:]
            var appends: [StreamAppend] = []
            var pickups: [Int: (String, StopArrival.Event.Arrived)] = [:]  // append index → arrival at a pickup
            for event in inputs {
                guard let (_, provider, vehicleId) = Self.parse(event.streamId) else { continue }
                let decoded: Vehicle.Event
                do { decoded = try Vehicle.Event.decode(type: event.type, json: event.data) } catch { continue }
                let before = cache[event.streamId]?.state ?? StopArrival.State()
                let (after, facts) = StopArrival.detect(before, with: decoded, vehicleId: vehicleId, options: settings.options(for: provider))
                if after != before {
                    cache[event.streamId] = (after, batchNumber)
                    changed[event.streamId] = after
                }
                for (index, fact) in facts.enumerated() {
                    if case .arrived(let arrival) = fact, arrival.waypointType == .pickup { pickups[appends.count] = (provider, arrival) }
                    let data = try fact.encodePayloadValue()
                    let metadata: JSONValue = .object(JSONObject([("causationId", .string(event.id.uuidString.lowercased())), ("source", "arrival-detector")]))
                    appends.append(StreamAppend(streamId: "arrival:\(provider)/\(fact.tripId)", expectedVersion: .any,
                                                events: [EventData(id: Self.eventId(causedBy: event.id, index: index), type: fact.type, data: data, metadata: metadata)]))
                }
            }
            var appended: Int64 = 0
            var newPickups: [(String, StopArrival.Event.Arrived)] = []
            if !appends.isEmpty {
                for (index, result) in await store.appendBatch(appends).enumerated() {
                    let outcome = try result.get()
                    if !outcome.deduplicated {
                        appended += Int64(outcome.positions.count)
                        if let pickup = pickups[index] { newPickups.append(pickup) }
                    }
                }
            }
            let target = batch.last!.feedPosition
            let states = changed
            try await owner.withSession(orThrow: { PostgresError(.connectionFailed, "the arrival detector's session changed; ownership must be taken again") }) { connection in
                try connection.withTransaction { connection in
                    for (stream, value) in states.sorted(by: { $0.key < $1.key }) {
                        let text = String(decoding: try JSONValueEncoder().encode(value).compactBytes(), as: UTF8.self)
                        try connection.query("""
                            INSERT INTO arrival_detector_vehicles (stream_id, state) VALUES ($1, $2::jsonb)
                            ON CONFLICT (stream_id) DO UPDATE SET state = EXCLUDED.state
                            """, [stream, text])
                    }
                    try connection.query("UPDATE arrival_detector_checkpoint SET transaction_id = $2::bigint, global_position = $3::bigint WHERE name = $1",
                                         [Self.checkpointName, String(target.transactionId), String(target.globalPosition)])
                }
            }
            eventsAppended.withLock { $0 += appended }
            follower.committed(target)
            // Every changed state is stored now, so any may go.
            let limit = settings.cachedVehicles
            if LeastRecent.mustShrink(cache.count, keeping: limit) {
                for stream in LeastRecent.oldest(cache.count - limit, of: cache.map { (key: $0.key, stamp: UInt64($0.value.batch)) }) {
                    cache[stream] = nil
                }
            }
            // In tasks of their own: an update waits for the fleet read model, detection must not.
            if let advance {
                for (provider, arrival) in newPickups { Task { await advance(provider, arrival) } }
            }
            return true
        }
    }

    /// A UUID derived from the causing event's id: the same cause always gives the same id.
    static func eventId(causedBy cause: UUID, index: Int) -> UUID {
        var bytes = Digest.sha256(Array("waymark-arrival|\(cause.uuidString.lowercased())|\(index)".utf8)).prefix(16).map { $0 }
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5 layout (name-based, SHA hash)
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// `vehicle:acme/v-1` → ("vehicle", "acme", "v-1").
    static func parse(_ streamId: String) -> (String, String, String)? {
        guard let colon = streamId.firstIndex(of: ":") else { return nil }
        let rest = streamId[streamId.index(after: colon)...]
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return (String(streamId[..<colon]), String(rest[..<slash]), String(rest[rest.index(after: slash)...]))
    }

    /// Prometheus lines.
    package func metricLines() -> [String] {
        let status = self.status
        return ["# HELP waymark_arrival_detector_position Global position of the last event the arrival detector read.",
                "# TYPE waymark_arrival_detector_position gauge", "waymark_arrival_detector_position \(status.checkpoint.globalPosition)",
                "# HELP waymark_arrival_events_appended_total Arrival events this node appended.",
                "# TYPE waymark_arrival_events_appended_total counter", "waymark_arrival_events_appended_total \(status.eventsAppended)",
                "# TYPE waymark_arrival_detector_owner gauge", "waymark_arrival_detector_owner \(status.isOwner ? 1 : 0)"]
    }
}
