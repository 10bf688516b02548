import struct Foundation.Data

extension Trip.Event {
    /// Decodes a stored event from its type string and JSON payload (after upcasting).
    package static func decode(type storedType: String, data storedData: Data) throws(JourneyError) -> Trip.Event {
        let (type, data) = EventUpcasters.upcast(type: storedType, data: storedData)
        switch type {
        case tripCreated: return .created(try EventJSON.decode(Created.self, from: data, type: type))
        case tripVehicleAssigned: return .vehicleAssigned(try EventJSON.decode(VehicleAssigned.self, from: data, type: type))
        case tripVehicleUnassigned: return .vehicleUnassigned(try EventJSON.decode(VehicleUnassigned.self, from: data, type: type))
        case tripStatusChanged: return .statusChanged(try EventJSON.decode(StatusChanged.self, from: data, type: type))
        case tripCompleted: return .completed(try EventJSON.decode(Completed.self, from: data, type: type))
        case tripCanceled: return .canceled(try EventJSON.decode(Canceled.self, from: data, type: type))
        case tripIntermediateDestinationsChanged:
            return .intermediateDestinationsChanged(try EventJSON.decode(IntermediateDestinationsChanged.self, from: data, type: type))
        case tripDropoffPointSet: return .dropoffPointSet(try EventJSON.decode(DropoffPointSet.self, from: data, type: type))
        case tripActualLocationRecorded: return .actualLocationRecorded(try EventJSON.decode(ActualLocationRecorded.self, from: data, type: type))
        case tripAttributesSet: return .attributesSet(try EventJSON.decode(AttributesSet.self, from: data, type: type))
        case tripRoutePlanned: return .routePlanned(try EventJSON.decode(RoutePlanned.self, from: data, type: type))
        case tripRouteTokenExecutionReported:
            return .routeTokenExecutionReported(try EventJSON.decode(RouteTokenExecutionReported.self, from: data, type: type))
        case tripRouteDestinationAdvanced:
            return .routeDestinationAdvanced(try EventJSON.decode(RouteDestinationAdvanced.self, from: data, type: type))
        case tripPickupPointSet: return .pickupPointSet(try EventJSON.decode(PickupPointSet.self, from: data, type: type))
        case tripDeleted: return .deleted(try EventJSON.decode(Deleted.self, from: data, type: type))
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
        case .pickupPointSet(let p): try EventJSON.encode(p, type: type)
        case .deleted(let p): try EventJSON.encode(p, type: type)
        }
    }
}
