import HTTP
import JSON
import Journey
import ReadModels

/// Fleet Engine's TripService and VehicleService, over REST and gRPC.
///
/// Each entry has two readers of the one request (REST: path, query and body; gRPC: the request
/// message) and one service call, so both front doors validate alike and answer the same.
extension OperationTable {
    static let tripService = "maps.fleetengine.v1.TripService"
    static let vehicleService = "maps.fleetengine.v1.VehicleService"

    static var fleetEngine: [APIOperation] { trips + vehicles }

    static var trips: [APIOperation] {
        [
            .fleet("CreateTrip", "POST", "/v1/providers/{provider}/trips", readsBody: true, service: tripService, response: "maps.fleetengine.v1.Trip",
                   rest: { input throws(APIError) -> TripService.CreateRequest in
                       let tripId = try requiredId("tripId", in: &input.query)
                       try input.query.finish()
                       return try TripJSON.create(input.body, provider: input.path.provider, tripId: tripId)
                   },
                   grpc: { message throws(APIError) -> TripService.CreateRequest in
                       let provider = try WaymarkAPI.parent(try message.protoString("parent"))
                       let tripId = try requiredId("tripId", in: message)
                       return try TripJSON.create(message.protoMessage("trip"), provider: provider, tripId: tripId)
                   },
                   call: { api, request, context throws(APIError) in try await api.trips.create(request, context: context) }),
            .fleet("GetTrip", "GET", "/v1/providers/{provider}/trips/{id}", service: tripService, response: "maps.fleetengine.v1.Trip", isRead: true,
                   rest: { input throws(APIError) -> (TripService.GetRequest, asOf: Timestamp?) in
                       let view = try input.query.value("view").map { v throws(APIError) in try ProtoValue.enumName(QueryParameters.json(v), .tripView, at: "view") } ?? "TRIP_VIEW_UNSPECIFIED"
                       var versions = FleetResourceViews.TripVersions()
                       versions.currentRouteSegmentVersion = try RESTHandler.timestamp(&input.query, "currentRouteSegmentVersion")
                       versions.currentRouteSegmentTrafficVersion = try RESTHandler.timestamp(&input.query, "currentRouteSegmentTrafficVersion")
                       versions.remainingWaypointsRouteVersion = try RESTHandler.timestamp(&input.query, "remainingWaypointsRouteVersion")
                       _ = try RESTHandler.timestamp(&input.query, "remainingWaypointsVersion")  // deprecated: remaining waypoints are always returned
                       if let format = try input.query.value("routeFormatType") {
                           _ = try ProtoValue.enumName(QueryParameters.json(format), .polylineFormatType, at: "routeFormatType")
                       }
                       let asOf = try RESTHandler.timestamp(&input.query, "asOf")
                       try input.query.finish()
                       let get = TripService.GetRequest(provider: input.path.provider, tripId: input.path.id, view: view == "JOURNEY_SHARING_V1S" ? .journeySharing : .sdk,
                                                        versions: versions)
                       return (get, asOf)
                   },
                   grpc: { message throws(APIError) -> (TripService.GetRequest, asOf: Timestamp?) in
                       let (provider, tripId) = try WaymarkAPI.name(try message.protoString("name"), collection: "trips")
                       let view = try message["view"].map { v throws(APIError) in try ProtoValue.enumName(v, .tripView, at: "view") } ?? "TRIP_VIEW_UNSPECIFIED"
                       var versions = FleetResourceViews.TripVersions()
                       versions.currentRouteSegmentVersion = try WaymarkAPI.timestamp(message, "currentRouteSegmentVersion")
                       versions.currentRouteSegmentTrafficVersion = try WaymarkAPI.timestamp(message, "currentRouteSegmentTrafficVersion")
                       versions.remainingWaypointsRouteVersion = try WaymarkAPI.timestamp(message, "remainingWaypointsRouteVersion")
                       _ = try WaymarkAPI.timestamp(message, "remainingWaypointsVersion")  // deprecated: remaining waypoints are always returned
                       if let format = message["routeFormatType"] { _ = try ProtoValue.enumName(format, .polylineFormatType, at: "routeFormatType") }
                       return (TripService.GetRequest(provider: provider, tripId: tripId, view: view == "JOURNEY_SHARING_V1S" ? .journeySharing : .sdk, versions: versions), nil)
                   },
                   call: { api, request, context throws(APIError) in
                       if let asOf = request.asOf { return try await api.audit.trip(request.0, asOf: asOf, caller: context.caller) }
                       return try await api.trips.get(request.0, caller: context.caller)
                   }),
            .fleet("UpdateTrip", "PUT", "/v1/providers/{provider}/trips/{id}", readsBody: true, service: tripService, response: "maps.fleetengine.v1.Trip",
                   rest: { input throws(APIError) -> TripService.UpdateRequest in
                       let mask = try RESTHandler.mask(&input.query)
                       try input.query.finish()
                       return try TripJSON.update(input.body, mask: mask, provider: input.path.provider, tripId: input.path.id)
                   },
                   grpc: { message throws(APIError) -> TripService.UpdateRequest in
                       let (provider, tripId) = try WaymarkAPI.name(try message.protoString("name"), collection: "trips")
                       let mask = try WaymarkAPI.mask(message)
                       return try TripJSON.update(message.protoMessage("trip"), mask: mask, provider: provider, tripId: tripId)
                   },
                   call: { api, request, context throws(APIError) in try await api.trips.update(request, context: context) }),
            .fleet("DeleteTrip", "DELETE", "/v1/providers/{provider}/trips/{id}", service: tripService, response: "google.protobuf.Empty",
                   rest: { input throws(APIError) -> PathParameters in
                       try input.query.finish()
                       return input.path
                   },
                   grpc: { message throws(APIError) -> PathParameters in
                       let (provider, tripId) = try WaymarkAPI.name(try message.protoString("name"), collection: "trips")
                       return PathParameters(provider: provider, id: tripId)
                   },
                   call: { api, trip, context throws(APIError) in
                       try await api.trips.delete(provider: trip.provider, tripId: trip.id, context: context)
                       return .object(JSONObject())
                   }),
            .fleet("SearchTrips", "POST", "/v1/providers/{provider}/trips:search", readsBody: true, service: tripService,
                   response: "maps.fleetengine.v1.SearchTripsResponse", isRead: true,
                   rest: { input throws(APIError) -> TripService.SearchRequest in
                       try input.query.finish()
                       return try TripJSON.search(input.body, provider: input.path.provider)
                   },
                   grpc: { message throws(APIError) -> TripService.SearchRequest in
                       let provider = try WaymarkAPI.parent(try message.protoString("parent"))
                       return try TripJSON.search(.object(message), provider: provider)
                   },
                   call: { api, request, context throws(APIError) in
                       // An empty page token is left out (protobuf leaves it out of the gRPC answer too).
                       let found = try await api.trips.search(request, caller: context.caller)
                       var members: [(String, JSONValue)] = [("trips", .array(found.trips))]
                       if !found.nextPageToken.isEmpty { members.append(("nextPageToken", .string(found.nextPageToken))) }
                       return .object(JSONObject(members))
                   }),
            // The billable trip's name is read by neither front door: the answer is the same for any.
            .fleet("ReportBillableTrip", "POST", "/v1/providers/{provider}/billableTrips/{id}:report", readsBody: true, service: tripService,
                   response: "google.protobuf.Empty",
                   rest: { _ throws(APIError) -> Void in }, grpc: { _ throws(APIError) -> Void in },
                   call: { _, _, _ throws(APIError) -> JSONValue in
                       throw APIError(.unimplemented, "ReportBillableTrip is not offered by this server (billing is Google's)")
                   }),
        ]
    }

    static var vehicles: [APIOperation] {
        [
            .fleet("CreateVehicle", "POST", "/v1/providers/{provider}/vehicles", readsBody: true, service: vehicleService, response: "maps.fleetengine.v1.Vehicle",
                   rest: { input throws(APIError) -> VehicleService.CreateRequest in
                       let vehicleId = try requiredId("vehicleId", in: &input.query)
                       try input.query.finish()
                       return try VehicleJSON.create(input.body, provider: input.path.provider, vehicleId: vehicleId)
                   },
                   grpc: { message throws(APIError) -> VehicleService.CreateRequest in
                       let provider = try WaymarkAPI.parent(try message.protoString("parent"))
                       let vehicleId = try requiredId("vehicleId", in: message)
                       return try VehicleJSON.create(message.protoMessage("vehicle"), provider: provider, vehicleId: vehicleId)
                   },
                   call: { api, request, context throws(APIError) in try await api.vehicles.create(request, context: context) }),
            .fleet("GetVehicle", "GET", "/v1/providers/{provider}/vehicles/{id}", service: vehicleService, response: "maps.fleetengine.v1.Vehicle", isRead: true,
                   rest: { input throws(APIError) -> (PathParameters, FleetResourceViews.VehicleVersions) in
                       var versions = FleetResourceViews.VehicleVersions()
                       versions.currentRouteSegmentVersion = try RESTHandler.timestamp(&input.query, "currentRouteSegmentVersion")
                       versions.waypointsVersion = try RESTHandler.timestamp(&input.query, "waypointsVersion")
                       try input.query.finish()
                       return (input.path, versions)
                   },
                   grpc: { message throws(APIError) -> (PathParameters, FleetResourceViews.VehicleVersions) in
                       let (provider, vehicleId) = try WaymarkAPI.name(try message.protoString("name"), collection: "vehicles")
                       var versions = FleetResourceViews.VehicleVersions()
                       versions.currentRouteSegmentVersion = try WaymarkAPI.timestamp(message, "currentRouteSegmentVersion")
                       versions.waypointsVersion = try WaymarkAPI.timestamp(message, "waypointsVersion")
                       return (PathParameters(provider: provider, id: vehicleId), versions)
                   },
                   call: { api, request, context throws(APIError) in
                       try await api.vehicles.get(provider: request.0.provider, vehicleId: request.0.id, versions: request.1, caller: context.caller)
                   }),
            .fleet("UpdateVehicle", "PUT", "/v1/providers/{provider}/vehicles/{id}", readsBody: true, service: vehicleService, response: "maps.fleetengine.v1.Vehicle",
                   rest: { input throws(APIError) -> VehicleService.UpdateRequest in
                       let mask = try RESTHandler.mask(&input.query)
                       try input.query.finish()
                       return try VehicleJSON.update(input.body, mask: mask, provider: input.path.provider, vehicleId: input.path.id)
                   },
                   grpc: { message throws(APIError) -> VehicleService.UpdateRequest in
                       let (provider, vehicleId) = try WaymarkAPI.name(try message.protoString("name"), collection: "vehicles")
                       let mask = try WaymarkAPI.mask(message)
                       return try VehicleJSON.update(message.protoMessage("vehicle"), mask: mask, provider: provider, vehicleId: vehicleId)
                   },
                   call: { api, request, context throws(APIError) in try await api.vehicles.update(request, context: context) }),
            .fleet("UpdateVehicleAttributes", "POST", "/v1/providers/{provider}/vehicles/{id}:updateAttributes", readsBody: true, service: vehicleService,
                   response: "maps.fleetengine.v1.UpdateVehicleAttributesResponse",
                   rest: { input throws(APIError) -> (PathParameters, [Attribute]) in
                       try input.query.finish()
                       return (input.path, try VehicleJSON.attributes(input.body))
                   },
                   grpc: { message throws(APIError) -> (PathParameters, [Attribute]) in
                       let (provider, vehicleId) = try WaymarkAPI.name(try message.protoString("name"), collection: "vehicles")
                       return (PathParameters(provider: provider, id: vehicleId), try VehicleJSON.attributes(.object(message)))
                   },
                   call: { api, request, context throws(APIError) in
                       let attributes = try await api.vehicles.updateAttributes(provider: request.0.provider, vehicleId: request.0.id, attributes: request.1, context: context)
                       return .object(JSONObject([("attributes", attributes)]))
                   }),
            .fleet("DeleteVehicle", "DELETE", "/v1/providers/{provider}/vehicles/{id}", service: vehicleService, response: "google.protobuf.Empty",
                   rest: { input throws(APIError) -> PathParameters in
                       try input.query.finish()
                       return input.path
                   },
                   grpc: { message throws(APIError) -> PathParameters in
                       let (provider, vehicleId) = try WaymarkAPI.name(try message.protoString("name"), collection: "vehicles")
                       return PathParameters(provider: provider, id: vehicleId)
                   },
                   call: { api, vehicle, context throws(APIError) in
                       try await api.vehicles.delete(provider: vehicle.provider, vehicleId: vehicle.id, context: context)
                       return .object(JSONObject())
                   }),
            .fleet("ListVehicles", "GET", "/v1/providers/{provider}/vehicles", service: vehicleService, response: "maps.fleetengine.v1.ListVehiclesResponse", isRead: true,
                   rest: { input throws(APIError) -> VehicleService.ListRequest in try RESTHandler.listRequest(&input.query, provider: input.path.provider) },
                   grpc: { message throws(APIError) -> VehicleService.ListRequest in
                       let provider = try WaymarkAPI.parent(try message.protoString("parent"))
                       return try WaymarkAPI.listRequest(message, provider: provider)
                   },
                   call: { api, request, context throws(APIError) in
                       let listed = try await api.vehicles.list(request, caller: context.caller)
                       var members: [(String, JSONValue)] = [("vehicles", .array(listed.vehicles))]
                       if !listed.nextPageToken.isEmpty { members.append(("nextPageToken", .string(listed.nextPageToken))) }
                       members.append(("totalSize", .string(String(listed.totalSize))))
                       return .object(JSONObject(members))
                   }),
            .fleet("SearchVehicles", "POST", "/v1/providers/{provider}/vehicles:search", readsBody: true, service: vehicleService,
                   response: "maps.fleetengine.v1.SearchVehiclesResponse", isRead: true,
                   rest: { input throws(APIError) -> VehicleService.SearchRequest in
                       try input.query.finish()
                       return try VehicleJSON.search(input.body, provider: input.path.provider)
                   },
                   grpc: { message throws(APIError) -> VehicleService.SearchRequest in
                       let provider = try WaymarkAPI.parent(try message.protoString("parent"))
                       return try VehicleJSON.search(.object(message), provider: provider)
                   },
                   call: { api, request, context throws(APIError) in
                       .object(JSONObject([("matches", .array(try await api.vehicles.search(request, caller: context.caller)))]))
                   }),
            // Waymark's batch ingest: REST only, and its answer is written straight to bytes (it holds
            // no enum a client would want numbered).
            APIOperation("ReportLocations", "POST", "/v1/providers/{provider}/vehicles:reportLocations", access: .token, readsBody: true) { input throws(APIError) in
                try input.query.finish()
                let entries = try IngestJSON.reportLocations(input.body)
                let outcomes = try await input.api.ingest.reportLocations(provider: input.path.provider, entries: entries, context: input.command)
                return HTTPResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: .bytes(IngestJSON.resultBytes(outcomes)))
            },
        ]
    }
}

extension APIOperation {
    /// A Fleet Engine method: REST reads the request from path, query and body, gRPC from the
    /// request message, and both call `call` (REST numbers enums when asked, `$alt=json;enum-encoding=int`).
    static func fleet<Request>(
        _ name: String, _ method: String, _ path: String, readsBody: Bool = false, service: String, response: String, isRead: Bool? = nil,
        rest: @escaping @Sendable (inout OperationInput) throws(APIError) -> Request,
        grpc: @escaping @Sendable (JSONObject) throws(APIError) -> Request,
        call: @escaping @Sendable (WaymarkAPI, Request, CommandContext) async throws(APIError) -> JSONValue
    ) -> APIOperation {
        let binding = RPCBinding(service: service, requestMessage: "maps.fleetengine.v1.\(name)Request", responseMessage: response) {
            api, message, context throws(APIError) in try await call(api, try grpc(message), context)
        }
        return APIOperation(name, method, path, access: .token, isRead: isRead, readsBody: readsBody, rpc: binding) { input throws(APIError) in
            let numeric = input.query.numericEnums
            let request = try rest(&input)
            let result = try await call(input.api, request, input.command)
            return RESTHandler.json(numeric ? ProtoEnum.numbered(result) : result)
        }
    }
}

extension OperationTable {
    /// The id a Create request gives its new resource (`tripId`, `vehicleId`), from REST's query or
    /// gRPC's message: required, not empty, and a valid id.
    ///
    /// One check for both front doors, so they refuse alike; only the words for a missing id follow
    /// the door: REST names the query parameter, gRPC the proto field (`trip_id`).
    static func requiredId(_ field: String, in query: inout QueryParameters) throws(APIError) -> String {
        try requiredId(field, try query.value(field), missing: "\(field) is required (query parameter)")
    }

    /// `requiredId(_:in:)` for a gRPC request message.
    static func requiredId(_ field: String, in message: JSONObject) throws(APIError) -> String {
        try requiredId(field, try message.protoString(field), missing: "\(ProtoObject.snakeCase(field)) is required")
    }

    private static func requiredId(_ field: String, _ value: String?, missing: String) throws(APIError) -> String {
        guard let value, !value.isEmpty else { throw .invalidArgument(missing) }
        try RESTHandler.validateId(value, field: field)
        return value
    }
}

extension JSONObject {
    /// A string field of a request message ("" when absent).
    func protoString(_ name: String) throws(APIError) -> String {
        try self[name].map { v throws(APIError) in try ProtoValue.string(v, at: name) } ?? ""
    }

    /// A message field of a request message (`{}` when absent).
    func protoMessage(_ name: String) -> JSONValue { self[name] ?? .object(JSONObject()) }
}
