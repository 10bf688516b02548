import Geo
import JSON
import Journey

/// Reads route plan requests: `:planRoute` (a Routes API computeRoutes response plus the request's
/// options), `:selectRoute` and `:reportRouteTokenExecution` bodies.
///
/// Strict like every body here: unknown members are INVALID_ARGUMENT. Routes API output fields
/// that a plan does not keep (labels, viewport, localized values, warnings, ...) are listed and
/// ignored, so a computeRoutes response can be passed on unchanged.
enum RoutePlanJSON {
    static let travelMode = ProtoEnum(values: [
        ("TRAVEL_MODE_UNSPECIFIED", 0), ("DRIVE", 1), ("BICYCLE", 2), ("WALK", 3), ("TWO_WHEELER", 4), ("TRANSIT", 7),
    ])
    static let routingPreference = ProtoEnum(values: [
        ("ROUTING_PREFERENCE_UNSPECIFIED", 0), ("TRAFFIC_UNAWARE", 1), ("TRAFFIC_AWARE", 2), ("TRAFFIC_AWARE_OPTIMAL", 3),
    ])
    static let maneuver = ProtoEnum(values: Maneuver.allCases.enumerated().map { ($0.element.rawValue, $0.offset) })
    static let objective = ProtoEnum(values: RoutingObjective.allCases.enumerated().map { ($0.element.rawValue, $0.offset) })
    static let routeStatus = ProtoEnum(values: RouteStatus.allCases.enumerated().map { ($0.element.rawValue, $0.offset) })
    static let tokenExecutionStatus = ProtoEnum(values: RouteTokenExecutionStatus.allCases.enumerated().map { ($0.element.rawValue, $0.offset) })

    /// Route-level Routes API output members a plan does not keep.
    static let ignoredRouteFields = ["routeLabels", "description", "warnings", "viewport", "travelAdvisory", "localizedValues",
                                     "optimizedIntermediateWaypointIndex", "polylineDetails"]
    static let ignoredLegFields = ["localizedValues", "stepsOverview"]
    static let ignoredStepFields = ["travelAdvisory", "localizedValues", "transitDetails", "travelMode"]

    /// The plan in `body` for a trip whose stops still ahead are `destinations`, in order.
    static func plan(_ body: JSONValue, destinations: [LatLng]) throws(APIError) -> RoutePlan {
        var object = try ProtoObject(body, at: "")
        object.ignore(["fallbackInfo", "geocodingResults"])
        guard let routesValue = try object.take("routes") else { throw .invalidArgument("routes is required (the computeRoutes response's routes)") }
        let routes = try FleetEngineValues.list(routesValue, at: "routes", route)
        guard !routes.isEmpty else { throw .invalidArgument("routes must hold at least one route (got 0)") }
        let mode = try object.take("travelMode").map { v throws(APIError) in try ProtoValue.enumeration(v, travelMode, at: "travelMode", as: TravelMode.self) } ?? .unspecified
        let preference = try object.take("routingPreference").map { v throws(APIError) in
            try ProtoValue.enumeration(v, routingPreference, at: "routingPreference", as: RoutingPreference.self)
        } ?? .unspecified
        let objectives = try object.take("objectives").map { v throws(APIError) in
            try FleetEngineValues.list(v, at: "objectives") { e, p throws(APIError) in try ProtoValue.enumeration(e, objective, at: p, as: RoutingObjective.self) }
        } ?? []
        var options = RoutingOptions.none
        if let modifiers = try object.take("routeModifiers") {
            options = try routingOptions(modifiers, at: "routeModifiers")
        }
        if let intermediates = try object.take("intermediates") {
            let via = try FleetEngineValues.list(intermediates, at: "intermediates") { e, p throws(APIError) in
                var waypoint = try ProtoObject(e, at: p)
                waypoint.ignore(["location", "placeId", "address", "vehicleStopover", "sideOfRoad", "navigationPointToken"])
                let flag = try waypoint.take("via").map { v throws(APIError) in try ProtoValue.bool(v, at: waypoint.path("via")) } ?? false
                try waypoint.finish()
                return flag
            }
            // Route tokens exclude via waypoints: any via is refused, whichever stops the list covers.
            if let index = via.firstIndex(of: true) {
                throw .invalidArgument("intermediates[\(index)].via must be false: route tokens do not support via waypoints (got true)")
            }
        }
        var strategy = RerouteStrategy.default
        if let reroute = try object.take("rerouteStrategy") { strategy = try rerouteStrategy(reroute, at: "rerouteStrategy") }
        try object.finish()
        guard !destinations.isEmpty else {
            throw APIError(.failedPrecondition, "the trip has no stops left to plan a route to")
        }
        let stops = destinations.map { RoutePlan.Destination(point: $0) }
        return RoutePlan(destinations: stops, legs: routes[0].legs, routeToken: routes[0].routeToken, travelMode: mode,
                         routingPreference: preference, objectives: objectives, options: options, rerouteStrategy: strategy,
                         routes: routes.count > 1 ? routes : nil, selectedRouteIndex: nil)
    }

    static func route(_ value: JSONValue, at path: String) throws(APIError) -> RoutePlan.Route {
        var object = try ProtoObject(value, at: path)
        object.ignore(ignoredRouteFields + ["polyline", "staticDuration"])
        let token = try object.take("routeToken").map { v throws(APIError) in try ProtoValue.string(v, at: object.path("routeToken")) }
        let distance = try object.take("distanceMeters").map { v throws(APIError) in try ProtoValue.int32(v, at: object.path("distanceMeters")) }
        let duration = try object.take("duration").map { v throws(APIError) in try seconds(v, at: object.path("duration")) }
        guard let legsValue = try object.take("legs") else { throw .invalidArgument("\(path).legs is required (one leg per stop still ahead)") }
        let legs = try FleetEngineValues.list(legsValue, at: object.path("legs"), leg)
        try object.finish()
        return RoutePlan.Route(routeToken: token, legs: legs, distanceMeters: distance, durationSeconds: duration)
    }

    static func leg(_ value: JSONValue, at path: String) throws(APIError) -> RoutePlan.Leg {
        var object = try ProtoObject(value, at: path)
        object.ignore(ignoredLegFields)
        let polyline = try encodedPolyline(try object.take("polyline"), at: object.path("polyline"))
        var leg = RoutePlan.Leg(encodedPolyline: polyline)
        leg.distanceMeters = try object.take("distanceMeters").map { v throws(APIError) in try ProtoValue.int32(v, at: object.path("distanceMeters")) }
        leg.durationSeconds = try object.take("duration").map { v throws(APIError) in try seconds(v, at: object.path("duration")) }
        leg.staticDurationSeconds = try object.take("staticDuration").map { v throws(APIError) in try seconds(v, at: object.path("staticDuration")) }
        leg.startLocation = try object.take("startLocation").map { v throws(APIError) in try location(v, at: object.path("startLocation")) }
        leg.endLocation = try object.take("endLocation").map { v throws(APIError) in try location(v, at: object.path("endLocation")) }
        leg.steps = try object.take("steps").map { v throws(APIError) in try FleetEngineValues.list(v, at: object.path("steps"), step) }
        if let advisory = try object.take("travelAdvisory") {
            var travel = try ProtoObject(advisory, at: object.path("travelAdvisory"))
            travel.ignore(["tollInfo", "fuelConsumptionMicroliters", "routeRestrictionsPartiallyIgnored", "transitFare"])
            leg.speedIntervals = try travel.take("speedReadingIntervals").map { v throws(APIError) in
                try FleetEngineValues.list(v, at: travel.path("speedReadingIntervals"), speedInterval)
            }
            try travel.finish()
        }
        try object.finish()
        return leg
    }

    static func step(_ value: JSONValue, at path: String) throws(APIError) -> RoutePlan.Step {
        var object = try ProtoObject(value, at: path)
        object.ignore(ignoredStepFields)
        let distance = try object.take("distanceMeters").map { v throws(APIError) in try ProtoValue.int32(v, at: object.path("distanceMeters")) } ?? 0
        let duration = try object.take("staticDuration").map { v throws(APIError) in try seconds(v, at: object.path("staticDuration")) } ?? 0
        let polyline = try encodedPolyline(try object.take("polyline"), at: object.path("polyline"))
        guard let startValue = try object.take("startLocation") else { throw .invalidArgument("\(path).startLocation is required") }
        guard let endValue = try object.take("endLocation") else { throw .invalidArgument("\(path).endLocation is required") }
        let start = try location(startValue, at: object.path("startLocation"))
        let end = try location(endValue, at: object.path("endLocation"))
        var maneuverValue = Maneuver.unspecified
        var instruction = ""
        if let navigation = try object.take("navigationInstruction") {
            var nav = try ProtoObject(navigation, at: object.path("navigationInstruction"))
            maneuverValue = try nav.take("maneuver").map { v throws(APIError) in try ProtoValue.enumeration(v, maneuver, at: nav.path("maneuver"), as: Maneuver.self) } ?? .unspecified
            instruction = try nav.take("instructions").map { v throws(APIError) in try ProtoValue.string(v, at: nav.path("instructions")) } ?? ""
            try nav.finish()
        }
        let lanes = try object.take("lanes").map { v throws(APIError) in try ProtoValue.bool(v, at: object.path("lanes")) }
        try object.finish()
        return RoutePlan.Step(maneuver: maneuverValue, instruction: instruction, distanceMeters: distance, durationSeconds: duration,
                              encodedPolyline: polyline, start: start, end: end, lanes: lanes)
    }

    static func speedInterval(_ value: JSONValue, at path: String) throws(APIError) -> TrafficSpeedInterval {
        var object = try ProtoObject(value, at: path)
        let start = try object.take("startPolylinePointIndex").map { v throws(APIError) in try ProtoValue.int32(v, at: object.path("startPolylinePointIndex")) } ?? 0
        guard let endValue = try object.take("endPolylinePointIndex") else { throw .invalidArgument("\(path).endPolylinePointIndex is required") }
        let end = try ProtoValue.int32(endValue, at: object.path("endPolylinePointIndex"))
        let speedName = try object.take("speed").map { v throws(APIError) in try ProtoValue.enumName(v, .speed, at: object.path("speed")) } ?? "SPEED_UNSPECIFIED"
        try object.finish()
        let speed = TrafficSpeedInterval.Speed(rawValue: speedName) ?? .noData
        return TrafficSpeedInterval(startIndex: start, endIndex: end, speed: speed)
    }

    /// `{"encodedPolyline": "..."}` (GeoJSON linestrings are not accepted).
    static func encodedPolyline(_ value: JSONValue?, at path: String) throws(APIError) -> String {
        guard let value else { throw .invalidArgument("\(path).encodedPolyline is required") }
        var object = try ProtoObject(value, at: path)
        if object.has("geoJsonLinestring") {
            throw .invalidArgument("\(path) must be an encodedPolyline; geoJsonLinestring is not accepted")
        }
        guard let text = try object.take("encodedPolyline") else { throw .invalidArgument("\(path).encodedPolyline is required") }
        let encoded = try ProtoValue.string(text, at: object.path("encodedPolyline"))
        try object.finish()
        return encoded
    }

    /// A Routes API `Location`: `{"latLng": {...}, "heading": n}`.
    static func location(_ value: JSONValue, at path: String) throws(APIError) -> LatLng {
        var object = try ProtoObject(value, at: path)
        object.ignore(["heading"])
        guard let latLng = try object.take("latLng") else { throw .invalidArgument("\(path).latLng is required") }
        let point = try FleetEngineValues.latLng(latLng, at: object.path("latLng"))
        try object.finish()
        return point
    }

    /// A duration in whole seconds (nearest), ≥ 0 checked by the domain.
    static func seconds(_ value: JSONValue, at path: String) throws(APIError) -> Int {
        let micros = try ProtoValue.duration(value, at: path)
        return Int((Double(micros) / 1e6).rounded())
    }

    static func routingOptions(_ value: JSONValue, at path: String) throws(APIError) -> RoutingOptions {
        var object = try ProtoObject(value, at: path)
        object.ignore(["vehicleInfo", "tollPasses", "avoidIndoor"])
        func flag(_ name: String) throws(APIError) -> Bool {
            try object.take(name).map { v throws(APIError) in try ProtoValue.bool(v, at: object.path(name)) } ?? false
        }
        var options = RoutingOptions()
        options.avoidTolls = try flag("avoidTolls")
        options.avoidHighways = try flag("avoidHighways")
        options.avoidFerries = try flag("avoidFerries")
        options.avoidTunnels = try flag("avoidTunnels")
        options.avoidVignettes = try object.take("avoidVignettes").map { v throws(APIError) in
            try FleetEngineValues.list(v, at: object.path("avoidVignettes")) { e, p throws(APIError) in try ProtoValue.string(e, at: p) }
        } ?? []
        try object.finish()
        return options
    }

    static let rerouteBasis = ProtoEnum(values: RerouteStrategy.Basis.allCases.enumerated().map { ($0.element.rawValue, $0.offset) })

    /// `{"timeToleranceSeconds": N}` (Waymark's object), or the Navigation SDK's reroute strategy
    /// enum by name (`BEST_BASED_ON_TOKEN_PARAMETERS`, or the SDK's `bestBasedOnTokenParameters`) or number.
    static func rerouteStrategy(_ value: JSONValue, at path: String) throws(APIError) -> RerouteStrategy {
        switch value {
        case .string, .number:
            return RerouteStrategy(basis: try ProtoValue.enumeration(sdkEnum(value), rerouteBasis, at: path, as: RerouteStrategy.Basis.self))
        default:
            var object = try ProtoObject(value, at: path)
            let tolerance = try object.take("timeToleranceSeconds").map { v throws(APIError) in try ProtoValue.int32(v, at: object.path("timeToleranceSeconds")) }
            let basis = try object.take("basis").map { v throws(APIError) in
                try ProtoValue.enumeration(sdkEnum(v), rerouteBasis, at: object.path("basis"), as: RerouteStrategy.Basis.self)
            }
            try object.finish()
            return RerouteStrategy(timeToleranceSeconds: tolerance, basis: basis)
        }
    }

    /// An enum name as the iOS Navigation SDK spells it (`tokenSuccessfullyApplied`) in Fleet
    /// Engine's style (`TOKEN_SUCCESSFULLY_APPLIED`); anything else unchanged.
    static func sdkEnum(_ value: JSONValue) -> JSONValue {
        guard case .string(let text) = value, let first = text.unicodeScalars.first, first.properties.isLowercase,
              text.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || (48...57).contains($0.value)) })
        else { return value }
        var snake = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.isUppercase { snake.append("_") }
            snake.unicodeScalars.append(scalar)
        }
        return .string(snake.uppercased())
    }

    /// `:selectRoute`: `{"routeIndex": N}`.
    static func routeIndex(_ body: JSONValue) throws(APIError) -> Int {
        var object = try ProtoObject(body, at: "")
        guard let value = try object.take("routeIndex") else { throw .invalidArgument("routeIndex is required") }
        let index = try ProtoValue.int32(value, at: "routeIndex")
        try object.finish()
        return index
    }

    /// What `:reportRouteTokenExecution` carries.
    struct TokenReport {
        var tripId: String?
        var routeStatus: RouteStatus?
        var status: RouteTokenExecutionStatus
        var resolved: ResolvedRoutingParameters?
    }

    /// `{"tripId"?, "routeStatus", "routeTokenExecutionStatus", "resolvedParameters": {"travelMode",
    /// "avoidTolls", "avoidHighways", "avoidFerries", "avoidTunnels", "avoidVignettes", "rerouteStrategy"}}`.
    ///
    /// The Navigation SDK's names are accepted too: `tokenExecutionStatus` for the status, and its
    /// route description's shape with status and parameters nested under `routeTokenExecutionDetails`.
    /// Enum values may be spelled as the iOS SDK prints them (`tokenSuccessfullyApplied`).
    static func tokenReport(_ body: JSONValue) throws(APIError) -> TokenReport {
        var object = try ProtoObject(body, at: "")
        let tripId = try object.take("tripId").map { v throws(APIError) in try ProtoValue.string(v, at: "tripId") }
        let status = try object.take("routeStatus").map { v throws(APIError) in try ProtoValue.enumeration(sdkEnum(v), routeStatus, at: "routeStatus", as: RouteStatus.self) }
        var details = try object.take("routeTokenExecutionDetails").map { v throws(APIError) in try ProtoObject(v, at: "routeTokenExecutionDetails") }
        var statuses: [(path: String, value: JSONValue)] = []
        for name in ["routeTokenExecutionStatus", "tokenExecutionStatus"] {
            if let value = try object.take(name) { statuses.append((name, value)) }
            if let value = try details?.take(name), let path = details?.path(name) { statuses.append((path, value)) }
        }
        guard let (statusPath, executionValue) = statuses.first else {
            throw .invalidArgument("routeTokenExecutionStatus (or the SDK's routeTokenExecutionDetails.tokenExecutionStatus) is required (e.g. TOKEN_SUCCESSFULLY_APPLIED)")
        }
        guard statuses.count == 1 else {
            throw .invalidArgument("the token execution status is given \(statuses.count) times (\(statuses.map(\.path).joined(separator: ", "))): give it once")
        }
        let execution = try ProtoValue.enumeration(sdkEnum(executionValue), tokenExecutionStatus, at: statusPath, as: RouteTokenExecutionStatus.self)
        let flatParameters = try object.take("resolvedParameters")
        let nestedParameters = try details?.take("resolvedParameters")
        try details?.finish()
        guard flatParameters == nil || nestedParameters == nil else {
            throw .invalidArgument("resolvedParameters is given twice (at the top level and in routeTokenExecutionDetails): give it once")
        }
        let parametersPath = nestedParameters == nil ? "resolvedParameters" : "routeTokenExecutionDetails.resolvedParameters"
        var resolved: ResolvedRoutingParameters?
        if let parameters = flatParameters ?? nestedParameters {
            var p = try ProtoObject(parameters, at: parametersPath)
            let mode = try p.take("travelMode").map { v throws(APIError) in try ProtoValue.enumeration(sdkEnum(v), travelMode, at: p.path("travelMode"), as: TravelMode.self) } ?? .unspecified
            let reroute = try p.take("rerouteStrategy").map { v throws(APIError) in try rerouteStrategy(v, at: p.path("rerouteStrategy")) } ?? .default
            var options = RoutingOptions()
            func flag(_ name: String) throws(APIError) -> Bool {
                try p.take(name).map { v throws(APIError) in try ProtoValue.bool(v, at: p.path(name)) } ?? false
            }
            options.avoidTolls = try flag("avoidTolls")
            options.avoidHighways = try flag("avoidHighways")
            options.avoidFerries = try flag("avoidFerries")
            options.avoidTunnels = try flag("avoidTunnels")
            options.avoidVignettes = try p.take("avoidVignettes").map { v throws(APIError) in
                try FleetEngineValues.list(v, at: p.path("avoidVignettes")) { e, q throws(APIError) in try ProtoValue.string(e, at: q) }
            } ?? []
            try p.finish()
            resolved = ResolvedRoutingParameters(travelMode: mode, options: options, rerouteStrategy: reroute)
        }
        try object.finish()
        return TokenReport(tripId: tripId?.isEmpty == true ? nil : tripId, routeStatus: status, status: execution, resolved: resolved)
    }
}
