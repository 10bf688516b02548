#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import Testing

/// Domain-like `Codable` types for the `JSONValueEncoder` / `JSONValueDecoder` tests: what the
/// event payloads and read-model records use (synthesized and hand-written coding, optionals,
/// nested arrays and dictionaries, enums with raw and associated values, a single-value string
/// type like `Timestamp`, a class hierarchy through `superEncoder`).
enum CodableSamples {
    struct Point: Codable, Equatable {
        var latitude: Double
        var longitude: Double
    }

    enum Status: String, Codable, Equatable {
        case new = "NEW"
        case enroute = "ENROUTE_TO_PICKUP"
    }

    /// Encodes itself as one string, as `Timestamp` does.
    struct Stamp: Codable, Equatable {
        var micros: Int64

        init(micros: Int64) {
            self.micros = micros
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard text.hasPrefix("t"), let micros = Int64(text.dropFirst()) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a stamp")
            }
            self.micros = micros
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode("t\(micros)")
        }
    }

    /// Synthesized coding of associated values uses nested keyed containers.
    enum Reason: Codable, Equatable {
        case unassigned
        case reassigned(to: String, at: Stamp)
        case moved(Point, Int)
    }

    struct Waypoint: Codable, Equatable {
        var tripId: String
        var location: Point
        var eta: Stamp?
        var kind: Status
        var distanceMeters: Int?
    }

    /// Hand-written coding with explicit nested containers, as `Attribute` and Geo's types do.
    struct Segment: Codable, Equatable {
        var path: [Point]
        var speeds: [[Int]]
        var label: String?

        enum CodingKeys: String, CodingKey { case geometry, label }
        enum GeometryKeys: String, CodingKey { case points, speeds }

        init(path: [Point], speeds: [[Int]], label: String?) {
            self.path = path
            self.speeds = speeds
            self.label = label
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let geometry = try c.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
            var points = try geometry.nestedUnkeyedContainer(forKey: .points)
            var path: [Point] = []
            while !points.isAtEnd {
                var pair = try points.nestedUnkeyedContainer()
                path.append(Point(latitude: try pair.decode(Double.self), longitude: try pair.decode(Double.self)))
            }
            self.path = path
            speeds = try geometry.decode([[Int]].self, forKey: .speeds)
            label = try c.decodeIfPresent(String.self, forKey: .label)
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            var geometry = c.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
            var points = geometry.nestedUnkeyedContainer(forKey: .points)
            for point in path {
                var pair = points.nestedUnkeyedContainer()
                try pair.encode(point.latitude)
                try pair.encode(point.longitude)
            }
            try geometry.encode(speeds, forKey: .speeds)
            try c.encodeIfPresent(label, forKey: .label)
        }
    }

    struct Record: Codable, Equatable {
        var provider: String
        var version: Int64
        var count: Int
        var capacity: UInt64
        var small: Int8
        var ratio: Double
        var share: Float
        var enabled: Bool
        var note: String?
        var pickedUpAt: Stamp?
        var waypoints: [Waypoint]
        var matrix: [[Int]]
        var tags: [String: Int]
        var byNumber: [Int: String]
        var reason: Reason
        var reasons: [Reason]
        var maybe: [Double?]
        var nested: [String: [Point]]
        var segment: Segment?
        var zebra: Int
        var Upper: Int
        var _private: Bool
        var a10: Int
        var a2: Int
    }

    static let stamp = Stamp(micros: 1_772_352_000_000_000)

    static let record = Record(
        provider: "acme", version: 42, count: -7, capacity: .max, small: -128, ratio: 0.1 + 0.2, share: 0.25,
        enabled: true, note: nil, pickedUpAt: stamp,
        waypoints: [
            Waypoint(tripId: "t-1", location: Point(latitude: 52.5200081, longitude: 13.404954), eta: stamp, kind: .new, distanceMeters: 1200),
            Waypoint(tripId: "t-2", location: Point(latitude: -33.8688, longitude: 151.2093), eta: nil, kind: .enroute, distanceMeters: nil),
        ],
        matrix: [[1, 2], [], [3]], tags: ["b": 2, "a": 1, "ä": 3, "A": 0],
        byNumber: [10: "ten", 2: "two", 1: "one"], reason: .reassigned(to: "v-2", at: stamp),
        reasons: [.unassigned, .moved(Point(latitude: 1, longitude: 2), 3)],
        maybe: [1.5, nil, -0.0, 1e-5, 100], nested: ["z": [], "m": [Point(latitude: 0, longitude: 0)]],
        segment: Segment(path: [Point(latitude: 1.25, longitude: 2), Point(latitude: 3, longitude: 4.5)], speeds: [[0, 1], [1, 2]], label: nil),
        zebra: 1, Upper: 2, _private: false, a10: 10, a2: 2)

    /// `value` as Foundation's `JSONEncoder` with `.sortedKeys` writes it, parsed back.
    static func foundationEncoded(_ value: some Encodable) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try JSONValue.parse(encoder.encode(value))
    }

    /// The compact text with every number rewritten to its canonical decimal: member order and
    /// strings as they are, numbers compared by value.
    static func shape(_ value: JSONValue) -> String {
        func normalized(_ value: JSONValue) -> JSONValue {
            switch value {
            case .number(let number): .number(JSONNumber(lexeme: number.canonical)!)
            case .array(let elements): .array(elements.map(normalized))
            case .object(let object): .object(JSONObject(object.map { ($0.key, normalized($0.value)) }))
            default: value
            }
        }
        return normalized(value).compactString
    }

    /// A coding error as `case Type at path`, path components as `[n]` or the key.
    static func describe(_ error: any Error) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.typeMismatch(let type, let context): return "typeMismatch \(type) at \(path(context.codingPath))"
        case DecodingError.valueNotFound(let type, let context): return "valueNotFound \(type) at \(path(context.codingPath))"
        case DecodingError.keyNotFound(let key, let context): return "keyNotFound \(key.stringValue) at \(path(context.codingPath))"
        case DecodingError.dataCorrupted(let context): return "dataCorrupted at \(path(context.codingPath))"
        case EncodingError.invalidValue(_, let context): return "invalidValue at \(path(context.codingPath))"
        default: return "other \(type(of: error))"
        }
    }
}
