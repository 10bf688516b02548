import Geo
import JSON
import Journey

extension FleetResourceProjection {
    private typealias J = FleetResourceJSON

    /// The stored `Trip` resource (SDK view, every field, `vehicleWaypoints` included); nil for an unknown trip.
    ///
    /// Members follow the proto's field order. `pickupTime` / `dropoffTime` are the actual times
    /// once they happened (the provider's `actual*Point.timestamp`, else the recorded time of the
    /// status change), before that the ETA of the trip's own stop in `remainingWaypoints`.
    /// `remainingTimeToFirstWaypoint` and `view` depend on the request and are added by `FleetResourceViews`.
    func tripDocument(_ key: String) -> JSONValue? {
        guard let record = trips[key], record.state.exists else { return nil }
        let state = record.state
        let derived = derive(key) ?? TripDerived()
        func eta(of type: WaypointType) -> Timestamp? {
            derived.remainingWaypoints.indices
                .first { derived.remainingWaypoints[$0].tripId == state.tripId && derived.remainingWaypoints[$0].waypointType == type }
                .flatMap { derived.metrics[$0].eta }
        }
        let pickupTime = record.pickedUpAt.map { state.actualPickupPoint?.timestamp ?? $0 } ?? eta(of: .pickup)
        let dropoffTime = record.droppedOffAt.map { state.actualDropoffPoint?.timestamp ?? $0 } ?? eta(of: .dropOff)
        let first = derived.metrics.first
        let segment = derived.segment
        return J.object([
            ("name", .string(key)),
            ("vehicleId", J.string(state.vehicleId)),
            ("tripStatus", J.enumName(state.status, unless: .unknown)),
            ("tripType", J.enumName(state.tripType, unless: .unknown)),
            ("pickupPoint", state.pickup.map(J.terminalLocation)),
            ("actualPickupPoint", state.actualPickupPoint.map(J.stopLocation)),
            ("actualPickupArrivalPoint", state.actualPickupArrivalPoint.map(J.stopLocation)),
            ("pickupTime", pickupTime.map(J.timestamp)),
            ("intermediateDestinations", J.list(state.intermediateDestinations.map(J.terminalLocation))),
            ("intermediateDestinationsVersion", state.intermediateDestinationsVersion.map(J.timestamp)),
            ("intermediateDestinationIndex", state.intermediateDestinationIndex == 0 ? nil : J.int(state.intermediateDestinationIndex)),
            ("actualIntermediateDestinationArrivalPoints", J.list(Self.byIndex(state.actualIntermediateDestinationArrivalPoints))),
            ("actualIntermediateDestinations", J.list(Self.byIndex(state.actualIntermediateDestinations))),
            ("dropoffPoint", state.dropoff.map(J.terminalLocation)),
            ("actualDropoffPoint", state.actualDropoffPoint.map(J.stopLocation)),
            ("dropoffTime", dropoffTime.map(J.timestamp)),
            ("remainingWaypoints", J.list(zip(derived.remainingWaypoints, derived.metrics).map { Self.waypoint($0, $1, paths: true) })),
            ("vehicleWaypoints", J.list(derived.vehicleWaypoints.map(J.waypoint))),
            ("route", segment == nil || derived.segmentPath.isEmpty ? nil : J.path(derived.segmentPath)),
            ("currentRouteSegment", segment.map { .string($0.encodedPath) }),
            ("currentRouteSegmentVersion", record.currentRouteSegmentVersion.map(J.timestamp)),
            ("currentRouteSegmentTraffic", segment.flatMap { J.consumableTraffic($0.traffic, encodedPath: $0.encodedPath) }),
            ("currentRouteSegmentTrafficVersion", record.currentRouteSegmentTrafficVersion.map(J.timestamp)),
            ("currentRouteSegmentEndPoint", segment == nil ? nil : derived.remainingWaypoints.first.map(J.waypoint)),
            ("remainingDistanceMeters", first?.distanceMeters.map(J.int)),
            ("etaToFirstWaypoint", first?.eta.map(J.timestamp)),
            ("remainingWaypointsVersion", record.remainingWaypointsVersion.map(J.timestamp)),
            ("remainingWaypointsRouteVersion", record.remainingWaypointsRouteVersion.map(J.timestamp)),
            ("numberOfPassengers", state.numberOfPassengers == 0 ? nil : J.int(state.numberOfPassengers)),
            ("lastLocation", derived.lastLocation.map(J.vehicleLocation)),
            ("attributes", J.list(state.attributes.map(J.tripAttribute))),
        ])
    }

    /// The stored `Vehicle` resource; nil for an unknown vehicle.
    ///
    /// Route fields are the vehicle's own reports as written by UpdateVehicle (reference §2.2),
    /// including the input-only `currentRouteSegmentTraffic` (as road stretches) and
    /// `remainingTimeSeconds`, which `FleetResourceViews.vehicle` leaves out of responses.
    /// `waypoints` carry distance, ETA and duration where known, never paths.
    func vehicleDocument(_ key: String) -> JSONValue? {
        guard let vehicle = vehicles[key], vehicle.state.exists else { return nil }
        let state = vehicle.state
        let metrics = metrics(for: state.waypoints, provider: vehicle.provider, vehicle: vehicle, listed: true)
        let segment = vehicle.routeSegment
        return J.object([
            ("name", .string(key)),
            ("vehicleState", J.enumName(state.vehicleState, unless: .unknown)),
            ("supportedTripTypes", J.list(state.supportedTripTypes.compactMap { J.enumName($0, unless: .unknown) })),
            ("currentTrips", J.list(state.currentTripIds.map(JSONValue.string))),
            ("lastLocation", state.lastLocation.map(J.vehicleLocation)),
            ("maximumCapacity", state.maximumCapacity == 0 ? nil : J.int(state.maximumCapacity)),
            ("attributes", J.list(state.attributes.map(J.vehicleAttribute))),
            ("vehicleType", J.object([("category", J.enumName(state.vehicleType.category, unless: .unknown))])),
            ("licensePlate", state.licensePlate.map(J.licensePlate)),
            ("currentRouteSegment", segment.map { .string($0.encodedPath) }),
            ("currentRouteSegmentTraffic", segment.flatMap(Self.trafficPolylineData)),
            ("currentRouteSegmentVersion", vehicle.currentRouteSegmentVersion.map(J.timestamp)),
            ("currentRouteSegmentEndPoint", segment?.endPoint.map(J.waypoint)),
            ("remainingDistanceMeters", vehicle.remainingRoute?.distanceMeters.map(J.int)),
            ("etaToFirstWaypoint", vehicle.remainingRoute?.eta.map(J.timestamp)),
            ("remainingTimeSeconds", vehicle.remainingRoute?.remainingTimeSeconds.map(J.int)),
            ("waypoints", J.list(zip(state.waypoints, metrics).map { Self.waypoint($0, $1, paths: false) })),
            ("waypointsVersion", vehicle.waypointsVersion.map(J.timestamp)),
            ("backToBackEnabled", state.backToBackEnabled ? .bool(true) : nil),
            ("navigationStatus", J.enumName(state.navigationStatus, unless: .unknown)),
        ])
    }

    /// A `TripWaypoint` with what is known about reaching it; paths only when asked for.
    private static func waypoint(_ waypoint: TripWaypoint, _ metrics: WaypointMetrics, paths: Bool) -> JSONValue {
        J.object(J.waypointMembers(waypoint) + [
            ("pathToWaypoint", paths && !metrics.path.isEmpty ? J.path(metrics.path) : nil),
            ("encodedPathToWaypoint", paths ? J.string(metrics.encodedPath) : nil),
            ("trafficToWaypoint", paths ? metrics.encodedPath.flatMap { J.consumableTraffic(metrics.traffic, encodedPath: $0) } : nil),
            ("distanceMeters", metrics.distanceMeters.map(J.int)),
            ("eta", metrics.eta.map(J.timestamp)),
            ("duration", metrics.durationSeconds.map(J.duration(seconds:))),
        ])
    }

    /// Recorded stop locations in index order (the list loses gaps, as the proto's repeated field does).
    private static func byIndex(_ points: [Int: StopLocation]) -> [JSONValue] {
        points.sorted { $0.key < $1.key }.map { J.stopLocation($0.value) }
    }

    /// `TrafficPolylineData` (`trafficRendering.roadStretch`): the segment's slow and jammed
    /// intervals as road stretches in meters along the path; nil when there are none.
    private static func trafficPolylineData(_ segment: RouteSegment) -> JSONValue? {
        let path = Self.path(segment.encodedPath)
        let intervals = segment.traffic.compactMap { interval -> TrafficInterval? in
            guard let speed = TrafficSpeed(rawValue: interval.speed.rawValue) else { return nil }
            return try? TrafficInterval(startIndex: interval.startIndex, endIndex: interval.endIndex, speed: speed)
        }
        let stretches = Traffic.roadStretches(from: intervals, along: path)
        guard !stretches.isEmpty else { return nil }
        let rendered = stretches.map { stretch in
            J.object([
                ("style", .string(stretch.style.rawValue)),
                ("offsetMeters", stretch.offsetMeters == 0 ? nil : J.int(stretch.offsetMeters)),
                ("lengthMeters", J.int(stretch.lengthMeters)),
            ])
        }
        return J.object([("trafficRendering", J.object([("roadStretch", .array(rendered))]))])
    }
}
