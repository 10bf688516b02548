import Foundation
import HTTP
import JSON
import Journey
import ReadModels

/// One Fleet Engine RPC of `maps.fleetengine.v1.TripService` or `VehicleService`, by method name.
///
/// The transport-neutral entry of the gRPC front door: the request is the whole request message
/// as proto3 JSON (the gRPC layer transcodes protobuf into it), the answer the whole response
/// message. The same readers (`TripJSON`, `VehicleJSON`) and services as REST do the work, so
/// both front doors validate alike and fail with the same codes and messages.
package enum FleetEngineRPC: String, Sendable, CaseIterable {
    case createTrip = "CreateTrip", getTrip = "GetTrip", updateTrip = "UpdateTrip", deleteTrip = "DeleteTrip", searchTrips = "SearchTrips"
    case reportBillableTrip = "ReportBillableTrip"
    case createVehicle = "CreateVehicle", getVehicle = "GetVehicle", updateVehicle = "UpdateVehicle", deleteVehicle = "DeleteVehicle"
    case updateVehicleAttributes = "UpdateVehicleAttributes", listVehicles = "ListVehicles", searchVehicles = "SearchVehicles"

    /// The gRPC service that has this method.
    package var service: String {
        switch self {
        case .createTrip, .getTrip, .updateTrip, .deleteTrip, .searchTrips, .reportBillableTrip: "maps.fleetengine.v1.TripService"
        default: "maps.fleetengine.v1.VehicleService"
        }
    }

    /// The request message's full proto name.
    package var requestMessage: String { "maps.fleetengine.v1.\(rawValue)Request" }

    /// The response message's full proto name.
    package var responseMessage: String {
        switch self {
        case .createTrip, .getTrip, .updateTrip: "maps.fleetengine.v1.Trip"
        case .searchTrips: "maps.fleetengine.v1.SearchTripsResponse"
        case .deleteTrip, .deleteVehicle, .reportBillableTrip: "google.protobuf.Empty"
        case .createVehicle, .getVehicle, .updateVehicle: "maps.fleetengine.v1.Vehicle"
        case .updateVehicleAttributes: "maps.fleetengine.v1.UpdateVehicleAttributesResponse"
        case .listVehicles: "maps.fleetengine.v1.ListVehiclesResponse"
        case .searchVehicles: "maps.fleetengine.v1.SearchVehiclesResponse"
        }
    }
}

extension WaymarkAPI {
    /// Serves one Fleet Engine RPC: checks the `authorization` metadata as REST checks its header,
    /// reads the request message, calls the service and returns the response message.
    ///
    /// Metrics count it under the method name with method `GRPC` and the HTTP status REST would have given.
    package func call(_ rpc: FleetEngineRPC, request: JSONValue, authorization: String?, requestId: String) async throws(APIError) -> JSONValue {
        let started = ContinuousClock.now
        let result: Result<JSONValue, APIError>
        do throws(APIError) {
            result = .success(try await perform(rpc, request: request, authorization: authorization, requestId: requestId))
        } catch {
            result = .failure(error)
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var status = 200
        if case .failure(let error) = result { status = error.code.httpStatus }
        metrics.observe(route: rpc.rawValue, method: "GRPC", status: status, seconds: seconds)
        if case .failure(let error) = result, error.code == .internal {
            log?("internal error (request \(requestId)): \(error) \(error.underlying.map { "\($0)" } ?? "") at \(error.file):\(error.line)")
        }
        return try result.get()
    }

    /// Checks the `authorization` metadata of an RPC before its message is decoded, so a caller
    /// without a valid token gets no decoding work out of the server; a refusal is counted as
    /// `call` counts it. `call` checks again (from the verified-token cache).
    package func admit(_ rpc: FleetEngineRPC, authorization: String?) throws(APIError) {
        do throws(APIError) {
            let bearer = try Authenticator.bearerToken(authorization)
            if ShareLinkToken.looksLikeLink(bearer) {
                _ = try riders.reader(token: bearer)
            } else {
                _ = try authenticator.verify(token: bearer)
            }
        } catch {
            metrics.observe(route: rpc.rawValue, method: "GRPC", status: error.code.httpStatus, seconds: 0)
            throw error
        }
    }

    private func perform(_ rpc: FleetEngineRPC, request: JSONValue, authorization: String?, requestId: String) async throws(APIError) -> JSONValue {
        let bearer = try Authenticator.bearerToken(authorization)
        if ShareLinkToken.looksLikeLink(bearer) {
            _ = try riders.reader(token: bearer)
            throw .permissionDenied("a share-link token may only read its trip's journey")
        }
        let caller = try authenticator.verify(token: bearer)
        let context = CommandContext(caller: caller, requestId: requestId)
        guard case .object(let message) = request else { throw .invalidArgument("the request must be a message") }
        func string(_ name: String) throws(APIError) -> String {
            try message[name].map { v throws(APIError) in try ProtoValue.string(v, at: name) } ?? ""
        }
        func body(_ name: String) -> JSONValue { message[name] ?? .object(JSONObject()) }
        switch rpc {
        case .createTrip:
            let provider = try Self.parent(try string("parent"))
            let tripId = try string("tripId")
            guard !tripId.isEmpty else { throw .invalidArgument("trip_id is required") }
            try RESTHandler.validateId(tripId, field: "tripId")
            return try await trips.create(try TripJSON.create(body("trip"), provider: provider, tripId: tripId), context: context)
        case .getTrip:
            let (provider, tripId) = try Self.name(try string("name"), collection: "trips")
            let view = try message["view"].map { v throws(APIError) in try ProtoValue.enumName(v, .tripView, at: "view") } ?? "TRIP_VIEW_UNSPECIFIED"
            var versions = FleetResourceViews.TripVersions()
            versions.currentRouteSegmentVersion = try Self.timestamp(message, "currentRouteSegmentVersion")
            versions.currentRouteSegmentTrafficVersion = try Self.timestamp(message, "currentRouteSegmentTrafficVersion")
            versions.remainingWaypointsRouteVersion = try Self.timestamp(message, "remainingWaypointsRouteVersion")
            _ = try Self.timestamp(message, "remainingWaypointsVersion")  // deprecated: remaining waypoints are always returned
            if let format = message["routeFormatType"] { _ = try ProtoValue.enumName(format, .polylineFormatType, at: "routeFormatType") }
            let get = TripService.GetRequest(provider: provider, tripId: tripId, view: view == "JOURNEY_SHARING_V1S" ? .journeySharing : .sdk, versions: versions)
            return try await trips.get(get, caller: caller)
        case .updateTrip:
            let (provider, tripId) = try Self.name(try string("name"), collection: "trips")
            let mask = try Self.mask(message)
            return try await trips.update(try TripJSON.update(body("trip"), mask: mask, provider: provider, tripId: tripId), context: context)
        case .deleteTrip:
            let (provider, tripId) = try Self.name(try string("name"), collection: "trips")
            try await trips.delete(provider: provider, tripId: tripId, context: context)
            return .object(JSONObject())
        case .searchTrips:
            let provider = try Self.parent(try string("parent"))
            let found = try await trips.search(try TripJSON.search(request, provider: provider), caller: caller)
            return .object(JSONObject([("trips", .array(found.trips)), ("nextPageToken", .string(found.nextPageToken))]))
        case .reportBillableTrip:
            throw APIError(.unimplemented, "ReportBillableTrip is not offered by this server (billing is Google's)")
        case .createVehicle:
            let provider = try Self.parent(try string("parent"))
            let vehicleId = try string("vehicleId")
            guard !vehicleId.isEmpty else { throw .invalidArgument("vehicle_id is required") }
            try RESTHandler.validateId(vehicleId, field: "vehicleId")
            return try await vehicles.create(try VehicleJSON.create(body("vehicle"), provider: provider, vehicleId: vehicleId), context: context)
        case .getVehicle:
            let (provider, vehicleId) = try Self.name(try string("name"), collection: "vehicles")
            var versions = FleetResourceViews.VehicleVersions()
            versions.currentRouteSegmentVersion = try Self.timestamp(message, "currentRouteSegmentVersion")
            versions.waypointsVersion = try Self.timestamp(message, "waypointsVersion")
            return try await vehicles.get(provider: provider, vehicleId: vehicleId, versions: versions, caller: caller)
        case .updateVehicle:
            let (provider, vehicleId) = try Self.name(try string("name"), collection: "vehicles")
            let mask = try Self.mask(message)
            return try await vehicles.update(try VehicleJSON.update(body("vehicle"), mask: mask, provider: provider, vehicleId: vehicleId), context: context)
        case .updateVehicleAttributes:
            let (provider, vehicleId) = try Self.name(try string("name"), collection: "vehicles")
            let attributes = try await vehicles.updateAttributes(provider: provider, vehicleId: vehicleId, attributes: try VehicleJSON.attributes(request), context: context)
            return .object(JSONObject([("attributes", attributes)]))
        case .deleteVehicle:
            let (provider, vehicleId) = try Self.name(try string("name"), collection: "vehicles")
            try await vehicles.delete(provider: provider, vehicleId: vehicleId, context: context)
            return .object(JSONObject())
        case .listVehicles:
            let provider = try Self.parent(try string("parent"))
            let listed = try await vehicles.list(try Self.listRequest(message, provider: provider), caller: caller)
            return .object(JSONObject([("vehicles", .array(listed.vehicles)), ("nextPageToken", .string(listed.nextPageToken)),
                                       ("totalSize", .string(String(listed.totalSize)))]))
        case .searchVehicles:
            let provider = try Self.parent(try string("parent"))
            return .object(JSONObject([("matches", .array(try await vehicles.search(try VehicleJSON.search(request, provider: provider), caller: caller)))]))
        }
    }

    /// The provider of a `parent` such as `providers/acme`.
    static func parent(_ parent: String) throws(APIError) -> String {
        let parts = parent.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "providers", !parts[1].isEmpty else {
            throw .invalidArgument("parent must be providers/{provider} (got \(parent.debugDescription))")
        }
        do { try Identifier.validateProvider(String(parts[1]), field: "parent's provider") } catch { throw APIError(error) }
        return String(parts[1])
    }

    /// The provider and id of a resource name such as `providers/acme/trips/t-1`.
    static func name(_ name: String, collection: String) throws(APIError) -> (String, String) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "providers", !parts[1].isEmpty, parts[2] == collection, !parts[3].isEmpty else {
            throw .invalidArgument("name must be providers/{provider}/\(collection)/{id} (got \(name.debugDescription))")
        }
        do {
            try Identifier.validateProvider(String(parts[1]), field: "name's provider")
            try Identifier.requireNFC(String(parts[3]), field: "name's id")
        } catch {
            throw APIError(error)
        }
        return (String(parts[1]), String(parts[3]))
    }

    static func mask(_ message: JSONObject) throws(APIError) -> [String] {
        let text = try message["updateMask"].map { v throws(APIError) in try ProtoValue.string(v, at: "update_mask") } ?? ""
        let paths = text.split(separator: ",").map { String($0.trimmingBlanks) }.filter { !$0.isEmpty }
        guard !paths.isEmpty else { throw .invalidArgument("update_mask is required and must name at least one field") }
        return paths
    }

    static func timestamp(_ message: JSONObject, _ name: String) throws(APIError) -> Timestamp? {
        try message[name].map { v throws(APIError) in try ProtoValue.timestamp(v, at: name) }
    }

    /// ListVehicles' request message as a `ListRequest` (REST reads the same fields from the query).
    static func listRequest(_ message: JSONObject, provider: String) throws(APIError) -> VehicleService.ListRequest {
        var request = VehicleService.ListRequest(provider: provider)
        if let size = message["pageSize"] { request.pageSize = try ProtoValue.int32(size, at: "pageSize") }
        request.pageToken = try message["pageToken"].map { v throws(APIError) in try ProtoValue.string(v, at: "pageToken") }.flatMap { $0.isEmpty ? nil : $0 }
        if let capacity = message["minimumCapacity"] { request.minimumCapacity = try ProtoValue.int32(capacity, at: "minimumCapacity") }
        request.tripTypes = try message["tripTypes"].map { v throws(APIError) in try VehicleJSON.tripTypes(v, at: "tripTypes") } ?? []
        request.maximumStalenessMicros = try message["maximumStaleness"].map { v throws(APIError) in try ProtoValue.duration(v, at: "maximumStaleness") }
        request.vehicleTypeCategories = try message["vehicleTypeCategories"].map { v throws(APIError) in
            try FleetEngineValues.list(v, at: "vehicleTypeCategories") { element, path throws(APIError) in
                try ProtoValue.enumeration(element, .vehicleCategory, at: path, as: VehicleType.Category.self)
            }
        } ?? []
        func strings(_ name: String) throws(APIError) -> [String] {
            try message[name].map { v throws(APIError) in
                try FleetEngineValues.list(v, at: name) { element, path throws(APIError) in try ProtoValue.string(element, at: path) }
            } ?? []
        }
        request.requiredAttributes = try strings("requiredAttributes")
        request.requiredOneOfAttributes = try strings("requiredOneOfAttributes")
        request.requiredOneOfAttributeSets = try strings("requiredOneOfAttributeSets")
        request.vehicleState = try message["vehicleState"].map { v throws(APIError) in
            try ProtoValue.enumeration(v, .vehicleState, at: "vehicleState", as: VehicleState.self)
        }
        request.onTripOnly = try message["onTripOnly"].map { v throws(APIError) in try ProtoValue.bool(v, at: "onTripOnly") } ?? false
        request.filter = try message["filter"].map { v throws(APIError) in try ProtoValue.string(v, at: "filter") }.flatMap { $0.isEmpty ? nil : $0 }
        if let viewport = message["viewport"] {
            var object = try ProtoObject(viewport, at: "viewport")
            guard let low = try object.take("low"), let high = try object.take("high") else { throw .invalidArgument("viewport needs low and high") }
            request.viewport = (try FleetEngineValues.latLng(low, at: "viewport.low"), try FleetEngineValues.latLng(high, at: "viewport.high"))
            try object.finish()
        }
        return request
    }
}
