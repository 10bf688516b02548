/// The trip aggregate: one rider party's journey from pickup to drop-off.
///
/// A namespace with `State`, `Command`, `Event` and the two pure functions `decide` and
/// `evolve` (see `Trip+Decide.swift`, `Trip+Evolve.swift`). Stream id: `trip:{provider}/{tripId}`.
package enum Trip {
    /// Everything `decide` needs about one trip, rebuilt by folding its events with `evolve`.
    ///
    /// Small by design: it is replayed on every command. Actual stop points are kept because
    /// they are few; ETAs and live positions are not (they live on the vehicle stream).
    package struct State: Sendable, Hashable, Codable {
        /// Whether `TripCreated` has been applied.
        package var exists: Bool = false
        package var tripId: String = ""
        package var tripType: TripType = .unknown
        package var status: TripStatus = .unknown
        package var vehicleId: String?
        package var pickup: TerminalLocation?
        package var dropoff: TerminalLocation?
        package var intermediateDestinations: [TerminalLocation] = []
        /// Time of the last change of `intermediateDestinations`; the concurrency token.
        package var intermediateDestinationsVersion: Timestamp?
        /// With ENROUTE_TO_/ARRIVED_AT_INTERMEDIATE_DESTINATION: the stop next / at.
        package var intermediateDestinationIndex: Int = 0
        package var numberOfPassengers: Int = 0
        package var attributes: [Attribute] = []
        package var actualPickupArrivalPoint: StopLocation?
        package var actualPickupPoint: StopLocation?
        package var actualIntermediateDestinationArrivalPoints: [Int: StopLocation] = [:]
        package var actualIntermediateDestinations: [Int: StopLocation] = [:]
        package var actualDropoffPoint: StopLocation?
        /// The current route plan, if any.
        package var routePlan: RoutePlan?
        /// Index into `routePlan.destinations` the vehicle is heading for.
        package var activeDestinationIndex: Int = 0
        /// The last route token execution report for the current plan.
        package var routeTokenExecution: RouteTokenExecution?
        package var createdAt: Timestamp?
        package var lastUpdatedAt: Timestamp?

        /// A trip that does not exist yet.
        package init() {}

        /// Whether navigation has started guiding along the current plan: the navigation app
        /// reported the plan's token execution without a route error, or the plan moved past its
        /// first destination. From then on the plan's route choice is fixed.
        package var guidanceStarted: Bool {
            guard routePlan != nil else { return false }
            return routeTokenExecution?.guiding == true || activeDestinationIndex > 0
        }

        /// The trip's stops in order: pickup, intermediates, dropoff (when set).
        package var allWaypoints: [TripWaypoint] {
            var result: [TripWaypoint] = []
            if let pickup { result.append(TripWaypoint(tripId: tripId, waypointType: .pickup, location: pickup)) }
            for stop in intermediateDestinations {
                result.append(TripWaypoint(tripId: tripId, waypointType: .intermediateDestination, location: stop))
            }
            if let dropoff { result.append(TripWaypoint(tripId: tripId, waypointType: .dropOff, location: dropoff)) }
            return result
        }

        /// How many of `allWaypoints` the vehicle has left behind, by status.
        ///
        /// A stop counts as passed once the vehicle departs from it (not on arrival):
        /// pickup on any status past ARRIVED_AT_PICKUP, intermediate `i` once the index moves past
        /// it or the trip heads for the dropoff, everything on COMPLETE or CANCELED.
        package var passedWaypointCount: Int {
            let all = allWaypoints.count
            switch status {
            case .unknown, .new, .enrouteToPickup, .arrivedAtPickup:
                return 0
            case .enrouteToIntermediateDestination, .arrivedAtIntermediateDestination:
                return min(all, 1 + intermediateDestinationIndex)
            case .enrouteToDropoff:
                return min(all, 1 + intermediateDestinations.count)
            case .complete, .canceled:
                return all
            }
        }

        /// The trip's stops the vehicle has still to serve, in order.
        package var remainingWaypoints: [TripWaypoint] {
            Array(allWaypoints.dropFirst(passedWaypointCount))
        }
    }
}
