/// Fleet Engine's `TripStatus`; raw values are the proto enum names.
///
/// Transitions follow reference §3.4 (Google's fleet-events reference validator): forward skips
/// are allowed, backward moves and any move out of a terminal state are not.
package enum TripStatus: String, Codable, Hashable, Sendable, CaseIterable {
    case unknown = "UNKNOWN_TRIP_STATUS"
    case new = "NEW"
    case enrouteToPickup = "ENROUTE_TO_PICKUP"
    case arrivedAtPickup = "ARRIVED_AT_PICKUP"
    case arrivedAtIntermediateDestination = "ARRIVED_AT_INTERMEDIATE_DESTINATION"
    case enrouteToIntermediateDestination = "ENROUTE_TO_INTERMEDIATE_DESTINATION"
    case enrouteToDropoff = "ENROUTE_TO_DROPOFF"
    case complete = "COMPLETE"
    case canceled = "CANCELED"

    /// COMPLETE and CANCELED: nothing may follow.
    package var isTerminal: Bool { self == .complete || self == .canceled }

    /// NEW, ENROUTE_TO_PICKUP and ARRIVED_AT_PICKUP: the rider has not been picked up yet.
    package var isBeforePickup: Bool { self == .new || self == .enrouteToPickup || self == .arrivedAtPickup }

    /// Statuses in which the vehicle stands at a stop.
    package var isArrival: Bool { self == .arrivedAtPickup || self == .arrivedAtIntermediateDestination }

    /// The status of arriving at the stop this status heads for: ARRIVED_AT_PICKUP for
    /// ENROUTE_TO_PICKUP, ARRIVED_AT_INTERMEDIATE_DESTINATION for ENROUTE_TO_INTERMEDIATE_DESTINATION;
    /// nil otherwise (Fleet Engine has no arrival status for the dropoff).
    package var arrivalStatus: TripStatus? {
        switch self {
        case .enrouteToPickup: .arrivedAtPickup
        case .enrouteToIntermediateDestination: .arrivedAtIntermediateDestination
        default: nil
        }
    }

    /// Statuses whose meaning involves `intermediateDestinationIndex`.
    package var usesIntermediateIndex: Bool {
        self == .arrivedAtIntermediateDestination || self == .enrouteToIntermediateDestination
    }

    /// Whether the transition table of reference §3.4 allows moving from `self` to `next`.
    package func canMove(to next: TripStatus) -> Bool {
        switch self {
        case .unknown:
            return next != .unknown
        case .new:
            return next != .new && next != .unknown
        case .enrouteToPickup:
            return next != .new && next != .unknown && next != .enrouteToPickup
        case .arrivedAtPickup, .arrivedAtIntermediateDestination:
            return next == .enrouteToIntermediateDestination || next == .enrouteToDropoff || next == .canceled
        case .enrouteToIntermediateDestination:
            return next == .arrivedAtIntermediateDestination || next == .canceled
        case .enrouteToDropoff:
            return next == .complete || next == .canceled
        case .complete, .canceled:
            return false
        }
    }
}
