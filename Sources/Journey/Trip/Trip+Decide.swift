extension Trip {
    /// Decides which events a command produces, or why it is rejected.
    ///
    /// Pure: no clock, no ids, no I/O. An empty result means "nothing to do" (idempotent repeat).
    package static func decide(_ command: Command, state: State) throws(JourneyError) -> [Event] {
        if case .createTrip(let create, let at) = command {
            return try decideCreate(create, at: at, state: state)
        }
        guard state.exists else {
            throw .notFound("trip must exist before it can be changed (trip \(state.tripId.isEmpty ? "<unknown>" : state.tripId) not found)")
        }
        switch command {
        case .createTrip:
            preconditionFailure("handled above")
        case .assignVehicle(let vehicleId, let vehicle, let at):
            return try decideAssign(vehicleId: vehicleId, vehicle: vehicle, at: at, state: state)
        case .unassignVehicle(let at):
            try requireNotTerminal(state, doing: "unassign its vehicle")
            guard let vehicleId = state.vehicleId else {
                throw .failedPrecondition("trip has no vehicle to unassign (trip \(state.tripId), vehicleId empty)")
            }
            return [.vehicleUnassigned(.init(tripId: state.tripId, vehicleId: vehicleId, status: state.status, at: at))]
        case .updateTripStatus(let to, let index, let version, let at):
            return try decideStatus(to: to, index: index, version: version, at: at, state: state)
        case .continueToNextDestination(let vehicleArrived, let at):
            try requireNotTerminal(state, doing: "continue to the next destination")
            var current = state
            var events: [Event] = []
            if !state.status.isArrival {
                guard vehicleArrived, let arrival = state.status.arrivalStatus else {
                    throw .failedPrecondition("continueToNextDestination needs the vehicle to have arrived at the current stop (trip \(state.tripId) tripStatus \(state.status.rawValue), vehicle \(vehicleArrived ? "arrived" : "not arrived"))")
                }
                events = try decideStatus(to: arrival, index: state.status.usesIntermediateIndex ? state.intermediateDestinationIndex : nil,
                                          version: nil, at: at, state: state)
                for event in events { current = evolve(current, with: event) }
            }
            let nextIndex = current.status == .arrivedAtPickup ? 0 : current.intermediateDestinationIndex + 1
            if nextIndex < current.intermediateDestinations.count {
                return events + (try decideStatus(
                    to: .enrouteToIntermediateDestination, index: nextIndex,
                    version: current.intermediateDestinationsVersion, at: at, state: current))
            }
            return events + (try decideStatus(to: .enrouteToDropoff, index: nil, version: nil, at: at, state: current))
        case .selectRoute(let index, let at):
            try requireNotTerminal(state, doing: "select a route")
            guard let plan = state.routePlan else {
                throw .failedPrecondition("selectRoute needs a planned route (trip \(state.tripId) has no route plan)")
            }
            guard index >= 0, index < plan.routeCount else {
                throw .invalidArgument("routeIndex must be in 0..<\(plan.routeCount) (got \(index), trip \(state.tripId))")
            }
            guard index != plan.routeIndex else { return [] }
            guard !state.guidanceStarted else {
                throw .failedPrecondition("the route is fixed once guidance has started; plan the route again to choose another (trip \(state.tripId) route \(plan.routeIndex), requested \(index))")
            }
            return [.routeSelected(.init(tripId: state.tripId, vehicleId: state.vehicleId, routeIndex: index,
                                         routeToken: plan.routes?[index].routeToken, at: at))]
        case .setIntermediateDestinations(let destinations, let at):
            try requireNotTerminal(state, doing: "change its intermediate destinations")
            guard state.tripType == .exclusive || destinations.isEmpty else {
                throw .invalidArgument("intermediateDestinations are only allowed on EXCLUSIVE trips (trip \(state.tripId) tripType \(state.tripType.rawValue))")
            }
            try validateIntermediates(destinations)
            if state.status.usesIntermediateIndex, destinations.count <= state.intermediateDestinationIndex {
                throw .failedPrecondition("intermediateDestinations must keep the stop at intermediateDestinationIndex \(state.intermediateDestinationIndex) (got \(destinations.count) destinations, trip \(state.tripId) tripStatus \(state.status.rawValue))")
            }
            return [.intermediateDestinationsChanged(.init(
                tripId: state.tripId, intermediateDestinations: destinations,
                intermediateDestinationsVersion: nextVersion(after: state.intermediateDestinationsVersion, at: at), at: at))]
        case .setDropoffPoint(let dropoff, let at):
            try requireNotTerminal(state, doing: "change its dropoff point")
            try dropoff.point.validate(field: "dropoffPoint.point")
            return [.dropoffPointSet(.init(tripId: state.tripId, dropoff: dropoff, at: at))]
        case .setPickupPoint(let pickup, let at):
            guard state.status.isBeforePickup else {
                throw .failedPrecondition("pickupPoint can only change before the pickup (NEW, ENROUTE_TO_PICKUP or ARRIVED_AT_PICKUP; trip \(state.tripId) tripStatus \(state.status.rawValue))")
            }
            try pickup.point.validate(field: "pickupPoint.point")
            guard pickup != state.pickup else { return [] }
            return [.pickupPointSet(.init(tripId: state.tripId, pickup: pickup, at: at))]
        case .deleteTrip(let at):
            if let vehicleId = state.vehicleId, !state.status.isTerminal {
                throw .failedPrecondition("an active trip assigned to a vehicle cannot be deleted; complete or cancel it first (trip \(state.tripId) tripStatus \(state.status.rawValue), vehicleId \(vehicleId))")
            }
            return [.deleted(.init(tripId: state.tripId, vehicleId: state.vehicleId, status: state.status, at: at))]
        case .recordActualLocation(let stop, let index, let location, let at):
            guard state.status != .canceled else {
                throw .failedPrecondition("actual locations cannot be recorded on a CANCELED trip (trip \(state.tripId))")
            }
            try location.point.validate(field: "actualLocation.point")
            if stop.needsIndex {
                guard let index, index >= 0, index < state.intermediateDestinations.count else {
                    throw .invalidArgument("intermediateDestinationIndex must be in 0..<\(state.intermediateDestinations.count) for \(stop.rawValue) (got \(index.map(String.init) ?? "none"))")
                }
            } else if let index {
                throw .invalidArgument("intermediateDestinationIndex applies only to intermediate destinations (got \(index) for \(stop.rawValue))")
            }
            return [.actualLocationRecorded(.init(tripId: state.tripId, stop: stop, intermediateDestinationIndex: index, location: location, at: at))]
        case .cancelTrip(let at):
            try requireNotTerminal(state, doing: "be canceled")
            return [.canceled(.init(tripId: state.tripId, vehicleId: state.vehicleId, from: state.status, at: at))]
        case .setAttributes(let attributes, let at):
            try Attribute.validate(attributes, field: "attributes")
            return [.attributesSet(.init(tripId: state.tripId, attributes: attributes, at: at))]
        case .planRoute(let plan, let at):
            try requireNotTerminal(state, doing: "get a route plan")
            let validated = try plan.validated()
            return [.routePlanned(.init(tripId: state.tripId, vehicleId: state.vehicleId, plan: validated, at: at))]
        case .reportRouteTokenExecution(let status, let resolved, let routeStatus, let at):
            guard let plan = state.routePlan else {
                throw .failedPrecondition("a route token execution needs a planned route (trip \(state.tripId) has no route plan)")
            }
            guard status != .unknown else {
                throw .invalidArgument("routeTokenExecution.status is required (got \(status.rawValue))")
            }
            if let resolved {
                guard resolved.travelMode.isSupportedForRoutePlans else {
                    throw .travelModeUnsupported("resolvedParameters.travelMode must be DRIVE or TWO_WHEELER (got \(resolved.travelMode.rawValue))")
                }
                try resolved.options.validate(field: "resolvedParameters.options")
                try resolved.rerouteStrategy.validate(field: "resolvedParameters.rerouteStrategy")
            }
            let normalized = resolved.map {
                ResolvedRoutingParameters(travelMode: $0.travelMode.normalized, options: $0.options, rerouteStrategy: $0.rerouteStrategy)
            }
            let applied = status == .tokenSuccessfullyApplied
            let base = normalized ?? plan.requestedParameters
            let effective = applied ? base : base.keptWithoutToken
            return [.routeTokenExecutionReported(.init(
                tripId: state.tripId, status: status, tokenApplied: applied, reported: normalized, effective: effective,
                routeStatus: routeStatus, at: at))]
        }
    }

    private static func decideCreate(_ create: CreateTrip, at: Timestamp, state: State) throws(JourneyError) -> [Event] {
        guard !state.exists else {
            throw .alreadyExists("a trip with this id already exists (tripId \(state.tripId))")
        }
        try Identifier.validate(create.tripId, field: "tripId")
        guard create.tripType != .unknown else {
            throw .invalidArgument("tripType is required and must be SHARED or EXCLUSIVE (got \(create.tripType.rawValue))")
        }
        guard let pickup = create.pickup else {
            throw .invalidArgument("pickupPoint is required (got none for trip \(create.tripId))")
        }
        try pickup.point.validate(field: "pickupPoint.point")
        if let dropoff = create.dropoff { try dropoff.point.validate(field: "dropoffPoint.point") }
        guard create.tripType == .exclusive || create.intermediateDestinations.isEmpty else {
            throw .invalidArgument("intermediateDestinations are only allowed on EXCLUSIVE trips (got \(create.intermediateDestinations.count) on a \(create.tripType.rawValue) trip)")
        }
        try validateIntermediates(create.intermediateDestinations)
        guard create.numberOfPassengers >= 1 else {
            throw .invalidArgument("numberOfPassengers must be at least 1 (got \(create.numberOfPassengers))")
        }
        try Attribute.validate(create.attributes, field: "attributes")
        return [.created(.init(
            tripId: create.tripId, tripType: create.tripType, pickup: pickup, dropoff: create.dropoff,
            intermediateDestinations: create.intermediateDestinations, intermediateDestinationsVersion: at,
            numberOfPassengers: create.numberOfPassengers, attributes: create.attributes, at: at))]
    }

    private static func decideAssign(vehicleId: String, vehicle: Vehicle.State?, at: Timestamp, state: State) throws(JourneyError) -> [Event] {
        try requireNotTerminal(state, doing: "get a vehicle")
        try Identifier.validate(vehicleId, field: "vehicleId")
        if let current = state.vehicleId {
            if current == vehicleId { return [] }
            throw .failedPrecondition("trip is already assigned to another vehicle; unassign it first (trip \(state.tripId) vehicleId \(current), requested \(vehicleId))")
        }
        guard let vehicle, vehicle.exists else {
            throw .notFound("vehicle to assign must exist (vehicleId \(vehicleId) not found)")
        }
        guard vehicle.vehicleId == vehicleId else {
            throw .invalidArgument("vehicle state passed does not belong to the requested vehicle (vehicleId \(vehicleId), state of \(vehicle.vehicleId))")
        }
        guard vehicle.vehicleState == .online else {
            throw .failedPrecondition("vehicle must be ONLINE to take new trips (vehicleId \(vehicleId) vehicleState \(vehicle.vehicleState.rawValue))")
        }
        guard vehicle.supportedTripTypes.contains(state.tripType) else {
            throw .failedPrecondition("vehicle does not support the trip type (vehicleId \(vehicleId) supportedTripTypes \(vehicle.supportedTripTypes.map(\.rawValue)), tripType \(state.tripType.rawValue))")
        }
        let others = vehicle.currentTrips.filter { $0.tripId != state.tripId }
        let pooled = state.tripType == .shared && others.allSatisfy { $0.tripType == .shared }
        if others.isEmpty || !pooled {
            guard state.numberOfPassengers <= vehicle.maximumCapacity else {
                throw .failedPrecondition("vehicle capacity is too small for the trip (vehicleId \(vehicleId) maximumCapacity \(vehicle.maximumCapacity), numberOfPassengers \(state.numberOfPassengers))")
            }
        }
        if !others.isEmpty {
            if pooled {
                let onBoard = others.reduce(0) { $0 + $1.numberOfPassengers }
                guard onBoard + state.numberOfPassengers <= vehicle.maximumCapacity else {
                    throw .failedPrecondition("vehicle has no spare capacity for the shared trip (vehicleId \(vehicleId) maximumCapacity \(vehicle.maximumCapacity), assigned \(onBoard), numberOfPassengers \(state.numberOfPassengers))")
                }
            } else {
                guard vehicle.backToBackEnabled else {
                    throw .failedPrecondition("vehicle has a current trip and backToBackEnabled is false (vehicleId \(vehicleId) currentTrips \(others.map(\.tripId)))")
                }
                guard others.count == 1 else {
                    throw .failedPrecondition("back-to-back assignment needs exactly one current trip (vehicleId \(vehicleId) currentTrips \(others.map(\.tripId)))")
                }
            }
        }
        return [.vehicleAssigned(.init(
            tripId: state.tripId, vehicleId: vehicleId, tripType: state.tripType, status: state.status,
            numberOfPassengers: state.numberOfPassengers, waypoints: state.remainingWaypoints,
            backToBack: !others.isEmpty, at: at))]
    }

    private static func decideStatus(to: TripStatus, index: Int?, version: Timestamp?, at: Timestamp, state: State) throws(JourneyError) -> [Event] {
        guard to != .unknown else {
            throw .invalidArgument("tripStatus must be a known status (got \(to.rawValue))")
        }
        // The status the trip already has (a retried update, or a move `continueToNextDestination`
        // already made) is a no-op, not a refusal; for a status with a stop index, the same stop.
        if to == state.status, !to.usesIntermediateIndex || (index ?? 0) == state.intermediateDestinationIndex {
            return []
        }
        guard !state.status.isTerminal else {
            throw .failedPrecondition("a terminal trip cannot change status (trip \(state.tripId) tripStatus \(state.status.rawValue), requested \(to.rawValue))")
        }
        guard state.status.canMove(to: to) else {
            throw .failedPrecondition("trip status cannot move from \(state.status.rawValue) to \(to.rawValue) (trip \(state.tripId))")
        }
        if to == .canceled {
            return [.canceled(.init(tripId: state.tripId, vehicleId: state.vehicleId, from: state.status, at: at))]
        }
        guard let vehicleId = state.vehicleId else {
            throw .failedPrecondition("trip needs an assigned vehicle to move to \(to.rawValue) (trip \(state.tripId) vehicleId empty)")
        }
        var newIndex: Int?
        if to.usesIntermediateIndex {
            let count = state.intermediateDestinations.count
            guard count > 0 else {
                throw .failedPrecondition("trip has no intermediate destinations for \(to.rawValue) (trip \(state.tripId))")
            }
            let requested = index ?? 0
            guard requested >= 0, requested < count else {
                throw .invalidArgument("intermediateDestinationIndex must be in 0..<\(count) (got \(requested))")
            }
            if state.status == .arrivedAtIntermediateDestination, requested <= state.intermediateDestinationIndex {
                throw .failedPrecondition("intermediateDestinationIndex must move forward after arrival (trip \(state.tripId) at index \(state.intermediateDestinationIndex), requested \(requested))")
            }
            if state.status == .enrouteToIntermediateDestination, requested < state.intermediateDestinationIndex {
                throw .failedPrecondition("intermediateDestinationIndex cannot move backward (trip \(state.tripId) at index \(state.intermediateDestinationIndex), requested \(requested))")
            }
            if to == .enrouteToIntermediateDestination {
                guard let version else {
                    throw .invalidArgument("intermediateDestinationsVersion is required to move to ENROUTE_TO_INTERMEDIATE_DESTINATION (got none)")
                }
                guard version == state.intermediateDestinationsVersion else {
                    throw .aborted("intermediateDestinationsVersion is stale (got \(version), current \(state.intermediateDestinationsVersion.map(\.rfc3339) ?? "none"), trip \(state.tripId))")
                }
            }
            newIndex = requested
        }
        var events: [Event]
        if to == .complete {
            events = [.completed(.init(tripId: state.tripId, vehicleId: vehicleId, from: state.status, at: at))]
        } else {
            events = [.statusChanged(.init(tripId: state.tripId, vehicleId: vehicleId, from: state.status, to: to, intermediateDestinationIndex: newIndex, at: at))]
        }
        // Leaving a stop is the explicit "continue": only then does the plan advance.
        if state.status.isArrival, let plan = state.routePlan, state.activeDestinationIndex + 1 < plan.destinations.count {
            let next = state.activeDestinationIndex + 1
            events.append(.routeDestinationAdvanced(.init(
                tripId: state.tripId, destinationIndex: next, destination: plan.destinations[next].point,
                encodedPolyline: plan.legs[next].encodedPolyline, at: at)))
        }
        return events
    }

    private static func requireNotTerminal(_ state: State, doing action: String) throws(JourneyError) {
        guard !state.status.isTerminal else {
            throw .failedPrecondition("a \(state.status.rawValue) trip cannot \(action) (trip \(state.tripId))")
        }
    }

    private static func validateIntermediates(_ destinations: [TerminalLocation]) throws(JourneyError) {
        guard destinations.count <= maximumIntermediateDestinations else {
            throw .invalidArgument("intermediateDestinations may hold at most \(maximumIntermediateDestinations) stops (got \(destinations.count))")
        }
        for (i, stop) in destinations.enumerated() {
            try stop.point.validate(field: "intermediateDestinations[\(i)].point")
        }
    }

    /// A new version strictly after the old one: `at`, or one microsecond past the old version.
    private static func nextVersion(after old: Timestamp?, at: Timestamp) -> Timestamp {
        guard let old, at <= old else { return at }
        return old.adding(microseconds: 1)
    }
}
