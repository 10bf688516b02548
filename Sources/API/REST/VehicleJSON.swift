import Geo
import JSON
import Journey

/// Reads Vehicle request bodies and ListVehicles/SearchVehicles parameters into VehicleService requests.
enum VehicleJSON {
    /// Every Vehicle field by JSON name (reference §2.2).
    static let fields: [String] = [
        "name", "vehicleState", "supportedTripTypes", "currentTrips", "lastLocation", "pastLocations", "maximumCapacity",
        "attributes", "vehicleType", "licensePlate", "route", "currentRouteSegment", "currentRouteSegmentTraffic",
        "currentRouteSegmentVersion", "currentRouteSegmentEndPoint", "remainingDistanceMeters", "etaToFirstWaypoint",
        "remainingTimeSeconds", "waypoints", "waypointsVersion", "backToBackEnabled", "navigationStatus", "deviceSettings",
        "availableCapacity",
    ]

    /// Server-managed fields that UpdateVehicle refuses (reference §2.2).
    static let readOnly: Set<String> = ["name", "currentTrips", "availableCapacity", "currentRouteSegmentVersion", "waypointsVersion", "route"]

    static func create(_ body: JSONValue, provider: String, vehicleId: String) throws(APIError) -> VehicleService.CreateRequest {
        var vehicle = try ProtoObject(body, at: "vehicle")
        let state = try vehicle.take("vehicleState").map { v throws(APIError) in try ProtoValue.enumeration(v, .vehicleState, at: "vehicle.vehicleState", as: VehicleState.self) } ?? .unknown
        let types = try vehicle.take("supportedTripTypes").map { v throws(APIError) in try tripTypes(v, at: "vehicle.supportedTripTypes") } ?? []
        let capacity = try vehicle.take("maximumCapacity").map { v throws(APIError) in try ProtoValue.int32(v, at: "vehicle.maximumCapacity") } ?? 0
        let type = try vehicle.take("vehicleType").map { v throws(APIError) in try FleetEngineValues.vehicleType(v, at: "vehicle.vehicleType") } ?? VehicleType(category: .unknown)
        let attributes = try vehicle.take("attributes").map { v throws(APIError) in try FleetEngineValues.list(v, at: "vehicle.attributes", FleetEngineValues.vehicleAttribute) } ?? []
        let backToBack = try vehicle.take("backToBackEnabled").map { v throws(APIError) in try ProtoValue.bool(v, at: "vehicle.backToBackEnabled") } ?? false
        let plate = try vehicle.take("licensePlate").map { v throws(APIError) in try licensePlate(v, at: "vehicle.licensePlate") }
        let location = try vehicle.take("lastLocation").map { v throws(APIError) in try FleetEngineValues.vehicleLocation(v, at: "vehicle.lastLocation") }
        // Ignored on create, as in Fleet Engine (reference §1.2).
        vehicle.ignore(fields)
        try vehicle.finish()
        let register = Vehicle.RegisterVehicle(vehicleId: vehicleId, vehicleState: state, supportedTripTypes: types, maximumCapacity: capacity,
                                               vehicleType: type, attributes: attributes, backToBackEnabled: backToBack, licensePlate: plate)
        return VehicleService.CreateRequest(provider: provider, register: register, lastLocation: location)
    }

    static func update(_ body: JSONValue, mask: [String], provider: String, vehicleId: String) throws(APIError) -> VehicleService.UpdateRequest {
        var vehicle = try ProtoObject(body, at: "vehicle")
        var values: [String: JSONValue] = [:]
        for field in fields { if let value = try vehicle.take(field) { values[field] = value } }
        try vehicle.finish()
        // The body's lastLocation, read once: checked here and applied below when masked.
        let lastLocation = try checkTypes(values)
        var paths: [String] = []
        for raw in mask {
            let path = ProtoObject.camelCase(raw)
            guard fields.contains(path) else { throw .invalidArgument("updateMask names an unknown Vehicle field \(raw.debugDescription)") }
            guard !readOnly.contains(path) else { throw .invalidArgument("updateMask names \(raw), which is managed by the server and cannot be updated") }
            if !paths.contains(path) { paths.append(path) }
        }
        guard !paths.isEmpty else { throw .invalidArgument("updateMask is required and must name at least one field") }
        func at(_ name: String) -> String { "vehicle.\(name)" }
        var changes: [VehicleService.Change] = []
        var handled = Set<String>()
        for field in paths where !handled.contains(field) {
            switch field {
            case "vehicleState":
                changes.append(.vehicleState(try values[field].map { v throws(APIError) in try ProtoValue.enumeration(v, .vehicleState, at: at(field), as: VehicleState.self) } ?? .unknown))
            case "lastLocation", "pastLocations":
                handled.formUnion(["lastLocation", "pastLocations"])
                let location = paths.contains("lastLocation") ? lastLocation : nil
                let past = paths.contains("pastLocations")
                    ? try values["pastLocations"].map { v throws(APIError) in try FleetEngineValues.list(v, at: at("pastLocations"), FleetEngineValues.vehicleLocation) } ?? [] : []
                changes.append(.location(location, pastLocations: past))
            case "currentRouteSegment", "currentRouteSegmentTraffic", "currentRouteSegmentEndPoint":
                handled.formUnion(["currentRouteSegment", "currentRouteSegmentTraffic", "currentRouteSegmentEndPoint"])
                guard paths.contains("currentRouteSegment") else {
                    throw .invalidArgument("\(field) can be updated only together with currentRouteSegment")
                }
                let path = try values["currentRouteSegment"].map { v throws(APIError) in try ProtoValue.string(v, at: at("currentRouteSegment")) } ?? ""
                guard !path.isEmpty else { throw .invalidArgument("vehicle.currentRouteSegment is named in updateMask but empty") }
                let traffic = paths.contains("currentRouteSegmentTraffic")
                    ? try values["currentRouteSegmentTraffic"].map { v throws(APIError) in try FleetEngineValues.traffic(v, encodedPath: path, at: at("currentRouteSegmentTraffic")) } ?? [] : []
                let endPoint = paths.contains("currentRouteSegmentEndPoint")
                    ? try values["currentRouteSegmentEndPoint"].map { v throws(APIError) in try FleetEngineValues.tripWaypoint(v, at: at("currentRouteSegmentEndPoint")) } : nil
                changes.append(.routeSegment(encodedPath: path, traffic: traffic, endPoint: endPoint))
            case "remainingDistanceMeters", "etaToFirstWaypoint", "remainingTimeSeconds":
                handled.formUnion(["remainingDistanceMeters", "etaToFirstWaypoint", "remainingTimeSeconds"])
                let distance = paths.contains("remainingDistanceMeters")
                    ? try values["remainingDistanceMeters"].map { v throws(APIError) in try ProtoValue.int32(v, at: at("remainingDistanceMeters")) } : nil
                let eta = paths.contains("etaToFirstWaypoint")
                    ? try values["etaToFirstWaypoint"].map { v throws(APIError) in try ProtoValue.timestamp(v, at: at("etaToFirstWaypoint")) } : nil
                let remaining = paths.contains("remainingTimeSeconds")
                    ? try values["remainingTimeSeconds"].map { v throws(APIError) in try ProtoValue.int32(v, at: at("remainingTimeSeconds")) } : nil
                changes.append(.remainingRoute(distanceMeters: distance, eta: eta, remainingTimeSeconds: remaining))
            case "navigationStatus":
                changes.append(.navigationStatus(try values[field].map { v throws(APIError) in
                    try ProtoValue.enumeration(v, .navigationStatus, at: at(field), as: NavigationStatus.self)
                } ?? .unknown))
            case "waypoints":
                changes.append(.waypoints(try values[field].map { v throws(APIError) in try FleetEngineValues.list(v, at: at(field), FleetEngineValues.tripWaypoint) } ?? []))
            case "attributes":
                changes.append(.attributes(try values[field].map { v throws(APIError) in try FleetEngineValues.list(v, at: at(field), FleetEngineValues.vehicleAttribute) } ?? []))
            case "backToBackEnabled":
                changes.append(.backToBackEnabled(try values[field].map { v throws(APIError) in try ProtoValue.bool(v, at: at(field)) } ?? false))
            case "maximumCapacity", "supportedTripTypes", "vehicleType":
                handled.formUnion(["maximumCapacity", "supportedTripTypes", "vehicleType"])
                let capacity = paths.contains("maximumCapacity")
                    ? try values["maximumCapacity"].map { v throws(APIError) in try ProtoValue.int32(v, at: at("maximumCapacity")) } ?? 0 : nil
                let types = paths.contains("supportedTripTypes")
                    ? try values["supportedTripTypes"].map { v throws(APIError) in try tripTypes(v, at: at("supportedTripTypes")) } ?? [] : nil
                let type = paths.contains("vehicleType")
                    ? try values["vehicleType"].map { v throws(APIError) in try FleetEngineValues.vehicleType(v, at: at("vehicleType")) } ?? VehicleType(category: .unknown) : nil
                changes.append(.capabilities(maximumCapacity: capacity, supportedTripTypes: types, vehicleType: type))
            case "licensePlate":
                changes.append(.licensePlate(try values[field].map { v throws(APIError) in try licensePlate(v, at: at(field)) }))
            case "deviceSettings":
                continue  // input-only device hints; accepted and not stored
            default:
                throw .invalidArgument("updateMask names \(field), which UpdateVehicle cannot change")
            }
            handled.insert(field)
        }
        return VehicleService.UpdateRequest(provider: provider, vehicleId: vehicleId, changes: changes)
    }

    /// Reads every field present in an UpdateVehicle body, masked or not, so a wrong type anywhere
    /// is refused as a proto3 JSON parser would (only masked fields are applied).
    ///
    /// Returns the body's `lastLocation` as read, so UpdateVehicle (nearly always a location
    /// update) does not read it a second time; nil when the body has none.
    static func checkTypes(_ values: [String: JSONValue]) throws(APIError) -> VehicleLocation? {
        var lastLocation: VehicleLocation?
        for (field, value) in values {
            let path = "vehicle.\(field)"
            switch field {
            case "name", "currentRouteSegment":
                _ = try ProtoValue.string(value, at: path)
            case "vehicleState":
                _ = try ProtoValue.enumeration(value, .vehicleState, at: path, as: VehicleState.self)
            case "navigationStatus":
                _ = try ProtoValue.enumeration(value, .navigationStatus, at: path, as: NavigationStatus.self)
            case "supportedTripTypes":
                _ = try tripTypes(value, at: path)
            case "currentTrips":
                _ = try FleetEngineValues.list(value, at: path) { v, p throws(APIError) in try ProtoValue.string(v, at: p) }
            case "lastLocation":
                lastLocation = try FleetEngineValues.vehicleLocation(value, at: path)
            case "pastLocations":
                _ = try FleetEngineValues.list(value, at: path, FleetEngineValues.vehicleLocation)
            case "maximumCapacity", "remainingDistanceMeters", "remainingTimeSeconds", "availableCapacity":
                _ = try ProtoValue.int32(value, at: path)
            case "attributes":
                _ = try FleetEngineValues.list(value, at: path, FleetEngineValues.vehicleAttribute)
            case "vehicleType":
                _ = try FleetEngineValues.vehicleType(value, at: path)
            case "licensePlate":
                _ = try licensePlate(value, at: path)
            case "currentRouteSegmentVersion", "etaToFirstWaypoint", "waypointsVersion":
                _ = try ProtoValue.timestamp(value, at: path)
            case "currentRouteSegmentEndPoint":
                _ = try FleetEngineValues.tripWaypoint(value, at: path)
            case "waypoints":
                _ = try FleetEngineValues.list(value, at: path, FleetEngineValues.tripWaypoint)
            case "backToBackEnabled":
                _ = try ProtoValue.bool(value, at: path)
            case "route":
                _ = try ProtoValue.array(value, at: path)
            case "currentRouteSegmentTraffic", "deviceSettings":
                _ = try ProtoObject(value, at: path)
            default:
                continue
            }
        }
        return lastLocation
    }

    static func attributes(_ body: JSONValue) throws(APIError) -> [Attribute] {
        var object = try ProtoObject(body, at: "")
        let list = try object.take("attributes").map { v throws(APIError) in try FleetEngineValues.list(v, at: "attributes", FleetEngineValues.vehicleAttribute) } ?? []
        if let header = try object.take("header") { try FleetEngineValues.requestHeader(header, at: "header") }
        object.ignore(["name"])
        try object.finish()
        return list
    }

    static func tripTypes(_ value: JSONValue, at path: String) throws(APIError) -> [TripType] {
        try FleetEngineValues.list(value, at: path) { element, elementPath throws(APIError) in
            try ProtoValue.enumeration(element, .tripType, at: elementPath, as: TripType.self)
        }
    }

    static func licensePlate(_ value: JSONValue, at path: String) throws(APIError) -> LicensePlate {
        var object = try ProtoObject(value, at: path)
        let country = try object.take("countryCode").map { v throws(APIError) in try ProtoValue.string(v, at: object.path("countryCode")) } ?? ""
        let last = try object.take("lastCharacter").map { v throws(APIError) in try ProtoValue.string(v, at: object.path("lastCharacter")) }
        try object.finish()
        return LicensePlate(countryCode: country, lastCharacter: last)
    }

    // MARK: - SearchVehicles

    static func search(_ body: JSONValue, provider: String) throws(APIError) -> VehicleService.SearchRequest {
        var object = try ProtoObject(body, at: "")
        guard let pickupValue = try object.take("pickupPoint") else { throw .invalidArgument("pickupPoint is required") }
        let pickup = try FleetEngineValues.terminalLocation(pickupValue, at: "pickupPoint").point
        let dropoff = try object.take("dropoffPoint").map { v throws(APIError) in try FleetEngineValues.terminalLocation(v, at: "dropoffPoint").point }
        func int(_ name: String) throws(APIError) -> Int? { try object.take(name).map { v throws(APIError) in try ProtoValue.int32(v, at: name) } }
        guard let radius = try int("pickupRadiusMeters") else { throw .invalidArgument("pickupRadiusMeters is required (400..10000)") }
        guard let count = try int("count") else { throw .invalidArgument("count is required (1..50)") }
        guard let capacity = try int("minimumCapacity") else { throw .invalidArgument("minimumCapacity is required (≥ 1)") }
        let types = try object.take("tripTypes").map { v throws(APIError) in try tripTypes(v, at: "tripTypes") } ?? []
        let categories = try object.take("vehicleTypes").map { v throws(APIError) in
            try FleetEngineValues.list(v, at: "vehicleTypes", FleetEngineValues.vehicleType).map(\.category)
        } ?? []
        let orderBy = try object.take("orderBy").map { v throws(APIError) in try ProtoValue.enumName(v, .vehicleMatchOrder, at: "orderBy") } ?? "UNKNOWN_VEHICLE_MATCH_ORDER"
        var request = VehicleService.SearchRequest(provider: provider, pickupPoint: pickup, pickupRadiusMeters: radius, count: count,
                                                   minimumCapacity: capacity, tripTypes: types, vehicleTypes: categories, orderBy: orderBy)
        request.dropoffPoint = dropoff
        request.maximumStalenessMicros = try object.take("maximumStaleness").map { v throws(APIError) in try ProtoValue.duration(v, at: "maximumStaleness") }
        request.requiredAttributes = try object.take("requiredAttributes").map { v throws(APIError) in
            try FleetEngineValues.list(v, at: "requiredAttributes", FleetEngineValues.vehicleAttribute)
        } ?? []
        request.requiredOneOfAttributes = try object.take("requiredOneOfAttributes").map { v throws(APIError) in try attributeLists(v, at: "requiredOneOfAttributes") } ?? []
        request.requiredOneOfAttributeSets = try object.take("requiredOneOfAttributeSets").map { v throws(APIError) in try attributeLists(v, at: "requiredOneOfAttributeSets") } ?? []
        request.includeBackToBack = try object.take("includeBackToBack").map { v throws(APIError) in try ProtoValue.bool(v, at: "includeBackToBack") } ?? false
        request.tripId = try object.take("tripId").map { v throws(APIError) in try ProtoValue.string(v, at: "tripId") }
        request.currentTripsPresent = try object.take("currentTripsPresent").map { v throws(APIError) in
            try ProtoValue.enumName(v, .currentTripsPresent, at: "currentTripsPresent")
        } ?? "CURRENT_TRIPS_PRESENT_UNSPECIFIED"
        request.filter = try object.take("filter").map { v throws(APIError) in try ProtoValue.string(v, at: "filter") }
        if let header = try object.take("header") { try FleetEngineValues.requestHeader(header, at: "header") }
        object.ignore(["parent"])
        try object.finish()
        return request
    }

    /// `VehicleAttributeList`s: `[{"attributes": [...]}, ...]`.
    private static func attributeLists(_ value: JSONValue, at path: String) throws(APIError) -> [[Attribute]] {
        try FleetEngineValues.list(value, at: path) { element, elementPath throws(APIError) in
            var list = try ProtoObject(element, at: elementPath)
            let attributes = try list.take("attributes").map { v throws(APIError) in
                try FleetEngineValues.list(v, at: list.path("attributes"), FleetEngineValues.vehicleAttribute)
            } ?? []
            try list.finish()
            return attributes
        }
    }
}
