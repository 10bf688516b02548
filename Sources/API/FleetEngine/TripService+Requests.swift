import Journey
import ReadModels

extension TripService {
    /// CreateTrip: the fields Fleet Engine uses on create (everything else is ignored, as there).
    package struct CreateRequest: Sendable {
        package var provider: String
        package var create: Trip.CreateTrip
        /// Assign this vehicle right away.
        package var vehicleId: String?
        /// The vehicle's full waypoint order after the assignment (SHARED pooling).
        package var vehicleWaypoints: [TripWaypoint]?

        package init(provider: String, create: Trip.CreateTrip, vehicleId: String? = nil, vehicleWaypoints: [TripWaypoint]? = nil) {
            self.provider = provider
            self.create = create
            self.vehicleId = vehicleId
            self.vehicleWaypoints = vehicleWaypoints
        }
    }

    /// GetTrip's view.
    package enum View: String, Sendable {
        case sdk = "SDK"
        case journeySharing = "JOURNEY_SHARING_V1S"
    }

    /// GetTrip.
    package struct GetRequest: Sendable {
        package var provider: String
        package var tripId: String
        package var view: View
        package var versions: FleetResourceViews.TripVersions

        package init(provider: String, tripId: String, view: View = .sdk, versions: FleetResourceViews.TripVersions = .init()) {
            self.provider = provider
            self.tripId = tripId
            self.view = view
            self.versions = versions
        }
    }

    /// One masked field of UpdateTrip, already read from the request.
    package enum Change: Sendable, Hashable {
        /// `vehicleId`: assign, or unassign when nil/empty.
        case vehicleId(String?)
        /// `tripStatus` with `intermediateDestinationIndex` / `intermediateDestinationsVersion` when masked.
        case tripStatus(TripStatus, intermediateDestinationIndex: Int?, intermediateDestinationsVersion: Timestamp?)
        case intermediateDestinations([TerminalLocation])
        case pickupPoint(TerminalLocation?)
        case dropoffPoint(TerminalLocation?)
        case actualLocation(Trip.ActualStop, intermediateDestinationIndex: Int?, StopLocation)
        case attributes([Attribute])
        case vehicleWaypoints([TripWaypoint])
        /// `consumerId` (Waymark's extension): the `consumerId` attribute, removed when nil.
        case consumerId(String?)
    }

    /// UpdateTrip.
    package struct UpdateRequest: Sendable {
        package var provider: String
        package var tripId: String
        package var changes: [Change]

        package init(provider: String, tripId: String, changes: [Change]) {
            self.provider = provider
            self.tripId = tripId
            self.changes = changes
        }
    }

    /// SearchTrips.
    package struct SearchRequest: Sendable {
        package var provider: String
        package var vehicleId: String?
        package var activeTripsOnly: Bool
        package var pageSize: Int
        package var pageToken: String?
        /// Only trips not updated for at least this long (microseconds).
        package var minimumStalenessMicros: Int64?

        package init(provider: String, vehicleId: String? = nil, activeTripsOnly: Bool = false, pageSize: Int = 100,
                     pageToken: String? = nil, minimumStalenessMicros: Int64? = nil) {
            self.provider = provider
            self.vehicleId = vehicleId
            self.activeTripsOnly = activeTripsOnly
            self.pageSize = pageSize
            self.pageToken = pageToken
            self.minimumStalenessMicros = minimumStalenessMicros
        }
    }
}
