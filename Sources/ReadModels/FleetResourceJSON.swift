import Geo
import JSON
import Journey

/// Proto3 JSON encodings of the Fleet Engine values the read models write.
///
/// Every encoder here is deterministic, so a rebuild writes the same bytes as the live model:
/// members in a fixed order (proto field order), coordinates rounded to 1e-7 degrees and written
/// from integers (never through `Double.description`), timestamps as RFC 3339 UTC with six
/// fractional digits, durations as `"12.5s"`, enums by name. Proto3 defaults are omitted: enum
/// value 0 (`UNKNOWN_*`), empty strings and lists, `false` and plain-int32 zeros; wrapper fields
/// (`Int32Value`, `DoubleValue`, `BoolValue`) keep an explicit zero.
package enum FleetResourceJSON {
    /// Coordinates are written in units of 1e-7 degrees (about 1 cm).
    package static let coordinateFractionDigits = 7

    // MARK: Scalars

    /// A coordinate in degrees, rounded to 1e-7 and written exactly (`52.52`, not `52.520000000000003`).
    package static func coordinate(_ degrees: Double) -> JSONValue {
        .number(decimal(units: Int64((degrees * 1e7).rounded()), fractionDigits: coordinateFractionDigits))
    }

    /// `units / 10^fractionDigits` as a plain decimal lexeme without trailing zeros.
    package static func decimal(units: Int64, fractionDigits: Int) -> JSONNumber {
        var divisor: UInt64 = 1
        for _ in 0..<fractionDigits { divisor *= 10 }
        let magnitude = units.magnitude
        var text = units < 0 ? "-" : ""
        text += String(magnitude / divisor)
        let fraction = magnitude % divisor
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: fractionDigits - digits.count) + digits
            while digits.last == "0" { digits.removeLast() }
            text += "." + digits
        }
        return JSONNumber(lexeme: text) ?? JSONNumber(0)
    }

    /// A finite `Double` as its shortest round-trip text; nil for NaN and infinities (never stored).
    package static func double(_ value: Double) -> JSONValue? {
        JSONNumber(value).map(JSONValue.number)
    }

    /// An int32 number.
    package static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }

    /// A proto3 `Timestamp`: RFC 3339 UTC with six fractional digits.
    package static func timestamp(_ t: Timestamp) -> JSONValue { .string(t.rfc3339) }

    /// A proto3 `Duration` of whole seconds: `"300s"`.
    package static func duration(seconds: Int) -> JSONValue { .string("\(seconds)s") }

    /// A proto3 `Duration` in microseconds: `"12.5s"`, `"-0.25s"`, `"0s"`.
    package static func duration(microseconds: Int64) -> JSONValue {
        .string(decimal(units: microseconds, fractionDigits: 6).lexeme + "s")
    }

    /// An enum by name, or nil (omitted) for the zero value.
    package static func enumName<E: RawRepresentable>(_ value: E, unless zero: E) -> JSONValue? where E.RawValue == String, E: Equatable {
        value == zero ? nil : .string(value.rawValue)
    }

    /// A non-empty string, or nil (omitted) for "".
    package static func string(_ value: String?) -> JSONValue? {
        guard let value, !value.isEmpty else { return nil }
        return .string(value)
    }

    /// A non-empty list, or nil (omitted).
    package static func list(_ values: [JSONValue]) -> JSONValue? {
        values.isEmpty ? nil : .array(values)
    }

    /// Builds an object from members, leaving out absent ones; the order is the order given.
    ///
    /// Both `nil` and `null` count as absent: proto3 JSON reads `null` as the default value, which
    /// is never written. (This also catches `cond ? nil : value`, where the `nil` literal can
    /// become `JSONValue.null` through `ExpressibleByNilLiteral`.)
    package static func object(_ members: [(String, JSONValue?)]) -> JSONValue {
        var object = JSONObject()
        for (key, value) in members {
            guard let value, value != .null else { continue }
            object[key] = value
        }
        return .object(object)
    }

    // MARK: Messages

    /// `google.type.LatLng`; a coordinate that rounds to 0 is omitted, as proto3 omits zero doubles.
    package static func latLng(_ point: LatLng) -> JSONValue {
        let latitude = Int64((point.latitude * 1e7).rounded())
        let longitude = Int64((point.longitude * 1e7).rounded())
        return object([
            ("latitude", latitude == 0 ? nil : .number(decimal(units: latitude, fractionDigits: coordinateFractionDigits))),
            ("longitude", longitude == 0 ? nil : .number(decimal(units: longitude, fractionDigits: coordinateFractionDigits))),
        ])
    }

    /// A `[]LatLng` path (`Trip.route`, `TripWaypoint.pathToWaypoint`).
    package static func path(_ points: [LatLng]) -> JSONValue {
        .array(points.map(latLng))
    }

    /// `TerminalLocation`: `{"point": LatLng}`.
    package static func terminalLocation(_ location: TerminalLocation) -> JSONValue {
        object([("point", latLng(location.point))])
    }

    /// `StopLocation`: `{"point", "timestamp"}`.
    package static func stopLocation(_ location: StopLocation) -> JSONValue {
        object([("point", latLng(location.point)), ("timestamp", location.timestamp.map(timestamp))])
    }

    /// `TripWaypoint` without derived fields: `location`, `tripId`, `waypointType`.
    package static func waypoint(_ waypoint: TripWaypoint) -> JSONValue {
        object(waypointMembers(waypoint))
    }

    /// The identity members of a `TripWaypoint`, in proto order.
    package static func waypointMembers(_ waypoint: TripWaypoint) -> [(String, JSONValue?)] {
        [
            ("location", terminalLocation(waypoint.location)),
            ("tripId", string(waypoint.tripId)),
            ("waypointType", enumName(waypoint.waypointType, unless: .unknown)),
        ]
    }

    /// `VehicleLocation` as stored: position, accuracies, heading (an `Int32Value`, so rounded),
    /// speed, device and server time, sensor, road snapping.
    package static func vehicleLocation(_ location: VehicleLocation) -> JSONValue {
        object([
            ("location", latLng(location.location)),
            ("latlngAccuracy", location.latlngAccuracy.flatMap(double)),
            ("heading", location.heading.map { int(Int($0.rounded()) % 360) }),
            ("headingAccuracy", location.headingAccuracy.flatMap(double)),
            ("speed", location.speed.flatMap(double)),
            ("speedAccuracy", location.speedAccuracy.flatMap(double)),
            ("updateTime", location.updateTime.map(timestamp)),
            ("serverTime", location.serverTime.map(timestamp)),
            ("locationSensor", location.locationSensor.flatMap { enumName($0, unless: .unknown) }),
            ("isRoadSnapped", location.isRoadSnapped.map(JSONValue.bool)),
        ])
    }

    /// `TripAttribute`: `key` plus one typed value.
    package static func tripAttribute(_ attribute: Attribute) -> JSONValue {
        object([("key", .string(attribute.key)), attributeValue(attribute.value)])
    }

    /// `VehicleAttribute`: `key`, the legacy `value` (filled for strings, as responses do), one typed value.
    package static func vehicleAttribute(_ attribute: Attribute) -> JSONValue {
        var members: [(String, JSONValue?)] = [("key", .string(attribute.key))]
        if case .string(let s) = attribute.value { members.append(("value", .string(s))) }
        members.append(attributeValue(attribute.value))
        return object(members)
    }

    private static func attributeValue(_ value: Attribute.Value) -> (String, JSONValue?) {
        switch value {
        case .string(let s): ("stringValue", .string(s))
        case .bool(let b): ("boolValue", .bool(b))
        case .number(let n): ("numberValue", double(n))
        }
    }

    /// `LicensePlate`: `countryCode`, then `lastCharacter` when known.
    package static func licensePlate(_ plate: LicensePlate) -> JSONValue {
        object([("countryCode", .string(plate.countryCode)), ("lastCharacter", string(plate.lastCharacter))])
    }

    /// `SpeedReadingInterval`s of a `ConsumableTrafficPolyline` (JSON name `speedReadingInterval`).
    ///
    /// NO_DATA intervals are left out: Fleet Engine's enum has no such speed, a missing interval
    /// means no reading. A start index of 0 is omitted (plain int32).
    package static func speedReadingIntervals(_ intervals: [TrafficSpeedInterval]) -> [JSONValue] {
        intervals.compactMap { interval in
            guard interval.speed != .noData else { return nil }
            return object([
                ("startPolylinePointIndex", interval.startIndex == 0 ? nil : int(interval.startIndex)),
                ("endPolylinePointIndex", interval.endIndex == 0 ? nil : int(interval.endIndex)),
                ("speed", .string(interval.speed.rawValue)),
            ])
        }
    }

    /// `ConsumableTrafficPolyline`: intervals plus the encoded path they index; nil without readings.
    package static func consumableTraffic(_ intervals: [TrafficSpeedInterval], encodedPath: String) -> JSONValue? {
        let readings = speedReadingIntervals(intervals)
        guard !readings.isEmpty else { return nil }
        return object([("speedReadingInterval", .array(readings)), ("encodedPathToWaypoint", string(encodedPath))])
    }
}
