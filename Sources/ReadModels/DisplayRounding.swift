/// Distances and times rounded the way in-car displays show them, with their unit.
///
/// Distances: below 100 m in steps of 10 m; below 1 km in steps of 50 m; below 10 km in tenths of
/// a kilometre; above that in whole kilometres. Times: whole minutes. Always the nearest value
/// (halves round up), never the floor; the band is chosen by the unrounded distance, and a value
/// that rounds up into the next band is shown in that band's unit (975 m → "1.0 km",
/// 9 960 m → "10 km"). A time that rounds to 0 shows 1 minute while there is still distance to
/// drive ("never 0 min while moving").
package enum DisplayRounding {
    /// A rounded distance: `value` as display text (also a valid JSON number) and its unit.
    package struct RoundedDistance: Hashable, Sendable, CustomStringConvertible {
        /// "850", "1.2", "12".
        package let value: String
        /// "m" or "km".
        package let unit: String

        package var description: String { "\(value) \(unit)" }
    }

    /// `meters` rounded for display (negative and non-finite distances count as 0).
    package static func distance(meters: Double) -> RoundedDistance {
        let m = meters.isFinite ? max(0, meters) : 0
        if m < 100 {
            return RoundedDistance(value: String(nearest(m / 10) * 10), unit: "m")
        }
        if m < 1000 {
            let rounded = nearest(m / 50) * 50
            if rounded < 1000 { return RoundedDistance(value: String(rounded), unit: "m") }
            return RoundedDistance(value: "1.0", unit: "km")
        }
        if m < 10_000 {
            let tenths = nearest(m / 100)
            if tenths < 100 { return RoundedDistance(value: "\(tenths / 10).\(tenths % 10)", unit: "km") }
            return RoundedDistance(value: "10", unit: "km")
        }
        return RoundedDistance(value: String(nearest(m / 1000)), unit: "km")
    }

    /// `seconds` in whole minutes, nearest; at least 1 while `moving` and time remains.
    package static func minutes(seconds: Double, moving: Bool) -> Int {
        let s = seconds.isFinite ? max(0, seconds) : 0
        let minutes = nearest(s / 60)
        if minutes == 0, moving, s > 0 { return 1 }
        return minutes
    }

    /// The nearest whole number, halves up (for the non-negative values used here).
    static func nearest(_ x: Double) -> Int {
        Int((x + 0.5).rounded(.down))
    }
}
