import Geo

/// A route planned for a trip (from the Routes API), handed to the driver's Navigation SDK.
///
/// One leg per destination: `legs[i]` is the encoded polyline (precision 5) that ends at
/// `destinations[i]`, with its turn-by-turn steps and traffic speed intervals when the routing
/// API gave them. Rules (checked by `validate()`): DRIVE or TWO_WHEELER only (UNSPECIFIED
/// becomes DRIVE; others are `TRAVEL_MODE_UNSUPPORTED`), at least one destination and at most
/// 25 intermediate stops between the origin and the final destination (so at most 26
/// destinations), no via waypoints, a route token only for traffic-aware preferences, every
/// polyline decodes to at least two points.
///
/// A plan may carry alternatives (`routes`, index 0 the routing API's default): `legs` and
/// `routeToken` are always those of the route in force (`selectedRouteIndex`). Plans written
/// before steps and alternatives existed decode unchanged: the new members are optional.
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
        /// Duration without traffic in seconds, if known.
        package var staticDurationSeconds: Int?
        /// Where the leg starts and ends, as the routing API reported them.
        package var startLocation: LatLng?
        package var endLocation: LatLng?
        /// Turn-by-turn steps, in driving order; nil when the routing API gave none.
        package var steps: [Step]?
        /// Traffic on the leg's polyline (`travelAdvisory.speedReadingIntervals`), by point index.
        package var speedIntervals: [TrafficSpeedInterval]?

        package init(encodedPolyline: String, distanceMeters: Int? = nil, durationSeconds: Int? = nil, staticDurationSeconds: Int? = nil,
                     startLocation: LatLng? = nil, endLocation: LatLng? = nil, steps: [Step]? = nil, speedIntervals: [TrafficSpeedInterval]? = nil) {
            self.encodedPolyline = encodedPolyline
            self.distanceMeters = distanceMeters
            self.durationSeconds = durationSeconds
            self.staticDurationSeconds = staticDurationSeconds
            self.startLocation = startLocation
            self.endLocation = endLocation
            self.steps = steps
            self.speedIntervals = speedIntervals
        }
    }

    /// The most intermediate stops (between the origin and the final destination) a plan may have.
    package static let maximumIntermediateStops = 25
    /// The most destinations a plan may have: the intermediate stops and the final destination.
    package static let maximumDestinations = maximumIntermediateStops + 1

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
    /// Every route the routing API returned, when it returned more than one (index 0 the default).
    package var routes: [Route]?
    /// Index into `routes` of the route in force; nil means 0.
    package var selectedRouteIndex: Int?

    package init(
        destinations: [Destination],
        legs: [Leg],
        routeToken: String? = nil,
        travelMode: TravelMode = .drive,
        routingPreference: RoutingPreference = .trafficAware,
        objectives: [RoutingObjective] = [],
        options: RoutingOptions = .none,
        rerouteStrategy: RerouteStrategy = .default,
        routes: [Route]? = nil,
        selectedRouteIndex: Int? = nil
    ) {
        self.destinations = destinations
        self.legs = legs
        self.routeToken = routeToken
        self.travelMode = travelMode
        self.routingPreference = routingPreference
        self.objectives = objectives
        self.options = options
        self.rerouteStrategy = rerouteStrategy
        self.routes = routes
        self.selectedRouteIndex = selectedRouteIndex
    }

    /// Checks the plan and returns it with the travel mode normalized.
    package func validated() throws(JourneyError) -> RoutePlan {
        guard travelMode.isSupportedForRoutePlans else {
            throw .travelModeUnsupported("routePlan.travelMode must be DRIVE or TWO_WHEELER (got \(travelMode.rawValue))")
        }
        guard !destinations.isEmpty else { throw .invalidArgument("routePlan.destinations is required (got 0 destinations)") }
        guard destinations.count <= RoutePlan.maximumDestinations else {
            throw .invalidArgument("routePlan.destinations may hold at most \(RoutePlan.maximumIntermediateStops) intermediate waypoints between origin and final destination (got \(destinations.count - 1))")
        }
        for (i, destination) in destinations.enumerated() {
            try destination.point.validate(field: "routePlan.destinations[\(i)].point")
            guard !destination.via else {
                throw .invalidArgument("routePlan.destinations[\(i)].via must be false: route tokens do not support via waypoints (got true)")
            }
        }
        try Self.validateLegs(legs, field: "routePlan.legs", destinations: destinations.count)
        if let routes {
            guard routes.count >= 1 else { throw .invalidArgument("routePlan.routes must hold at least one route when present (got 0)") }
            for (r, route) in routes.enumerated() {
                try Self.validateLegs(route.legs, field: "routePlan.routes[\(r)].legs", destinations: destinations.count)
                if let token = route.routeToken {
                    guard !token.isEmpty else { throw .invalidArgument("routePlan.routes[\(r)].routeToken must not be empty when present (got \"\")") }
                    guard routingPreference.allowsRouteToken else {
                        throw .invalidArgument("routePlan.routingPreference must be TRAFFIC_AWARE or TRAFFIC_AWARE_OPTIMAL for a route token (got \(routingPreference.rawValue))")
                    }
                }
            }
            let index = selectedRouteIndex ?? 0
            guard routes.indices.contains(index) else {
                throw .invalidArgument("routePlan.selectedRouteIndex must be in 0..<\(routes.count) (got \(index))")
            }
            guard routes[index].legs == legs, routes[index].routeToken == routeToken else {
                throw .invalidArgument("routePlan.legs and routeToken must be those of routes[\(index)], the route in force")
            }
        } else if let index = selectedRouteIndex, index != 0 {
            throw .invalidArgument("routePlan.selectedRouteIndex must be 0 without alternative routes (got \(index))")
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

    /// One leg per destination, each valid (see `Leg.validate`).
    private static func validateLegs(_ legs: [Leg], field: String, destinations: Int) throws(JourneyError) {
        guard legs.count == destinations else {
            throw .invalidArgument("\(field) must hold one leg per destination (got \(legs.count) legs for \(destinations) destinations)")
        }
        for (i, leg) in legs.enumerated() {
            let points = try PathLimit.decode(leg.encodedPolyline, field: "\(field)[\(i)].encodedPolyline")
            try leg.validate(field: "\(field)[\(i)]", pointCount: points.count)
        }
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
