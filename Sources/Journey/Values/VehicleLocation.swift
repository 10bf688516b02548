import Geo

/// Fleet Engine's `VehicleLocation`, the subset the domain keeps.
///
/// `updateTime` is the device clock (when the phone saw it), `serverTime` the server clock
/// (when Waymark recorded it). On input `serverTime` is ignored and set from the command's `at`;
/// a missing `updateTime` defaults to the server time.
package struct VehicleLocation: Codable, Hashable, Sendable {
    /// The reported position.
    package var location: LatLng
    /// Device time of the fix.
    package var updateTime: Timestamp?
    /// Server time the report was recorded (output; set by the domain).
    package var serverTime: Timestamp?
    /// Horizontal accuracy radius in meters (≥ 0).
    package var latlngAccuracy: Double?
    /// Direction of travel in degrees, [0, 360).
    package var heading: Double?
    /// Heading accuracy in degrees (≥ 0).
    package var headingAccuracy: Double?
    /// Speed in meters per second (≥ 0).
    package var speed: Double?
    /// Speed accuracy in meters per second (≥ 0).
    package var speedAccuracy: Double?
    /// Which sensor produced the fix; FLEET_ENGINE_LOCATION is rejected on input.
    package var locationSensor: LocationSensor?
    /// Whether the position was snapped to a road by the device.
    package var isRoadSnapped: Bool?

    package init(
        location: LatLng,
        updateTime: Timestamp? = nil,
        serverTime: Timestamp? = nil,
        latlngAccuracy: Double? = nil,
        heading: Double? = nil,
        headingAccuracy: Double? = nil,
        speed: Double? = nil,
        speedAccuracy: Double? = nil,
        locationSensor: LocationSensor? = nil,
        isRoadSnapped: Bool? = nil
    ) {
        self.location = location
        self.updateTime = updateTime
        self.serverTime = serverTime
        self.latlngAccuracy = latlngAccuracy
        self.heading = heading
        self.headingAccuracy = headingAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        self.locationSensor = locationSensor
        self.isRoadSnapped = isRoadSnapped
    }

    /// Device time, or server time when the device sent none.
    package var deviceTime: Timestamp? { updateTime ?? serverTime }
}
