import Geo

/// Arrival detection: a geofence around each stop of the trips a vehicle serves, and a dwell time.
///
/// A pure fold over one vehicle's stream (`detect(_:with:vehicleId:options:)`): the vehicle's
/// waypoint lists say which stops it serves, its accepted location reports say where it is, by
/// device time. A vehicle that stays within `radiusMeters` of a stop for `dwellSeconds` of device
/// time has arrived (`VehicleArrivedNearStop`); after that, a report farther than the exit radius
/// (the radius plus a margin, so GPS jitter at the edge does not flap) means it left
/// (`VehicleLeftStop`). Because it reads only the vehicle's own events, in stream order, the same
/// history always gives the same arrivals: replay is exact.
///
/// Stale and out-of-order reports never count: the vehicle aggregate records them as
/// `VehicleStaleLocationRecorded` (ignored here), and a report whose device time is not after the
/// last one used is ignored as well. Reports less accurate than `maximumAccuracyMeters` are
/// ignored, and one report outside the fence before the dwell is over starts the dwell again.
package enum StopArrival {
    /// Geofence and dwell, per provider (recorded in each arrival, so an audit knows what applied).
    package struct Options: Codable, Hashable, Sendable {
        package var radiusMeters: Double
        package var dwellSeconds: Double
        /// Reports with a worse `latlngAccuracy` are ignored.
        package var maximumAccuracyMeters: Double

        package init(radiusMeters: Double = 50, dwellSeconds: Double = 20, maximumAccuracyMeters: Double = 100) {
            self.radiusMeters = radiusMeters
            self.dwellSeconds = dwellSeconds
            self.maximumAccuracyMeters = maximumAccuracyMeters
        }

        /// Leaving needs this distance: the radius plus half of it (at least 20 m).
        package var exitRadiusMeters: Double { radiusMeters + max(20, radiusMeters / 2) }
    }

    /// One stop the vehicle serves: a trip's waypoint and its index in that trip (pickup 0, then
    /// intermediate destinations, then the drop-off).
    package struct Stop: Codable, Hashable, Sendable {
        package var tripId: String
        package var waypointIndex: Int
        package var waypointType: WaypointType
        package var location: LatLng

        package var key: String { "\(tripId)#\(waypointIndex)" }
    }

    /// A stop the vehicle is inside of, waiting out the dwell or arrived.
    package struct Visit: Codable, Hashable, Sendable {
        package var stop: Stop
        package var enteredTime: Timestamp
        package var arrivedTime: Timestamp?
        /// Counts arrivals at this stop (1 for the first).
        package var number: Int
    }

    /// What the detector remembers of one vehicle.
    package struct State: Codable, Hashable, Sendable {
        /// Each trip's waypoints as the detector knows them, in trip order (for stable indexes).
        package var tripWaypoints: [String: [TripWaypoint]] = [:]
        /// The stops the vehicle serves now.
        package var stops: [Stop] = []
        /// Device time of the last report used.
        package var lastDeviceTime: Timestamp?
        /// Open visits by stop key.
        package var visits: [String: Visit] = [:]
        /// Arrivals so far per stop key (numbers the visits).
        package var arrivals: [String: Int] = [:]

        package init() {}
    }
}
