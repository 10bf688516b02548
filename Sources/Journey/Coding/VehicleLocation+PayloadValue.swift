import Geo
import JSON

extension EventJSON {
    /// A `Double` with the lexeme `JSONEncoder` writes: the shortest round-trip text, integral
    /// values without `.0`. Values are finite here (the domain validates them).
    static func number(_ value: Double) -> JSONValue {
        guard let number = JSONNumber(value) else { return .null }
        return integralAsIntegers(.number(number))
    }
}

extension VehicleLocation {
    /// This location as the JSON value its synthesized `Codable` encoding gives (members sorted),
    /// built directly: location reports are the hottest events, and the generic encoder costs
    /// several times more. The tests compare both for every field, set and unset.
    var payloadValue: JSONValue {
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(10)
        if let heading { members.append(("heading", EventJSON.number(heading))) }
        if let headingAccuracy { members.append(("headingAccuracy", EventJSON.number(headingAccuracy))) }
        if let isRoadSnapped { members.append(("isRoadSnapped", .bool(isRoadSnapped))) }
        if let latlngAccuracy { members.append(("latlngAccuracy", EventJSON.number(latlngAccuracy))) }
        members.append(("location", .object(JSONObject([("latitude", EventJSON.number(location.latitude)), ("longitude", EventJSON.number(location.longitude))]))))
        if let locationSensor { members.append(("locationSensor", .string(locationSensor.rawValue))) }
        if let serverTime { members.append(("serverTime", .string(serverTime.rfc3339))) }
        if let speed { members.append(("speed", EventJSON.number(speed))) }
        if let speedAccuracy { members.append(("speedAccuracy", EventJSON.number(speedAccuracy))) }
        if let updateTime { members.append(("updateTime", .string(updateTime.rfc3339))) }
        return .object(JSONObject(members))
    }
}

extension Vehicle.Event.LocationReported {
    /// The payload as its synthesized `Codable` encoding gives it (see `VehicleLocation.payloadValue`).
    var payloadValue: JSONValue {
        var members: [(String, JSONValue)] = [("at", .string(at.rfc3339)), ("currentTripIds", .array(currentTripIds.map(JSONValue.string)))]
        if let followedTripId { members.append(("followedTripId", .string(followedTripId))) }
        members.append(("location", location.payloadValue))
        members.append(("offRouteReportCount", .number(JSONNumber(offRouteReportCount))))
        if let routeDeviationMeters { members.append(("routeDeviationMeters", EventJSON.number(routeDeviationMeters))) }
        members.append(("vehicleId", .string(vehicleId)))
        return .object(JSONObject(members))
    }
}
