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
        members(number: EventJSON.number)
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

extension Vehicle.Event.LocationReported {
    /// The canonical bytes of ``payloadValue`` (what the event store hashes and stores), written
    /// directly: no `JSONValue` tree is built, kept and torn down for the hottest event.
    /// Members in key byte order, as the canonical form sorts them; the tests compare these bytes
    /// with `payloadValue.canonicalBytes()` for every member set and unset and odd numbers.
    package var canonicalPayload: [UInt8] {
        var writer = CanonicalJSONWriter(capacity: 384)
        writer.beginObject()
        writer.key("at")
        writer.plainString(at.appendRFC3339)
        writer.key("currentTripIds")
        writer.beginArray()
        for tripId in currentTripIds { writer.string(tripId) }
        writer.endArray()
        if let followedTripId {
            writer.key("followedTripId")
            writer.string(followedTripId)
        }
        writer.key("location")
        location.writeCanonical(to: &writer)
        writer.key("offRouteReportCount")
        writer.integer(offRouteReportCount)
        if let routeDeviationMeters {
            writer.key("routeDeviationMeters")
            writer.number(routeDeviationMeters)
        }
        writer.key("vehicleId")
        writer.string(vehicleId)
        writer.endObject()
        return writer.bytes
    }
}

extension VehicleLocation {
    /// ``payloadValue`` written canonically (see `LocationReported.canonicalPayload`).
    func writeCanonical(to writer: inout CanonicalJSONWriter) {
        writer.beginObject()
        if let heading { writer.key("heading"); writer.number(heading) }
        if let headingAccuracy { writer.key("headingAccuracy"); writer.number(headingAccuracy) }
        if let isRoadSnapped { writer.key("isRoadSnapped"); writer.bool(isRoadSnapped) }
        if let latlngAccuracy { writer.key("latlngAccuracy"); writer.number(latlngAccuracy) }
        writer.key("location")
        RecordJSON.writeLatLng(location, to: &writer)
        if let locationSensor { writer.key("locationSensor"); writer.string(locationSensor.rawValue) }
        if let serverTime { writer.key("serverTime"); writer.plainString(serverTime.appendRFC3339) }
        if let speed { writer.key("speed"); writer.number(speed) }
        if let speedAccuracy { writer.key("speedAccuracy"); writer.number(speedAccuracy) }
        if let updateTime { writer.key("updateTime"); writer.plainString(updateTime.appendRFC3339) }
        writer.endObject()
    }
}

extension Vehicle.Event.LocationReported {
    /// The payload read directly from its JSON, when every member has the plain form the
    /// synthesized `Decodable` conformance accepts; nil for anything else, which the caller then
    /// decodes generically (so an odd payload gets the generic decoder's value or error).
    ///
    /// Location reports are most of the log, and every projection runner decodes each of them;
    /// the generic decoder cost several times more than the fold. The tests compare both
    /// decoders on every field, set, unset and null.
    package init?(plainJSON json: JSONValue) {
        guard case .object(let object) = json,
              case .string(let vehicleId)? = object["vehicleId"],
              let location = VehicleLocation(plainJSON: object["location"]),
              case .array(let tripValues)? = object["currentTripIds"],
              let offRouteReportCount = PlainJSON.integer(object["offRouteReportCount"]),
              let at = PlainJSON.timestamp(object["at"]),
              let followedTripId = PlainJSON.optionalString(object["followedTripId"]),
              let routeDeviationMeters = PlainJSON.optionalDouble(object["routeDeviationMeters"])
        else { return nil }
        var currentTripIds: [String] = []
        currentTripIds.reserveCapacity(tripValues.count)
        for value in tripValues {
            guard case .string(let tripId) = value else { return nil }
            currentTripIds.append(tripId)
        }
        self.init(vehicleId: vehicleId, location: location, currentTripIds: currentTripIds, followedTripId: followedTripId,
                  routeDeviationMeters: routeDeviationMeters, offRouteReportCount: offRouteReportCount, at: at)
    }
}

extension VehicleLocation {
    /// See `Vehicle.Event.LocationReported.init?(plainJSON:)`.
    init?(plainJSON json: JSONValue?) {
        guard case .object(let object)? = json,
              case .object(let point)? = object["location"],
              let latitude = PlainJSON.optionalDouble(point["latitude"]),
              let longitude = PlainJSON.optionalDouble(point["longitude"]),
              let updateTime = PlainJSON.optionalTimestamp(object["updateTime"]),
              let serverTime = PlainJSON.optionalTimestamp(object["serverTime"]),
              let latlngAccuracy = PlainJSON.optionalDouble(object["latlngAccuracy"]),
              let heading = PlainJSON.optionalDouble(object["heading"]),
              let headingAccuracy = PlainJSON.optionalDouble(object["headingAccuracy"]),
              let speed = PlainJSON.optionalDouble(object["speed"]),
              let speedAccuracy = PlainJSON.optionalDouble(object["speedAccuracy"]),
              let locationSensor = PlainJSON.optionalString(object["locationSensor"]),
              let isRoadSnapped = PlainJSON.optionalBool(object["isRoadSnapped"])
        else { return nil }
        // `LatLng`'s decoder takes a missing coordinate as 0 and then validates the pair.
        guard let location = try? LatLng(latitude: latitude ?? 0, longitude: longitude ?? 0) else { return nil }
        var sensor: LocationSensor?
        if let locationSensor {
            guard let known = LocationSensor(rawValue: locationSensor) else { return nil }
            sensor = known
        }
        self.init(location: location, updateTime: updateTime, serverTime: serverTime, latlngAccuracy: latlngAccuracy, heading: heading,
                  headingAccuracy: headingAccuracy, speed: speed, speedAccuracy: speedAccuracy, locationSensor: sensor, isRoadSnapped: isRoadSnapped)
    }
}

/// Members read as the generic decoder reads them (numbers by the same rules,
/// `JSONNumber.finiteDouble` and `exactInt`), or nil (`.none`) when the member is not in
/// that form. For optional members the result is doubly optional: `.some(nil)` for a member that
/// is missing or null (the decoder's nil), `.none` for one that does not decode.
enum PlainJSON {
    static func integer(_ value: JSONValue?) -> Int? {
        guard case .number(let number)? = value else { return nil }
        return number.exactInt
    }

    static func double(_ value: JSONValue) -> Double? {
        guard case .number(let number) = value else { return nil }
        return number.finiteDouble
    }

    static func timestamp(_ value: JSONValue?) -> Timestamp? {
        guard case .string(let text)? = value else { return nil }
        return Timestamp(rfc3339: text)
    }

    static func optionalDouble(_ value: JSONValue?) -> Double?? {
        guard let value, !value.isNull else { return .some(nil) }
        return double(value).map { .some($0) } ?? .none
    }

    static func optionalString(_ value: JSONValue?) -> String?? {
        guard let value, !value.isNull else { return .some(nil) }
        guard case .string(let string) = value else { return .none }
        return .some(string)
    }

    static func optionalBool(_ value: JSONValue?) -> Bool?? {
        guard let value, !value.isNull else { return .some(nil) }
        guard case .bool(let bool) = value else { return .none }
        return .some(bool)
    }

    static func optionalTimestamp(_ value: JSONValue?) -> Timestamp?? {
        guard let value, !value.isNull else { return .some(nil) }
        return timestamp(value).map { .some($0) } ?? .none
    }
}
