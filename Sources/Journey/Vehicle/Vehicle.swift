/// The vehicle aggregate: one car (or bike) with its driver app, its location and its stops.
///
/// A namespace with `State`, `Command`, `Event` and the pure `decide` / `evolve`
/// (`Vehicle+Decide.swift`, `Vehicle+Evolve.swift`). Stream id: `vehicle:{provider}/{vehicleId}`.
/// High volume: location reports dominate, so `State` keeps only the last accepted location and
/// the off-route counter, never location history.
package enum Vehicle {
    /// A trip the vehicle currently serves (assigned and not terminal).
    package struct CurrentTrip: Sendable, Hashable, Codable {
        package var tripId: String
        package var tripType: TripType
        package var numberOfPassengers: Int

        package init(tripId: String, tripType: TripType, numberOfPassengers: Int) {
            self.tripId = tripId
            self.tripType = tripType
            self.numberOfPassengers = numberOfPassengers
        }
    }

    /// The planned path the vehicle is expected to follow, for off-route detection.
    package struct FollowedRoute: Sendable, Hashable, Codable {
        /// The trip whose plan this path belongs to.
        package var tripId: String
        /// Google encoded polyline, precision 5.
        package var encodedPath: String

        package init(tripId: String, encodedPath: String) {
            self.tripId = tripId
            self.encodedPath = encodedPath
        }
    }

    /// Everything `decide` needs about one vehicle, rebuilt by folding its events with `evolve`.
    package struct State: Sendable, Hashable, Codable {
        /// Whether `VehicleRegistered` has been applied.
        package var exists: Bool = false
        package var vehicleId: String = ""
        package var vehicleState: VehicleState = .unknown
        package var supportedTripTypes: [TripType] = []
        package var maximumCapacity: Int = 0
        package var vehicleType: VehicleType = VehicleType(category: .unknown)
        package var attributes: [Attribute] = []
        package var backToBackEnabled: Bool = false
        package var licensePlate: LicensePlate?
        /// Trips assigned and not terminal, in assignment order.
        package var currentTrips: [CurrentTrip] = []
        /// Remaining stops across the current trips, in driving order.
        package var waypoints: [TripWaypoint] = []
        package var waypointsVersion: Timestamp?
        /// The last accepted (non-stale) location, with its server time.
        package var lastLocation: VehicleLocation?
        package var navigationStatus: NavigationStatus = .unknown
        package var currentRouteSegmentVersion: Timestamp?
        /// The planned path being followed, if any.
        package var followedRoute: FollowedRoute?
        /// Consecutive accepted reports farther than the threshold from `followedRoute`.
        package var offRouteReportCount: Int = 0
        /// Whether `VehicleWentOffRoute` was the last off-route fact.
        package var isOffRoute: Bool = false
        package var lastUpdatedAt: Timestamp?
        /// Trips offered to the driver and not yet answered (expired ones included), in offer order.
        package var offers: [TripOffer] = []

        /// A vehicle that does not exist yet.
        package init() {}

        /// Ids of `currentTrips`, in order.
        package var currentTripIds: [String] { currentTrips.map(\.tripId) }
    }
}
