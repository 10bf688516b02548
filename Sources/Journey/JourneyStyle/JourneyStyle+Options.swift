import JSON

extension JourneyStyle {
    /// Style options in the shape of the Consumer SDK's: per marker type and per polyline type.
    ///
    /// Every member is optional (absent means "the SDK's default"), except a polyline style's
    /// `trafficEnabled`, which defaults to false. Keys of `markers` are `JourneyStyle.markerTypes`,
    /// keys of `polylines` are `JourneyStyle.polylineTypes`.
    package struct Options: Codable, Hashable, Sendable {
        package var markers: [String: MarkerStyle]
        package var polylines: [String: PolylineStyle]

        package init(markers: [String: MarkerStyle] = [:], polylines: [String: PolylineStyle] = [:]) {
            self.markers = markers
            self.polylines = polylines
        }

        /// Checks every rule and names the first value that breaks one, by its path under `journeyStyle`.
        package func validate() throws(JourneyError) {
            for (type, style) in markers.sorted(by: { $0.key < $1.key }) {
                let path = "journeyStyle.markers.\(type)"
                guard JourneyStyle.markerTypes.contains(type) else {
                    throw .invalidArgument("\(path): the marker type must be one of \(JourneyStyle.markerTypes.joined(separator: ", ")) (got \(type.debugDescription))")
                }
                try style.validate(at: path)
            }
            for (type, style) in polylines.sorted(by: { $0.key < $1.key }) {
                let path = "journeyStyle.polylines.\(type)"
                guard JourneyStyle.polylineTypes.contains(type) else {
                    throw .invalidArgument("\(path): the polyline type must be one of \(JourneyStyle.polylineTypes.joined(separator: ", ")) (got \(type.debugDescription))")
                }
                try style.validate(at: path)
            }
        }

        /// `{"markers":{...},"polylines":{...}}`, types in the order of the type lists, members in a fixed order.
        package var json: JSONValue {
            let markerMembers = JourneyStyle.markerTypes.compactMap { type in markers[type].map { (type, $0.json) } }
            let polylineMembers = JourneyStyle.polylineTypes.compactMap { type in polylines[type].map { (type, $0.json) } }
            return .object(JSONObject([("markers", .object(JSONObject(markerMembers))), ("polylines", .object(JSONObject(polylineMembers)))]))
        }
    }

    /// Where a marker's image is anchored to its position: x and y as fractions of its width and height.
    package struct GroundAnchor: Codable, Hashable, Sendable {
        package var x: Double
        package var y: Double

        package init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// The style of one marker type.
    package struct MarkerStyle: Codable, Hashable, Sendable {
        package var groundAnchor: GroundAnchor?
        package var visible: Bool?
        /// An absolute http(s) URL of the marker image.
        package var icon: String?
        package var zIndex: Int?
        package var flat: Bool?

        package init(groundAnchor: GroundAnchor? = nil, visible: Bool? = nil, icon: String? = nil, zIndex: Int? = nil, flat: Bool? = nil) {
            self.groundAnchor = groundAnchor
            self.visible = visible
            self.icon = icon
            self.zIndex = zIndex
            self.flat = flat
        }

        /// The longest icon URL accepted.
        package static let maximumIconLength = 2048

        func validate(at path: String) throws(JourneyError) {
            if let anchor = groundAnchor {
                for (name, value) in [("x", anchor.x), ("y", anchor.y)] where !(value.isFinite && value >= 0 && value <= 1) {
                    throw .invalidArgument("\(path).groundAnchor.\(name) must be within [0, 1] (got \(value))")
                }
            }
            if let icon {
                let lower = icon.lowercased()
                guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), icon.utf8.count > (lower.hasPrefix("https://") ? 8 : 7) else {
                    throw .invalidArgument("\(path).icon must be an absolute http or https URL (got \(String(icon.prefix(64)).debugDescription))")
                }
                guard icon.utf8.count <= Self.maximumIconLength else {
                    throw .invalidArgument("\(path).icon must be at most \(Self.maximumIconLength) bytes (got \(icon.utf8.count))")
                }
                guard !icon.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
                    throw .invalidArgument("\(path).icon must not contain spaces or control characters")
                }
            }
            if let zIndex, !(Int(Int32.min)...Int(Int32.max)).contains(zIndex) {
                throw .invalidArgument("\(path).zIndex must be a 32-bit integer (got \(zIndex))")
            }
        }

        var json: JSONValue {
            var members: [(String, JSONValue)] = []
            if let anchor = groundAnchor {
                members.append(("groundAnchor", .object(JSONObject([("x", Self.number(anchor.x)), ("y", Self.number(anchor.y))]))))
            }
            if let visible { members.append(("visible", .bool(visible))) }
            if let icon { members.append(("icon", .string(icon))) }
            if let zIndex { members.append(("zIndex", .number(JSONNumber(zIndex)))) }
            if let flat { members.append(("flat", .bool(flat))) }
            return .object(JSONObject(members))
        }

        static func number(_ value: Double) -> JSONValue {
            JSONNumber(value).map(JSONValue.number) ?? .null
        }
    }

    /// The style of one polyline type.
    package struct PolylineStyle: Codable, Hashable, Sendable {
        /// `#RRGGBB` or `#RRGGBBAA`.
        package var color: String?
        /// Stroke width in screen pixels, > 0 and ≤ 100.
        package var width: Double?
        package var visible: Bool?
        /// Whether to draw traffic speeds along the line (default false).
        package var trafficEnabled: Bool
        /// A color per traffic speed (`JourneyStyle.speeds`).
        package var trafficColors: [String: String]?

        package init(color: String? = nil, width: Double? = nil, visible: Bool? = nil, trafficEnabled: Bool = false, trafficColors: [String: String]? = nil) {
            self.color = color
            self.width = width
            self.visible = visible
            self.trafficEnabled = trafficEnabled
            self.trafficColors = trafficColors
        }

        /// The widest line accepted, in pixels.
        package static let maximumWidth = 100.0

        func validate(at path: String) throws(JourneyError) {
            if let color { try Self.validateColor(color, at: "\(path).color") }
            if let width, !(width.isFinite && width > 0 && width <= Self.maximumWidth) {
                throw .invalidArgument("\(path).width must be > 0 and ≤ \(Int(Self.maximumWidth)) (got \(width))")
            }
            for (speed, color) in (trafficColors ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard JourneyStyle.speeds.contains(speed) else {
                    throw .invalidArgument("\(path).trafficColors: the speed must be one of \(JourneyStyle.speeds.joined(separator: ", ")) (got \(speed.debugDescription))")
                }
                try Self.validateColor(color, at: "\(path).trafficColors.\(speed)")
            }
        }

        /// `#RRGGBB` or `#RRGGBBAA`, hex digits of either case.
        static func validateColor(_ color: String, at path: String) throws(JourneyError) {
            let bytes = Array(color.utf8)
            let hex = bytes.dropFirst().allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 70) || ($0 >= 97 && $0 <= 102) }
            guard bytes.first == UInt8(ascii: "#"), bytes.count == 7 || bytes.count == 9, hex else {
                throw .invalidArgument("\(path) must be #RRGGBB or #RRGGBBAA in hex (got \(String(color.prefix(32)).debugDescription))")
            }
        }

        var json: JSONValue {
            var members: [(String, JSONValue)] = []
            if let color { members.append(("color", .string(color))) }
            if let width { members.append(("width", MarkerStyle.number(width))) }
            if let visible { members.append(("visible", .bool(visible))) }
            members.append(("trafficEnabled", .bool(trafficEnabled)))
            if let trafficColors {
                members.append(("trafficColors", .object(JSONObject(JourneyStyle.speeds.compactMap { speed in trafficColors[speed].map { (speed, .string($0)) } }))))
            }
            return .object(JSONObject(members))
        }
    }
}
