/// How fast traffic moves on part of a path (Fleet Engine `SpeedReadingInterval.Speed`).
///
/// Raw values are the wire names. `noData` is Waymark's name for "no reading": Fleet
/// Engine's own enum has `SPEED_UNSPECIFIED` there, which the wire layer maps.
package enum TrafficSpeed: String, Sendable, Hashable, Codable, CaseIterable {
    /// No reading for this part of the path.
    case noData = "NO_DATA"
    /// Traffic flows normally.
    case normal = "NORMAL"
    /// Traffic is slower than usual.
    case slow = "SLOW"
    /// Traffic is jammed.
    case trafficJam = "TRAFFIC_JAM"
}
