import struct Foundation.Data
import JSON

extension Vehicle.Event {
    /// Decodes a stored event from its type string and the bytes of its JSON payload.
    ///
    /// The bytes are parsed strictly (as the event store parses what it reads) and decoded as
    /// ``decode(type:json:)`` does, so both entry points accept exactly the same payloads.
    package static func decode(type storedType: String, data storedData: Data) throws(JourneyError) -> Vehicle.Event {
        try decode(type: storedType, json: try EventJSON.parse(storedData, type: storedType))
    }

    /// Decodes a stored event from its type string and its already parsed JSON payload
    /// (after upcasting), without going back to bytes.
    package static func decode(type storedType: String, json storedJSON: JSONValue) throws(JourneyError) -> Vehicle.Event {
        let (type, json) = EventUpcasters.upcast(type: storedType, json: storedJSON)
        switch type {
        case vehicleRegistered: return .registered(try EventJSON.decode(Registered.self, from: json, type: type))
        case vehicleStateChanged: return .stateChanged(try EventJSON.decode(StateChanged.self, from: json, type: type))
        case vehicleLocationReported:
            if let plain = LocationReported(plainJSON: json) { return .locationReported(plain) }
            return .locationReported(try EventJSON.decode(LocationReported.self, from: json, type: type))
        case vehicleStaleLocationRecorded: return .staleLocationRecorded(try EventJSON.decode(StaleLocationRecorded.self, from: json, type: type))
        case vehicleLocationHistoryRecorded: return .locationHistoryRecorded(try EventJSON.decode(LocationHistoryRecorded.self, from: json, type: type))
        case vehicleRouteSegmentUpdated: return .routeSegmentUpdated(try EventJSON.decode(RouteSegmentUpdated.self, from: json, type: type))
        case vehicleRemainingRouteReported: return .remainingRouteReported(try EventJSON.decode(RemainingRouteReported.self, from: json, type: type))
        case vehicleNavigationStatusChanged: return .navigationStatusChanged(try EventJSON.decode(NavigationStatusChanged.self, from: json, type: type))
        case vehicleWaypointsReordered: return .waypointsReordered(try EventJSON.decode(WaypointsReordered.self, from: json, type: type))
        case vehicleRouteFollowed: return .routeFollowed(try EventJSON.decode(RouteFollowed.self, from: json, type: type))
        case vehicleWentOffRoute: return .wentOffRoute(try EventJSON.decode(WentOffRoute.self, from: json, type: type))
        case vehicleRejoinedRoute: return .rejoinedRoute(try EventJSON.decode(RejoinedRoute.self, from: json, type: type))
        case vehicleRerouted: return .rerouted(try EventJSON.decode(Rerouted.self, from: json, type: type))
        case vehicleTripAssigned: return .tripAssigned(try EventJSON.decode(TripAssigned.self, from: json, type: type))
        case vehicleTripWaypointsUpdated: return .tripWaypointsUpdated(try EventJSON.decode(TripWaypointsUpdated.self, from: json, type: type))
        case vehicleTripReleased: return .tripReleased(try EventJSON.decode(TripReleased.self, from: json, type: type))
        case vehicleAttributesSet: return .attributesSet(try EventJSON.decode(AttributesSet.self, from: json, type: type))
        case vehicleBackToBackEnabledChanged:
            return .backToBackEnabledChanged(try EventJSON.decode(BackToBackEnabledChanged.self, from: json, type: type))
        case vehicleCapabilitiesChanged: return .capabilitiesChanged(try EventJSON.decode(CapabilitiesChanged.self, from: json, type: type))
        case vehicleLicensePlateSet: return .licensePlateSet(try EventJSON.decode(LicensePlateSet.self, from: json, type: type))
        case vehicleDeleted: return .deleted(try EventJSON.decode(Deleted.self, from: json, type: type))
        case vehicleTripOffered: return .tripOffered(try EventJSON.decode(TripOffered.self, from: json, type: type))
        case vehicleTripOfferAnswered: return .tripOfferAnswered(try EventJSON.decode(TripOfferAnswered.self, from: json, type: type))
        default:
            throw EventJSON.unknownType(type, aggregate: "vehicle")
        }
    }

    /// The JSON payload to store with `type`.
    package func encodePayload() throws(JourneyError) -> Data {
        switch self {
        case .registered(let p): try EventJSON.encode(p, type: type)
        case .stateChanged(let p): try EventJSON.encode(p, type: type)
        case .locationReported(let p): try EventJSON.encode(p, type: type)
        case .staleLocationRecorded(let p): try EventJSON.encode(p, type: type)
        case .locationHistoryRecorded(let p): try EventJSON.encode(p, type: type)
        case .routeSegmentUpdated(let p): try EventJSON.encode(p, type: type)
        case .remainingRouteReported(let p): try EventJSON.encode(p, type: type)
        case .navigationStatusChanged(let p): try EventJSON.encode(p, type: type)
        case .waypointsReordered(let p): try EventJSON.encode(p, type: type)
        case .routeFollowed(let p): try EventJSON.encode(p, type: type)
        case .wentOffRoute(let p): try EventJSON.encode(p, type: type)
        case .rejoinedRoute(let p): try EventJSON.encode(p, type: type)
        case .rerouted(let p): try EventJSON.encode(p, type: type)
        case .tripAssigned(let p): try EventJSON.encode(p, type: type)
        case .tripWaypointsUpdated(let p): try EventJSON.encode(p, type: type)
        case .tripReleased(let p): try EventJSON.encode(p, type: type)
        case .attributesSet(let p): try EventJSON.encode(p, type: type)
        case .backToBackEnabledChanged(let p): try EventJSON.encode(p, type: type)
        case .capabilitiesChanged(let p): try EventJSON.encode(p, type: type)
        case .licensePlateSet(let p): try EventJSON.encode(p, type: type)
        case .deleted(let p): try EventJSON.encode(p, type: type)
        case .tripOffered(let p): try EventJSON.encode(p, type: type)
        case .tripOfferAnswered(let p): try EventJSON.encode(p, type: type)
        }
    }

    /// The canonical bytes of ``encodePayloadValue()`` when this event writes them directly
    /// (location reports, the hottest events); nil for the others.
    package var canonicalPayload: [UInt8]? {
        guard case .locationReported(let report) = self else { return nil }
        return report.canonicalPayload
    }

    /// The JSON payload to store with `type`, as the value of the bytes `encodePayload` writes
    /// (see `EventJSON.encodeValue`).
    package func encodePayloadValue() throws(JourneyError) -> JSONValue {
        switch self {
        case .registered(let p): try EventJSON.encodeValue(p, type: type)
        case .stateChanged(let p): try EventJSON.encodeValue(p, type: type)
        case .locationReported(let p): p.payloadValue
        case .staleLocationRecorded(let p): try EventJSON.encodeValue(p, type: type)
        case .locationHistoryRecorded(let p): try EventJSON.encodeValue(p, type: type)
        case .routeSegmentUpdated(let p): try EventJSON.encodeValue(p, type: type)
        case .remainingRouteReported(let p): try EventJSON.encodeValue(p, type: type)
        case .navigationStatusChanged(let p): try EventJSON.encodeValue(p, type: type)
        case .waypointsReordered(let p): try EventJSON.encodeValue(p, type: type)
        case .routeFollowed(let p): try EventJSON.encodeValue(p, type: type)
        case .wentOffRoute(let p): try EventJSON.encodeValue(p, type: type)
        case .rejoinedRoute(let p): try EventJSON.encodeValue(p, type: type)
        case .rerouted(let p): try EventJSON.encodeValue(p, type: type)
        case .tripAssigned(let p): try EventJSON.encodeValue(p, type: type)
        case .tripWaypointsUpdated(let p): try EventJSON.encodeValue(p, type: type)
        case .tripReleased(let p): try EventJSON.encodeValue(p, type: type)
        case .attributesSet(let p): try EventJSON.encodeValue(p, type: type)
        case .backToBackEnabledChanged(let p): try EventJSON.encodeValue(p, type: type)
        case .capabilitiesChanged(let p): try EventJSON.encodeValue(p, type: type)
        case .licensePlateSet(let p): try EventJSON.encodeValue(p, type: type)
        case .deleted(let p): try EventJSON.encodeValue(p, type: type)
        case .tripOffered(let p): try EventJSON.encodeValue(p, type: type)
        case .tripOfferAnswered(let p): try EventJSON.encodeValue(p, type: type)
        }
    }
}
