import Foundation
import HTTP
import JSON
import Journey
import ReadModels

/// One Fleet Engine RPC of `maps.fleetengine.v1.TripService` or `VehicleService`: the gRPC face
/// of an `OperationTable` entry.
///
/// The request is the whole request message as proto3 JSON (the gRPC layer transcodes protobuf
/// into it), the answer the whole response message. The entry's gRPC reader and its service call
/// (shared with REST) do the work, so both front doors validate alike and fail with the same codes
/// and messages.
package struct FleetEngineRPC: Sendable {
    let operation: APIOperation
    let binding: RPCBinding

    /// Every RPC by its method path, such as `/maps.fleetengine.v1.TripService/GetTrip`.
    package static var methods: [String: FleetEngineRPC] { OperationTable.standard.rpcs }

    /// The method name, such as `GetTrip` (also the `route` label in metrics).
    package var name: String { operation.name }

    /// The gRPC service that has this method.
    package var service: String { binding.service }

    /// The request message's full proto name.
    package var requestMessage: String { binding.requestMessage }

    /// The response message's full proto name.
    package var responseMessage: String { binding.responseMessage }

    /// Whether the RPC only reads (and may be answered from the replica).
    var isRead: Bool { operation.isRead }
}

extension WaymarkAPI {
    /// Serves one Fleet Engine RPC: admits the caller by the operation's access (the `authorization`
    /// metadata, checked as REST checks its header), then reads the request message and calls the
    /// service through the operation's binding.
    ///
    /// Metrics count it under the method name with method `GRPC` and the HTTP status REST would have given.
    package func call(_ rpc: FleetEngineRPC, request: JSONValue, authorization: String?, requestId: String) async throws(APIError) -> JSONValue {
        let started = ContinuousClock.now
        let result: Result<JSONValue, APIError>
        do throws(APIError) {
            var noQuery = QueryParameters([])
            let admission = try authorize(rpc.operation.access, authorization: authorization, query: &noQuery)
            guard let caller = admission.caller else { throw APIError(.internal, "\(rpc.name) admits callers without a verified token") }
            guard case .object(let message) = request else { throw .invalidArgument("the request must be a message") }
            result = .success(try await rpc.binding.serve(self, message, CommandContext(caller: caller, requestId: requestId)))
        } catch {
            result = .failure(error)
        }
        var status = 200
        if case .failure(let error) = result { status = error.code.httpStatus }
        observe(rpc.name, method: "GRPC", status: status, since: started)
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
            metrics.observe(route: rpc.name, method: "GRPC", status: error.code.httpStatus, seconds: 0)
            throw error
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
