import Geo
import JSON
import Journey

extension FleetResourceProjection {
    /// What the fleet model keeps about one trip: the domain state folded with `Trip.evolve`,
    /// plus the times and versions only the read model knows.
    ///
    /// Stored as-is (exact doubles, microsecond times) in `trip_states`, so `load` restores it
    /// bit for bit; the public `trips` document is always re-rendered from it.
    struct TripRecord: Codable, Hashable, Sendable {
        var provider: String
        var state: Trip.State
        /// When the rider was picked up: the first status past ARRIVED_AT_PICKUP (other than CANCELED).
        var pickedUpAt: Timestamp?
        /// When the trip reached COMPLETE.
        var droppedOffAt: Timestamp?
        /// `remainingWaypointsVersion`: last change of the remaining waypoints (ids, types, places).
        var remainingWaypointsVersion: Timestamp?
        /// `remainingWaypointsRouteVersion`: last change of a per-waypoint path or traffic.
        var remainingWaypointsRouteVersion: Timestamp?
        /// `currentRouteSegmentVersion`: last change of the path to the first remaining waypoint.
        var currentRouteSegmentVersion: Timestamp?
        /// `currentRouteSegmentTrafficVersion`: last change of the traffic on that path.
        var currentRouteSegmentTrafficVersion: Timestamp?

        init(provider: String) {
            self.provider = provider
            self.state = Trip.State()
        }
    }

    /// What the fleet model keeps about one vehicle: the domain state folded with
    /// `Vehicle.evolve`, plus the reported route data the domain state does not keep.
    struct VehicleRecord: Codable, Hashable, Sendable {
        var provider: String
        var state: Vehicle.State
        /// The last `currentRouteSegment` report.
        var routeSegment: RouteSegment?
        /// Remaining distance and ETA to the first waypoint, merged from reports.
        var remainingRoute: RemainingRoute?
        /// When the first entry of `state.waypoints` last changed; route data reported earlier
        /// describes a waypoint that is no longer first.
        var firstWaypointSince: Timestamp?
        /// `currentRouteSegmentVersion`: last change of the encoded path.
        var currentRouteSegmentVersion: Timestamp?
        /// `waypointsVersion`: last change of the waypoint list.
        var waypointsVersion: Timestamp?

        init(provider: String) {
            self.provider = provider
            self.state = Vehicle.State()
        }
    }

    /// A reported path from the vehicle to its next waypoint.
    struct RouteSegment: Codable, Hashable, Sendable {
        var encodedPath: String
        var traffic: [TrafficSpeedInterval]
        var endPoint: TripWaypoint?
        var reportedAt: Timestamp
    }

    /// Remaining distance and time to the first waypoint as last reported.
    struct RemainingRoute: Codable, Hashable, Sendable {
        var distanceMeters: Int?
        var eta: Timestamp?
        var remainingTimeSeconds: Int?
        /// When distance or ETA was last reported.
        var reportedAt: Timestamp
    }

    /// What is known about reaching one waypoint of a vehicle's list.
    ///
    /// For the first waypoint it comes from the vehicle's reports (path, traffic, distance, ETA),
    /// for later ones from the route plan leg of the waypoint's trip that runs from the previous
    /// waypoint to this one; ETAs chain through leg durations.
    struct WaypointMetrics: Hashable, Sendable {
        var encodedPath: String?
        var path: [LatLng] = []
        var traffic: [TrafficSpeedInterval] = []
        var distanceMeters: Int?
        var durationSeconds: Int?
        var eta: Timestamp?

        /// The part `remainingWaypointsRouteVersion` covers.
        var route: RouteComponent { RouteComponent(encodedPath: encodedPath, traffic: traffic) }
    }

    /// The per-waypoint route data a version covers.
    struct RouteComponent: Hashable, Sendable {
        var encodedPath: String?
        var traffic: [TrafficSpeedInterval]
    }

    /// Everything a trip document takes from outside its own record (the vehicle, other trips' plans).
    ///
    /// Two of these are compared before and after each event: a difference in a versioned part
    /// bumps that version, any difference re-renders the document.
    struct TripDerived: Hashable, Sendable {
        var remainingWaypoints: [TripWaypoint] = []
        var metrics: [WaypointMetrics] = []
        var vehicleWaypoints: [TripWaypoint] = []
        /// The vehicle's segment, when it leads to the first remaining waypoint.
        var segment: RouteSegment?
        var segmentPath: [LatLng] = []
        var lastLocation: VehicleLocation?

        var routeComponents: [RouteComponent] { metrics.map(\.route) }
        var trafficComponent: [TrafficSpeedInterval]? { segment.map(\.traffic) }
    }
}

extension FleetResourceProjection.VehicleRecord {
    /// This record as `JSONValueEncoder` encodes it, built directly (see `RecordJSON`): it is
    /// stored again at every location report.
    var recordValue: JSONValue {
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(7)
        if let currentRouteSegmentVersion { members.append(("currentRouteSegmentVersion", .string(currentRouteSegmentVersion.rfc3339))) }
        if let firstWaypointSince { members.append(("firstWaypointSince", .string(firstWaypointSince.rfc3339))) }
        members.append(("provider", .string(provider)))
        if let remainingRoute { members.append(("remainingRoute", RecordJSON.generic(remainingRoute))) }
        if let routeSegment { members.append(("routeSegment", RecordJSON.generic(routeSegment))) }
        members.append(("state", state.recordValue))
        if let waypointsVersion { members.append(("waypointsVersion", .string(waypointsVersion.rfc3339))) }
        return .object(JSONObject(members))
    }
}

extension FleetResourceProjection.VehicleRecord {
    /// ``recordValue``'s canonical bytes, written without building it.
    var recordBytes: [UInt8] {
        var writer = CanonicalJSONWriter(capacity: 768)
        writer.beginObject()
        if let currentRouteSegmentVersion { writer.key("currentRouteSegmentVersion"); writer.plainString(currentRouteSegmentVersion.appendRFC3339) }
        if let firstWaypointSince { writer.key("firstWaypointSince"); writer.plainString(firstWaypointSince.appendRFC3339) }
        writer.key("provider")
        writer.string(provider)
        if let remainingRoute { writer.key("remainingRoute"); writer.value(RecordJSON.generic(remainingRoute)) }
        if let routeSegment { writer.key("routeSegment"); writer.value(RecordJSON.generic(routeSegment)) }
        writer.key("state")
        state.writeRecord(to: &writer)
        if let waypointsVersion { writer.key("waypointsVersion"); writer.plainString(waypointsVersion.appendRFC3339) }
        writer.endObject()
        return writer.bytes
    }
}

extension FleetResourceProjection {
    /// Keys of vehicle records whose hand-built document (`VehicleRecord.recordValue`), or the
    /// canonical bytes written without it (`recordBytes`), differ from the generic encoder's; empty when every one agrees (a check for tests).
    package var recordEncodingMismatches: [String] {
        vehicles.compactMap { key, record in
            let generic = RecordJSON.generic(record)
            return record.recordValue.compactBytes() == generic.compactBytes() && record.recordBytes == generic.canonicalBytes() ? nil : key
        }.sorted()
    }
}
