import Geo

/// A stretch of a route segment with one traffic speed, by polyline point index.
///
/// Mirrors Fleet Engine's `SpeedReadingInterval` (`[startIndex, endIndex)` over the points of
/// the encoded path). Journey keeps its own copy of the shape (rather than storing Geo's
/// `TrafficInterval`) so the stored event JSON is owned and versioned here.
package struct TrafficSpeedInterval: Codable, Hashable, Sendable {
    /// Speed category; raw values are Fleet Engine's names.
    package enum Speed: String, Codable, Hashable, Sendable, CaseIterable {
        case noData = "NO_DATA"
        case normal = "NORMAL"
        case slow = "SLOW"
        case trafficJam = "TRAFFIC_JAM"
    }

    /// First polyline point of the stretch.
    package var startIndex: Int
    /// Polyline point where the stretch ends (exclusive).
    package var endIndex: Int
    /// The traffic speed on the stretch.
    package var speed: Speed

    package init(startIndex: Int, endIndex: Int, speed: Speed) {
        self.startIndex = startIndex
        self.endIndex = endIndex
        self.speed = speed
    }

    /// Converts from Geo's interval type.
    package init(_ interval: TrafficInterval) {
        self.startIndex = interval.startIndex
        self.endIndex = interval.endIndex
        switch interval.speed {
        case .noData: self.speed = .noData
        case .normal: self.speed = .normal
        case .slow: self.speed = .slow
        case .trafficJam: self.speed = .trafficJam
        }
    }
}
