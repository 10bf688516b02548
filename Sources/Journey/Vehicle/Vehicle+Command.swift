extension Vehicle {
    /// What a caller asks a vehicle to do; named after Fleet Engine's verbs.
    package enum Command: Sendable, Hashable {
        /// CreateVehicle.
        case registerVehicle(RegisterVehicle, at: Timestamp)
        /// UpdateVehicle with `vehicleState`.
        case setVehicleState(VehicleState, at: Timestamp)
        /// UpdateVehicle with `lastLocation` and/or `pastLocations` (offline backlog).
        case reportLocation(VehicleLocation?, pastLocations: [VehicleLocation] = [], policy: Policy = .default, at: Timestamp)
        /// UpdateVehicle with `currentRouteSegment` (+ traffic, end point).
        case updateRouteSegment(encodedPath: String, traffic: [TrafficSpeedInterval] = [], endPoint: TripWaypoint? = nil, at: Timestamp)
        /// UpdateVehicle with `remainingDistanceMeters` / `etaToFirstWaypoint` / `remainingTimeSeconds`.
        case reportRemainingRoute(remainingDistanceMeters: Int?, etaToFirstWaypoint: Timestamp?, remainingTimeSeconds: Int?, at: Timestamp)
        /// UpdateVehicle with `navigationStatus`.
        case setNavigationStatus(NavigationStatus, at: Timestamp)
        /// UpdateVehicle with `waypoints`: a permutation of the current waypoints.
        case reorderWaypoints([TripWaypoint], at: Timestamp)
        /// Follow a trip's planned path (the active leg) for off-route detection.
        case followRoute(tripId: String, encodedPath: String, at: Timestamp)
        /// Bring the vehicle's trips and waypoints in line with a trip's current state
        /// (after the trip was assigned, progressed, changed, completed, canceled or unassigned).
        case syncTrip(Trip.State, at: Timestamp)
        /// UpdateVehicle with `attributes` in the mask: replaces the whole list.
        case setAttributes([Attribute], at: Timestamp)
        /// UpdateVehicleAttributes: merges by key (new values win; existing keys keep their
        /// place, new keys are appended). The list is required (not empty).
        case mergeAttributes([Attribute], at: Timestamp)
        /// UpdateVehicle with `backToBackEnabled`.
        case setBackToBackEnabled(Bool, at: Timestamp)
        /// UpdateVehicle with any of `maximumCapacity`, `supportedTripTypes`, `vehicleType`
        /// (nil: not in the mask); at least one is required. Validated as on registration.
        case updateCapabilities(maximumCapacity: Int?, supportedTripTypes: [TripType]?, vehicleType: VehicleType?, at: Timestamp)
        /// UpdateVehicle with `licensePlate`; nil clears it.
        case setLicensePlate(LicensePlate?, at: Timestamp)
        /// Offer a trip to the vehicle's driver until `expiresAt`; `trip` is the trip's current
        /// state (nil when it does not exist). Offering a trip already offered replaces the offer.
        case offerTrip(tripId: String, trip: Trip.State?, expiresAt: Timestamp, at: Timestamp)
        /// The driver accepts or declines a pending offer; accepting is refused once the offer
        /// expired (`at` is not before `expiresAt`). The service assigns the trip on acceptance.
        case answerOffer(tripId: String, accept: Bool, at: Timestamp)
        /// DeleteVehicle. Refused while the vehicle has current trips; afterwards the vehicle does
        /// not exist and its id may be registered again on the same stream.
        case deleteVehicle(at: Timestamp)
    }

    /// The fields of CreateVehicle.
    package struct RegisterVehicle: Sendable, Hashable {
        package var vehicleId: String
        package var vehicleState: VehicleState
        package var supportedTripTypes: [TripType]
        package var maximumCapacity: Int
        package var vehicleType: VehicleType
        package var attributes: [Attribute]
        package var backToBackEnabled: Bool
        package var licensePlate: LicensePlate?

        package init(
            vehicleId: String,
            vehicleState: VehicleState = .offline,
            supportedTripTypes: [TripType],
            maximumCapacity: Int,
            vehicleType: VehicleType,
            attributes: [Attribute] = [],
            backToBackEnabled: Bool = false,
            licensePlate: LicensePlate? = nil
        ) {
            self.vehicleId = vehicleId
            self.vehicleState = vehicleState
            self.supportedTripTypes = supportedTripTypes
            self.maximumCapacity = maximumCapacity
            self.vehicleType = vehicleType
            self.attributes = attributes
            self.backToBackEnabled = backToBackEnabled
            self.licensePlate = licensePlate
        }
    }

    /// Why a trip left the vehicle; raw values are stored in events.
    package enum ReleaseReason: String, Codable, Hashable, Sendable, CaseIterable {
        case completed = "COMPLETED"
        case canceled = "CANCELED"
        case unassigned = "UNASSIGNED"
        /// The trip was deleted while the vehicle still listed it (a sync that came late).
        case deleted = "DELETED"
    }
}
