import Geo
import Journey

extension FleetResourceProjection {
    /// Plan destinations this close to a waypoint (meters) are taken to be that waypoint.
    static let waypointMatchMeters = 5.0

    /// What a trip's document takes from its vehicle and from other trips; nil for an unknown trip.
    ///
    /// Unassigned and terminal trips have none of it. An assigned trip the vehicle already lists
    /// gets the vehicle's waypoints up to its own last stop; one the vehicle does not list yet
    /// (its sync event comes next) gets its own remaining stops.
    func derive(_ key: String) -> TripDerived? {
        guard let record = trips[key], record.state.exists else { return nil }
        let state = record.state
        var derived = TripDerived()
        guard let vehicleId = state.vehicleId, !state.status.isTerminal else { return derived }
        guard let vehicle = vehicles[Self.vehicleKey(provider: record.provider, vehicleId: vehicleId)], vehicle.state.exists else {
            derived.remainingWaypoints = state.remainingWaypoints
            derived.metrics = metrics(for: state.remainingWaypoints, provider: record.provider, vehicle: nil, listed: false)
            return derived
        }
        derived.lastLocation = vehicle.state.lastLocation
        let listed = vehicle.state.currentTrips.contains { $0.tripId == state.tripId }
        if listed {
            let list = vehicle.state.waypoints
            derived.vehicleWaypoints = list
            if let last = list.lastIndex(where: { $0.tripId == state.tripId }) {
                derived.remainingWaypoints = Array(list[...last])
                derived.metrics = Array(metrics(for: list, provider: record.provider, vehicle: vehicle, listed: true)[...last])
            }
        } else {
            derived.remainingWaypoints = state.remainingWaypoints
            derived.metrics = metrics(for: state.remainingWaypoints, provider: record.provider, vehicle: vehicle, listed: false)
        }
        if let first = derived.remainingWaypoints.first, let segment = vehicle.routeSegment,
           Self.segment(segment, leadsTo: first, vehicle: vehicle, listed: listed) {
            derived.segment = segment
            derived.segmentPath = Self.decode(segment.encodedPath)
        }
        return derived
    }

    /// Per-waypoint path, traffic, distance, duration and ETA for a list of waypoints.
    ///
    /// `listed` says the list is the vehicle's own, so its reports (made after the first waypoint
    /// became first) describe the way to `waypoints[0]`. Later entries use the plan leg of the
    /// waypoint's trip that runs from the previous waypoint to it; an ETA chains from the previous
    /// one through the leg's duration.
    func metrics(for waypoints: [TripWaypoint], provider: String, vehicle: VehicleRecord?, listed: Bool) -> [WaypointMetrics] {
        var result: [WaypointMetrics] = []
        result.reserveCapacity(waypoints.count)
        for (index, waypoint) in waypoints.enumerated() {
            var metrics = WaypointMetrics()
            if index == 0 {
                if let vehicle {
                    if let segment = vehicle.routeSegment, Self.segment(segment, leadsTo: waypoint, vehicle: vehicle, listed: listed) {
                        metrics.encodedPath = segment.encodedPath
                        metrics.path = Self.decode(segment.encodedPath)
                        metrics.traffic = segment.traffic
                    }
                    if listed, let remaining = vehicle.remainingRoute, let since = vehicle.firstWaypointSince, remaining.reportedAt >= since {
                        metrics.distanceMeters = remaining.distanceMeters
                        metrics.eta = remaining.eta
                        metrics.durationSeconds = remaining.remainingTimeSeconds
                    }
                    if metrics.distanceMeters == nil, metrics.path.count >= 2, let encoded = metrics.encodedPath {
                        metrics.distanceMeters = Int(Self.path(encoded).length.rounded())
                    }
                }
            } else if let leg = planLeg(from: waypoints[index - 1], to: waypoint, provider: provider) {
                metrics.encodedPath = leg.encodedPolyline
                metrics.path = Self.decode(leg.encodedPolyline)
                metrics.distanceMeters = leg.distanceMeters ?? Int(Self.path(leg.encodedPolyline).length.rounded())
                metrics.durationSeconds = leg.durationSeconds
                if let previous = result[index - 1].eta, let seconds = leg.durationSeconds {
                    metrics.eta = previous.adding(seconds: Double(seconds))
                }
            }
            result.append(metrics)
        }
        return result
    }

    /// The leg of `to`'s trip plan that ends at `to` and starts at `from`, if the plan has one.
    ///
    /// Waypoints carry only a trip id; the provider is the one of the trip or vehicle listing them.
    func planLeg(from: TripWaypoint, to: TripWaypoint, provider: String) -> RoutePlan.Leg? {
        guard let plan = trips[Self.tripKey(provider: provider, tripId: to.tripId)]?.state.routePlan else { return nil }
        let destinations = plan.destinations
        for j in destinations.indices.dropFirst()
        where Self.near(destinations[j].point, to.location.point) && Self.near(destinations[j - 1].point, from.location.point) {
            return plan.legs[j]
        }
        return nil
    }

    /// Whether a reported segment leads to `waypoint`: its end point names that waypoint, or
    /// (without an end point) it was reported since `waypoint` became the vehicle's first.
    static func segment(_ segment: RouteSegment, leadsTo waypoint: TripWaypoint, vehicle: VehicleRecord, listed: Bool) -> Bool {
        if let end = segment.endPoint {
            return end.tripId == waypoint.tripId && end.waypointType == waypoint.waypointType
                && near(end.location.point, waypoint.location.point)
        }
        guard listed, let since = vehicle.firstWaypointSince else { return false }
        return segment.reportedAt >= since
    }

    static func near(_ a: LatLng, _ b: LatLng) -> Bool {
        Distance.meters(a, b) <= waypointMatchMeters
    }

    /// The points of an encoded polyline; empty when it does not decode (the domain validated it).
    static func decode(_ encoded: String) -> [LatLng] {
        path(encoded).points
    }

    /// An encoded polyline as a path, decoded once by the shared cache; empty when it does not decode.
    static func path(_ encoded: String) -> Path {
        (try? PathCache.shared.path(encoded).path) ?? Path([])
    }
}
