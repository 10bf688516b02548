import Geo
import JSON

/// Hand-built JSON values of the records projections store on every location report.
///
/// Read models keep a vehicle's whole state in a document (`vehicle_states`, the journey's
/// `state`) that is rewritten each time the vehicle reports, and the generic `JSONValueEncoder`
/// was the largest single cost of applying a location report. These values are exactly what
/// `JSONValueEncoder` gives for the same value (members in key byte order, a `Double` as
/// `JSONNumber(value)`, nil optionals left out); members that are empty or absent for most
/// vehicles (trips, waypoints, offers, routes) still go through the generic encoder when they
/// are there. The tests compare both encodings byte for byte.
package enum RecordJSON {
    /// A `Double` as `JSONValueEncoder` writes it. Records hold only validated, finite values; a
    /// non-finite one could not be stored or restored, hence the trap (the generic encoder throws).
    package static func number(_ value: Double) -> JSONValue {
        guard let number = JSONNumber(value) else { preconditionFailure("a stored record holds the non-finite number \(value)") }
        return .number(number)
    }

    /// An integer.
    package static func number(_ value: Int) -> JSONValue {
        .number(JSONNumber(value))
    }

    /// A coordinate, as its synthesized encoding gives it, numbers written by `number`.
    package static func latLng(_ point: LatLng, number: (Double) -> JSONValue = number) -> JSONValue {
        .object(JSONObject([("latitude", number(point.latitude)), ("longitude", number(point.longitude))]))
    }

    /// ``latLng(_:number:)`` written canonically without building it.
    package static func writeLatLng(_ point: LatLng, to writer: inout CanonicalJSONWriter) {
        writer.beginObject()
        writer.key("latitude")
        writer.number(point.latitude)
        writer.key("longitude")
        writer.number(point.longitude)
        writer.endObject()
    }

    /// A list through the generic encoder, written canonically; an empty one without the encoder
    /// (most vehicles' trips, offers, waypoints and attributes are empty).
    static func writeGeneric<List: Collection & Encodable>(_ list: List, to writer: inout CanonicalJSONWriter) {
        if list.isEmpty {
            writer.beginArray()
            writer.endArray()
        } else {
            writer.value(generic(list))
        }
    }

    /// A record (or any other member) through the generic encoder: keys sorted, so equal records
    /// give equal bytes. Records hold only validated, finite values, so encoding cannot fail; if it
    /// ever did, the model could not be restored and going on would silently diverge, hence the trap.
    package static func generic(_ value: some Encodable) -> JSONValue {
        do {
            return try JSONValueEncoder().encode(value)
        } catch {
            preconditionFailure("a stored record is not encodable as JSON: \(error)")
        }
    }
}

extension VehicleLocation {
    /// This location as `JSONValueEncoder` encodes it (see `RecordJSON`).
    package var recordValue: JSONValue {
        members(number: RecordJSON.number)
    }

    /// The members in key order, numbers written by `number`.
    func members(number: (Double) -> JSONValue) -> JSONValue {
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(10)
        if let heading { members.append(("heading", number(heading))) }
        if let headingAccuracy { members.append(("headingAccuracy", number(headingAccuracy))) }
        if let isRoadSnapped { members.append(("isRoadSnapped", .bool(isRoadSnapped))) }
        if let latlngAccuracy { members.append(("latlngAccuracy", number(latlngAccuracy))) }
        members.append(("location", RecordJSON.latLng(location, number: number)))
        if let locationSensor { members.append(("locationSensor", .string(locationSensor.rawValue))) }
        if let serverTime { members.append(("serverTime", .string(serverTime.rfc3339))) }
        if let speed { members.append(("speed", number(speed))) }
        if let speedAccuracy { members.append(("speedAccuracy", number(speedAccuracy))) }
        if let updateTime { members.append(("updateTime", .string(updateTime.rfc3339))) }
        return .object(JSONObject(members))
    }
}

extension Vehicle.State {
    /// This state as `JSONValueEncoder` encodes it (see `RecordJSON`).
    package var recordValue: JSONValue {
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(20)
        members.append(("attributes", attributes.isEmpty ? .array([]) : RecordJSON.generic(attributes)))
        members.append(("backToBackEnabled", .bool(backToBackEnabled)))
        if let currentRouteSegmentVersion { members.append(("currentRouteSegmentVersion", .string(currentRouteSegmentVersion.rfc3339))) }
        members.append(("currentTrips", currentTrips.isEmpty ? .array([]) : RecordJSON.generic(currentTrips)))
        members.append(("exists", .bool(exists)))
        if let followedRoute { members.append(("followedRoute", RecordJSON.generic(followedRoute))) }
        members.append(("isOffRoute", .bool(isOffRoute)))
        if let lastLocation { members.append(("lastLocation", lastLocation.recordValue)) }
        if let lastUpdatedAt { members.append(("lastUpdatedAt", .string(lastUpdatedAt.rfc3339))) }
        if let licensePlate { members.append(("licensePlate", RecordJSON.generic(licensePlate))) }
        members.append(("maximumCapacity", RecordJSON.number(maximumCapacity)))
        members.append(("navigationStatus", .string(navigationStatus.rawValue)))
        members.append(("offRouteReportCount", RecordJSON.number(offRouteReportCount)))
        members.append(("offers", offers.isEmpty ? .array([]) : RecordJSON.generic(offers)))
        members.append(("supportedTripTypes", .array(supportedTripTypes.map { .string($0.rawValue) })))
        members.append(("vehicleId", .string(vehicleId)))
        members.append(("vehicleState", .string(vehicleState.rawValue)))
        members.append(("vehicleType", .object(JSONObject([("category", .string(vehicleType.category.rawValue))]))))
        members.append(("waypoints", waypoints.isEmpty ? .array([]) : RecordJSON.generic(waypoints)))
        if let waypointsVersion { members.append(("waypointsVersion", .string(waypointsVersion.rfc3339))) }
        return .object(JSONObject(members))
    }
}

extension Vehicle.State {
    /// ``recordValue`` written canonically without building it: the same members, in the same key
    /// order (the tests compare the bytes with the value's canonical bytes after every kind of event).
    package func writeRecord(to writer: inout CanonicalJSONWriter) {
        writer.beginObject()
        writer.key("attributes")
        RecordJSON.writeGeneric(attributes, to: &writer)
        writer.key("backToBackEnabled")
        writer.bool(backToBackEnabled)
        if let currentRouteSegmentVersion { writer.key("currentRouteSegmentVersion"); writer.plainString(currentRouteSegmentVersion.appendRFC3339) }
        writer.key("currentTrips")
        RecordJSON.writeGeneric(currentTrips, to: &writer)
        writer.key("exists")
        writer.bool(exists)
        if let followedRoute { writer.key("followedRoute"); writer.value(RecordJSON.generic(followedRoute)) }
        writer.key("isOffRoute")
        writer.bool(isOffRoute)
        if let lastLocation { writer.key("lastLocation"); lastLocation.writeCanonical(to: &writer) }
        if let lastUpdatedAt { writer.key("lastUpdatedAt"); writer.plainString(lastUpdatedAt.appendRFC3339) }
        if let licensePlate { writer.key("licensePlate"); writer.value(RecordJSON.generic(licensePlate)) }
        writer.key("maximumCapacity")
        writer.integer(maximumCapacity)
        writer.key("navigationStatus")
        writer.string(navigationStatus.rawValue)
        writer.key("offRouteReportCount")
        writer.integer(offRouteReportCount)
        writer.key("offers")
        RecordJSON.writeGeneric(offers, to: &writer)
        writer.key("supportedTripTypes")
        writer.beginArray()
        for type in supportedTripTypes { writer.string(type.rawValue) }
        writer.endArray()
        writer.key("vehicleId")
        writer.string(vehicleId)
        writer.key("vehicleState")
        writer.string(vehicleState.rawValue)
        writer.key("vehicleType")
        writer.beginObject()
        writer.key("category")
        writer.string(vehicleType.category.rawValue)
        writer.endObject()
        writer.key("waypoints")
        RecordJSON.writeGeneric(waypoints, to: &writer)
        if let waypointsVersion { writer.key("waypointsVersion"); writer.plainString(waypointsVersion.appendRFC3339) }
        writer.endObject()
    }
}
