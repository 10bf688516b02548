import Geo

extension Vehicle {
    /// Facts about a vehicle, in the past tense. Each carries everything a projector needs
    /// (e.g. the current trip ids for fan-out, the resulting waypoint list).
    ///
    /// Stored type strings are declared constants (`Vehicle.Event.vehicleRegistered`, ...).
    package enum Event: Sendable, Hashable {
        case registered(Registered)
        case stateChanged(StateChanged)
        case locationReported(LocationReported)
        case staleLocationRecorded(StaleLocationRecorded)
        case locationHistoryRecorded(LocationHistoryRecorded)
        case routeSegmentUpdated(RouteSegmentUpdated)
        case remainingRouteReported(RemainingRouteReported)
        case navigationStatusChanged(NavigationStatusChanged)
        case waypointsReordered(WaypointsReordered)
        case routeFollowed(RouteFollowed)
        case wentOffRoute(WentOffRoute)
        case rejoinedRoute(RejoinedRoute)
        case rerouted(Rerouted)
        case tripAssigned(TripAssigned)
        case tripWaypointsUpdated(TripWaypointsUpdated)
        case tripReleased(TripReleased)
        case attributesSet(AttributesSet)
        case backToBackEnabledChanged(BackToBackEnabledChanged)
        case capabilitiesChanged(CapabilitiesChanged)
        case licensePlateSet(LicensePlateSet)
        case deleted(Deleted)
        case tripOffered(TripOffered)
        case tripOfferAnswered(TripOfferAnswered)

        package static let vehicleRegistered = "VehicleRegistered"
        package static let vehicleStateChanged = "VehicleStateChanged"
        package static let vehicleLocationReported = "VehicleLocationReported"
        package static let vehicleStaleLocationRecorded = "VehicleStaleLocationRecorded"
        package static let vehicleLocationHistoryRecorded = "VehicleLocationHistoryRecorded"
        package static let vehicleRouteSegmentUpdated = "VehicleRouteSegmentUpdated"
        package static let vehicleRemainingRouteReported = "VehicleRemainingRouteReported"
        package static let vehicleNavigationStatusChanged = "VehicleNavigationStatusChanged"
        package static let vehicleWaypointsReordered = "VehicleWaypointsReordered"
        package static let vehicleRouteFollowed = "VehicleRouteFollowed"
        package static let vehicleWentOffRoute = "VehicleWentOffRoute"
        package static let vehicleRejoinedRoute = "VehicleRejoinedRoute"
        package static let vehicleRerouted = "VehicleRerouted"
        package static let vehicleTripAssigned = "VehicleTripAssigned"
        package static let vehicleTripWaypointsUpdated = "VehicleTripWaypointsUpdated"
        package static let vehicleTripReleased = "VehicleTripReleased"
        package static let vehicleAttributesSet = "VehicleAttributesSet"
        package static let vehicleBackToBackEnabledChanged = "VehicleBackToBackEnabledChanged"
        package static let vehicleCapabilitiesChanged = "VehicleCapabilitiesChanged"
        package static let vehicleLicensePlateSet = "VehicleLicensePlateSet"
        package static let vehicleDeleted = "VehicleDeleted"
        package static let vehicleTripOffered = "VehicleTripOffered"
        package static let vehicleTripOfferAnswered = "VehicleTripOfferAnswered"

        /// Every stored type string of this aggregate.
        package static let allTypes: [String] = [
            vehicleRegistered, vehicleStateChanged, vehicleLocationReported, vehicleStaleLocationRecorded,
            vehicleLocationHistoryRecorded, vehicleRouteSegmentUpdated, vehicleRemainingRouteReported,
            vehicleNavigationStatusChanged, vehicleWaypointsReordered, vehicleRouteFollowed, vehicleWentOffRoute,
            vehicleRejoinedRoute, vehicleRerouted, vehicleTripAssigned, vehicleTripWaypointsUpdated, vehicleTripReleased,
            vehicleAttributesSet, vehicleBackToBackEnabledChanged, vehicleCapabilitiesChanged, vehicleLicensePlateSet,
            vehicleDeleted, vehicleTripOffered, vehicleTripOfferAnswered,
        ]

        /// The stored type string.
        package var type: String {
            switch self {
            case .registered: Event.vehicleRegistered
            case .stateChanged: Event.vehicleStateChanged
            case .locationReported: Event.vehicleLocationReported
            case .staleLocationRecorded: Event.vehicleStaleLocationRecorded
            case .locationHistoryRecorded: Event.vehicleLocationHistoryRecorded
            case .routeSegmentUpdated: Event.vehicleRouteSegmentUpdated
            case .remainingRouteReported: Event.vehicleRemainingRouteReported
            case .navigationStatusChanged: Event.vehicleNavigationStatusChanged
            case .waypointsReordered: Event.vehicleWaypointsReordered
            case .routeFollowed: Event.vehicleRouteFollowed
            case .wentOffRoute: Event.vehicleWentOffRoute
            case .rejoinedRoute: Event.vehicleRejoinedRoute
            case .rerouted: Event.vehicleRerouted
            case .tripAssigned: Event.vehicleTripAssigned
            case .tripWaypointsUpdated: Event.vehicleTripWaypointsUpdated
            case .tripReleased: Event.vehicleTripReleased
            case .attributesSet: Event.vehicleAttributesSet
            case .backToBackEnabledChanged: Event.vehicleBackToBackEnabledChanged
            case .capabilitiesChanged: Event.vehicleCapabilitiesChanged
            case .licensePlateSet: Event.vehicleLicensePlateSet
            case .deleted: Event.vehicleDeleted
            case .tripOffered: Event.vehicleTripOffered
            case .tripOfferAnswered: Event.vehicleTripOfferAnswered
            }
        }

        /// `VehicleRegistered`.
        ///
        /// `licensePlate` came later and is optional: it is left out of the JSON when absent, so
        /// events stored before it existed keep their shape and still decode.
        package struct Registered: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var vehicleState: VehicleState
            package var supportedTripTypes: [TripType]
            package var maximumCapacity: Int
            package var vehicleType: VehicleType
            package var attributes: [Attribute]
            package var backToBackEnabled: Bool
            package var licensePlate: LicensePlate?
            package var at: Timestamp

            package init(
                vehicleId: String,
                vehicleState: VehicleState,
                supportedTripTypes: [TripType],
                maximumCapacity: Int,
                vehicleType: VehicleType,
                attributes: [Attribute],
                backToBackEnabled: Bool,
                licensePlate: LicensePlate? = nil,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.vehicleState = vehicleState
                self.supportedTripTypes = supportedTripTypes
                self.maximumCapacity = maximumCapacity
                self.vehicleType = vehicleType
                self.attributes = attributes
                self.backToBackEnabled = backToBackEnabled
                self.licensePlate = licensePlate
                self.at = at
            }
        }

        /// `VehicleStateChanged`: ONLINE ⇄ OFFLINE.
        package struct StateChanged: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var from: VehicleState
            package var to: VehicleState
            package var at: Timestamp

            package init(
                vehicleId: String,
                from: VehicleState,
                to: VehicleState,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.from = from
                self.to = to
                self.at = at
            }
        }

        /// `VehicleLocationReported`: an accepted live position (moves the vehicle).
        ///
        /// `location.serverTime` is the recording time. `routeDeviationMeters` is the distance
        /// from the followed route (nil without one); `offRouteReportCount` the consecutive
        /// off-route reports including this one.
        package struct LocationReported: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var location: VehicleLocation
            package var currentTripIds: [String]
            package var followedTripId: String?
            package var routeDeviationMeters: Double?
            package var offRouteReportCount: Int
            package var at: Timestamp

            package init(
                vehicleId: String,
                location: VehicleLocation,
                currentTripIds: [String],
                followedTripId: String? = nil,
                routeDeviationMeters: Double? = nil,
                offRouteReportCount: Int,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.location = location
                self.currentTripIds = currentTripIds
                self.followedTripId = followedTripId
                self.routeDeviationMeters = routeDeviationMeters
                self.offRouteReportCount = offRouteReportCount
                self.at = at
            }
        }

        /// `VehicleStaleLocationRecorded`: a report older than the last accepted one; kept for
        /// history, does not move the vehicle.
        package struct StaleLocationRecorded: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var location: VehicleLocation
            package var lastAcceptedUpdateTime: Timestamp
            package var at: Timestamp

            package init(
                vehicleId: String,
                location: VehicleLocation,
                lastAcceptedUpdateTime: Timestamp,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.location = location
                self.lastAcceptedUpdateTime = lastAcceptedUpdateTime
                self.at = at
            }
        }

        /// `VehicleLocationHistoryRecorded`: an offline backlog (`pastLocations`), sorted by device
        /// time; history only, does not move the vehicle.
        package struct LocationHistoryRecorded: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var locations: [VehicleLocation]
            package var at: Timestamp

            package init(
                vehicleId: String,
                locations: [VehicleLocation],
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.locations = locations
                self.at = at
            }
        }

        /// `VehicleRouteSegmentUpdated`: the driver's path to its next waypoint; `at` is its version.
        package struct RouteSegmentUpdated: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var encodedPath: String
            package var traffic: [TrafficSpeedInterval]
            package var endPoint: TripWaypoint?
            package var currentTripIds: [String]
            package var at: Timestamp

            package init(
                vehicleId: String,
                encodedPath: String,
                traffic: [TrafficSpeedInterval],
                endPoint: TripWaypoint? = nil,
                currentTripIds: [String],
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.encodedPath = encodedPath
                self.traffic = traffic
                self.endPoint = endPoint
                self.currentTripIds = currentTripIds
                self.at = at
            }
        }

        /// `VehicleRemainingRouteReported`: distance and ETA to the first waypoint.
        ///
        /// `etaToFirstWaypoint` is already resolved: `at + remainingTimeSeconds` when that was sent.
        package struct RemainingRouteReported: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var remainingDistanceMeters: Int?
            package var etaToFirstWaypoint: Timestamp?
            package var remainingTimeSeconds: Int?
            package var currentTripIds: [String]
            package var at: Timestamp

            package init(
                vehicleId: String,
                remainingDistanceMeters: Int? = nil,
                etaToFirstWaypoint: Timestamp? = nil,
                remainingTimeSeconds: Int? = nil,
                currentTripIds: [String],
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.remainingDistanceMeters = remainingDistanceMeters
                self.etaToFirstWaypoint = etaToFirstWaypoint
                self.remainingTimeSeconds = remainingTimeSeconds
                self.currentTripIds = currentTripIds
                self.at = at
            }
        }

        /// `VehicleNavigationStatusChanged`.
        package struct NavigationStatusChanged: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var from: NavigationStatus
            package var to: NavigationStatus
            package var at: Timestamp

            package init(
                vehicleId: String,
                from: NavigationStatus,
                to: NavigationStatus,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.from = from
                self.to = to
                self.at = at
            }
        }

        /// `VehicleWaypointsReordered`: the new order of the same waypoints.
        package struct WaypointsReordered: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var waypoints: [TripWaypoint]
            package var at: Timestamp

            package init(
                vehicleId: String,
                waypoints: [TripWaypoint],
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.waypoints = waypoints
                self.at = at
            }
        }

        /// `VehicleRouteFollowed`: off-route detection now measures against this path.
        package struct RouteFollowed: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var tripId: String
            package var encodedPath: String
            package var at: Timestamp

            package init(
                vehicleId: String,
                tripId: String,
                encodedPath: String,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.tripId = tripId
                self.encodedPath = encodedPath
                self.at = at
            }
        }

        /// `VehicleWentOffRoute`: detected server-side from consecutive reports.
        package struct WentOffRoute: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var tripId: String
            package var location: LatLng
            package var deviationMeters: Double
            package var consecutiveReports: Int
            package var thresholdMeters: Double
            package var at: Timestamp

            package init(
                vehicleId: String,
                tripId: String,
                location: LatLng,
                deviationMeters: Double,
                consecutiveReports: Int,
                thresholdMeters: Double,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.tripId = tripId
                self.location = location
                self.deviationMeters = deviationMeters
                self.consecutiveReports = consecutiveReports
                self.thresholdMeters = thresholdMeters
                self.at = at
            }
        }

        /// `VehicleRejoinedRoute`: back within the threshold after going off route.
        package struct RejoinedRoute: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var tripId: String
            package var location: LatLng
            package var deviationMeters: Double
            package var at: Timestamp

            package init(
                vehicleId: String,
                tripId: String,
                location: LatLng,
                deviationMeters: Double,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.tripId = tripId
                self.location = location
                self.deviationMeters = deviationMeters
                self.at = at
            }
        }

        /// `VehicleRerouted`: after going off route the driver sent a new segment; it is followed from now.
        package struct Rerouted: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var tripId: String
            package var encodedPath: String
            package var at: Timestamp

            package init(
                vehicleId: String,
                tripId: String,
                encodedPath: String,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.tripId = tripId
                self.encodedPath = encodedPath
                self.at = at
            }
        }

        /// `VehicleTripAssigned`: a trip joined the vehicle; `waypoints` is the resulting full list.
        package struct TripAssigned: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var tripId: String
            package var tripType: TripType
            package var numberOfPassengers: Int
            package var waypoints: [TripWaypoint]
            package var at: Timestamp

            package init(
                vehicleId: String,
                tripId: String,
                tripType: TripType,
                numberOfPassengers: Int,
                waypoints: [TripWaypoint],
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.tripId = tripId
                self.tripType = tripType
                self.numberOfPassengers = numberOfPassengers
                self.waypoints = waypoints
                self.at = at
            }
        }

        /// `VehicleTripWaypointsUpdated`: a trip's remaining stops changed (progress or edit);
        /// `waypoints` is the resulting full list.
        package struct TripWaypointsUpdated: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var tripId: String
            package var tripStatus: TripStatus
            package var waypoints: [TripWaypoint]
            package var at: Timestamp

            package init(
                vehicleId: String,
                tripId: String,
                tripStatus: TripStatus,
                waypoints: [TripWaypoint],
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.tripId = tripId
                self.tripStatus = tripStatus
                self.waypoints = waypoints
                self.at = at
            }
        }

        /// `VehicleTripReleased`: a trip left the vehicle; `waypoints` is the resulting full list.
        package struct TripReleased: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var tripId: String
            package var reason: ReleaseReason
            package var waypoints: [TripWaypoint]
            package var at: Timestamp

            package init(
                vehicleId: String,
                tripId: String,
                reason: ReleaseReason,
                waypoints: [TripWaypoint],
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.tripId = tripId
                self.reason = reason
                self.waypoints = waypoints
                self.at = at
            }
        }

        /// `VehicleAttributesSet`: the vehicle's whole attribute list after the change.
        ///
        /// `merged` tells UpdateVehicleAttributes (merge by key) from UpdateVehicle with
        /// `attributes` in the mask (replace); either way `attributes` is the full resulting list.
        package struct AttributesSet: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var attributes: [Attribute]
            package var merged: Bool
            package var at: Timestamp

            package init(
                vehicleId: String,
                attributes: [Attribute],
                merged: Bool,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.attributes = attributes
                self.merged = merged
                self.at = at
            }
        }

        /// `VehicleBackToBackEnabledChanged`: whether the vehicle takes back-to-back trips.
        package struct BackToBackEnabledChanged: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var backToBackEnabled: Bool
            package var at: Timestamp

            package init(
                vehicleId: String,
                backToBackEnabled: Bool,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.backToBackEnabled = backToBackEnabled
                self.at = at
            }
        }

        /// `VehicleCapabilitiesChanged`: capacity, trip types and vehicle type after the change
        /// (all three, whichever of them the update named).
        package struct CapabilitiesChanged: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var maximumCapacity: Int
            package var supportedTripTypes: [TripType]
            package var vehicleType: VehicleType
            package var at: Timestamp

            package init(
                vehicleId: String,
                maximumCapacity: Int,
                supportedTripTypes: [TripType],
                vehicleType: VehicleType,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.maximumCapacity = maximumCapacity
                self.supportedTripTypes = supportedTripTypes
                self.vehicleType = vehicleType
                self.at = at
            }
        }

        /// `VehicleLicensePlateSet`: the plate was set, changed or (nil) cleared.
        package struct LicensePlateSet: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var licensePlate: LicensePlate?
            package var at: Timestamp

            package init(
                vehicleId: String,
                licensePlate: LicensePlate?,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.licensePlate = licensePlate
                self.at = at
            }
        }

        /// `VehicleDeleted`: the vehicle no longer exists; its id may be registered again.
        package struct Deleted: Codable, Hashable, Sendable {
            package var vehicleId: String
            package var at: Timestamp

            package init(
                vehicleId: String,
                at: Timestamp
            ) {
                self.vehicleId = vehicleId
                self.at = at
            }
        }
    }
}
