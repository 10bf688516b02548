import JSON
import Journey

/// Reads journey-style bodies (`PUT /v1/providers/{p}/journeyStyle`) strictly: unknown fields and
/// wrong JSON types are INVALID_ARGUMENT naming their path; value rules (ranges, colors, URLs,
/// known types) are the domain's (`JourneyStyle.Options.validate`).
enum JourneyStyleJSON {
    static func options(_ body: JSONValue) throws(APIError) -> JourneyStyle.Options {
        var object = try ProtoObject(body, at: "journeyStyle")
        var options = JourneyStyle.Options()
        if let markers = try object.take("markers") {
            for (type, value) in try members(markers, at: "journeyStyle.markers") {
                options.markers[type] = try marker(value, at: "journeyStyle.markers.\(type)")
            }
        }
        if let polylines = try object.take("polylines") {
            for (type, value) in try members(polylines, at: "journeyStyle.polylines") {
                options.polylines[type] = try polyline(value, at: "journeyStyle.polylines.\(type)")
            }
        }
        // Output-only members a client may send back unchanged from a GET.
        object.ignore(["name", "version", "updateTime"])
        try object.finish()
        return options
    }

    private static func members(_ value: JSONValue, at path: String) throws(APIError) -> [(String, JSONValue)] {
        guard case .object(let object) = value else { throw .invalidArgument("\(path) must be a JSON object (got \(ProtoValue.kind(value)))") }
        return object.map { ($0.key, $0.value) }
    }

    private static func marker(_ value: JSONValue, at path: String) throws(APIError) -> JourneyStyle.MarkerStyle {
        var object = try ProtoObject(value, at: path)
        var style = JourneyStyle.MarkerStyle()
        if let anchor = try object.take("groundAnchor") {
            var point = try ProtoObject(anchor, at: "\(path).groundAnchor")
            guard let x = try point.take("x"), let y = try point.take("y") else {
                throw .invalidArgument("\(path).groundAnchor needs both x and y")
            }
            style.groundAnchor = JourneyStyle.GroundAnchor(x: try ProtoValue.double(x, at: "\(path).groundAnchor.x"),
                                                           y: try ProtoValue.double(y, at: "\(path).groundAnchor.y"))
            try point.finish()
        }
        style.visible = try object.take("visible").map { v throws(APIError) in try ProtoValue.bool(v, at: "\(path).visible") }
        style.icon = try object.take("icon").map { v throws(APIError) in try ProtoValue.string(v, at: "\(path).icon") }
        style.zIndex = try object.take("zIndex").map { v throws(APIError) in try ProtoValue.int32(v, at: "\(path).zIndex") }
        style.flat = try object.take("flat").map { v throws(APIError) in try ProtoValue.bool(v, at: "\(path).flat") }
        try object.finish()
        return style
    }

    private static func polyline(_ value: JSONValue, at path: String) throws(APIError) -> JourneyStyle.PolylineStyle {
        var object = try ProtoObject(value, at: path)
        var style = JourneyStyle.PolylineStyle()
        style.color = try object.take("color").map { v throws(APIError) in try ProtoValue.string(v, at: "\(path).color") }
        style.width = try object.take("width").map { v throws(APIError) in try ProtoValue.double(v, at: "\(path).width") }
        style.visible = try object.take("visible").map { v throws(APIError) in try ProtoValue.bool(v, at: "\(path).visible") }
        style.trafficEnabled = try object.take("trafficEnabled").map { v throws(APIError) in try ProtoValue.bool(v, at: "\(path).trafficEnabled") } ?? false
        if let colors = try object.take("trafficColors") {
            var map: [String: String] = [:]
            for (speed, color) in try members(colors, at: "\(path).trafficColors") {
                map[speed] = try ProtoValue.string(color, at: "\(path).trafficColors.\(speed)")
            }
            style.trafficColors = map
        }
        try object.finish()
        return style
    }
}
