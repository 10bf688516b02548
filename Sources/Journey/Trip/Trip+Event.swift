import Geo

extension Trip {
    /// Facts about a trip, in the past tense. Each carries everything a projector needs.
    ///
    /// The stored type string of each case is a declared constant (`Trip.Event.tripCreated`,
    /// ...), never derived from Swift names; a changed JSON shape gets a new string and an
    /// upcaster in `EventUpcasters.swift`.
    package enum Event: Sendable, Hashable {
        case created(Created)
        case vehicleAssigned(VehicleAssigned)
        case vehicleUnassigned(VehicleUnassigned)
        case statusChanged(StatusChanged)
        case completed(Completed)
        case canceled(Canceled)
        case intermediateDestinationsChanged(IntermediateDestinationsChanged)
        case dropoffPointSet(DropoffPointSet)
        case actualLocationRecorded(ActualLocationRecorded)
        case attributesSet(AttributesSet)
        case routePlanned(RoutePlanned)
        case routeTokenExecutionReported(RouteTokenExecutionReported)
        case routeDestinationAdvanced(RouteDestinationAdvanced)
        case routeSelected(RouteSelected)
        case pickupPointSet(PickupPointSet)
        case deleted(Deleted)

        package static let tripCreated = "TripCreated"
        package static let tripVehicleAssigned = "TripVehicleAssigned"
        package static let tripVehicleUnassigned = "TripVehicleUnassigned"
        package static let tripStatusChanged = "TripStatusChanged"
        package static let tripCompleted = "TripCompleted"
        package static let tripCanceled = "TripCanceled"
        package static let tripIntermediateDestinationsChanged = "TripIntermediateDestinationsChanged"
        package static let tripDropoffPointSet = "TripDropoffPointSet"
        package static let tripActualLocationRecorded = "TripActualLocationRecorded"
        package static let tripAttributesSet = "TripAttributesSet"
        package static let tripRoutePlanned = "TripRoutePlanned"
        package static let tripRouteTokenExecutionReported = "TripRouteTokenExecutionReported"
        package static let tripRouteDestinationAdvanced = "TripRouteDestinationAdvanced"
        package static let tripRouteSelected = "TripRouteSelected"
        package static let tripPickupPointSet = "TripPickupPointSet"
        package static let tripDeleted = "TripDeleted"

        /// Every stored type string of this aggregate.
        package static let allTypes: [String] = [
            tripCreated, tripVehicleAssigned, tripVehicleUnassigned, tripStatusChanged, tripCompleted, tripCanceled,
            tripIntermediateDestinationsChanged, tripDropoffPointSet, tripActualLocationRecorded, tripAttributesSet,
            tripRoutePlanned, tripRouteTokenExecutionReported, tripRouteDestinationAdvanced, tripPickupPointSet,
            tripDeleted, tripRouteSelected,
        ]

        /// The stored type string.
        package var type: String {
            switch self {
            case .created: Event.tripCreated
            case .vehicleAssigned: Event.tripVehicleAssigned
            case .vehicleUnassigned: Event.tripVehicleUnassigned
            case .statusChanged: Event.tripStatusChanged
            case .completed: Event.tripCompleted
            case .canceled: Event.tripCanceled
            case .intermediateDestinationsChanged: Event.tripIntermediateDestinationsChanged
            case .dropoffPointSet: Event.tripDropoffPointSet
            case .actualLocationRecorded: Event.tripActualLocationRecorded
            case .attributesSet: Event.tripAttributesSet
            case .routePlanned: Event.tripRoutePlanned
            case .routeTokenExecutionReported: Event.tripRouteTokenExecutionReported
            case .routeDestinationAdvanced: Event.tripRouteDestinationAdvanced
            case .routeSelected: Event.tripRouteSelected
            case .pickupPointSet: Event.tripPickupPointSet
            case .deleted: Event.tripDeleted
            }
        }

        /// `TripCreated`: the trip exists, in status NEW, with no vehicle.
        package struct Created: Codable, Hashable, Sendable {
            package var tripId: String
            package var tripType: TripType
            package var pickup: TerminalLocation
            package var dropoff: TerminalLocation?
            package var intermediateDestinations: [TerminalLocation]
            package var intermediateDestinationsVersion: Timestamp
            package var numberOfPassengers: Int
            package var attributes: [Attribute]
            package var at: Timestamp

            package init(
                tripId: String,
                tripType: TripType,
                pickup: TerminalLocation,
                dropoff: TerminalLocation? = nil,
                intermediateDestinations: [TerminalLocation],
                intermediateDestinationsVersion: Timestamp,
                numberOfPassengers: Int,
                attributes: [Attribute],
                at: Timestamp
            ) {
                self.tripId = tripId
                self.tripType = tripType
                self.pickup = pickup
                self.dropoff = dropoff
                self.intermediateDestinations = intermediateDestinations
                self.intermediateDestinationsVersion = intermediateDestinationsVersion
                self.numberOfPassengers = numberOfPassengers
                self.attributes = attributes
                self.at = at
            }
        }

        /// `TripVehicleAssigned`: the trip is now served by `vehicleId`.
        ///
        /// `waypoints` are the trip's remaining stops at assignment; `backToBack` is true when
        /// the vehicle already had other trips (back-to-back or pooled).
        package struct VehicleAssigned: Codable, Hashable, Sendable {
            package var tripId: String
            package var vehicleId: String
            package var tripType: TripType
            package var status: TripStatus
            package var numberOfPassengers: Int
            package var waypoints: [TripWaypoint]
            package var backToBack: Bool
            package var at: Timestamp

            package init(
                tripId: String,
                vehicleId: String,
                tripType: TripType,
                status: TripStatus,
                numberOfPassengers: Int,
                waypoints: [TripWaypoint],
                backToBack: Bool,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.vehicleId = vehicleId
                self.tripType = tripType
                self.status = status
                self.numberOfPassengers = numberOfPassengers
                self.waypoints = waypoints
                self.backToBack = backToBack
                self.at = at
            }
        }

        /// `TripVehicleUnassigned`: the vehicle no longer serves the trip.
        package struct VehicleUnassigned: Codable, Hashable, Sendable {
            package var tripId: String
            package var vehicleId: String
            package var status: TripStatus
            package var at: Timestamp

            package init(
                tripId: String,
                vehicleId: String,
                status: TripStatus,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.vehicleId = vehicleId
                self.status = status
                self.at = at
            }
        }

        /// `TripStatusChanged`: a non-terminal status change.
        ///
        /// `intermediateDestinationIndex` is set for the intermediate-destination statuses only.
        package struct StatusChanged: Codable, Hashable, Sendable {
            package var tripId: String
            package var vehicleId: String?
            package var from: TripStatus
            package var to: TripStatus
            package var intermediateDestinationIndex: Int?
            package var at: Timestamp

            package init(
                tripId: String,
                vehicleId: String? = nil,
                from: TripStatus,
                to: TripStatus,
                intermediateDestinationIndex: Int? = nil,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.vehicleId = vehicleId
                self.from = from
                self.to = to
                self.intermediateDestinationIndex = intermediateDestinationIndex
                self.at = at
            }
        }

        /// `TripCompleted`: status COMPLETE; the trip leaves its vehicle.
        package struct Completed: Codable, Hashable, Sendable {
            package var tripId: String
            package var vehicleId: String?
            package var from: TripStatus
            package var at: Timestamp

            package init(
                tripId: String,
                vehicleId: String? = nil,
                from: TripStatus,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.vehicleId = vehicleId
                self.from = from
                self.at = at
            }
        }

        /// `TripCanceled`: status CANCELED; the trip leaves its vehicle.
        package struct Canceled: Codable, Hashable, Sendable {
            package var tripId: String
            package var vehicleId: String?
            package var from: TripStatus
            package var at: Timestamp

            package init(
                tripId: String,
                vehicleId: String? = nil,
                from: TripStatus,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.vehicleId = vehicleId
                self.from = from
                self.at = at
            }
        }

        /// `TripIntermediateDestinationsChanged`: the new list and its new version.
        package struct IntermediateDestinationsChanged: Codable, Hashable, Sendable {
            package var tripId: String
            package var intermediateDestinations: [TerminalLocation]
            package var intermediateDestinationsVersion: Timestamp
            package var at: Timestamp

            package init(
                tripId: String,
                intermediateDestinations: [TerminalLocation],
                intermediateDestinationsVersion: Timestamp,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.intermediateDestinations = intermediateDestinations
                self.intermediateDestinationsVersion = intermediateDestinationsVersion
                self.at = at
            }
        }

        /// `TripDropoffPointSet`: the dropoff was set or moved.
        package struct DropoffPointSet: Codable, Hashable, Sendable {
            package var tripId: String
            package var dropoff: TerminalLocation
            package var at: Timestamp

            package init(
                tripId: String,
                dropoff: TerminalLocation,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.dropoff = dropoff
                self.at = at
            }
        }

        /// `TripActualLocationRecorded`: where/when a stop actually happened.
        package struct ActualLocationRecorded: Codable, Hashable, Sendable {
            package var tripId: String
            package var stop: ActualStop
            package var intermediateDestinationIndex: Int?
            package var location: StopLocation
            package var at: Timestamp

            package init(
                tripId: String,
                stop: ActualStop,
                intermediateDestinationIndex: Int? = nil,
                location: StopLocation,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.stop = stop
                self.intermediateDestinationIndex = intermediateDestinationIndex
                self.location = location
                self.at = at
            }
        }

        /// `TripAttributesSet`: the whole attribute list was replaced.
        package struct AttributesSet: Codable, Hashable, Sendable {
            package var tripId: String
            package var attributes: [Attribute]
            package var at: Timestamp

            package init(
                tripId: String,
                attributes: [Attribute],
                at: Timestamp
            ) {
                self.tripId = tripId
                self.attributes = attributes
                self.at = at
            }
        }

        /// `TripRoutePlanned`: a plan (validated, travel mode normalized) replaces any earlier one.
        package struct RoutePlanned: Codable, Hashable, Sendable {
            package var tripId: String
            package var vehicleId: String?
            package var plan: RoutePlan
            package var at: Timestamp

            package init(
                tripId: String,
                vehicleId: String? = nil,
                plan: RoutePlan,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.vehicleId = vehicleId
                self.plan = plan
                self.at = at
            }
        }

        /// `TripRouteTokenExecutionReported`: how navigation applied the token.
        ///
        /// `reported` is what the driver sent; `effective` is what is in force: the resolved
        /// parameters when the token was applied, otherwise only travel mode and avoid
        /// tolls/highways/ferries (from `reported`, else the plan) with the rest at defaults.
        package struct RouteTokenExecutionReported: Codable, Hashable, Sendable {
            package var tripId: String
            package var status: RouteTokenExecutionStatus
            package var tokenApplied: Bool
            package var reported: ResolvedRoutingParameters?
            package var effective: ResolvedRoutingParameters
            /// The navigation app's route status (OK or an error); absent in reports that had none.
            package var routeStatus: RouteStatus?
            package var at: Timestamp

            package init(
                tripId: String,
                status: RouteTokenExecutionStatus,
                tokenApplied: Bool,
                reported: ResolvedRoutingParameters? = nil,
                effective: ResolvedRoutingParameters,
                routeStatus: RouteStatus? = nil,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.status = status
                self.tokenApplied = tokenApplied
                self.reported = reported
                self.effective = effective
                self.routeStatus = routeStatus
                self.at = at
            }
        }

        /// `TripRouteSelected`: before guidance started, route `routeIndex` of the plan's routes
        /// is now the one in force (its legs and `routeToken` replace the plan's).
        package struct RouteSelected: Codable, Hashable, Sendable {
            package var tripId: String
            package var vehicleId: String?
            package var routeIndex: Int
            package var routeToken: String?
            package var at: Timestamp

            package init(tripId: String, vehicleId: String? = nil, routeIndex: Int, routeToken: String? = nil, at: Timestamp) {
                self.tripId = tripId
                self.vehicleId = vehicleId
                self.routeIndex = routeIndex
                self.routeToken = routeToken
                self.at = at
            }
        }

        /// `TripRouteDestinationAdvanced`: after arrival, navigation heads for the next plan stop.
        package struct RouteDestinationAdvanced: Codable, Hashable, Sendable {
            package var tripId: String
            package var destinationIndex: Int
            package var destination: LatLng
            package var encodedPolyline: String
            package var at: Timestamp

            package init(
                tripId: String,
                destinationIndex: Int,
                destination: LatLng,
                encodedPolyline: String,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.destinationIndex = destinationIndex
                self.destination = destination
                self.encodedPolyline = encodedPolyline
                self.at = at
            }
        }

        /// `TripPickupPointSet`: the pickup moved (before the pickup happened).
        package struct PickupPointSet: Codable, Hashable, Sendable {
            package var tripId: String
            package var pickup: TerminalLocation
            package var at: Timestamp

            package init(
                tripId: String,
                pickup: TerminalLocation,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.pickup = pickup
                self.at = at
            }
        }

        /// `TripDeleted`: the trip no longer exists; its id may be created again (a new lifecycle).
        ///
        /// `vehicleId` is the vehicle the trip last had (only an unassigned or terminal trip can be
        /// deleted, so no vehicle serves it any more); `status` is its status when deleted.
        package struct Deleted: Codable, Hashable, Sendable {
            package var tripId: String
            package var vehicleId: String?
            package var status: TripStatus
            package var at: Timestamp

            package init(
                tripId: String,
                vehicleId: String? = nil,
                status: TripStatus,
                at: Timestamp
            ) {
                self.tripId = tripId
                self.vehicleId = vehicleId
                self.status = status
                self.at = at
            }
        }
    }
}
