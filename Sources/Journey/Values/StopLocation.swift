import Geo

/// Fleet Engine's `StopLocation`: where and when something actually happened at a stop.
package struct StopLocation: Codable, Hashable, Sendable {
    /// Where it happened.
    package var point: LatLng
    /// When it happened, as reported by the provider.
    package var timestamp: Timestamp?

    package init(point: LatLng, timestamp: Timestamp? = nil) {
        self.point = point
        self.timestamp = timestamp
    }
}
