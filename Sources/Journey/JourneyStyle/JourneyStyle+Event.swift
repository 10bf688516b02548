import struct Foundation.Data
import JSON

extension JourneyStyle {
    /// Facts about a provider's journey style. Type strings are declared constants.
    package enum Event: Sendable, Hashable {
        case set(StyleSet)

        package static let journeyStyleSet = "JourneyStyleSet"

        /// Every stored type string of this aggregate.
        package static let allTypes: [String] = [journeyStyleSet]

        /// The stored type string.
        package var type: String {
            switch self {
            case .set: Event.journeyStyleSet
            }
        }

        /// `JourneyStyleSet`: the provider's style is now `options`, at `version`.
        package struct StyleSet: Codable, Hashable, Sendable {
            package var version: Int64
            package var options: Options
            package var at: Timestamp

            package init(version: Int64, options: Options, at: Timestamp) {
                self.version = version
                self.options = options
                self.at = at
            }
        }

        /// Decodes a stored event from its type string and its bytes.
        package static func decode(type storedType: String, data: Data) throws(JourneyError) -> Event {
            try decode(type: storedType, json: try EventJSON.parse(data, type: storedType))
        }

        /// Decodes a stored event from its type string and its parsed payload (after upcasting).
        package static func decode(type storedType: String, json storedJSON: JSONValue) throws(JourneyError) -> Event {
            let (type, json) = EventUpcasters.upcast(type: storedType, json: storedJSON)
            switch type {
            case journeyStyleSet: return .set(try EventJSON.decode(StyleSet.self, from: json, type: type))
            default: throw EventJSON.unknownType(type, aggregate: "journey style")
            }
        }

        /// The JSON payload to store with `type`.
        package func encodePayload() throws(JourneyError) -> Data {
            switch self {
            case .set(let p): try EventJSON.encode(p, type: type)
            }
        }
    }
}
