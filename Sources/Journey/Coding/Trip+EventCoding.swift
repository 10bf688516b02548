import struct Foundation.Data
import JSON

extension Trip.Event {
    /// Decodes a stored event from its type string and the bytes of its JSON payload.
    ///
    /// The bytes are parsed strictly (as the event store parses what it reads) and decoded as
    /// ``decode(type:json:)`` does, so both entry points accept exactly the same payloads.
    package static func decode(type storedType: String, data storedData: Data) throws(JourneyError) -> Trip.Event {
        try decode(type: storedType, json: try EventJSON.parse(storedData, type: storedType))
    }

    /// Decodes a stored event from its type string and its already parsed JSON payload
    /// (after upcasting), without going back to bytes.
    package static func decode(type storedType: String, json storedJSON: JSONValue) throws(JourneyError) -> Trip.Event {
        let (type, json) = EventUpcasters.upcast(type: storedType, json: storedJSON)
        switch type {
        case tripCreated: return .created(try EventJSON.decode(Created.self, from: json, type: type))
        case tripVehicleAssigned: return .vehicleAssigned(try EventJSON.decode(VehicleAssigned.self, from: json, type: type))
        case tripVehicleUnassigned: return .vehicleUnassigned(try EventJSON.decode(VehicleUnassigned.self, from: json, type: type))
        case tripStatusChanged: return .statusChanged(try EventJSON.decode(StatusChanged.self, from: json, type: type))
        case tripCompleted: return .completed(try EventJSON.decode(Completed.self, from: json, type: type))
        case tripCanceled: return .canceled(try EventJSON.decode(Canceled.self, from: json, type: type))
        case tripIntermediateDestinationsChanged:
            return .intermediateDestinationsChanged(try EventJSON.decode(IntermediateDestinationsChanged.self, from: json, type: type))
        case tripDropoffPointSet: return .dropoffPointSet(try EventJSON.decode(DropoffPointSet.self, from: json, type: type))
        case tripActualLocationRecorded: return .actualLocationRecorded(try EventJSON.decode(ActualLocationRecorded.self, from: json, type: type))
        case tripAttributesSet: return .attributesSet(try EventJSON.decode(AttributesSet.self, from: json, type: type))
        case tripRoutePlanned: return .routePlanned(try EventJSON.decode(RoutePlanned.self, from: json, type: type))
        case tripRouteTokenExecutionReported:
            return .routeTokenExecutionReported(try EventJSON.decode(RouteTokenExecutionReported.self, from: json, type: type))
        case tripRouteDestinationAdvanced:
            return .routeDestinationAdvanced(try EventJSON.decode(RouteDestinationAdvanced.self, from: json, type: type))
        case tripRouteSelected: return .routeSelected(try EventJSON.decode(RouteSelected.self, from: json, type: type))
        case tripPickupPointSet: return .pickupPointSet(try EventJSON.decode(PickupPointSet.self, from: json, type: type))
        case tripDeleted: return .deleted(try EventJSON.decode(Deleted.self, from: json, type: type))
        default:
            throw EventJSON.unknownType(type, aggregate: "trip")
        }
    }

    /// The JSON payload to store with `type`.
    package func encodePayload() throws(JourneyError) -> Data {
        switch self {
        case .created(let p): try EventJSON.encode(p, type: type)
        case .vehicleAssigned(let p): try EventJSON.encode(p, type: type)
        case .vehicleUnassigned(let p): try EventJSON.encode(p, type: type)
        case .statusChanged(let p): try EventJSON.encode(p, type: type)
        case .completed(let p): try EventJSON.encode(p, type: type)
        case .canceled(let p): try EventJSON.encode(p, type: type)
        case .intermediateDestinationsChanged(let p): try EventJSON.encode(p, type: type)
        case .dropoffPointSet(let p): try EventJSON.encode(p, type: type)
        case .actualLocationRecorded(let p): try EventJSON.encode(p, type: type)
        case .attributesSet(let p): try EventJSON.encode(p, type: type)
        case .routePlanned(let p): try EventJSON.encode(p, type: type)
        case .routeTokenExecutionReported(let p): try EventJSON.encode(p, type: type)
        case .routeDestinationAdvanced(let p): try EventJSON.encode(p, type: type)
        case .routeSelected(let p): try EventJSON.encode(p, type: type)
        case .pickupPointSet(let p): try EventJSON.encode(p, type: type)
        case .deleted(let p): try EventJSON.encode(p, type: type)
        }
    }

    /// The JSON payload to store with `type`, as the value of the bytes `encodePayload` writes
    /// (see `EventJSON.encodeValue`).
    package func encodePayloadValue() throws(JourneyError) -> JSONValue {
        switch self {
        case .created(let p): try EventJSON.encodeValue(p, type: type)
        case .vehicleAssigned(let p): try EventJSON.encodeValue(p, type: type)
        case .vehicleUnassigned(let p): try EventJSON.encodeValue(p, type: type)
        case .statusChanged(let p): try EventJSON.encodeValue(p, type: type)
        case .completed(let p): try EventJSON.encodeValue(p, type: type)
        case .canceled(let p): try EventJSON.encodeValue(p, type: type)
        case .intermediateDestinationsChanged(let p): try EventJSON.encodeValue(p, type: type)
        case .dropoffPointSet(let p): try EventJSON.encodeValue(p, type: type)
        case .actualLocationRecorded(let p): try EventJSON.encodeValue(p, type: type)
        case .attributesSet(let p): try EventJSON.encodeValue(p, type: type)
        case .routePlanned(let p): try EventJSON.encodeValue(p, type: type)
        case .routeTokenExecutionReported(let p): try EventJSON.encodeValue(p, type: type)
        case .routeDestinationAdvanced(let p): try EventJSON.encodeValue(p, type: type)
        case .routeSelected(let p): try EventJSON.encodeValue(p, type: type)
        case .pickupPointSet(let p): try EventJSON.encodeValue(p, type: type)
        case .deleted(let p): try EventJSON.encodeValue(p, type: type)
        }
    }
}
