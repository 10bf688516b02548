import Geo
import JSON
import Journey

/// Per trip, the planned route against the driven one, for pricing disputes and audits.
///
/// Documents: `audits` / `providers/P/trips/T` (rendered by `auditDocument`) and `audit_states`
/// (same key, the internal record, so `load` restores exactly what a fresh fold has). Sources:
/// the trip's own events (stops, plans, token execution, statuses) and, for the driven path and
/// off-route episodes, the events of the vehicle serving it: accepted location reports list the
/// trips the vehicle serves (`currentTripIds`), stale and backlog reports are not driven path.
/// Times are the events' `recordedAt`, except the provider-reported ones they carry.
///
/// Deleted trips keep their audit: history is for auditors. `TripDeleted` only stamps
/// `deleteTime` on the document, and later events of the vehicle that served it no longer touch
/// it. When the id is created again (a new lifecycle on the same stream), the finished audit is
/// first moved, unchanged but for its `lifecycle` number, to `providers/P/trips/T/lifecycles/N`
/// (N = 1 for the first lifecycle; trip ids cannot contain `/`, so such keys never clash with a
/// trip's), and the new lifecycle starts a fresh audit under the trip's own key with `lifecycle`
/// N + 1. So the trip's key always holds the latest lifecycle and no lifecycle's record mixes
/// with another's.
package struct RouteAuditProjection: ReadModelProjection, Equatable {
    package static let name = "route_audit"
    /// Public audit documents.
    package static let auditsCollection = "audits"
    /// Internal audit records.
    package static let auditStatesCollection = "audit_states"
    /// The most points the driven polyline keeps before it is thinned.
    package static let maximumDrivenPoints = 1000
    /// A plan destination this close to a stop (meters) is that stop.
    static let stopMatchMeters = 25.0

    /// Records by key `providers/P/trips/T`.
    var audits = RecordMap<AuditRecord>()
    /// Keys whose documents changed since the last drain.
    var dirty: Set<String> = []

    package init() {}

    package mutating func load(_ documents: [DocumentChange]) {
        self = RouteAuditProjection()
        let decoder = JSONValueDecoder()
        for change in documents where change.collection == Self.auditStatesCollection {
            if let document = change.document, let record = try? decoder.decode(AuditRecord.self, from: document) {
                audits[change.key] = record
            }
        }
    }

    package mutating func apply(_ envelope: EventEnvelope) {
        let at = envelope.recordedAt
        switch envelope.event {
        case .trip(let provider, let tripId, let event):
            let key = FleetResourceProjection.tripKey(provider: provider, tripId: tripId)
            if case .created(let created) = event {
                var record = AuditRecord(provider: provider, created: created, at: at)
                if let previous = audits[key] {
                    // The id is reused only after TripDeleted; anything else is a repeat to ignore.
                    guard previous.deletedAt != nil else { return }
                    let lifecycle = previous.lifecycle ?? 1
                    var archived = previous
                    archived.lifecycle = lifecycle
                    let archiveKey = Self.lifecycleKey(key, lifecycle)
                    audits[archiveKey] = archived
                    dirty.insert(archiveKey)
                    record.lifecycle = lifecycle + 1
                }
                audits[key] = record
                dirty.insert(key)
                return
            }
            guard var record = audits[key] else { return }
            Self.applyTrip(event, to: &record, at: at)
            update(key, record)
        case .vehicle(let provider, let vehicleId, let event):
            applyVehicle(provider: provider, vehicleId: vehicleId, event, at: at)
        case .share, .style:
            return  // not part of a route audit
        }
    }

    /// Where the audit of an earlier lifecycle of a re-created trip is kept: `{tripKey}/lifecycles/{n}`.
    package static func lifecycleKey(_ tripKey: String, _ lifecycle: Int) -> String {
        "\(tripKey)/lifecycles/\(lifecycle)"
    }

    package mutating func drainChanges() -> [DocumentChange] {
        let keys = dirty.sorted()
        dirty.removeAll()
        var changes: [DocumentChange] = []
        for key in keys {
            guard let record = audits[key] else { continue }
            changes.append(DocumentChange(collection: Self.auditsCollection, key: key, document: Self.auditDocument(key, record)))
            changes.append(DocumentChange(collection: Self.auditStatesCollection, key: key, document: RecordJSON.generic(record)))
        }
        return changes.sorted { ($0.collection, $0.key) < ($1.collection, $1.key) }
    }

    private mutating func update(_ key: String, _ record: AuditRecord) {
        guard audits[key] != record else { return }
        audits[key] = record
        dirty.insert(key)
    }

    // MARK: Trip events

    private static func applyTrip(_ event: Trip.Event, to record: inout AuditRecord, at: Timestamp) {
        switch event {
        case .created:
            break
        case .vehicleAssigned(let e):
            record.vehicleId = e.vehicleId
            if record.startedAt == nil { record.startedAt = at }
        case .vehicleUnassigned:
            record.vehicleId = nil
        case .statusChanged(let e):
            move(&record, from: e.from, to: e.to, index: e.intermediateDestinationIndex, at: at)
        case .completed(let e):
            move(&record, from: e.from, to: .complete, index: nil, at: at)
            record.endedAt = at
        case .canceled(let e):
            move(&record, from: e.from, to: .canceled, index: nil, at: at)
            record.endedAt = at
        case .intermediateDestinationsChanged(let e):
            let old = record.stops.filter { $0.waypointType == .intermediateDestination }
            let intermediates = e.intermediateDestinations.enumerated().map { offset, location -> Stop in
                if offset < old.count, Distance.meters(old[offset].point, location.point) <= stopMatchMeters { return old[offset] }
                return Stop(waypointType: .intermediateDestination, index: offset, point: location.point)
            }
            record.stops = record.stops.filter { $0.waypointType == .pickup } + intermediates
                + record.stops.filter { $0.waypointType == .dropOff }
        case .dropoffPointSet(let e):
            if let i = record.stops.firstIndex(where: { $0.waypointType == .dropOff }) {
                record.stops[i].point = e.dropoff.point
            } else {
                record.stops.append(Stop(waypointType: .dropOff, point: e.dropoff.point))
            }
        case .pickupPointSet(let e):
            if let i = record.stops.firstIndex(where: { $0.waypointType == .pickup }) {
                record.stops[i].point = e.pickup.point
            }
        case .deleted:
            record.deletedAt = at
        case .actualLocationRecorded, .attributesSet, .routeDestinationAdvanced:
            break
        case .routePlanned(let e):
            let planned = PlannedRoute(plannedAt: at, plan: e.plan)
            if record.plan == nil { record.plan = planned } else { record.latestPlan = planned }
            record.planCount += 1
            record.tokenExecution = nil
            schedule(&record, planned)
        case .routeSelected(let e):
            // The route in force changed before guidance started: audit against the chosen one.
            if var latest = record.latestPlan {
                latest.plan = latest.plan.selecting(e.routeIndex)
                record.latestPlan = latest
                schedule(&record, latest)
            } else if var first = record.plan {
                first.plan = first.plan.selecting(e.routeIndex)
                record.plan = first
                schedule(&record, first)
            }
        case .routeTokenExecutionReported(let e):
            record.tokenExecution = TokenExecution(
                status: e.status, tokenApplied: e.tokenApplied, reported: e.reported, effective: e.effective, reportedAt: at,
                routeStatus: e.routeStatus)
        }
    }

    /// Records arrivals (ARRIVED_AT_*, COMPLETE) and departures (leaving an arrival status).
    private static func move(_ record: inout AuditRecord, from: TripStatus, to: TripStatus, index: Int?, at: Timestamp) {
        let current = record.intermediateIndex
        let departed: Int?
        switch from {
        case .arrivedAtPickup: departed = record.stops.firstIndex { $0.waypointType == .pickup }
        case .arrivedAtIntermediateDestination: departed = record.stops.firstIndex { $0.waypointType == .intermediateDestination && $0.index == current }
        default: departed = nil
        }
        if let departed, record.stops[departed].departedAt == nil { record.stops[departed].departedAt = at }
        if let index { record.intermediateIndex = index }
        let arrived: Int?
        switch to {
        case .arrivedAtPickup: arrived = record.stops.firstIndex { $0.waypointType == .pickup }
        case .arrivedAtIntermediateDestination:
            arrived = record.stops.firstIndex { $0.waypointType == .intermediateDestination && $0.index == record.intermediateIndex }
        case .complete: arrived = record.stops.firstIndex { $0.waypointType == .dropOff }
        default: arrived = nil
        }
        if let arrived, record.stops[arrived].actualArrival == nil { record.stops[arrived].actualArrival = at }
        record.status = to
    }

    /// Sets planned arrivals of the stops not yet reached from a plan: plan time plus the
    /// durations of the legs up to the destination matching each stop (in order, within 25 m).
    private static func schedule(_ record: inout AuditRecord, _ planned: PlannedRoute) {
        var clock: Timestamp? = planned.plannedAt
        var nextStop = 0
        for (j, destination) in planned.plan.destinations.enumerated() {
            clock = clock.flatMap { c in planned.plan.legs[j].durationSeconds.map { c.adding(seconds: Double($0)) } }
            guard let i = record.stops.indices.dropFirst(nextStop).first(where: {
                record.stops[$0].actualArrival == nil && Distance.meters(record.stops[$0].point, destination.point) <= stopMatchMeters
            }) else { continue }
            record.stops[i].plannedArrival = clock
            nextStop = i + 1
        }
    }

    // MARK: Vehicle events

    private mutating func applyVehicle(provider: String, vehicleId: String, _ event: Vehicle.Event, at: Timestamp) {
        switch event {
        case .locationReported(let e):
            for tripId in e.currentTripIds {
                let key = FleetResourceProjection.tripKey(provider: provider, tripId: tripId)
                guard var record = audits[key], record.deletedAt == nil, record.vehicleId == vehicleId, !record.status.isTerminal else { continue }
                record.driven.append(e.location.location, at: at, maximumPoints: Self.maximumDrivenPoints)
                if e.followedTripId == tripId, let deviation = e.routeDeviationMeters,
                   let open = record.episodes.indices.last, record.episodes[open].endedAt == nil {
                    record.episodes[open].maxDeviationMeters = max(record.episodes[open].maxDeviationMeters, deviation)
                }
                update(key, record)
            }
        case .wentOffRoute(let e):
            modify(provider, e.tripId) { record in
                guard record.episodes.last.map({ $0.endedAt != nil }) ?? true else { return }
                record.episodes.append(OffRouteEpisode(
                    startedAt: at, startLocation: e.location, thresholdMeters: e.thresholdMeters, maxDeviationMeters: e.deviationMeters))
            }
        case .rejoinedRoute(let e):
            modify(provider, e.tripId) { Self.close(&$0, at: at, location: e.location, resolution: "REJOINED") }
        case .rerouted(let e):
            modify(provider, e.tripId) { Self.close(&$0, at: at, location: nil, resolution: "REROUTED") }
        case .routeFollowed(let e):
            modify(provider, e.tripId) { Self.close(&$0, at: at, location: nil, resolution: "ROUTE_REPLACED") }
        case .tripReleased(let e):
            modify(provider, e.tripId) { Self.close(&$0, at: at, location: nil, resolution: "TRIP_RELEASED") }
        default:
            break
        }
    }

    /// The trips whose audits `applyVehicle` reads for `event` (what `documentsNeeded` reads back).
    static func tripsRead(by event: Vehicle.Event) -> [String] {
        switch event {
        case .locationReported(let e): e.currentTripIds
        case .wentOffRoute(let e): [e.tripId]
        case .rejoinedRoute(let e): [e.tripId]
        case .rerouted(let e): [e.tripId]
        case .routeFollowed(let e): [e.tripId]
        case .tripReleased(let e): [e.tripId]
        default: []
        }
    }

    private mutating func modify(_ provider: String, _ tripId: String, _ change: (inout AuditRecord) -> Void) {
        let key = FleetResourceProjection.tripKey(provider: provider, tripId: tripId)
        guard var record = audits[key], record.deletedAt == nil else { return }
        change(&record)
        update(key, record)
    }

    private static func close(_ record: inout AuditRecord, at: Timestamp, location: LatLng?, resolution: String) {
        guard let open = record.episodes.indices.last, record.episodes[open].endedAt == nil else { return }
        record.episodes[open].endedAt = at
        record.episodes[open].endLocation = location ?? record.driven.last
        record.episodes[open].resolution = resolution
    }
}
