import Geo
import JSON
import Journey

/// Readers for Fleet Engine messages that appear in request bodies (reference §2.3).
///
/// Each reads one message strictly (unknown members rejected) and returns the domain value.
/// Deprecated or input-only hints that Waymark does not use (raw/FLP/supplemental locations,
/// `terminalPointId`, device settings) are accepted and ignored, as Fleet Engine documents them
/// as optional hints; they are listed by name so that anything else is still refused.
enum FleetEngineValues {
    static func latLng(_ value: JSONValue, at path: String) throws(APIError) -> LatLng {
        var object = try ProtoObject(value, at: path)
        let latitude = try object.take("latitude").map { v throws(APIError) in try ProtoValue.double(v, at: object.path("latitude")) } ?? 0
        let longitude = try object.take("longitude").map { v throws(APIError) in try ProtoValue.double(v, at: object.path("longitude")) } ?? 0
        try object.finish()
        guard (-90.0...90.0).contains(latitude) else {
            throw .invalidArgument("\(path).latitude must be within [-90, 90] (got \(latitude))")
        }
        guard (-180.0...180.0).contains(longitude) else {
            throw .invalidArgument("\(path).longitude must be within [-180, 180] (got \(longitude))")
        }
        return LatLng(uncheckedLatitude: latitude, longitude: longitude)
    }

    static func terminalLocation(_ value: JSONValue, at path: String) throws(APIError) -> TerminalLocation {
        var object = try ProtoObject(value, at: path)
        guard let point = try object.take("point") else {
            throw .invalidArgument("\(path).point is required")
        }
        let location = TerminalLocation(point: try latLng(point, at: object.path("point")))
        object.ignore(["terminalPointId", "accessPointId", "tripId", "terminalLocationType", "place", "pointLocationSource"])
        try object.finish()
        return location
    }

    static func stopLocation(_ value: JSONValue, at path: String) throws(APIError) -> StopLocation {
        var object = try ProtoObject(value, at: path)
        guard let point = try object.take("point") else {
            throw .invalidArgument("\(path).point is required")
        }
        let location = try latLng(point, at: object.path("point"))
        let time = try object.take("timestamp").map { v throws(APIError) in try ProtoValue.timestamp(v, at: object.path("timestamp")) }
        object.ignore(["stopTime"])
        try object.finish()
        return StopLocation(point: location, timestamp: time)
    }

    static func vehicleLocation(_ value: JSONValue, at path: String) throws(APIError) -> VehicleLocation {
        var object = try ProtoObject(value, at: path)
        guard let point = try object.take("location") else {
            throw .invalidArgument("\(path).location is required")
        }
        var location = VehicleLocation(location: try latLng(point, at: object.path("location")))
        func double(_ name: String) throws(APIError) -> Double? {
            try object.take(name).map { v throws(APIError) in try ProtoValue.double(v, at: object.path(name)) }
        }
        location.latlngAccuracy = try double("latlngAccuracy")
        if let heading = try object.take("heading") {
            location.heading = Double(try ProtoValue.int32(heading, at: object.path("heading")))
        }
        location.headingAccuracy = try double("headingAccuracy")
        location.speed = try double("speed")
        location.speedAccuracy = try double("speedAccuracy")
        // Deprecated aliases: used only when the current field is absent.
        let horizontal = try double("horizontalAccuracy")
        let bearing = try double("bearingAccuracy")
        if let kmph = try object.take("speedKmph") {
            let value = try ProtoValue.int32(kmph, at: object.path("speedKmph"))
            if location.speed == nil { location.speed = Double(value) / 3.6 }
        }
        if location.latlngAccuracy == nil { location.latlngAccuracy = horizontal }
        if location.headingAccuracy == nil { location.headingAccuracy = bearing }
        location.updateTime = try object.take("updateTime").map { v throws(APIError) in try ProtoValue.timestamp(v, at: object.path("updateTime")) }
        if let sensor = try object.take("locationSensor") {
            location.locationSensor = try ProtoValue.enumeration(sensor, .locationSensor, at: object.path("locationSensor"), as: LocationSensor.self)
        }
        if let snapped = try object.take("isRoadSnapped") {
            location.isRoadSnapped = try ProtoValue.bool(snapped, at: object.path("isRoadSnapped"))
        }
        if let snapped = try object.take("roadSnapped"), location.isRoadSnapped == nil {
            location.isRoadSnapped = try ProtoValue.bool(snapped, at: object.path("roadSnapped"))
        }
        // serverTime is output-only: a client echoing a stored location back may send it.
        object.ignore([
            "serverTime", "altitude", "altitudeAccuracy", "verticalAccuracy", "isGpsSensorEnabled", "timeSinceUpdate",
            "numStaleUpdates", "rawLocation", "rawLocationTime", "rawLocationSensor", "rawLocationAccuracy",
            "flpLocation", "flpUpdateTime", "flpLatlngAccuracyMeters", "flpHeadingDegrees",
            "supplementalLocation", "supplementalLocationTime", "supplementalLocationSensor", "supplementalLocationAccuracy",
        ])
        try object.finish()
        return location
    }

    static func tripWaypoint(_ value: JSONValue, at path: String) throws(APIError) -> TripWaypoint {
        var object = try ProtoObject(value, at: path)
        guard let location = try object.take("location") else {
            throw .invalidArgument("\(path).location is required")
        }
        let terminal = try terminalLocation(location, at: object.path("location"))
        let tripId = try object.take("tripId").map { v throws(APIError) in try ProtoValue.string(v, at: object.path("tripId")) } ?? ""
        let type = try object.take("waypointType").map { v throws(APIError) in
            try ProtoValue.enumeration(v, .waypointType, at: object.path("waypointType"), as: WaypointType.self)
        } ?? .unknown
        guard !tripId.isEmpty else { throw .invalidArgument("\(path).tripId is required") }
        guard type != .unknown else { throw .invalidArgument("\(path).waypointType is required") }
        object.ignore(["pathToWaypoint", "encodedPathToWaypoint", "trafficToWaypoint", "distanceMeters", "eta", "duration"])
        try object.finish()
        return TripWaypoint(tripId: tripId, waypointType: type, location: terminal)
    }

    static func list<T>(_ value: JSONValue, at path: String, _ read: (JSONValue, String) throws(APIError) -> T) throws(APIError) -> [T] {
        var result: [T] = []
        for (i, element) in try ProtoValue.array(value, at: path).enumerated() {
            result.append(try read(element, "\(path)[\(i)]"))
        }
        return result
    }

    /// A `VehicleAttribute`: `key` plus one of `stringValue`/`boolValue`/`numberValue`, or the legacy `value`.
    static func vehicleAttribute(_ value: JSONValue, at path: String) throws(APIError) -> Attribute {
        var object = try ProtoObject(value, at: path)
        let key = try object.take("key").map { v throws(APIError) in try ProtoValue.string(v, at: object.path("key")) } ?? ""
        let legacy = try object.take("value").map { v throws(APIError) in try ProtoValue.string(v, at: object.path("value")) }
        let typed = try attributeValue(&object, at: path)
        try object.finish()
        if let legacy, case .string(let text)? = typed, text != legacy {
            throw .invalidArgument("\(path).value and \(path).stringValue must match when both are set (got \(legacy.debugDescription) and \(text.debugDescription))")
        }
        guard let resolved = typed ?? legacy.map(Attribute.Value.string) else {
            throw .invalidArgument("\(path) needs one of stringValue, boolValue or numberValue (key \(key.debugDescription))")
        }
        return Attribute(key: key, value: resolved)
    }

    /// A `TripAttribute`: `key` plus one of `stringValue`/`boolValue`/`numberValue`.
    static func tripAttribute(_ value: JSONValue, at path: String) throws(APIError) -> Attribute {
        var object = try ProtoObject(value, at: path)
        let key = try object.take("key").map { v throws(APIError) in try ProtoValue.string(v, at: object.path("key")) } ?? ""
        let typed = try attributeValue(&object, at: path)
        try object.finish()
        guard let typed else {
            throw .invalidArgument("\(path) needs one of stringValue, boolValue or numberValue (key \(key.debugDescription))")
        }
        return Attribute(key: key, value: typed)
    }

    private static func attributeValue(_ object: inout ProtoObject, at path: String) throws(APIError) -> Attribute.Value? {
        var found: [Attribute.Value] = []
        if let v = try object.take("stringValue") { found.append(.string(try ProtoValue.string(v, at: object.path("stringValue")))) }
        if let v = try object.take("boolValue") { found.append(.bool(try ProtoValue.bool(v, at: object.path("boolValue")))) }
        if let v = try object.take("numberValue") { found.append(.number(try ProtoValue.double(v, at: object.path("numberValue")))) }
        guard found.count <= 1 else {
            throw .invalidArgument("\(path) may set only one of stringValue, boolValue and numberValue")
        }
        return found.first
    }

    /// A `RequestHeader`: read strictly and dropped (Waymark does not use the client's locale or SDK details).
    static func requestHeader(_ value: JSONValue, at path: String) throws(APIError) {
        var object = try ProtoObject(value, at: path)
        for name in ["languageCode", "regionCode", "sdkVersion", "osVersion", "deviceModel", "mapsSdkVersion", "navSdkVersion", "manufacturer", "traceId"] {
            if let v = try object.take(name) { _ = try ProtoValue.string(v, at: object.path(name)) }
        }
        if let v = try object.take("sdkType") { _ = try ProtoValue.enumName(v, .sdkType, at: object.path("sdkType")) }
        if let v = try object.take("platform") { _ = try ProtoValue.enumName(v, .platform, at: object.path("platform")) }
        if let v = try object.take("androidApiLevel") { _ = try ProtoValue.int32(v, at: object.path("androidApiLevel")) }
        try object.finish()
    }

    static func vehicleType(_ value: JSONValue, at path: String) throws(APIError) -> VehicleType {
        var object = try ProtoObject(value, at: path)
        let category = try object.take("category").map { v throws(APIError) in
            try ProtoValue.enumeration(v, .vehicleCategory, at: object.path("category"), as: VehicleType.Category.self)
        } ?? .unknown
        try object.finish()
        return VehicleType(category: category)
    }

    /// `TrafficPolylineData` road stretches (meters along `encodedPath`) as point-index intervals.
    static func traffic(_ value: JSONValue, encodedPath: String, at path: String) throws(APIError) -> [TrafficSpeedInterval] {
        var data = try ProtoObject(value, at: path)
        var stretches: [RoadStretch] = []
        if let rendering = try data.take("trafficRendering") {
            var object = try ProtoObject(rendering, at: data.path("trafficRendering"))
            if let list = try object.take("roadStretch") {
                stretches = try FleetEngineValues.list(list, at: object.path("roadStretch")) { element, elementPath throws(APIError) in
                    var stretch = try ProtoObject(element, at: elementPath)
                    let styleName = try stretch.take("style").map { v throws(APIError) in try ProtoValue.enumName(v, .roadStretchStyle, at: stretch.path("style")) } ?? "STYLE_UNSPECIFIED"
                    let offset = try stretch.take("offsetMeters").map { v throws(APIError) in try ProtoValue.int32(v, at: stretch.path("offsetMeters")) } ?? 0
                    let length = try stretch.take("lengthMeters").map { v throws(APIError) in try ProtoValue.int32(v, at: stretch.path("lengthMeters")) } ?? 0
                    try stretch.finish()
                    guard let style = RoadStretch.Style(rawValue: styleName) else {
                        throw .invalidArgument("\(elementPath).style must be SLOWER_TRAFFIC or TRAFFIC_JAM (got \(styleName))")
                    }
                    do {
                        return try RoadStretch(style: style, offsetMeters: offset, lengthMeters: length)
                    } catch {
                        throw .invalidArgument("\(elementPath): \(error)")
                    }
                }
            }
            try object.finish()
        }
        try data.finish()
        guard !stretches.isEmpty else { return [] }
        let points: [LatLng]
        do { points = try Polyline.decode(encodedPath) } catch {
            throw .invalidArgument("currentRouteSegment must be a valid encoded polyline to place its traffic (\(error.message))")
        }
        do {
            return try Traffic.intervals(from: stretches, along: Path(points)).map(TrafficSpeedInterval.init)
        } catch {
            throw .invalidArgument("\(path): \(error.message)")
        }
    }
}
