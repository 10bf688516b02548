import Geo

/// A route planned for a trip (from the Routes API), handed to the driver's Navigation SDK.
///
/// One leg per destination: `legs[i]` is the encoded polyline (precision 5) that ends at
/// `destinations[i]`. Rules (checked by `validate()`): DRIVE or TWO_WHEELER only
/// (UNSPECIFIED becomes DRIVE; others are `TRAVEL_MODE_UNSUPPORTED`), 1–25 destinations,
/// no via waypoints, a route token only for traffic-aware preferences, every polyline decodes
/// to at least two points.
package struct RoutePlan: Codable, Hashable, Sendable {
    /// A stop of the plan.
    package struct Destination: Codable, Hashable, Sendable {
        /// Where the stop is.
        package var point: LatLng
        /// A pass-through waypoint; not supported with route tokens, so always rejected.
        package var via: Bool

        package init(point: LatLng, via: Bool = false) {
            self.point = point
            self.via = via
        }
    }

    /// The path to one destination.
    package struct Leg: Codable, Hashable, Sendable {
        /// Google encoded polyline, precision 5.
        package var encodedPolyline: String
        /// Planned length in meters, if known.
        package var distanceMeters: Int?
        /// Planned duration in seconds, if known.
        package var durationSeconds: Int?

        package init(encodedPolyline: String, distanceMeters: Int? = nil, durationSeconds: Int? = nil) {
            self.encodedPolyline = encodedPolyline
            self.distanceMeters = distanceMeters
            self.durationSeconds = durationSeconds
        }
    }

    /// The most destinations a plan may have.
    package static let maximumDestinations = 25

    /// Stops in order; the plan replaces any earlier destinations.
    package var destinations: [Destination]
    /// One leg per destination.
    package var legs: [Leg]
    /// Opaque Routes API route token; never compared or parsed.
    package var routeToken: String?
    /// DRIVE or TWO_WHEELER.
    package var travelMode: TravelMode
    /// How traffic was considered when the route was computed.
    package var routingPreference: RoutingPreference
    /// What the route optimizes for.
    package var objectives: [RoutingObjective]
    /// What the route avoids.
    package var options: RoutingOptions
    /// How willing navigation is to leave the plan.
    package var rerouteStrategy: RerouteStrategy

    package init(
        destinations: [Destination],
        legs: [Leg],
        routeToken: String? = nil,
        travelMode: TravelMode = .drive,
        routingPreference: RoutingPreference = .trafficAware,
        objectives: [RoutingObjective] = [],
        options: RoutingOptions = .none,
        rerouteStrategy: RerouteStrategy = .default
    ) {
        self.destinations = destinations
        self.legs = legs
        self.routeToken = routeToken
        self.travelMode = travelMode
        self.routingPreference = routingPreference
        self.objectives = objectives
        self.options = options
        self.rerouteStrategy = rerouteStrategy
    }

    /// Checks the plan and returns it with the travel mode normalized.
    package func validated() throws(JourneyError) -> RoutePlan {
        guard travelMode.isSupportedForRoutePlans else {
            throw .travelModeUnsupported("routePlan.travelMode must be DRIVE or TWO_WHEELER (got \(travelMode.rawValue))")
        }
        guard !destinations.isEmpty else { throw .invalidArgument("routePlan.destinations is required (got 0 destinations)") }
        guard destinations.count <= RoutePlan.maximumDestinations else {
            throw .invalidArgument("routePlan.destinations may hold at most \(RoutePlan.maximumDestinations) waypoints (got \(destinations.count))")
        }
        for (i, destination) in destinations.enumerated() {
            try destination.point.validate(field: "routePlan.destinations[\(i)].point")
            guard !destination.via else {
                throw .invalidArgument("routePlan.destinations[\(i)].via must be false: route tokens do not support via waypoints (got true)")
            }
        }
        guard legs.count == destinations.count else {
            throw .invalidArgument("routePlan.legs must hold one leg per destination (got \(legs.count) legs for \(destinations.count) destinations)")
        }
        for (i, leg) in legs.enumerated() {
            let points: [LatLng]
            do {
                points = try Polyline.decode(leg.encodedPolyline)
            } catch {
                throw .invalidArgument("routePlan.legs[\(i)].encodedPolyline must be a valid encoded polyline (got \"\(leg.encodedPolyline.prefix(32))\")")
            }
            guard points.count >= 2 else {
                throw .invalidArgument("routePlan.legs[\(i)].encodedPolyline must have at least 2 points (got \(points.count))")
            }
            if let d = leg.distanceMeters, d < 0 { throw .invalidArgument("routePlan.legs[\(i)].distanceMeters must be ≥ 0 (got \(d))") }
            if let s = leg.durationSeconds, s < 0 { throw .invalidArgument("routePlan.legs[\(i)].durationSeconds must be ≥ 0 (got \(s))") }
        }
        if let token = routeToken {
            guard !token.isEmpty else { throw .invalidArgument("routePlan.routeToken must not be empty when present (got \"\")") }
            guard routingPreference.allowsRouteToken else {
                throw .invalidArgument("routePlan.routingPreference must be TRAFFIC_AWARE or TRAFFIC_AWARE_OPTIMAL for a route token (got \(routingPreference.rawValue))")
            }
        }
        guard Set(objectives).count == objectives.count else {
            throw .invalidArgument("routePlan.objectives must not repeat (got \(objectives.map(\.rawValue)))")
        }
        try options.validate(field: "routePlan.options")
        try rerouteStrategy.validate(field: "routePlan.rerouteStrategy")
        var plan = self
        plan.travelMode = travelMode.normalized
        return plan
    }

    /// The routing parameters the plan asks for.
    package var requestedParameters: ResolvedRoutingParameters {
        ResolvedRoutingParameters(travelMode: travelMode, options: options, rerouteStrategy: rerouteStrategy)
    }
}

extension RerouteStrategy {
    func validate(field: String) throws(JourneyError) {
        if let t = timeToleranceSeconds, t < 0 {
            throw .invalidArgument("\(field).timeToleranceSeconds must be ≥ 0 (got \(t))")
        }
    }
}
