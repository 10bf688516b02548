import JSON
import Journey

/// Reads Trip request bodies (proto3 JSON) into TripService requests.
enum TripJSON {
    /// Every Trip field by JSON name (reference §2.1), so anything else is an unknown field.
    static let fields: [String] = [
        "name", "vehicleId", "tripStatus", "tripType", "pickupPoint", "actualPickupPoint", "actualPickupArrivalPoint", "pickupTime",
        "intermediateDestinations", "intermediateDestinationsVersion", "intermediateDestinationIndex",
        "actualIntermediateDestinationArrivalPoints", "actualIntermediateDestinations", "dropoffPoint", "actualDropoffPoint",
        "dropoffTime", "remainingWaypoints", "vehicleWaypoints", "route", "currentRouteSegment", "currentRouteSegmentVersion",
        "currentRouteSegmentTraffic", "currentRouteSegmentTrafficVersion", "currentRouteSegmentEndPoint", "remainingDistanceMeters",
        "etaToFirstWaypoint", "remainingTimeToFirstWaypoint", "remainingWaypointsVersion", "remainingWaypointsRouteVersion",
        "numberOfPassengers", "lastLocation", "lastLocationSnappable", "view", "attributes",
    ]

    /// Waymark's extension fields of the Trip body (input only; never in a response, so official
    /// clients' strict parsers keep working): `consumerId` names the trip's rider and is stored as the
    /// trip attribute `consumerId` (string value), which is what responses show.
    static let extensions: [String] = ["consumerId"]

    /// Fields UpdateTrip may change (mask paths, lowerCamel).
    static let updatable: Set<String> = ["consumerId", 
        "vehicleId", "tripStatus", "intermediateDestinationIndex", "intermediateDestinationsVersion", "intermediateDestinations",
        "pickupPoint", "dropoffPoint", "actualPickupPoint", "actualPickupArrivalPoint", "actualIntermediateDestinationArrivalPoints",
        "actualIntermediateDestinations", "actualDropoffPoint", "attributes", "vehicleWaypoints",
    ]

    static func create(_ body: JSONValue, provider: String, tripId: String) throws(APIError) -> TripService.CreateRequest {
        var trip = try ProtoObject(body, at: "trip")
        guard let typeValue = try trip.take("tripType") else { throw .invalidArgument("trip.tripType is required") }
        let tripType = try ProtoValue.enumeration(typeValue, .tripType, at: "trip.tripType", as: TripType.self)
        guard let pickupValue = try trip.take("pickupPoint") else { throw .invalidArgument("trip.pickupPoint is required") }
        let pickup = try FleetEngineValues.terminalLocation(pickupValue, at: "trip.pickupPoint")
        let dropoff = try trip.take("dropoffPoint").map { v throws(APIError) in try FleetEngineValues.terminalLocation(v, at: "trip.dropoffPoint") }
        let intermediates = try trip.take("intermediateDestinations").map { v throws(APIError) in
            try FleetEngineValues.list(v, at: "trip.intermediateDestinations", FleetEngineValues.terminalLocation)
        } ?? []
        let passengers = try trip.take("numberOfPassengers").map { v throws(APIError) in try ProtoValue.int32(v, at: "trip.numberOfPassengers") } ?? 1
        var attributes = try trip.take("attributes").map { v throws(APIError) in
            try FleetEngineValues.list(v, at: "trip.attributes", FleetEngineValues.tripAttribute)
        } ?? []
        if let consumerId = try trip.take("consumerId").map({ v throws(APIError) in try ProtoValue.string(v, at: "trip.consumerId") }), !consumerId.isEmpty {
            if let named = attributes.first(where: { $0.key == "consumerId" }), named.value != .string(consumerId) {
                throw .invalidArgument("trip.consumerId (\(consumerId.debugDescription)) and the trip attribute consumerId disagree")
            }
            attributes = withConsumer(consumerId, in: attributes)
        }
        let vehicleId = try trip.take("vehicleId").map { v throws(APIError) in try ProtoValue.string(v, at: "trip.vehicleId") }
        let waypoints = try trip.take("vehicleWaypoints").map { v throws(APIError) in
            try FleetEngineValues.list(v, at: "trip.vehicleWaypoints", FleetEngineValues.tripWaypoint)
        }
        // Fleet Engine ignores every other field on create (a new trip is always NEW).
        trip.ignore(fields)
        try trip.finish()
        let create = Trip.CreateTrip(tripId: tripId, tripType: tripType, pickup: pickup, dropoff: dropoff,
                                     intermediateDestinations: intermediates, numberOfPassengers: passengers, attributes: attributes)
        return TripService.CreateRequest(provider: provider, create: create, vehicleId: vehicleId, vehicleWaypoints: waypoints)
    }

    static func update(_ body: JSONValue, mask: [String], provider: String, tripId: String) throws(APIError) -> TripService.UpdateRequest {
        var trip = try ProtoObject(body, at: "trip")
        var values: [String: JSONValue] = [:]
        for field in fields + extensions { if let value = try trip.take(field) { values[field] = value } }
        try trip.finish()
        try checkTypes(values)
        var paths: [String] = []
        for raw in mask {
            let path = ProtoObject.camelCase(raw)
            guard fields.contains(path) || extensions.contains(path) else { throw .invalidArgument("updateMask names an unknown Trip field \(raw.debugDescription)") }
            guard updatable.contains(path) else { throw .invalidArgument("updateMask names \(raw), which UpdateTrip cannot change (it is output-only or immutable)") }
            if !paths.contains(path) { paths.append(path) }
        }
        guard !paths.isEmpty else { throw .invalidArgument("updateMask is required and must name at least one field") }
        if !paths.contains("tripStatus"), paths.contains("intermediateDestinationsVersion") {
            throw .invalidArgument("intermediateDestinationsVersion may be sent only with tripStatus (as the version check for ENROUTE_TO_INTERMEDIATE_DESTINATION)")
        }
        func path(_ name: String) -> String { "trip.\(name)" }
        var changes: [TripService.Change] = []
        for field in paths {
            let value = values[field]
            switch field {
            case "vehicleId":
                changes.append(.vehicleId(try value.map { v throws(APIError) in try ProtoValue.string(v, at: path(field)) }))
            case "tripStatus":
                let status = try value.map { v throws(APIError) in try ProtoValue.enumeration(v, .tripStatus, at: path(field), as: TripStatus.self) } ?? .unknown
                let index = paths.contains("intermediateDestinationIndex")
                    ? try values["intermediateDestinationIndex"].map { v throws(APIError) in try ProtoValue.int32(v, at: path("intermediateDestinationIndex")) } ?? 0
                    : nil
                let version = try values["intermediateDestinationsVersion"].map { v throws(APIError) in
                    try ProtoValue.timestamp(v, at: path("intermediateDestinationsVersion"))
                }
                changes.append(.tripStatus(status, intermediateDestinationIndex: index, intermediateDestinationsVersion: version))
            case "intermediateDestinationIndex", "intermediateDestinationsVersion":
                if !paths.contains("tripStatus") {
                    throw .invalidArgument("\(field) may be updated only together with tripStatus")
                }
            case "intermediateDestinations":
                changes.append(.intermediateDestinations(try value.map { v throws(APIError) in
                    try FleetEngineValues.list(v, at: path(field), FleetEngineValues.terminalLocation)
                } ?? []))
            case "pickupPoint":
                changes.append(.pickupPoint(try value.map { v throws(APIError) in try FleetEngineValues.terminalLocation(v, at: path(field)) }))
            case "dropoffPoint":
                changes.append(.dropoffPoint(try value.map { v throws(APIError) in try FleetEngineValues.terminalLocation(v, at: path(field)) }))
            case "actualPickupPoint", "actualPickupArrivalPoint", "actualDropoffPoint":
                guard let value else { throw .invalidArgument("\(path(field)) is named in updateMask but missing from the body") }
                let stop: Trip.ActualStop = field == "actualPickupPoint" ? .pickup : field == "actualPickupArrivalPoint" ? .pickupArrival : .dropoff
                changes.append(.actualLocation(stop, intermediateDestinationIndex: nil, try FleetEngineValues.stopLocation(value, at: path(field))))
            case "actualIntermediateDestinationArrivalPoints", "actualIntermediateDestinations":
                let stop: Trip.ActualStop = field == "actualIntermediateDestinations" ? .intermediateDestination : .intermediateDestinationArrival
                let points = try value.map { v throws(APIError) in try FleetEngineValues.list(v, at: path(field), FleetEngineValues.stopLocation) } ?? []
                for (index, point) in points.enumerated() {
                    changes.append(.actualLocation(stop, intermediateDestinationIndex: index, point))
                }
            case "attributes":
                changes.append(.attributes(try value.map { v throws(APIError) in
                    try FleetEngineValues.list(v, at: path(field), FleetEngineValues.tripAttribute)
                } ?? []))
            case "vehicleWaypoints":
                changes.append(.vehicleWaypoints(try value.map { v throws(APIError) in
                    try FleetEngineValues.list(v, at: path(field), FleetEngineValues.tripWaypoint)
                } ?? []))
            case "consumerId":
                let id = try value.map { v throws(APIError) in try ProtoValue.string(v, at: path(field)) }
                changes.append(.consumerId(id?.isEmpty == true ? nil : id))
            default:
                throw .invalidArgument("updateMask names \(field), which UpdateTrip cannot change")
            }
        }
        return TripService.UpdateRequest(provider: provider, tripId: tripId, changes: changes)
    }

    static func search(_ body: JSONValue, provider: String) throws(APIError) -> TripService.SearchRequest {
        var object = try ProtoObject(body, at: "")
        var request = TripService.SearchRequest(provider: provider)
        request.vehicleId = try object.take("vehicleId").map { v throws(APIError) in try ProtoValue.string(v, at: "vehicleId") }
        if request.vehicleId?.isEmpty == true { request.vehicleId = nil }
        request.activeTripsOnly = try object.take("activeTripsOnly").map { v throws(APIError) in try ProtoValue.bool(v, at: "activeTripsOnly") } ?? false
        request.pageSize = try object.take("pageSize").map { v throws(APIError) in try ProtoValue.int32(v, at: "pageSize") } ?? 0
        request.pageToken = try object.take("pageToken").map { v throws(APIError) in try ProtoValue.string(v, at: "pageToken") }
        if request.pageToken?.isEmpty == true { request.pageToken = nil }
        request.minimumStalenessMicros = try object.take("minimumStaleness").map { v throws(APIError) in try ProtoValue.duration(v, at: "minimumStaleness") }
        if let header = try object.take("header") { try FleetEngineValues.requestHeader(header, at: "header") }
        object.ignore(["parent"])
        try object.finish()
        return request
    }

    /// Reads every writable field present in an UpdateTrip body, masked or not, so a wrong type
    /// anywhere is refused as a proto3 JSON parser would (only masked fields are applied).
    static func checkTypes(_ values: [String: JSONValue]) throws(APIError) {
        for (field, value) in values {
            let path = "trip.\(field)"
            switch field {
            case "name", "vehicleId", "currentRouteSegment", "consumerId":
                _ = try ProtoValue.string(value, at: path)
            case "tripStatus":
                _ = try ProtoValue.enumeration(value, .tripStatus, at: path, as: TripStatus.self)
            case "tripType":
                _ = try ProtoValue.enumeration(value, .tripType, at: path, as: TripType.self)
            case "pickupPoint", "dropoffPoint":
                _ = try FleetEngineValues.terminalLocation(value, at: path)
            case "intermediateDestinations":
                _ = try FleetEngineValues.list(value, at: path, FleetEngineValues.terminalLocation)
            case "intermediateDestinationIndex", "numberOfPassengers", "remainingDistanceMeters":
                _ = try ProtoValue.int32(value, at: path)
            case "intermediateDestinationsVersion", "pickupTime", "dropoffTime", "etaToFirstWaypoint", "currentRouteSegmentVersion",
                 "currentRouteSegmentTrafficVersion", "remainingWaypointsVersion", "remainingWaypointsRouteVersion":
                _ = try ProtoValue.timestamp(value, at: path)
            case "actualPickupPoint", "actualPickupArrivalPoint", "actualDropoffPoint":
                _ = try FleetEngineValues.stopLocation(value, at: path)
            case "actualIntermediateDestinationArrivalPoints", "actualIntermediateDestinations":
                _ = try FleetEngineValues.list(value, at: path, FleetEngineValues.stopLocation)
            case "attributes":
                _ = try FleetEngineValues.list(value, at: path, FleetEngineValues.tripAttribute)
            case "vehicleWaypoints":
                _ = try FleetEngineValues.list(value, at: path, FleetEngineValues.tripWaypoint)
            case "lastLocationSnappable":
                _ = try ProtoValue.bool(value, at: path)
            default:
                continue  // other output-only fields (paths, traffic, remaining waypoints): never applied
            }
        }
    }

    /// The value of the `consumerId` attribute (the one riders' access follows), if `attributes` has one.
    static func consumerId(in attributes: [Attribute]) -> Attribute.Value? {
        attributes.first { $0.key == "consumerId" }?.value
    }

    /// `attributes` with the `consumerId` attribute set to `consumerId` (removed when nil), in place
    /// or appended.
    static func withConsumer(_ consumerId: String?, in attributes: [Attribute]) -> [Attribute] {
        var result = attributes
        if let index = result.firstIndex(where: { $0.key == "consumerId" }) {
            if let consumerId {
                result[index].value = .string(consumerId)
            } else {
                result.remove(at: index)
            }
        } else if let consumerId {
            result.append(Attribute(key: "consumerId", value: .string(consumerId)))
        }
        return result
    }
}
