import Geo

extension StopArrival {
    /// Facts the detector records, on the trip's `arrival:{provider}/{tripId}` stream.
    package enum Event: Sendable, Hashable {
        case arrived(Arrived)
        case left(Left)

        package static let vehicleArrivedNearStop = "VehicleArrivedNearStop"
        package static let vehicleLeftStop = "VehicleLeftStop"

        /// Every stored type string of this stream category.
        package static let allTypes: [String] = [vehicleArrivedNearStop, vehicleLeftStop]

        package var type: String {
            switch self {
            case .arrived: Event.vehicleArrivedNearStop
            case .left: Event.vehicleLeftStop
            }
        }

        package var tripId: String {
            switch self {
            case .arrived(let e): e.tripId
            case .left(let e): e.tripId
            }
        }

        /// `VehicleArrivedNearStop`: the vehicle stayed within the stop's geofence for the dwell time.
        package struct Arrived: Codable, Hashable, Sendable {
            package var tripId: String
            package var vehicleId: String
            package var waypointIndex: Int
            package var waypointType: WaypointType
            package var stopLocation: LatLng
            /// Where the vehicle was when the dwell completed, and how far from the stop.
            package var vehicleLocation: LatLng
            package var distanceMeters: Double
            /// Device time of the first report inside the fence.
            package var enteredTime: Timestamp
            /// Device time of the report that completed the dwell.
            package var arrivalTime: Timestamp
            /// 1 for the first arrival at this stop, 2 after the vehicle left and came back, ...
            package var visit: Int
            package var radiusMeters: Double
            package var dwellSeconds: Double
        }

        /// `VehicleLeftStop`: after arriving, the vehicle was reported beyond the exit radius.
        package struct Left: Codable, Hashable, Sendable {
            package var tripId: String
            package var vehicleId: String
            package var waypointIndex: Int
            package var waypointType: WaypointType
            package var stopLocation: LatLng
            package var vehicleLocation: LatLng
            package var distanceMeters: Double
            package var arrivalTime: Timestamp
            /// Device time of the first report beyond the exit radius.
            package var leftTime: Timestamp
            package var visit: Int
        }
    }
}
