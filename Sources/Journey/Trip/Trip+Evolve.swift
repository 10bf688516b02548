extension Trip {
    /// Applies one event to the state. Total and pure: never fails, never looks anything up.
    package static func evolve(_ state: State, with event: Event) -> State {
        var s = state
        switch event {
        case .created(let e):
            s.exists = true
            s.tripId = e.tripId
            s.tripType = e.tripType
            s.status = .new
            s.pickup = e.pickup
            s.dropoff = e.dropoff
            s.intermediateDestinations = e.intermediateDestinations
            s.intermediateDestinationsVersion = e.intermediateDestinationsVersion
            s.numberOfPassengers = e.numberOfPassengers
            s.attributes = e.attributes
            s.createdAt = e.at
            s.lastUpdatedAt = e.at
        case .vehicleAssigned(let e):
            s.vehicleId = e.vehicleId
            s.lastUpdatedAt = e.at
        case .vehicleUnassigned(let e):
            s.vehicleId = nil
            s.lastUpdatedAt = e.at
        case .statusChanged(let e):
            s.status = e.to
            if let index = e.intermediateDestinationIndex { s.intermediateDestinationIndex = index }
            s.lastUpdatedAt = e.at
        case .completed(let e):
            s.status = .complete
            s.lastUpdatedAt = e.at
        case .canceled(let e):
            s.status = .canceled
            s.lastUpdatedAt = e.at
        case .intermediateDestinationsChanged(let e):
            s.intermediateDestinations = e.intermediateDestinations
            s.intermediateDestinationsVersion = e.intermediateDestinationsVersion
            s.lastUpdatedAt = e.at
        case .dropoffPointSet(let e):
            s.dropoff = e.dropoff
            s.lastUpdatedAt = e.at
        case .actualLocationRecorded(let e):
            switch e.stop {
            case .pickupArrival: s.actualPickupArrivalPoint = e.location
            case .pickup: s.actualPickupPoint = e.location
            case .intermediateDestinationArrival: s.actualIntermediateDestinationArrivalPoints[e.intermediateDestinationIndex ?? 0] = e.location
            case .intermediateDestination: s.actualIntermediateDestinations[e.intermediateDestinationIndex ?? 0] = e.location
            case .dropoff: s.actualDropoffPoint = e.location
            }
            s.lastUpdatedAt = e.at
        case .attributesSet(let e):
            s.attributes = e.attributes
            s.lastUpdatedAt = e.at
        case .routePlanned(let e):
            s.routePlan = e.plan
            s.activeDestinationIndex = 0
            s.routeTokenExecution = nil
            s.lastUpdatedAt = e.at
        case .routeTokenExecutionReported(let e):
            s.routeTokenExecution = RouteTokenExecution(status: e.status, effectiveParameters: e.effective, routeStatus: e.routeStatus)
            s.lastUpdatedAt = e.at
        case .routeSelected(let e):
            s.routePlan = s.routePlan?.selecting(e.routeIndex)
            s.lastUpdatedAt = e.at
        case .routeDestinationAdvanced(let e):
            s.activeDestinationIndex = e.destinationIndex
            s.lastUpdatedAt = e.at
        case .pickupPointSet(let e):
            s.pickup = e.pickup
            s.lastUpdatedAt = e.at
        case .deleted(let e):
            // A fresh state: the trip does not exist and may be created again. Only the stream's
            // trip id is kept, so a rejection can name it and a vehicle sync can release it.
            s = State()
            s.tripId = e.tripId
        }
        return s
    }
}
