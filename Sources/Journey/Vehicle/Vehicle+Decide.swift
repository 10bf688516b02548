import Geo

extension Vehicle {
    /// Decides which events a command produces, or why it is rejected.
    ///
    /// Pure: no clock, no ids, no I/O. An empty result means "nothing to do" (idempotent repeat).
    package static func decide(_ command: Command, state: State) throws(JourneyError) -> [Event] {
        if case .registerVehicle(let register, let at) = command {
            return try decideRegister(register, at: at, state: state)
        }
        guard state.exists else {
            throw .notFound("vehicle must be registered before it can be changed (vehicle \(state.vehicleId.isEmpty ? "<unknown>" : state.vehicleId) not found)")
        }
        let id = state.vehicleId
        switch command {
        case .registerVehicle:
            preconditionFailure("handled above")
        case .setVehicleState(let to, let at):
            guard to != .unknown else {
                throw .invalidArgument("vehicleState must be ONLINE or OFFLINE (got \(to.rawValue))")
            }
            guard to != state.vehicleState else { return [] }
            return [.stateChanged(.init(vehicleId: id, from: state.vehicleState, to: to, at: at))]
        case .reportLocation(let location, let pastLocations, let policy, let at):
            return try decideLocation(location, pastLocations: pastLocations, policy: policy, at: at, state: state)
        case .updateRouteSegment(let encodedPath, let traffic, let endPoint, let at):
            let points = try decodePath(encodedPath, field: "currentRouteSegment")
            var previousEnd = 0
            for (i, interval) in traffic.enumerated() {
                guard interval.startIndex >= previousEnd, interval.endIndex > interval.startIndex, interval.endIndex <= points.count - 1 else {
                    throw .invalidArgument("currentRouteSegmentTraffic[\(i)] must be an ascending, non-overlapping [start, end) range within 0...\(points.count - 1) (got [\(interval.startIndex), \(interval.endIndex)))")
                }
                previousEnd = interval.endIndex
            }
            if let endPoint { try endPoint.location.point.validate(field: "currentRouteSegmentEndPoint.location.point") }
            var events: [Event] = [.routeSegmentUpdated(.init(
                vehicleId: id, encodedPath: encodedPath, traffic: traffic, endPoint: endPoint,
                currentTripIds: state.currentTripIds, at: at))]
            if state.isOffRoute, let followed = state.followedRoute {
                events.append(.rerouted(.init(vehicleId: id, tripId: followed.tripId, encodedPath: encodedPath, at: at)))
            }
            return events
        case .reportRemainingRoute(let distance, let eta, let remainingTime, let at):
            guard distance != nil || eta != nil || remainingTime != nil else {
                throw .invalidArgument("remainingDistanceMeters, etaToFirstWaypoint or remainingTimeSeconds is required (got none)")
            }
            if let distance, distance < 0 { throw .invalidArgument("remainingDistanceMeters must be ≥ 0 (got \(distance))") }
            if let remainingTime, remainingTime < 0 { throw .invalidArgument("remainingTimeSeconds must be ≥ 0 (got \(remainingTime))") }
            // remainingTimeSeconds wins over etaToFirstWaypoint in the same report.
            let resolvedEta = remainingTime.map { at.adding(seconds: Double($0)) } ?? eta
            return [.remainingRouteReported(.init(
                vehicleId: id, remainingDistanceMeters: distance, etaToFirstWaypoint: resolvedEta,
                remainingTimeSeconds: remainingTime, currentTripIds: state.currentTripIds, at: at))]
        case .setNavigationStatus(let to, let at):
            guard to != .unknown else {
                throw .invalidArgument("navigationStatus must be a known status (got \(to.rawValue))")
            }
            guard to != state.navigationStatus else { return [] }
            return [.navigationStatusChanged(.init(vehicleId: id, from: state.navigationStatus, to: to, at: at))]
        case .reorderWaypoints(let waypoints, let at):
            try validateReorder(waypoints, state: state)
            guard waypoints != state.waypoints else { return [] }
            return [.waypointsReordered(.init(vehicleId: id, waypoints: waypoints, at: at))]
        case .followRoute(let tripId, let encodedPath, let at):
            guard state.currentTripIds.contains(tripId) else {
                throw .failedPrecondition("vehicle can only follow the route of one of its current trips (vehicle \(id) currentTrips \(state.currentTripIds), tripId \(tripId))")
            }
            _ = try decodePath(encodedPath, field: "route.encodedPath")
            return [.routeFollowed(.init(vehicleId: id, tripId: tripId, encodedPath: encodedPath, at: at))]
        case .syncTrip(let trip, let at):
            return try decideSync(trip, at: at, state: state)
        case .setAttributes(let attributes, let at):
            try Attribute.validate(attributes, field: "attributes")
            guard attributes != state.attributes else { return [] }
            return [.attributesSet(.init(vehicleId: id, attributes: attributes, merged: false, at: at))]
        case .mergeAttributes(let attributes, let at):
            guard !attributes.isEmpty else {
                throw .invalidArgument("attributes is required and must not be empty to merge (vehicle \(id))")
            }
            try Attribute.validate(attributes, field: "attributes")
            var merged = state.attributes
            for attribute in attributes {
                if let i = merged.firstIndex(where: { $0.key == attribute.key }) {
                    merged[i] = attribute
                } else {
                    merged.append(attribute)
                }
            }
            guard merged.count <= Attribute.maximumCount else {
                throw .invalidArgument("attributes may hold at most \(Attribute.maximumCount) attributes after the merge (got \(merged.count), vehicle \(id) has \(state.attributes.count))")
            }
            guard merged != state.attributes else { return [] }
            return [.attributesSet(.init(vehicleId: id, attributes: merged, merged: true, at: at))]
        case .setBackToBackEnabled(let enabled, let at):
            guard enabled != state.backToBackEnabled else { return [] }
            return [.backToBackEnabledChanged(.init(vehicleId: id, backToBackEnabled: enabled, at: at))]
        case .updateCapabilities(let capacity, let types, let vehicleType, let at):
            guard capacity != nil || types != nil || vehicleType != nil else {
                throw .invalidArgument("maximumCapacity, supportedTripTypes or vehicleType is required (got none, vehicle \(id))")
            }
            if let capacity { try validateCapacity(capacity) }
            if let types { try validateTripTypes(types) }
            if let vehicleType { try validateVehicleType(vehicleType) }
            let next = (capacity ?? state.maximumCapacity, types ?? state.supportedTripTypes, vehicleType ?? state.vehicleType)
            guard next != (state.maximumCapacity, state.supportedTripTypes, state.vehicleType) else { return [] }
            return [.capabilitiesChanged(.init(
                vehicleId: id, maximumCapacity: next.0, supportedTripTypes: next.1, vehicleType: next.2, at: at))]
        case .setLicensePlate(let plate, let at):
            let validated = try plate?.validated(field: "licensePlate")
            guard validated != state.licensePlate else { return [] }
            return [.licensePlateSet(.init(vehicleId: id, licensePlate: validated, at: at))]
        case .offerTrip(let tripId, let trip, let expiresAt, let at):
            return try decideOffer(tripId: tripId, trip: trip, expiresAt: expiresAt, at: at, state: state)
        case .answerOffer(let tripId, let accept, let at):
            return try decideAnswer(tripId: tripId, accept: accept, at: at, state: state)
        case .deleteVehicle(let at):
            guard state.currentTrips.isEmpty else {
                throw .failedPrecondition("a vehicle with current trips cannot be deleted; complete, cancel or unassign them first (vehicle \(id) currentTrips \(state.currentTripIds))")
            }
            return [.deleted(.init(vehicleId: id, at: at))]
        }
    }

    private static func decideRegister(_ r: RegisterVehicle, at: Timestamp, state: State) throws(JourneyError) -> [Event] {
        guard !state.exists else {
            throw .alreadyExists("a vehicle with this id already exists (vehicleId \(state.vehicleId))")
        }
        try Identifier.validate(r.vehicleId, field: "vehicleId")
        guard r.vehicleState != .unknown else {
            throw .invalidArgument("vehicleState is required and must be ONLINE or OFFLINE (got \(r.vehicleState.rawValue))")
        }
        try validateTripTypes(r.supportedTripTypes)
        try validateCapacity(r.maximumCapacity)
        try validateVehicleType(r.vehicleType)
        try Attribute.validate(r.attributes, field: "attributes")
        let plate = try r.licensePlate?.validated(field: "licensePlate")
        return [.registered(.init(
            vehicleId: r.vehicleId, vehicleState: r.vehicleState, supportedTripTypes: r.supportedTripTypes,
            maximumCapacity: r.maximumCapacity, vehicleType: r.vehicleType, attributes: r.attributes,
            backToBackEnabled: r.backToBackEnabled, licensePlate: plate, at: at))]
    }

    /// Non-empty, only SHARED / EXCLUSIVE, no type twice.
    private static func validateTripTypes(_ types: [TripType]) throws(JourneyError) {
        guard !types.isEmpty else {
            throw .invalidArgument("supportedTripTypes is required (got an empty list)")
        }
        guard !types.contains(.unknown) else {
            throw .invalidArgument("supportedTripTypes must contain only SHARED or EXCLUSIVE (got \(types.map(\.rawValue)))")
        }
        guard Set(types).count == types.count else {
            throw .invalidArgument("supportedTripTypes must not repeat a type (got \(types.map(\.rawValue)))")
        }
    }

    private static func validateCapacity(_ capacity: Int) throws(JourneyError) {
        guard capacity >= 1 else {
            throw .invalidArgument("maximumCapacity must be at least 1 (got \(capacity))")
        }
    }

    private static func validateVehicleType(_ vehicleType: VehicleType) throws(JourneyError) {
        guard vehicleType.category != .unknown else {
            throw .invalidArgument("vehicleType.category is required (got \(vehicleType.category.rawValue))")
        }
    }

    private static func decideLocation(
        _ location: VehicleLocation?, pastLocations: [VehicleLocation], policy: Policy, at: Timestamp, state: State
    ) throws(JourneyError) -> [Event] {
        guard location != nil || !pastLocations.isEmpty else {
            throw .invalidArgument("lastLocation or pastLocations is required (got neither)")
        }
        guard policy.offRouteThresholdMeters.isFinite, policy.offRouteThresholdMeters > 0 else {
            throw .invalidArgument("policy.offRouteThresholdMeters must be > 0 (got \(policy.offRouteThresholdMeters))")
        }
        guard policy.offRouteConsecutiveReports >= 1 else {
            throw .invalidArgument("policy.offRouteConsecutiveReports must be ≥ 1 (got \(policy.offRouteConsecutiveReports))")
        }
        let id = state.vehicleId
        var events: [Event] = []
        if !pastLocations.isEmpty {
            var backlog: [VehicleLocation] = []
            for (i, past) in pastLocations.enumerated() {
                backlog.append(try stamped(past, field: "pastLocations[\(i)]", policy: policy, at: at))
            }
            // Stable sort by device time: equal times keep their sent order.
            let sorted = backlog.enumerated().sorted { a, b in
                let (ta, tb) = (a.element.deviceTime ?? at, b.element.deviceTime ?? at)
                return ta != tb ? ta < tb : a.offset < b.offset
            }.map(\.element)
            events.append(.locationHistoryRecorded(.init(vehicleId: id, locations: sorted, at: at)))
        }
        guard let location else { return events }
        let report = try stamped(location, field: "lastLocation", policy: policy, at: at)
        if let last = state.lastLocation?.deviceTime, let now = report.deviceTime, now < last {
            events.append(.staleLocationRecorded(.init(vehicleId: id, location: report, lastAcceptedUpdateTime: last, at: at)))
            return events
        }
        var deviation: Double?
        var count = 0
        // The shared cache decodes a followed route once; its snap is exactly the full scan's.
        if let followed = state.followedRoute, let route = try? PathCache.shared.path(followed.encodedPath),
           let snapped = route.snap(report.location) {
            deviation = snapped.distanceOff
            count = snapped.distanceOff > policy.offRouteThresholdMeters ? state.offRouteReportCount + 1 : 0
        }
        events.append(.locationReported(.init(
            vehicleId: id, location: report, currentTripIds: state.currentTripIds,
            followedTripId: state.followedRoute?.tripId, routeDeviationMeters: deviation,
            offRouteReportCount: count, at: at)))
        if let followed = state.followedRoute, let deviation {
            if !state.isOffRoute, count >= policy.offRouteConsecutiveReports {
                events.append(.wentOffRoute(.init(
                    vehicleId: id, tripId: followed.tripId, location: report.location, deviationMeters: deviation,
                    consecutiveReports: count, thresholdMeters: policy.offRouteThresholdMeters, at: at)))
            } else if state.isOffRoute, deviation <= policy.offRouteThresholdMeters {
                events.append(.rejoinedRoute(.init(
                    vehicleId: id, tripId: followed.tripId, location: report.location, deviationMeters: deviation, at: at)))
            }
        }
        return events
    }

    /// Validates one reported location and stamps device and server time on it.
    private static func stamped(_ location: VehicleLocation, field: String, policy: Policy, at: Timestamp) throws(JourneyError) -> VehicleLocation {
        try location.location.validate(field: "\(field).location")
        if location.locationSensor == .fleetEngineLocation {
            throw .invalidArgument("\(field).locationSensor FLEET_ENGINE_LOCATION is output-only and cannot be reported (got FLEET_ENGINE_LOCATION)")
        }
        if let heading = location.heading, !(heading.isFinite && heading >= 0 && heading < 360) {
            throw .invalidArgument("\(field).heading must be in [0, 360) (got \(heading))")
        }
        for (name, value) in [("latlngAccuracy", location.latlngAccuracy), ("headingAccuracy", location.headingAccuracy),
                              ("speed", location.speed), ("speedAccuracy", location.speedAccuracy)] {
            if let value, !(value.isFinite && value >= 0) {
                throw .invalidArgument("\(field).\(name) must be a finite number ≥ 0 (got \(value))")
            }
        }
        var result = location
        result.serverTime = at
        let device = location.updateTime ?? at
        if device.seconds(since: at) > policy.maximumFutureDeviceTimeSeconds {
            throw .invalidArgument("\(field).updateTime must not be more than \(Int(policy.maximumFutureDeviceTimeSeconds)) s ahead of server time (got \(device), server time \(at))")
        }
        result.updateTime = device
        return result
    }

    private static func decodePath(_ encoded: String, field: String) throws(JourneyError) -> [LatLng] {
        try PathLimit.decode(encoded, field: field)
    }

    private static func validateReorder(_ waypoints: [TripWaypoint], state: State) throws(JourneyError) {
        var remaining = state.waypoints
        for waypoint in waypoints {
            guard let i = remaining.firstIndex(of: waypoint) else {
                throw .invalidArgument("waypoints must be a permutation of the current waypoints (got an extra \(waypoint.waypointType.rawValue) of trip \(waypoint.tripId))")
            }
            remaining.remove(at: i)
        }
        if let missing = remaining.first {
            throw .invalidArgument("waypoints must be a permutation of the current waypoints (missing \(missing.waypointType.rawValue) of trip \(missing.tripId))")
        }
        for trip in state.currentTrips {
            let before = state.waypoints.filter { $0.tripId == trip.tripId }
            let after = waypoints.filter { $0.tripId == trip.tripId }
            guard before == after else {
                throw .invalidArgument("waypoints must keep each trip's stops in pickup, intermediate, drop-off order (trip \(trip.tripId))")
            }
            if trip.tripType == .exclusive {
                let positions = waypoints.indices.filter { waypoints[$0].tripId == trip.tripId }
                if let first = positions.first, let last = positions.last, last - first + 1 != positions.count {
                    throw .invalidArgument("waypoints of an EXCLUSIVE trip must not interleave with other trips (trip \(trip.tripId))")
                }
            }
        }
    }

    private static func decideSync(_ trip: Trip.State, at: Timestamp, state: State) throws(JourneyError) -> [Event] {
        let id = state.vehicleId
        guard trip.exists else {
            // A deleted trip keeps its id in the state: nobody serves it any more, so a vehicle
            // that still lists it (its sync came late) lets it go; otherwise there is nothing to do.
            guard !trip.tripId.isEmpty else {
                throw .notFound("trip to sync must exist (tripId <unknown> not found)")
            }
            guard state.currentTripIds.contains(trip.tripId) else { return [] }
            let others = state.waypoints.filter { $0.tripId != trip.tripId }
            return [.tripReleased(.init(vehicleId: id, tripId: trip.tripId, reason: .deleted, waypoints: others, at: at))]
        }
        let attached = state.currentTripIds.contains(trip.tripId)
        let belongs = trip.vehicleId == id && !trip.status.isTerminal
        let others = state.waypoints.filter { $0.tripId != trip.tripId }
        switch (attached, belongs) {
        case (false, false):
            return []
        case (false, true):
            return [.tripAssigned(.init(
                vehicleId: id, tripId: trip.tripId, tripType: trip.tripType, numberOfPassengers: trip.numberOfPassengers,
                waypoints: others + trip.remainingWaypoints, at: at))]
        case (true, false):
            let reason: ReleaseReason = trip.status == .complete ? .completed : trip.status == .canceled ? .canceled : .unassigned
            return [.tripReleased(.init(vehicleId: id, tripId: trip.tripId, reason: reason, waypoints: others, at: at))]
        case (true, true):
            let current = state.waypoints.filter { $0.tripId == trip.tripId }
            let wanted = trip.remainingWaypoints
            guard current != wanted else { return [] }
            var list = others
            let insertAt = state.waypoints.firstIndex { $0.tripId == trip.tripId }
                .map { position in state.waypoints[..<position].filter { $0.tripId != trip.tripId }.count } ?? list.count
            list.insert(contentsOf: wanted, at: insertAt)
            return [.tripWaypointsUpdated(.init(vehicleId: id, tripId: trip.tripId, tripStatus: trip.status, waypoints: list, at: at))]
        }
    }
}
