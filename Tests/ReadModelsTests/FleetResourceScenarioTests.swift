import Geo
import JSON
import Journey
import ReadModels
import Testing

/// Fixed clock, places and a small driver that runs real domain commands into envelopes.
///
/// Events come from `Trip.decide` / `Vehicle.decide` (and the vehicle's `syncTrip` after every
/// trip change, as the application layer does), so the read models are tested against the facts
/// the domain really produces. `recordedAt` runs 1 ms behind each command's `at` and strictly
/// increases, so versions can be told apart from command times.
struct FleetScenario {
    /// 2026-03-01T08:00:00Z.
    static let t0 = Timestamp(secondsSinceEpoch: 1_772_352_000)
    static func t(_ seconds: Double) -> Timestamp { t0.adding(seconds: seconds) }
    static func point(_ lat: Double, _ lng: Double) -> LatLng { LatLng(uncheckedLatitude: lat, longitude: lng) }

    static let start = point(52.5150, 13.4000)
    static let pickup = TerminalLocation(point: point(52.5200, 13.4050))
    static let stop1 = TerminalLocation(point: point(52.5250, 13.4100))
    static let stop2 = TerminalLocation(point: point(52.5300, 13.4150))
    static let dropoff = TerminalLocation(point: point(52.5400, 13.4250))

    /// A plan through pickup, both stops and the dropoff, with straight legs of known length and time.
    static let plan = RoutePlan(
        destinations: [pickup, stop1, stop2, dropoff].map { RoutePlan.Destination(point: $0.point) },
        legs: [
            RoutePlan.Leg(encodedPolyline: Polyline.encode([start, pickup.point]), distanceMeters: 700, durationSeconds: 120),
            RoutePlan.Leg(encodedPolyline: Polyline.encode([pickup.point, stop1.point]), distanceMeters: 660, durationSeconds: 100),
            RoutePlan.Leg(encodedPolyline: Polyline.encode([stop1.point, stop2.point]), distanceMeters: 655, durationSeconds: 90),
            RoutePlan.Leg(encodedPolyline: Polyline.encode([stop2.point, dropoff.point]), distanceMeters: 1310, durationSeconds: 200),
        ],
        routeToken: "route-token-1", travelMode: .drive, routingPreference: .trafficAware)

    let provider = "acme"
    var trips: [String: Trip.State] = [:]
    var vehicles: [String: Vehicle.State] = [:]
    var envelopes: [EventEnvelope] = []
    var lastRecordedAt = Timestamp(microsecondsSinceEpoch: 0)
    var streamVersions: [String: Int64] = [:]

    /// Runs a trip command, then syncs the vehicles it names (before and after).
    mutating func trip(_ tripId: String, _ command: Trip.Command, at seconds: Double) throws {
        let at = Self.t(seconds)
        let before = trips[tripId] ?? Trip.State()
        var state = before
        for event in try Trip.decide(command, state: before) {
            state = Trip.evolve(state, with: event)
            append(stream: "trip:\(provider)/\(tripId)", at: at, .trip(provider: provider, tripId: tripId, event))
        }
        trips[tripId] = state
        var vehicleIds: [String] = []
        for id in [before.vehicleId, state.vehicleId].compactMap({ $0 }) where !vehicleIds.contains(id) { vehicleIds.append(id) }
        for vehicleId in vehicleIds where vehicles[vehicleId] != nil {
            try vehicle(vehicleId, .syncTrip(state, at: at), at: seconds)
        }
    }

    /// Runs a vehicle command.
    mutating func vehicle(_ vehicleId: String, _ command: Vehicle.Command, at seconds: Double) throws {
        let at = Self.t(seconds)
        var state = vehicles[vehicleId] ?? Vehicle.State()
        for event in try Vehicle.decide(command, state: state) {
            state = Vehicle.evolve(state, with: event)
            append(stream: "vehicle:\(provider)/\(vehicleId)", at: at, .vehicle(provider: provider, vehicleId: vehicleId, event))
        }
        vehicles[vehicleId] = state
    }

    /// Reports a location with device time one second before `at`.
    mutating func report(_ vehicleId: String, _ point: LatLng, heading: Double = 45, at seconds: Double) throws {
        let location = VehicleLocation(
            location: point, updateTime: Self.t(seconds - 1), latlngAccuracy: 4.5, heading: heading, speed: 8.25, locationSensor: .gps)
        try vehicle(vehicleId, .reportLocation(location, at: Self.t(seconds)), at: seconds)
    }

    private mutating func append(stream: String, at: Timestamp, _ event: DomainEvent) {
        let recordedAt = max(at.adding(microseconds: 1000), lastRecordedAt.adding(microseconds: 1000))
        lastRecordedAt = recordedAt
        let version = (streamVersions[stream] ?? 0) + 1
        streamVersions[stream] = version
        envelopes.append(EventEnvelope(
            streamId: stream, streamVersion: version, globalPosition: Int64(envelopes.count + 1), recordedAt: recordedAt, event: event))
    }

    /// A registered ONLINE vehicle `v-1` standing at `start`.
    static func withVehicle() throws -> FleetScenario {
        var s = FleetScenario()
        try s.vehicle("v-1", .registerVehicle(.init(
            vehicleId: "v-1", vehicleState: .online, supportedTripTypes: [.exclusive, .shared], maximumCapacity: 4,
            vehicleType: VehicleType(category: .auto), attributes: [Attribute(key: "color", value: .string("blue"))]), at: t(0)), at: 0)
        try s.report("v-1", start, at: 1)
        return s
    }

    /// `withVehicle`, then exclusive trip `t-1` with two intermediate stops, assigned, planned,
    /// en route to pickup, with a route segment (with traffic) and a remaining-route report.
    static func enrouteToPickup() throws -> FleetScenario {
        var s = try withVehicle()
        try s.trip("t-1", .createTrip(.init(
            tripId: "t-1", tripType: .exclusive, pickup: pickup, dropoff: dropoff, intermediateDestinations: [stop1, stop2],
            numberOfPassengers: 2, attributes: [Attribute(key: "tier", value: .string("gold"))]), at: t(10)), at: 10)
        try s.trip("t-1", .assignVehicle(vehicleId: "v-1", vehicle: s.vehicles["v-1"], at: t(20)), at: 20)
        try s.trip("t-1", .planRoute(plan, at: t(21)), at: 21)
        try s.trip("t-1", .updateTripStatus(.enrouteToPickup, at: t(22)), at: 22)
        try s.vehicle("v-1", .updateRouteSegment(
            encodedPath: Polyline.encode([start, point(52.5175, 13.4025), pickup.point]),
            traffic: [TrafficSpeedInterval(startIndex: 0, endIndex: 1, speed: .normal), TrafficSpeedInterval(startIndex: 1, endIndex: 2, speed: .slow)],
            at: t(25)), at: 25)
        try s.vehicle("v-1", .reportRemainingRoute(remainingDistanceMeters: 650, etaToFirstWaypoint: nil, remainingTimeSeconds: 110, at: t(26)), at: 26)
        try s.report("v-1", point(52.5160, 13.4010), at: 30)
        return s
    }

    /// `enrouteToPickup`, then the whole trip: pickup, both stops, dropoff, COMPLETE.
    static func completed() throws -> FleetScenario {
        var s = try enrouteToPickup()
        try s.report("v-1", pickup.point, at: 60)
        try s.trip("t-1", .updateTripStatus(.arrivedAtPickup, at: t(61)), at: 61)
        try s.trip("t-1", .recordActualLocation(.pickup, StopLocation(point: pickup.point, timestamp: t(65)), at: t(66)), at: 66)
        try s.trip("t-1", .continueToNextDestination(at: t(70)), at: 70)
        try s.report("v-1", stop1.point, at: 170)
        try s.trip("t-1", .updateTripStatus(.arrivedAtIntermediateDestination, intermediateDestinationIndex: 0, at: t(171)), at: 171)
        try s.trip("t-1", .continueToNextDestination(at: t(180)), at: 180)
        try s.report("v-1", stop2.point, at: 270)
        try s.trip("t-1", .updateTripStatus(.arrivedAtIntermediateDestination, intermediateDestinationIndex: 1, at: t(271)), at: 271)
        try s.trip("t-1", .continueToNextDestination(at: t(280)), at: 280)
        try s.report("v-1", dropoff.point, at: 480)
        try s.trip("t-1", .updateTripStatus(.complete, at: t(481)), at: 481)
        return s
    }
}

/// Folds envelopes into a projection and keeps the documents it wrote, as the runtime stores them.
struct ProjectionStore<P: ReadModelProjection> {
    var projection = P()
    var documents: [String: JSONValue] = [:]
    var lastBatch: [DocumentChange] = []

    /// Applies the envelopes as one batch and stores the drained changes.
    mutating func apply(_ envelopes: some Sequence<EventEnvelope>) {
        for envelope in envelopes { projection.apply(envelope) }
        lastBatch = projection.drainChanges()
        for change in lastBatch { documents["\(change.collection)|\(change.key)"] = change.document }
    }

    /// The stored document of a collection and key.
    func document(_ collection: String, _ key: String) -> JSONValue? { documents["\(collection)|\(key)"] }

    /// Everything stored, as the runtime would hand it to `load`.
    var stored: [DocumentChange] {
        documents.keys.sorted().map { address in
            let parts = address.split(separator: "|", maxSplits: 1).map(String.init)
            return DocumentChange(collection: parts[0], key: parts[1], document: documents[address])
        }
    }
}

/// Parses a golden document written as JSON text.
func golden(_ text: String) throws -> JSONValue {
    try JSONValue.parse(text)
}
