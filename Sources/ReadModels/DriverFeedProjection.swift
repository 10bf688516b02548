import Geo
import JSON
import Journey

/// Per vehicle, what the driver's dashboard shows: the next maneuver of the planned route with
/// the distance and time to it, the next stop and the trip's end, open trip offers and short
/// order status messages.
///
/// Documents: `feeds` / `providers/P/vehicles/V` (rendered by `feedDocument`) and, in
/// `feed_states`, the internal records (`vehicles/...` and `trips/...` keys) so `load` restores
/// exactly what a fresh fold has. Sources: the vehicle's events (location, navigation status,
/// trips, offers) and the events of the trips it serves (status, stops, plans, route choice,
/// plan progress). Times are the events' `recordedAt`; offers are shown with their expiry and
/// filtered by the reader's clock, never here. `version` counts the feed's changes.
package struct DriverFeedProjection: ReadModelProjection, Equatable {
    package static let name = "driver_feed"
    /// Public feed documents, one per vehicle.
    package static let feedsCollection = "feeds"
    /// Internal vehicle and trip records.
    package static let statesCollection = "feed_states"
    /// The most messages a feed keeps (oldest dropped first).
    package static let maximumMessages = 20

    var vehicles = RecordMap<VehicleRecord>()
    var trips = RecordMap<TripRecord>()
    var dirtyVehicles: Set<String> = []
    var dirtyTrips: Set<String> = []

    package init() {}

    package mutating func load(_ documents: [DocumentChange]) {
        self = DriverFeedProjection()
        let decoder = JSONValueDecoder()
        for change in documents where change.collection == Self.statesCollection {
            guard let document = change.document else { continue }
            if change.key.hasPrefix("vehicles/"), let record = try? decoder.decode(VehicleRecord.self, from: document) {
                vehicles[String(change.key.dropFirst("vehicles/".count))] = record
            } else if change.key.hasPrefix("trips/"), let record = try? decoder.decode(TripRecord.self, from: document) {
                trips[String(change.key.dropFirst("trips/".count))] = record
            }
        }
    }

    package mutating func apply(_ envelope: EventEnvelope) {
        switch envelope.event {
        case .trip(let provider, let tripId, let event):
            applyTrip(provider: provider, tripId: tripId, event, at: envelope.recordedAt)
        case .vehicle(let provider, let vehicleId, let event):
            applyVehicle(provider: provider, vehicleId: vehicleId, event, at: envelope.recordedAt)
        case .share, .style:
            return
        }
    }

    package mutating func drainChanges() -> [DocumentChange] {
        var changes: [DocumentChange] = []
        for key in dirtyTrips.sorted() {
            changes.append(DocumentChange(collection: Self.statesCollection, key: "trips/" + key, document: trips[key].map { RecordJSON.generic($0) }))
        }
        for key in dirtyVehicles.sorted() {
            let record = vehicles[key]
            changes.append(DocumentChange(collection: Self.statesCollection, key: "vehicles/" + key, document: record.map { RecordJSON.generic($0) }))
            changes.append(DocumentChange(collection: Self.feedsCollection, key: key, document: record.map { feedDocument(key, $0) }))
        }
        dirtyTrips.removeAll()
        dirtyVehicles.removeAll()
        return changes.sorted { ($0.collection, $0.key) < ($1.collection, $1.key) }
    }

    // MARK: Trip events

    private mutating func applyTrip(provider: String, tripId: String, _ event: Trip.Event, at: Timestamp) {
        let key = FleetResourceProjection.tripKey(provider: provider, tripId: tripId)
        if case .created(let e) = event {
            var record = TripRecord(provider: provider, tripId: tripId, vehicleId: nil, status: .new, intermediateDestinationIndex: 0,
                                    stops: [], plan: nil, planStopOffset: 0, activeDestinationIndex: 0)
            record.stops = [.init(waypointType: .pickup, point: e.pickup.point)]
                + e.intermediateDestinations.map { .init(waypointType: .intermediateDestination, point: $0.point) }
                + (e.dropoff.map { [.init(waypointType: .dropOff, point: $0.point)] } ?? [])
            trips[key] = record
            dirtyTrips.insert(key)
            return
        }
        guard var record = trips[key] else { return }
        var touched: [String?] = [record.vehicleId]
        var message: String?
        switch event {
        case .created:
            return
        case .vehicleAssigned(let e):
            record.vehicleId = e.vehicleId
            touched.append(e.vehicleId)
            message = "New trip assigned"
        case .vehicleUnassigned:
            message = "Trip unassigned"
            record.vehicleId = nil
        case .statusChanged(let e):
            record.status = e.to
            if let index = e.intermediateDestinationIndex { record.intermediateDestinationIndex = index }
            message = Self.statusMessage(from: e.from, to: e.to, record: record)
        case .completed:
            record.status = .complete
            message = "Rider dropped off"
        case .canceled:
            record.status = .canceled
            message = "Trip canceled"
        case .intermediateDestinationsChanged(let e):
            record.setStops(.intermediateDestination, e.intermediateDestinations.map(\.point))
            message = "Stops changed"
        case .dropoffPointSet(let e):
            record.setStops(.dropOff, [e.dropoff.point])
        case .pickupPointSet(let e):
            record.setStops(.pickup, [e.pickup.point])
            message = "Pickup point moved"
        case .routePlanned(let e):
            record.plan = e.plan
            // A plan's destinations are the trip's last stops (those still ahead).
            record.planStopOffset = max(0, record.stops.count - e.plan.destinations.count)
            record.activeDestinationIndex = 0
        case .routeSelected(let e):
            record.plan = record.plan?.selecting(e.routeIndex)
        case .routeDestinationAdvanced(let e):
            record.activeDestinationIndex = e.destinationIndex
        case .deleted:
            // The feed of a vehicle still naming the trip renders without it: re-render it too.
            trips[key] = nil
            dirtyTrips.insert(key)
            if let vehicleId = record.vehicleId {
                let vehicleKey = FleetResourceProjection.vehicleKey(provider: provider, vehicleId: vehicleId)
                if var vehicle = vehicles[vehicleKey] { touch(vehicleKey, &vehicle, at: at) }
            }
            return
        case .actualLocationRecorded, .attributesSet, .routeTokenExecutionReported:
            return
        }
        trips[key] = record
        dirtyTrips.insert(key)
        for vehicleId in Set(touched.compactMap { $0 }).sorted() {
            let vehicleKey = FleetResourceProjection.vehicleKey(provider: provider, vehicleId: vehicleId)
            guard var vehicle = vehicles[vehicleKey] else { continue }
            if let message { vehicle.messages.append(MessageRecord(text: message, tripId: tripId, time: at)) }
            vehicle.messages = Array(vehicle.messages.suffix(Self.maximumMessages))
            touch(vehicleKey, &vehicle, at: at)
        }
    }

    /// The dashboard message for a status change, if it deserves one.
    static func statusMessage(from: TripStatus, to: TripStatus, record: TripRecord) -> String? {
        if from.isBeforePickup, !to.isBeforePickup, !to.isTerminal { return "Rider picked up" }
        switch to {
        case .arrivedAtPickup:
            return "Arrived at pickup"
        case .arrivedAtIntermediateDestination:
            return "Stop \(record.intermediateDestinationIndex + 2) of \(record.stops.count) reached"
        default:
            return nil
        }
    }

    // MARK: Vehicle events

    private mutating func applyVehicle(provider: String, vehicleId: String, _ event: Vehicle.Event, at: Timestamp) {
        let key = FleetResourceProjection.vehicleKey(provider: provider, vehicleId: vehicleId)
        if case .registered = event {
            var record = VehicleRecord(provider: provider, vehicleId: vehicleId)
            record.version = vehicles[key]?.version ?? 0
            touch(key, &record, at: at)
            return
        }
        guard var record = vehicles[key] else { return }
        switch event {
        case .locationReported(let e):
            // Positions matter only for guidance: without a planned active trip a report changes
            // nothing (no write per report for idle vehicles); the next report after a plan counts.
            guard let tripId = record.activeTripId, let trip = trips[FleetResourceProjection.tripKey(provider: provider, tripId: tripId)],
                  trip.plan != nil, !trip.status.isTerminal else { return }
            record.location = e.location.location
        case .navigationStatusChanged(let e):
            record.navigationStatus = e.to
        case .tripAssigned(let e):
            if !record.currentTripIds.contains(e.tripId) { record.currentTripIds.append(e.tripId) }
            record.firstWaypointTripId = e.waypoints.first?.tripId
        case .tripWaypointsUpdated(let e):
            record.firstWaypointTripId = e.waypoints.first?.tripId
        case .waypointsReordered(let e):
            record.firstWaypointTripId = e.waypoints.first?.tripId
        case .tripReleased(let e):
            record.currentTripIds.removeAll { $0 == e.tripId }
            record.firstWaypointTripId = e.waypoints.first?.tripId
            if record.currentTripIds.isEmpty { record.location = nil }  // not kept while no guidance needs it
        case .tripOffered(let e):
            record.offers.removeAll { $0.tripId == e.tripId }
            record.offers.append(OfferRecord(tripId: e.tripId, expireTime: e.expiresAt, offerTime: at))
            record.messages.append(MessageRecord(text: "New trip offer", tripId: e.tripId, time: at))
        case .tripOfferAnswered(let e):
            record.offers.removeAll { $0.tripId == e.tripId }
            record.messages.append(MessageRecord(text: e.accepted ? "Offer accepted" : "Offer declined", tripId: e.tripId, time: at))
        case .deleted:
            vehicles[key] = nil
            dirtyVehicles.insert(key)
            return
        case .registered, .stateChanged, .staleLocationRecorded, .locationHistoryRecorded, .routeSegmentUpdated, .remainingRouteReported,
             .routeFollowed, .wentOffRoute, .rejoinedRoute, .rerouted, .attributesSet, .backToBackEnabledChanged, .capabilitiesChanged,
             .licensePlateSet:
            return
        }
        record.messages = Array(record.messages.suffix(Self.maximumMessages))
        touch(key, &record, at: at)
    }

    private mutating func touch(_ key: String, _ record: inout VehicleRecord, at: Timestamp) {
        record.version += 1
        record.updateTime = at
        vehicles[key] = record
        dirtyVehicles.insert(key)
    }
}
