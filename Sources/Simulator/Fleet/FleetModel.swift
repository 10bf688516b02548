import Geo
import JSON

/// A stop of a simulated trip, as the vehicle will visit it.
struct FleetStop: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case pickup, intermediate(Int), dropoff
    }

    var tripId: String
    var kind: Kind
    var node: Int

    var waypointType: String {
        switch kind {
        case .pickup: "PICKUP_WAYPOINT_TYPE"
        case .intermediate: "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE"
        case .dropoff: "DROP_OFF_WAYPOINT_TYPE"
        }
    }
}

/// What the simulator knows of one of its trips.
struct FleetTrip: Sendable {
    var id: String
    var shared: Bool
    var stops: [FleetStop]
    var status = "NEW"
    var vehicle: Int?
    /// From CreateTrip's answer: needed to move to ENROUTE_TO_INTERMEDIATE_DESTINATION.
    var intermediateDestinationsVersion: JSONValue?
    /// When the rider cancels (simulated seconds), if they do and the car has not picked them up yet.
    var cancelAt: Double?
    /// CreateTrip failed: the trip never existed on the server, so nothing more is sent for it.
    var failed = false

    var isTerminal: Bool { status == "COMPLETE" || status == "CANCELED" }
}

/// A drive along city edges that started at `startTime` (simulated seconds).
struct FleetDrive: Sendable {
    enum End: Sendable { case arrive, reroute(offRoute: Bool) }

    var startNode: Int
    var edges: [Int]
    var startTime: Double
    /// Seconds from the start to the end of each edge.
    var edgeEnds: [Double]
    var end: End

    init(city: SyntheticCity, from node: Int, edges: [Int], at time: Double, end: End) {
        startNode = node
        self.edges = edges
        startTime = time
        var total = 0.0
        edgeEnds = edges.map { total += city.edges[$0].seconds; return total }
        self.end = end
    }

    var finishTime: Double { startTime + (edgeEnds.last ?? 0) }

    /// Where the car is at `time`: position and heading (degrees), and the index of the edge it is on.
    func position(_ city: SyntheticCity, at time: Double) -> (point: LatLng, heading: Double, edge: Int) {
        guard !edges.isEmpty else { return (city.nodes[startNode], 0, 0) }
        let elapsed = max(0, time - startTime)
        let index = edgeEnds.firstIndex { $0 >= elapsed } ?? (edges.count - 1)
        let edge = city.edges[edges[index]]
        let begin = index == 0 ? 0 : edgeEnds[index - 1]
        let fraction = min(1, max(0, (elapsed - begin) / max(0.001, edgeEnds[index] - begin)))
        let point = Distance.interpolate(from: city.nodes[edge.from], to: city.nodes[edge.to], fraction: fraction)
        return (point, Distance.initialBearing(from: city.nodes[edge.from], to: city.nodes[edge.to]), index)
    }
}

/// One simulated vehicle.
struct FleetVehicle: Sendable {
    var id: String
    /// The intersection it is at, or last left.
    var node: Int
    var heading: Double = 0
    var stops: [FleetStop] = []
    var drive: FleetDrive?
    var dwellUntil: Double?
    /// The stop it is dwelling at (its trip moves on when the car leaves).
    var visited: FleetStop?
    var lastETAUpdate: Double = 0
    /// The route it told the server about, to the first stop: edges from `plannedFrom`.
    var plannedEdges: [Int] = []
    var plannedFrom: Int = 0

    var isIdle: Bool { stops.isEmpty && drive == nil && dwellUntil == nil }
}

/// A request queued for one vehicle's lane (sent in order after the others of the lane).
struct FleetRequest: Sendable {
    /// `intermediateStatus`: the body gets the trip's `intermediateDestinationsVersion` when sent (CreateTrip's answer may come later than the request is queued).
    enum Purpose: Sendable { case ordinary, planRoute, createTrip(String), intermediateStatus(String) }

    var method: String
    var path: String
    var body: JSONValue?
    var purpose: Purpose = .ordinary
}
