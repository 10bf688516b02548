import Geo

extension RoutePlan {
    /// One turn-by-turn step of a leg (the Routes API `RouteLegStep`).
    ///
    /// The step's maneuver happens at `start`; the car then drives `encodedPolyline` to `end`,
    /// where the next step's maneuver happens. `lanes` is true when the routing API gave lane
    /// guidance for the step (nil: not reported).
    package struct Step: Codable, Hashable, Sendable {
        package var maneuver: Maneuver
        /// Instruction text, as the routing API wrote it ("Turn left onto Oak Street").
        package var instruction: String
        /// Length in meters.
        package var distanceMeters: Int
        /// Duration in seconds without traffic (`staticDuration`).
        package var durationSeconds: Int
        /// Google encoded polyline, precision 5.
        package var encodedPolyline: String
        package var start: LatLng
        package var end: LatLng
        package var lanes: Bool?

        package init(maneuver: Maneuver, instruction: String, distanceMeters: Int, durationSeconds: Int, encodedPolyline: String,
                     start: LatLng, end: LatLng, lanes: Bool? = nil) {
            self.maneuver = maneuver
            self.instruction = instruction
            self.distanceMeters = distanceMeters
            self.durationSeconds = durationSeconds
            self.encodedPolyline = encodedPolyline
            self.start = start
            self.end = end
            self.lanes = lanes
        }
    }

    /// One route of a plan: the default route (index 0) or an alternative the routing API returned.
    ///
    /// Each alternative has its own route token. `legs` follow the plan's destinations.
    package struct Route: Codable, Hashable, Sendable {
        package var routeToken: String?
        package var legs: [Leg]
        package var distanceMeters: Int?
        package var durationSeconds: Int?

        package init(routeToken: String? = nil, legs: [Leg], distanceMeters: Int? = nil, durationSeconds: Int? = nil) {
            self.routeToken = routeToken
            self.legs = legs
            self.distanceMeters = distanceMeters
            self.durationSeconds = durationSeconds
        }
    }

    /// The plan with route `index` of `routes` in force: its legs and token replace the current ones.
    ///
    /// Unchanged when the plan has no such route (callers validate the index first).
    package func selecting(_ index: Int) -> RoutePlan {
        guard let routes, routes.indices.contains(index) else { return self }
        var plan = self
        plan.legs = routes[index].legs
        plan.routeToken = routes[index].routeToken
        plan.selectedRouteIndex = index
        return plan
    }

    /// The index of the route in force (0 when the plan has no alternatives).
    package var routeIndex: Int { selectedRouteIndex ?? 0 }

    /// How many routes the plan offers (1 without alternatives).
    package var routeCount: Int { routes?.count ?? 1 }
}

extension RoutePlan.Leg {
    /// Checks the leg's own numbers, steps and traffic intervals; `field` names it in messages.
    func validate(field: String, pointCount: Int) throws(JourneyError) {
        if let d = distanceMeters, d < 0 { throw .invalidArgument("\(field).distanceMeters must be ≥ 0 (got \(d))") }
        if let s = durationSeconds, s < 0 { throw .invalidArgument("\(field).durationSeconds must be ≥ 0 (got \(s))") }
        if let s = staticDurationSeconds, s < 0 { throw .invalidArgument("\(field).staticDurationSeconds must be ≥ 0 (got \(s))") }
        if let start = startLocation { try start.validate(field: "\(field).startLocation") }
        if let end = endLocation { try end.validate(field: "\(field).endLocation") }
        for (i, step) in (steps ?? []).enumerated() {
            try step.validate(field: "\(field).steps[\(i)]")
        }
        var previousEnd = 0
        for (i, interval) in (speedIntervals ?? []).enumerated() {
            guard interval.startIndex >= previousEnd, interval.endIndex > interval.startIndex, interval.endIndex <= pointCount - 1 else {
                throw .invalidArgument("\(field).speedReadingIntervals[\(i)] must be an ascending, non-overlapping [start, end) range within 0...\(pointCount - 1) (got [\(interval.startIndex), \(interval.endIndex)))")
            }
            previousEnd = interval.endIndex
        }
    }
}

extension RoutePlan.Step {
    func validate(field: String) throws(JourneyError) {
        guard distanceMeters >= 0 else { throw .invalidArgument("\(field).distanceMeters must be ≥ 0 (got \(distanceMeters))") }
        guard durationSeconds >= 0 else { throw .invalidArgument("\(field).staticDuration must be ≥ 0 (got \(durationSeconds)s)") }
        guard instruction.count <= 1000 else { throw .invalidArgument("\(field).instructions may hold at most 1000 characters (got \(instruction.count))") }
        try start.validate(field: "\(field).startLocation")
        try end.validate(field: "\(field).endLocation")
        _ = try PathLimit.decode(encodedPolyline, field: "\(field).polyline")
    }
}
