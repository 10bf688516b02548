import Geo
import JSON
import Journey
import ReadModels
import Testing

/// Fixed clock, places and a small "world" that runs real domain commands and feeds the
/// resulting events to a journey view projection, the way the server would.
enum JourneyViewFixtures {
    /// 2026-03-01T08:00:00Z.
    static let t0 = Timestamp(secondsSinceEpoch: 1_772_352_000)

    /// `t0` plus `seconds`.
    static func t(_ seconds: Double) -> Timestamp { t0.adding(seconds: seconds) }

    static func point(_ lat: Double, _ lng: Double) -> LatLng { LatLng(uncheckedLatitude: lat, longitude: lng) }

    /// Places along latitude 52.52, 0.01° of longitude (about 677 m) apart, west to east.
    static let depot = point(52.52, 13.40)
    static let pickup = point(52.52, 13.41)
    static let stop0 = point(52.52, 13.42)
    static let stop1 = point(52.52, 13.43)
    static let dropoff = point(52.52, 13.44)

    /// A second rider's stops, north of the line.
    static let otherPickup = point(52.53, 13.415)
    static let otherDropoff = point(52.53, 13.445)

    /// The encoded straight path through `points`, with a vertex every 0.0025° of longitude
    /// (so traffic intervals have points to index).
    static func path(_ points: LatLng...) -> String {
        var result: [LatLng] = []
        for (a, b) in zip(points, points.dropFirst()) {
            let steps = max(1, Int((Distance.meters(a, b) / 170).rounded()))
            for i in 0..<steps {
                result.append(Distance.interpolate(from: a, to: b, fraction: Double(i) / Double(steps)))
            }
        }
        if let last = points.last { result.append(last) }
        return Polyline.encode(result)
    }

    /// A plan through `stops` starting at `start`, 60 s and the great-circle length per leg.
    static func plan(from start: LatLng, through stops: [LatLng]) -> RoutePlan {
        var legs: [RoutePlan.Leg] = []
        var previous = start
        for stop in stops {
            legs.append(RoutePlan.Leg(
                encodedPolyline: path(previous, stop),
                distanceMeters: Int(Distance.meters(previous, stop).rounded()), durationSeconds: 60))
            previous = stop
        }
        return RoutePlan(destinations: stops.map { RoutePlan.Destination(point: $0) }, legs: legs)
    }
}

/// A world of trips and vehicles driven by real `decide`/`evolve`, feeding a projection.
///
/// Trip commands are followed by `syncTrip` on the vehicles involved, as the server does, so
/// the vehicle streams carry the same waypoint facts they would in production.
struct JourneyViewWorld {
    let provider = "acme"
    var projection = JourneyViewProjection()
    var trips: [String: Trip.State] = [:]
    var vehicles: [String: Vehicle.State] = [:]
    /// Every event fed to the projection, in order.
    var log: [EventEnvelope] = []
    private var streamVersions: [String: Int64] = [:]

    init() {}

    // MARK: Trips

    mutating func trip(_ id: String, _ command: Trip.Command, at: Timestamp) throws {
        let before = trips[id] ?? Trip.State()
        var state = before
        for event in try Trip.decide(command, state: before) {
            state = Trip.evolve(state, with: event)
            record(.trip(provider: provider, tripId: id, event), stream: "trip:\(provider)/\(id)", at: at)
        }
        trips[id] = state
        for vehicleId in Set([before.vehicleId, state.vehicleId].compactMap { $0 }).sorted() {
            try vehicle(vehicleId, .syncTrip(state, at: at), at: at)
        }
    }

    mutating func create(_ id: String, type: TripType = .exclusive, pickup: LatLng = JourneyViewFixtures.pickup,
                         intermediates: [LatLng] = [], dropoff: LatLng? = JourneyViewFixtures.dropoff, at: Timestamp) throws {
        let create = Trip.CreateTrip(
            tripId: id, tripType: type, pickup: TerminalLocation(point: pickup), dropoff: dropoff.map(TerminalLocation.init),
            intermediateDestinations: intermediates.map(TerminalLocation.init))
        try trip(id, .createTrip(create, at: at), at: at)
    }

    mutating func assign(_ id: String, to vehicleId: String, at: Timestamp) throws {
        try trip(id, .assignVehicle(vehicleId: vehicleId, vehicle: vehicles[vehicleId], at: at), at: at)
    }

    mutating func status(_ id: String, _ to: TripStatus, index: Int? = nil, at: Timestamp) throws {
        let version = to == .enrouteToIntermediateDestination ? trips[id]?.intermediateDestinationsVersion : nil
        try trip(id, .updateTripStatus(to, intermediateDestinationIndex: index, intermediateDestinationsVersion: version, at: at), at: at)
    }

    mutating func plan(_ id: String, _ plan: RoutePlan, at: Timestamp) throws {
        try trip(id, .planRoute(plan, at: at), at: at)
    }

    // MARK: Vehicles

    mutating func vehicle(_ id: String, _ command: Vehicle.Command, at: Timestamp) throws {
        var state = vehicles[id] ?? Vehicle.State()
        for event in try Vehicle.decide(command, state: state) {
            state = Vehicle.evolve(state, with: event)
            record(.vehicle(provider: provider, vehicleId: id, event), stream: "vehicle:\(provider)/\(id)", at: at)
        }
        vehicles[id] = state
    }

    mutating func register(_ id: String, types: [TripType] = [.exclusive, .shared], capacity: Int = 4,
                           backToBack: Bool = false, at: Timestamp) throws {
        let register = Vehicle.RegisterVehicle(
            vehicleId: id, vehicleState: .online, supportedTripTypes: types, maximumCapacity: capacity,
            vehicleType: VehicleType(category: .auto), backToBackEnabled: backToBack)
        try vehicle(id, .registerVehicle(register, at: at), at: at)
    }

    mutating func locate(_ id: String, _ position: LatLng, heading: Double? = 90, at: Timestamp, deviceTime: Timestamp? = nil) throws {
        let location = VehicleLocation(location: position, updateTime: deviceTime ?? at, heading: heading)
        try vehicle(id, .reportLocation(location, at: at), at: at)
    }

    mutating func segment(_ id: String, _ encodedPath: String, traffic: [TrafficSpeedInterval] = [],
                          endPoint: TripWaypoint? = nil, at: Timestamp) throws {
        try vehicle(id, .updateRouteSegment(encodedPath: encodedPath, traffic: traffic, endPoint: endPoint, at: at), at: at)
    }

    mutating func remaining(_ id: String, meters: Int?, eta: Timestamp?, at: Timestamp) throws {
        try vehicle(id, .reportRemainingRoute(remainingDistanceMeters: meters, etaToFirstWaypoint: eta, remainingTimeSeconds: nil, at: at), at: at)
    }

    // MARK: Reading

    /// The current view of a trip.
    func view(_ tripId: String) -> JSONValue? {
        projection.view(provider: provider, tripId: tripId)
    }

    /// The current view of a trip as compact JSON text ("" when there is none).
    func text(_ tripId: String) -> String {
        view(tripId)?.compactString ?? ""
    }

    mutating func record(_ event: DomainEvent, stream: String, at: Timestamp) {
        let version = (streamVersions[stream] ?? 0) + 1
        streamVersions[stream] = version
        let envelope = EventEnvelope(streamId: stream, streamVersion: version, globalPosition: Int64(log.count + 1), recordedAt: at, event: event)
        log.append(envelope)
        projection.apply(envelope)
    }
}

extension JSONValue {
    /// The member at a dotted path of object keys and array indices (`markers.3.visible`).
    subscript(viewPath path: String) -> JSONValue? {
        var current: JSONValue? = self
        for part in path.split(separator: ".") {
            if let index = Int(part) {
                current = current?[index]
            } else {
                current = current?[String(part)]
            }
        }
        return current
    }

    /// The marker of a type (and index, for intermediate destinations).
    func viewMarker(_ type: String, index: Int? = nil) -> JSONValue? {
        self["markers"]?.arrayValue?.first {
            $0["type"]?.stringValue == type && (index == nil || $0["index"]?.int64Value == Int64(index ?? 0))
        }
    }

    /// The polyline of a type.
    func viewPolyline(_ type: String) -> JSONValue? {
        self["polylines"]?.arrayValue?.first { $0["type"]?.stringValue == type }
    }
}
