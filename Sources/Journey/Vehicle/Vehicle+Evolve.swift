extension Vehicle {
    /// Applies one event to the state. Total and pure: never fails, never looks anything up.
    package static func evolve(_ state: State, with event: Event) -> State {
        var s = state
        switch event {
        case .registered(let e):
            s.exists = true
            s.vehicleId = e.vehicleId
            s.vehicleState = e.vehicleState
            s.supportedTripTypes = e.supportedTripTypes
            s.maximumCapacity = e.maximumCapacity
            s.vehicleType = e.vehicleType
            s.attributes = e.attributes
            s.backToBackEnabled = e.backToBackEnabled
            s.licensePlate = e.licensePlate
            s.lastUpdatedAt = e.at
        case .stateChanged(let e):
            s.vehicleState = e.to
            s.lastUpdatedAt = e.at
        case .locationReported(let e):
            s.lastLocation = e.location
            s.offRouteReportCount = e.offRouteReportCount
            s.lastUpdatedAt = e.at
        case .staleLocationRecorded, .locationHistoryRecorded:
            break
        case .routeSegmentUpdated(let e):
            s.currentRouteSegmentVersion = e.at
            s.lastUpdatedAt = e.at
        case .remainingRouteReported(let e):
            s.lastUpdatedAt = e.at
        case .navigationStatusChanged(let e):
            s.navigationStatus = e.to
            s.lastUpdatedAt = e.at
        case .waypointsReordered(let e):
            s.waypoints = e.waypoints
            s.waypointsVersion = e.at
            s.lastUpdatedAt = e.at
        case .routeFollowed(let e):
            s.followedRoute = FollowedRoute(tripId: e.tripId, encodedPath: e.encodedPath)
            s.offRouteReportCount = 0
            s.isOffRoute = false
            s.lastUpdatedAt = e.at
        case .wentOffRoute(let e):
            s.isOffRoute = true
            s.lastUpdatedAt = e.at
        case .rejoinedRoute(let e):
            s.isOffRoute = false
            s.offRouteReportCount = 0
            s.lastUpdatedAt = e.at
        case .rerouted(let e):
            s.followedRoute = FollowedRoute(tripId: e.tripId, encodedPath: e.encodedPath)
            s.isOffRoute = false
            s.offRouteReportCount = 0
            s.lastUpdatedAt = e.at
        case .tripOffered(let e):
            s.offers.removeAll { $0.tripId == e.tripId }
            s.offers.append(TripOffer(tripId: e.tripId, expiresAt: e.expiresAt, offeredAt: e.at))
            s.lastUpdatedAt = e.at
        case .tripOfferAnswered(let e):
            s.offers.removeAll { $0.tripId == e.tripId }
            s.lastUpdatedAt = e.at
        case .tripAssigned(let e):
            // An accepted offer stays open until its answer is recorded, right after the assignment.
            s.currentTrips.append(CurrentTrip(tripId: e.tripId, tripType: e.tripType, numberOfPassengers: e.numberOfPassengers))
            s.waypoints = e.waypoints
            s.waypointsVersion = e.at
            s.lastUpdatedAt = e.at
        case .tripWaypointsUpdated(let e):
            s.waypoints = e.waypoints
            s.waypointsVersion = e.at
            s.lastUpdatedAt = e.at
        case .tripReleased(let e):
            s.currentTrips.removeAll { $0.tripId == e.tripId }
            s.waypoints = e.waypoints
            s.waypointsVersion = e.at
            if s.followedRoute?.tripId == e.tripId {
                s.followedRoute = nil
                s.isOffRoute = false
                s.offRouteReportCount = 0
            }
            s.lastUpdatedAt = e.at
        case .attributesSet(let e):
            s.attributes = e.attributes
            s.lastUpdatedAt = e.at
        case .backToBackEnabledChanged(let e):
            s.backToBackEnabled = e.backToBackEnabled
            s.lastUpdatedAt = e.at
        case .capabilitiesChanged(let e):
            s.maximumCapacity = e.maximumCapacity
            s.supportedTripTypes = e.supportedTripTypes
            s.vehicleType = e.vehicleType
            s.lastUpdatedAt = e.at
        case .licensePlateSet(let e):
            s.licensePlate = e.licensePlate
            s.lastUpdatedAt = e.at
        case .deleted(let e):
            // A fresh state: the vehicle does not exist and may be registered again. Only the
            // stream's vehicle id is kept, so a rejection can name it.
            s = State()
            s.vehicleId = e.vehicleId
        }
        return s
    }
}
