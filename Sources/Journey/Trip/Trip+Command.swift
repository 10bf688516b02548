extension Trip {
    /// What a caller asks a trip to do; named after Fleet Engine's verbs.
    ///
    /// Time (`at`, the server clock) always arrives in the command. Cross-aggregate facts that
    /// `decide` needs (the vehicle's state for an assignment) are passed in as values.
    package enum Command: Sendable, Hashable {
        /// CreateTrip. The trip starts in NEW with no vehicle.
        case createTrip(CreateTrip, at: Timestamp)
        /// Assign a vehicle (UpdateTrip with `vehicleId`); `vehicle` is the vehicle's current
        /// state, nil when the vehicle stream does not exist.
        case assignVehicle(vehicleId: String, vehicle: Vehicle.State?, at: Timestamp)
        /// Clear the vehicle (UpdateTrip with an empty `vehicleId`).
        case unassignVehicle(at: Timestamp)
        /// UpdateTrip with `tripStatus` (and for intermediate statuses
        /// `intermediateDestinationIndex` plus the cached `intermediateDestinationsVersion`).
        case updateTripStatus(TripStatus, intermediateDestinationIndex: Int? = nil, intermediateDestinationsVersion: Timestamp? = nil, at: Timestamp)
        /// Replace the intermediate destinations (EXCLUSIVE trips only); bumps the version.
        case setIntermediateDestinations([TerminalLocation], at: Timestamp)
        /// Set or change the dropoff point (optional at creation).
        case setDropoffPoint(TerminalLocation, at: Timestamp)
        /// Move the pickup point (UpdateTrip with `pickupPoint`); only before the pickup happened
        /// (NEW, ENROUTE_TO_PICKUP, ARRIVED_AT_PICKUP). The same point again is a no-op.
        case setPickupPoint(TerminalLocation, at: Timestamp)
        /// Record where/when something actually happened (actual pickup, arrival, dropoff points).
        case recordActualLocation(ActualStop, intermediateDestinationIndex: Int? = nil, StopLocation, at: Timestamp)
        /// Cancel the trip (UpdateTrip to CANCELED).
        case cancelTrip(at: Timestamp)
        /// Replace the trip's attributes.
        case setAttributes([Attribute], at: Timestamp)
        /// Attach a route plan; replaces any earlier plan and its destinations.
        case planRoute(RoutePlan, at: Timestamp)
        /// Pick route `index` of the plan's routes (0 the default) before guidance starts
        /// (`State.guidanceStarted`); afterwards the choice is fixed and a new choice needs a new plan.
        case selectRoute(index: Int, at: Timestamp)
        /// The driver's navigation reports how it applied the plan's route token, and its route status.
        case reportRouteTokenExecution(RouteTokenExecutionStatus, resolved: ResolvedRoutingParameters?, routeStatus: RouteStatus? = nil, at: Timestamp)
        /// After arriving at a stop, head for the next one (the only way a plan advances).
        ///
        /// `vehicleArrived` is true when the trip's vehicle reported ARRIVED_AT_DESTINATION at this
        /// trip's stop: then a trip still en route to a pickup or intermediate stop first records
        /// the arrival, then departs.
        case continueToNextDestination(vehicleArrived: Bool = false, at: Timestamp)
        /// DeleteTrip. Refused for an active (not COMPLETE/CANCELED) trip that has a vehicle;
        /// afterwards the trip does not exist and its id may be created again on the same stream.
        case deleteTrip(at: Timestamp)
    }

    /// The fields of CreateTrip.
    package struct CreateTrip: Sendable, Hashable {
        package var tripId: String
        package var tripType: TripType
        package var pickup: TerminalLocation?
        package var dropoff: TerminalLocation?
        package var intermediateDestinations: [TerminalLocation]
        package var numberOfPassengers: Int
        package var attributes: [Attribute]

        package init(
            tripId: String,
            tripType: TripType,
            pickup: TerminalLocation?,
            dropoff: TerminalLocation? = nil,
            intermediateDestinations: [TerminalLocation] = [],
            numberOfPassengers: Int = 1,
            attributes: [Attribute] = []
        ) {
            self.tripId = tripId
            self.tripType = tripType
            self.pickup = pickup
            self.dropoff = dropoff
            self.intermediateDestinations = intermediateDestinations
            self.numberOfPassengers = numberOfPassengers
            self.attributes = attributes
        }
    }

    /// Which actual point is being recorded; raw values are stored in events.
    package enum ActualStop: String, Codable, Hashable, Sendable, CaseIterable {
        /// `actualPickupArrivalPoint`: the driver arrived at the pickup.
        case pickupArrival = "PICKUP_ARRIVAL"
        /// `actualPickupPoint`: the rider was picked up.
        case pickup = "PICKUP"
        /// `actualIntermediateDestinationArrivalPoints[i]`.
        case intermediateDestinationArrival = "INTERMEDIATE_DESTINATION_ARRIVAL"
        /// `actualIntermediateDestinations[i]`.
        case intermediateDestination = "INTERMEDIATE_DESTINATION"
        /// `actualDropoffPoint`.
        case dropoff = "DROPOFF"

        /// Whether the stop needs an intermediate destination index.
        package var needsIndex: Bool { self == .intermediateDestinationArrival || self == .intermediateDestination }
    }

    /// The most intermediate destinations a trip may have.
    package static let maximumIntermediateDestinations = 25
}
