import Geo
import Journey

extension DriverFeedProjection {
    /// What the feed keeps of one trip: its stops, status, vehicle and route plan.
    struct TripRecord: Codable, Hashable, Sendable {
        struct Stop: Codable, Hashable, Sendable {
            var waypointType: WaypointType
            var point: LatLng
        }

        var provider: String
        var tripId: String
        var vehicleId: String?
        var status: TripStatus
        var intermediateDestinationIndex: Int
        /// Pickup, intermediate destinations, dropoff (when set), in order.
        var stops: [Stop]
        var plan: RoutePlan?
        /// Index into `stops` of the plan's first destination (the stops already passed when it was planned).
        var planStopOffset: Int
        var activeDestinationIndex: Int

        /// Replaces the stops of one type, keeping the order pickup, intermediates, dropoff.
        mutating func setStops(_ type: WaypointType, _ points: [LatLng]) {
            let order: [WaypointType] = [.pickup, .intermediateDestination, .dropOff]
            var all: [Stop] = []
            for kind in order {
                if kind == type {
                    all += points.map { Stop(waypointType: type, point: $0) }
                } else {
                    all += stops.filter { $0.waypointType == kind }
                }
            }
            stops = all
        }
    }

    /// An open offer as the feed shows it.
    struct OfferRecord: Codable, Hashable, Sendable {
        var tripId: String
        var expireTime: Timestamp
        var offerTime: Timestamp
    }

    /// A short order status message for the dashboard.
    struct MessageRecord: Codable, Hashable, Sendable {
        var text: String
        var tripId: String
        var time: Timestamp
    }

    /// What the feed keeps of one vehicle.
    struct VehicleRecord: Codable, Hashable, Sendable {
        var provider: String
        var vehicleId: String
        var currentTripIds: [String] = []
        /// The trip of the vehicle's first remaining waypoint (the one being driven to).
        var firstWaypointTripId: String?
        var location: LatLng?
        var navigationStatus: NavigationStatus = .unknown
        var offers: [OfferRecord] = []
        var messages: [MessageRecord] = []
        var version: Int64 = 0
        var updateTime: Timestamp?

        /// The trip the driver is serving now: the first waypoint's trip, else the first current trip.
        var activeTripId: String? {
            if let first = firstWaypointTripId, currentTripIds.contains(first) { return first }
            return currentTripIds.first
        }
    }
}
