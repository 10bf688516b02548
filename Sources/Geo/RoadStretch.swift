/// A slow or jammed stretch of a path, measured in whole metres from its start (Fleet Engine
/// `VisualTrafficReportPolylineRendering.RoadStretch`).
///
/// The style applies on `[offsetMeters, offsetMeters + lengthMeters)`. Only slow and jammed
/// parts are listed; the rest of the path has normal traffic. Always `offsetMeters >= 0`
/// and `lengthMeters > 0`, each within Int32 as on the wire. JSON uses the same field names;
/// a missing `offsetMeters` decodes as 0 (proto3 JSON omits zero values).
package struct RoadStretch: Sendable, Hashable, Codable {
    /// How a stretch is drawn (Fleet Engine `RoadStretch.Style`).
    package enum Style: String, Sendable, Hashable, Codable {
        /// Slower than normal; corresponds to `TrafficSpeed.slow`.
        case slowerTraffic = "SLOWER_TRAFFIC"
        /// Jammed; corresponds to `TrafficSpeed.trafficJam`.
        case trafficJam = "TRAFFIC_JAM"

        /// The style for a speed: `.slow` and `.trafficJam` have one, other speeds none.
        package init?(_ speed: TrafficSpeed) {
            switch speed {
            case .slow: self = .slowerTraffic
            case .trafficJam: self = .trafficJam
            case .normal, .noData: return nil
            }
        }

        /// The speed this style stands for.
        package var speed: TrafficSpeed {
            switch self {
            case .slowerTraffic: .slow
            case .trafficJam: .trafficJam
            }
        }
    }

    /// How the stretch is drawn.
    package let style: Style
    /// Metres from the path's start to the stretch's start.
    package let offsetMeters: Int
    /// Length of the stretch in metres; positive.
    package let lengthMeters: Int

    /// Creates a stretch; throws `.invalidRoadStretch` for a negative offset, a non-positive
    /// length, or either beyond Int32.
    package init(style: Style, offsetMeters: Int, lengthMeters: Int) throws(GeoError) {
        guard (0...Int(Int32.max)).contains(offsetMeters) else {
            throw .invalidRoadStretch("road stretch offset \(offsetMeters) m is outside 0...\(Int32.max)")
        }
        guard (1...Int(Int32.max)).contains(lengthMeters) else {
            throw .invalidRoadStretch("road stretch length \(lengthMeters) m is outside 1...\(Int32.max)")
        }
        self.style = style
        self.offsetMeters = offsetMeters
        self.lengthMeters = lengthMeters
    }

    /// Creates a stretch the caller has already checked.
    init(checkedStyle style: Style, offsetMeters: Int, lengthMeters: Int) {
        assert(offsetMeters >= 0 && lengthMeters > 0, "bad road stretch \(offsetMeters)+\(lengthMeters)")
        self.style = style
        self.offsetMeters = offsetMeters
        self.lengthMeters = lengthMeters
    }

    /// Metres from the path's start to the stretch's end (exclusive).
    package var endMeters: Int { offsetMeters + lengthMeters }

    private enum CodingKeys: String, CodingKey {
        case style
        case offsetMeters
        case lengthMeters
    }

    /// Decodes and validates like `init(style:offsetMeters:lengthMeters:)`.
    ///
    /// A bad value throws `DecodingError.dataCorrupted` with the `GeoError` as `underlyingError`.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let style = try container.decode(Style.self, forKey: .style)
        let offset = try container.decodeIfPresent(Int.self, forKey: .offsetMeters) ?? 0
        let length = try container.decodeIfPresent(Int.self, forKey: .lengthMeters) ?? 0
        do {
            try self.init(style: style, offsetMeters: offset, lengthMeters: length)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: container.codingPath,
                    debugDescription: error.message,
                    underlyingError: error
                )
            )
        }
    }

    /// Encodes all three fields, a zero offset included.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(style, forKey: .style)
        try container.encode(offsetMeters, forKey: .offsetMeters)
        try container.encode(lengthMeters, forKey: .lengthMeters)
    }
}
