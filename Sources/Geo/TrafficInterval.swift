/// A traffic speed over `points[startIndex...endIndex]` of a path (Fleet Engine `SpeedReadingInterval`).
///
/// Always `0 <= startIndex < endIndex`; whether the indices fit a path is checked by
/// `Traffic.validate`. Consecutive intervals may share a vertex (one's end is the next
/// one's start). JSON uses Fleet Engine's names, `startPolylinePointIndex`,
/// `endPolylinePointIndex` and `speed`; a missing index decodes as 0, as proto3 JSON omits
/// zero-valued int32 fields.
package struct TrafficInterval: Sendable, Hashable, Codable {
    /// Index of the first path point covered.
    package let startIndex: Int
    /// Index of the last path point covered; greater than `startIndex`.
    package let endIndex: Int
    /// The speed over the whole interval.
    package let speed: TrafficSpeed

    /// Creates an interval; throws `.invalidInterval` unless `0 <= startIndex < endIndex`.
    package init(startIndex: Int, endIndex: Int, speed: TrafficSpeed) throws(GeoError) {
        guard startIndex >= 0 else {
            throw .invalidInterval("traffic interval start index \(startIndex) is negative")
        }
        guard startIndex < endIndex else {
            throw .invalidInterval(
                "traffic interval start index \(startIndex) must be less than end index \(endIndex)"
            )
        }
        self.startIndex = startIndex
        self.endIndex = endIndex
        self.speed = speed
    }

    /// Creates an interval the caller has already checked.
    init(checkedStart startIndex: Int, end endIndex: Int, speed: TrafficSpeed) {
        assert(startIndex >= 0 && startIndex < endIndex, "bad interval \(startIndex)...\(endIndex)")
        self.startIndex = startIndex
        self.endIndex = endIndex
        self.speed = speed
    }

    private enum CodingKeys: String, CodingKey {
        case startIndex = "startPolylinePointIndex"
        case endIndex = "endPolylinePointIndex"
        case speed
    }

    /// Decodes Fleet Engine's JSON shape and validates it like `init(startIndex:endIndex:speed:)`.
    ///
    /// A bad pair throws `DecodingError.dataCorrupted` with the `GeoError` as `underlyingError`.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decodeIfPresent(Int.self, forKey: .startIndex) ?? 0
        let end = try container.decodeIfPresent(Int.self, forKey: .endIndex) ?? 0
        let speed = try container.decode(TrafficSpeed.self, forKey: .speed)
        do {
            try self.init(startIndex: start, endIndex: end, speed: speed)
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

    /// Encodes all three fields, a zero start index included.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(startIndex, forKey: .startIndex)
        try container.encode(endIndex, forKey: .endIndex)
        try container.encode(speed, forKey: .speed)
    }
}
