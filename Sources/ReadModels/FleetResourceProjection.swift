import Geo
import JSON
import Journey

/// Fleet Engine's `Trip` and `Vehicle` resources (SDK view, all fields), kept by folding events.
///
/// Documents: `trips` / `providers/P/trips/T` and `vehicles` / `providers/P/vehicles/V` in
/// Fleet Engine's proto3 JSON shape; `trip_states` and `vehicle_states` (same keys) hold the
/// internal records the public documents are rendered from, so `load` restores exactly the state
/// a fresh fold would have. The JOURNEY_SHARING_V1S view and GetTrip/GetVehicle responses are
/// pure functions of a stored document (`FleetResourceViews`).
///
/// Output-only fields are derived here (reference §3.1): a trip's `remainingWaypoints` is its
/// vehicle's waypoint list up to the trip's last stop, the first entry measured by the vehicle's
/// reports and later ones by the route plan legs; `lastLocation`, `currentRouteSegment*`,
/// `remainingDistanceMeters` and `etaToFirstWaypoint` are copied from the vehicle while it serves
/// the trip. Every `*Version` is the `recordedAt` of the event after which the data it covers
/// differs, found by comparing the derived data before and after each event, so it moves exactly
/// when the data does. The exception is `intermediateDestinationsVersion`, the domain's
/// optimistic-concurrency token: it is copied from the events, because clients must echo it back.
///
/// `TripDeleted` and `VehicleDeleted` drop the record and delete both of its documents (a change
/// with a nil document); a trip or vehicle created again under the same id starts from a fresh
/// record, so nothing of the earlier lifecycle (versions, pickup time, reports) shows through.
package struct FleetResourceProjection: ReadModelProjection, Equatable {
    package static let name = "fleet"
    /// Public Trip resources.
    package static let tripsCollection = "trips"
    /// Public Vehicle resources.
    package static let vehiclesCollection = "vehicles"
    /// Internal trip records.
    package static let tripStatesCollection = "trip_states"
    /// Internal vehicle records.
    package static let vehicleStatesCollection = "vehicle_states"

    /// Trip records by key `providers/P/trips/T`.
    var trips = RecordMap<TripRecord>()
    /// Vehicle records by key `providers/P/vehicles/V`.
    var vehicles = RecordMap<VehicleRecord>()
    /// Vehicle key → keys of non-terminal trips naming that vehicle; derived from `trips`.
    var claims: [String: Set<String>] = [:]
    /// Documents to write at the next `drainChanges`.
    var dirty: Set<Address> = []

    /// A document address.
    struct Address: Hashable, Sendable, Comparable {
        var collection: String
        var key: String

        static func < (a: Address, b: Address) -> Bool {
            (a.collection, a.key) < (b.collection, b.key)
        }
    }

    package init() {}

    /// `providers/P/trips/T`.
    package static func tripKey(provider: String, tripId: String) -> String { "providers/\(provider)/trips/\(tripId)" }

    /// `providers/P/vehicles/V`.
    package static func vehicleKey(provider: String, vehicleId: String) -> String { "providers/\(provider)/vehicles/\(vehicleId)" }

    // MARK: ReadModelProjection

    package mutating func load(_ documents: [DocumentChange]) {
        self = FleetResourceProjection()
        let decoder = JSONValueDecoder()
        for change in documents {
            guard let document = change.document else { continue }
            switch change.collection {
            case Self.tripStatesCollection:
                if let record = try? decoder.decode(TripRecord.self, from: document) { trips[change.key] = record }
            case Self.vehicleStatesCollection:
                if let record = try? decoder.decode(VehicleRecord.self, from: document) { vehicles[change.key] = record }
            default:
                continue
            }
        }
        for (key, record) in trips { claim(key, record) }
    }

    package mutating func apply(_ envelope: EventEnvelope) {
        switch envelope.event {
        case .trip(let provider, let tripId, let event):
            applyTrip(provider: provider, tripId: tripId, event, at: envelope.recordedAt)
        case .vehicle(let provider, let vehicleId, let event):
            applyVehicle(provider: provider, vehicleId: vehicleId, event, at: envelope.recordedAt)
        case .share, .style:
            return  // rider access and styling: the journey projection's
        }
    }

    package mutating func drainChanges() -> [DocumentChange] {
        let addresses = dirty.sorted()
        dirty.removeAll()
        return addresses.compactMap { address in
            let document: JSONValue?
            switch address.collection {
            case Self.tripsCollection:
                document = tripDocument(address.key)
            case Self.vehiclesCollection:
                // Rewritten at every location report, as its record is: written as bytes.
                guard let bytes = vehicleDocumentBytes(address.key) else { return DocumentChange(collection: address.collection, key: address.key, document: nil) }
                return DocumentChange(collection: address.collection, key: address.key, canonical: bytes)
            case Self.tripStatesCollection:
                document = trips[address.key].map { RecordJSON.generic($0) }
            case Self.vehicleStatesCollection:
                // Rewritten at every location report: written as bytes, never as a value tree.
                guard let record = vehicles[address.key] else { return DocumentChange(collection: address.collection, key: address.key, document: nil) }
                return DocumentChange(collection: address.collection, key: address.key, canonical: record.recordBytes)
            default:
                return nil
            }
            // No document: the trip or vehicle was deleted, and so is what was stored for it.
            return DocumentChange(collection: address.collection, key: address.key, document: document)
        }
    }

    // MARK: Folding

    private mutating func applyTrip(provider: String, tripId: String, _ event: Trip.Event, at: Timestamp) {
        let key = Self.tripKey(provider: provider, tripId: tripId)
        if case .deleted = event {
            removeTrip(key, at: at)
            return
        }
        var record = trips[key] ?? TripRecord(provider: provider)
        var candidates: Set<String> = [key]
        if let vehicleId = record.state.vehicleId {
            candidates.formUnion(linkedTrips(Self.vehicleKey(provider: provider, vehicleId: vehicleId)))
        }
        if case .vehicleAssigned(let e) = event {
            candidates.formUnion(linkedTrips(Self.vehicleKey(provider: provider, vehicleId: e.vehicleId)))
        }
        let before = derivations(candidates)
        let previous = record
        let wasBeforePickup = [.unknown, .new, .enrouteToPickup, .arrivedAtPickup].contains(record.state.status)
        record.state = Trip.evolve(record.state, with: event)
        let status = record.state.status
        if wasBeforePickup, record.pickedUpAt == nil, ![.unknown, .new, .enrouteToPickup, .arrivedAtPickup, .canceled].contains(status) {
            record.pickedUpAt = at
        }
        if case .completed = event { record.droppedOffAt = at }
        unclaim(key, previous)
        trips[key] = record
        claim(key, record)
        if record != previous { dirty.insert(Address(collection: Self.tripStatesCollection, key: key)) }
        commit(candidates, before: before, changed: record != previous ? [key] : [], at: at)
    }

    private mutating func applyVehicle(provider: String, vehicleId: String, _ event: Vehicle.Event, at: Timestamp) {
        let key = Self.vehicleKey(provider: provider, vehicleId: vehicleId)
        if case .deleted = event {
            removeVehicle(key, at: at)
            return
        }
        var record = vehicles[key] ?? VehicleRecord(provider: provider)
        var candidates = linkedTrips(key)
        switch event {
        case .tripAssigned(let e): candidates.insert(Self.tripKey(provider: provider, tripId: e.tripId))
        case .tripReleased(let e): candidates.insert(Self.tripKey(provider: provider, tripId: e.tripId))
        case .tripWaypointsUpdated(let e): candidates.insert(Self.tripKey(provider: provider, tripId: e.tripId))
        default: break
        }
        let before = derivations(candidates)
        let previous = record
        record.state = Vehicle.evolve(record.state, with: event)
        switch event {
        case .routeSegmentUpdated(let e):
            record.routeSegment = RouteSegment(encodedPath: e.encodedPath, traffic: e.traffic, endPoint: e.endPoint, reportedAt: at)
        case .remainingRouteReported(let e):
            var remaining = record.remainingRoute ?? RemainingRoute(reportedAt: at)
            if let distance = e.remainingDistanceMeters { remaining.distanceMeters = distance }
            if let eta = e.etaToFirstWaypoint {
                remaining.eta = eta
                remaining.remainingTimeSeconds = e.remainingTimeSeconds ?? max(0, Int(eta.seconds(since: e.at).rounded()))
            }
            remaining.reportedAt = at
            record.remainingRoute = remaining
        default:
            break
        }
        if record.state.waypoints != previous.state.waypoints { record.waypointsVersion = at }
        if record.state.waypoints.first != previous.state.waypoints.first {
            record.firstWaypointSince = record.state.waypoints.isEmpty ? nil : at
        }
        if record.routeSegment?.encodedPath != previous.routeSegment?.encodedPath { record.currentRouteSegmentVersion = at }
        vehicles[key] = record
        if record != previous {
            dirty.insert(Address(collection: Self.vehicleStatesCollection, key: key))
            dirty.insert(Address(collection: Self.vehiclesCollection, key: key))
        }
        // Vehicle events never link a trip that is not already a candidate: only VehicleTripAssigned
        // adds one to `currentTrips`, and its trip was added above.
        commit(candidates, before: before, changed: [], at: at)
    }

    /// Drops a deleted trip and its documents; trips sharing its vehicle are re-derived.
    private mutating func removeTrip(_ key: String, at: Timestamp) {
        guard let record = trips[key] else { return }
        var candidates: Set<String> = []
        if let vehicleId = record.state.vehicleId {
            candidates = linkedTrips(Self.vehicleKey(provider: record.provider, vehicleId: vehicleId))
            candidates.remove(key)
        }
        let before = derivations(candidates)
        unclaim(key, record)
        trips[key] = nil
        dirty.insert(Address(collection: Self.tripsCollection, key: key))
        dirty.insert(Address(collection: Self.tripStatesCollection, key: key))
        commit(candidates, before: before, changed: [], at: at)
    }

    /// Drops a deleted vehicle and its documents; trips still naming it are re-derived without it.
    private mutating func removeVehicle(_ key: String, at: Timestamp) {
        guard vehicles[key] != nil else { return }
        let candidates = linkedTrips(key)
        let before = derivations(candidates)
        vehicles[key] = nil
        dirty.insert(Address(collection: Self.vehiclesCollection, key: key))
        dirty.insert(Address(collection: Self.vehicleStatesCollection, key: key))
        commit(candidates, before: before, changed: [], at: at)
    }

    /// Compares each candidate trip's derived data with `before`, bumps the versions whose data
    /// differs to `at`, and marks changed documents.
    private mutating func commit(_ candidates: Set<String>, before: [String: TripDerived], changed: Set<String>, at: Timestamp) {
        for key in candidates.sorted() {
            guard var record = trips[key], record.state.exists else { continue }
            let old = before[key] ?? TripDerived()
            let new = derive(key) ?? TripDerived()
            let previous = record
            if old.remainingWaypoints != new.remainingWaypoints { record.remainingWaypointsVersion = at }
            if old.routeComponents != new.routeComponents { record.remainingWaypointsRouteVersion = at }
            if old.segment?.encodedPath != new.segment?.encodedPath { record.currentRouteSegmentVersion = at }
            if old.trafficComponent != new.trafficComponent { record.currentRouteSegmentTrafficVersion = at }
            if record != previous {
                trips[key] = record
                dirty.insert(Address(collection: Self.tripStatesCollection, key: key))
            }
            if record != previous || old != new || changed.contains(key) {
                dirty.insert(Address(collection: Self.tripsCollection, key: key))
            }
        }
    }

    // MARK: Links between trips and vehicles

    /// Keys of trips linked to a vehicle: those it lists and those naming it.
    private func linkedTrips(_ vehicleKey: String) -> Set<String> {
        var keys = claims[vehicleKey] ?? []
        if let vehicle = vehicles[vehicleKey] {
            for trip in vehicle.state.currentTrips {
                keys.insert(Self.tripKey(provider: vehicle.provider, tripId: trip.tripId))
            }
        }
        return keys
    }

    private mutating func claim(_ key: String, _ record: TripRecord) {
        guard let vehicleId = record.state.vehicleId, !record.state.status.isTerminal else { return }
        claims[Self.vehicleKey(provider: record.provider, vehicleId: vehicleId), default: []].insert(key)
    }

    private mutating func unclaim(_ key: String, _ record: TripRecord) {
        guard let vehicleId = record.state.vehicleId else { return }
        let vehicleKey = Self.vehicleKey(provider: record.provider, vehicleId: vehicleId)
        claims[vehicleKey]?.remove(key)
        if claims[vehicleKey]?.isEmpty == true { claims[vehicleKey] = nil }
    }

    private func derivations(_ keys: Set<String>) -> [String: TripDerived] {
        var result: [String: TripDerived] = [:]
        for key in keys {
            if let derived = derive(key) { result[key] = derived }
        }
        return result
    }
}
