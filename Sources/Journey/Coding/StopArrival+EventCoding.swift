import JSON

extension StopArrival.Event {
    /// The payload as stored (keys sorted, like every event payload).
    package func encodePayloadValue() throws(JourneyError) -> JSONValue {
        switch self {
        case .arrived(let p): try EventJSON.encodeValue(p, type: type)
        case .left(let p): try EventJSON.encodeValue(p, type: type)
        }
    }

    /// Decodes a stored event.
    package static func decode(type: String, json: JSONValue) throws(JourneyError) -> StopArrival.Event {
        switch type {
        case vehicleArrivedNearStop: return .arrived(try EventJSON.decode(Arrived.self, from: json, type: type))
        case vehicleLeftStop: return .left(try EventJSON.decode(Left.self, from: json, type: type))
        default: throw EventJSON.unknownType(type, aggregate: "arrival")
        }
    }
}
