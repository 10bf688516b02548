import Foundation
import HTTP
import JSON
import Journey
import ReadModels

/// The REST front door: routes a request, checks its token and body, calls the service, and
/// renders the answer (or Fleet Engine's error shape) as JSON.
package final class RESTHandler: HTTPHandler {
    let api: WaymarkAPI
    /// The route groups, with the paths each owns (`/demo` exactly, and under `/demo/`).
    let groups: [(exact: String, under: String, group: any RouteGroup)]

    init(api: WaymarkAPI, groups: [any RouteGroup] = []) {
        self.api = api
        self.groups = groups.map { ("/" + $0.segment, "/" + $0.segment + "/", $0) }
    }

    package func respond(to request: HTTPRequest) async -> HTTPResponse {
        for (exact, under, group) in groups where request.path == exact || request.path.hasPrefix(under) {
            return await group.respond(to: request)
        }
        let route = Result { () throws(APIError) in try OperationTable.standard.match(method: request.method, path: request.path) }
        let operation = try? route.get()?.operation
        var response = await withReadRouting(request, operation) { await self.dispatch(request, route) }
        crossOrigin(&response, request, operation)
        return response
    }

    /// Adds CORS headers to the answer of a rider route called from an allowed origin.
    func crossOrigin(_ response: inout HTTPResponse, _ request: HTTPRequest, _ operation: APIOperation?) {
        guard api.cors.origins != nil, request.method != "OPTIONS", let origin = request.header("origin"),
              operation?.crossOrigin == .allowed
        else { return }
        api.cors.decorate(&response, origin: origin)
    }

    /// A CORS preflight of a rider route; nil for any other request (which then gets its usual
    /// answer, 405 for OPTIONS). PERMISSION_DENIED when the origin or method is not allowed.
    private func preflight(_ request: HTTPRequest) throws(APIError) -> HTTPResponse? {
        guard request.method == "OPTIONS", let method = request.header("access-control-request-method"),
              let route = try? OperationTable.standard.match(method: method, path: request.path)?.operation, route.crossOrigin != .none
        else { return nil }
        let origin = request.header("origin")
        guard api.cors.origins != nil else {
            throw .permissionDenied("cross-origin requests are off on this server (set WAYMARK_CORS_ORIGINS to allow a rider app's origin)")
        }
        guard route.crossOrigin == .allowed else {
            throw .permissionDenied("\(method) \(request.path) is not available to other origins (only the rider routes are)")
        }
        guard let answer = api.cors.preflight(origin: origin, methods: route.corsMethods) else {
            throw .permissionDenied("origin \(String((origin ?? "(none)").prefix(200)).debugDescription) is not in WAYMARK_CORS_ORIGINS")
        }
        return answer
    }

    /// Answers `request`, whose own operation (`route`) was looked up once by `respond`.
    private func dispatch(_ request: HTTPRequest, _ route: Result<(operation: APIOperation, parameters: PathParameters)?, APIError>) async -> HTTPResponse {
        let started = ContinuousClock.now
        var label = "unknown"
        let response: HTTPResponse
        do throws(APIError) {
            try Self.validatePath(request.path)
            if let preflight = try preflight(request) {
                label = "CORSPreflight"
                response = preflight
            } else {
                guard let (operation, parameters) = try route.get() else {
                    throw .notFound("no operation at \(request.path)")
                }
                label = operation.name
                response = try await serve(operation, parameters, request)
            }
        } catch {
            response = Self.errorResponse(error, requestId: request.requestId, log: api.log)
        }
        api.observe(label, method: request.method, status: response.status, since: started)
        return response
    }

    /// Serves a table operation: admits the caller by its access, reads the body if it takes one, runs it.
    private func serve(_ operation: APIOperation, _ parameters: PathParameters, _ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        var query = QueryParameters(request.query)
        let admission = try api.authorize(operation.access, authorization: request.header("authorization"), query: &query)
        var input = OperationInput(api: api, request: request, path: parameters, query: query, admission: admission)
        if operation.readsBody { input.body = try Self.body(request) }
        return try await operation.serve(&input)
    }

    // MARK: - Request pieces

    /// The JSON body: `application/json` only (415 otherwise), parsed strictly; empty means `{}`.
    static func body(_ request: HTTPRequest) throws(APIError) -> JSONValue {
        if request.body.isEmpty { return .object(JSONObject()) }
        let type = request.header("content-type")?.split(separator: ";").first.map { $0.trimmingBlanks.lowercased() }
        guard type == "application/json" else {
            throw APIError(.unsupportedMediaType, "the request body must be application/json (got \(type.map { "\"\($0)\"" } ?? "no Content-Type"))")
        }
        do {
            return try JSONValue.parse(request.body)
        } catch {
            throw .invalidArgument("the request body is not valid JSON: \(error)")
        }
    }

    static func mask(_ query: inout QueryParameters) throws(APIError) -> [String] {
        let values = query.values("updateMask")
        let paths = values.flatMap { $0.split(separator: ",").map { String($0.trimmingBlanks) } }.filter { !$0.isEmpty }
        guard !paths.isEmpty else { throw .invalidArgument("updateMask is required (query parameter, comma-separated field names)") }
        return paths
    }

    static func timestamp(_ query: inout QueryParameters, _ name: String) throws(APIError) -> Timestamp? {
        try query.value(name).map { v throws(APIError) in try ProtoValue.timestamp(.string(v), at: name) }
    }

    /// Every id in a path is compared by Swift and by the database: the path must be NFC, and a
    /// `/v1/providers/{p}/...` path must name a valid provider.
    static func validatePath(_ path: String) throws(APIError) {
        do {
            try Identifier.requireNFC(path, field: "the request path")
            let prefix = "/v1/providers/"
            guard path.utf8.starts(with: prefix.utf8) else { return }
            let provider = path.utf8.dropFirst(prefix.utf8.count).prefix { $0 != UInt8(ascii: "/") }
            try Identifier.validateProvider(String(decoding: provider, as: UTF8.self), field: "the provider in the path")
        } catch {
            throw APIError(error)
        }
    }

    static func validateId(_ id: String, field: String) throws(APIError) {
        do { try Identifier.validate(id, field: field) } catch { throw APIError(error) }
    }

    static func listRequest(_ query: inout QueryParameters, provider: String) throws(APIError) -> VehicleService.ListRequest {
        var request = VehicleService.ListRequest(provider: provider)
        if let size = try query.value("pageSize") { request.pageSize = try ProtoValue.int32(QueryParameters.json(size), at: "pageSize") }
        request.pageToken = try query.value("pageToken").flatMap { $0.isEmpty ? nil : $0 }
        if let capacity = try query.value("minimumCapacity") { request.minimumCapacity = try ProtoValue.int32(QueryParameters.json(capacity), at: "minimumCapacity") }
        request.tripTypes = try query.values("tripTypes").map { v throws(APIError) in
            try ProtoValue.enumeration(QueryParameters.json(v), .tripType, at: "tripTypes", as: TripType.self)
        }
        request.maximumStalenessMicros = try query.value("maximumStaleness").map { v throws(APIError) in try ProtoValue.duration(.string(v), at: "maximumStaleness") }
        request.vehicleTypeCategories = try query.values("vehicleTypeCategories").map { v throws(APIError) in
            try ProtoValue.enumeration(QueryParameters.json(v), .vehicleCategory, at: "vehicleTypeCategories", as: VehicleType.Category.self)
        }
        request.requiredAttributes = query.values("requiredAttributes")
        request.requiredOneOfAttributes = query.values("requiredOneOfAttributes")
        request.requiredOneOfAttributeSets = query.values("requiredOneOfAttributeSets")
        request.vehicleState = try query.value("vehicleState").map { v throws(APIError) in
            try ProtoValue.enumeration(QueryParameters.json(v), .vehicleState, at: "vehicleState", as: VehicleState.self)
        }
        if let onTrip = try query.value("onTripOnly") { request.onTripOnly = try ProtoValue.bool(QueryParameters.json(onTrip), at: "onTripOnly") }
        request.filter = try query.value("filter")
        let corners = ["viewport.low.latitude", "viewport.low.longitude", "viewport.high.latitude", "viewport.high.longitude"]
        var values: [Double] = []
        for corner in corners {
            if let text = try query.value(corner) { values.append(try ProtoValue.double(QueryParameters.json(text), at: corner)) }
        }
        if !values.isEmpty {
            guard values.count == 4 else { throw .invalidArgument("viewport needs all of \(corners.joined(separator: ", "))") }
            let low = try FleetEngineValues.latLng(.object(JSONObject([("latitude", .number(JSONNumber(values[0])!)), ("longitude", .number(JSONNumber(values[1])!))])), at: "viewport.low")
            let high = try FleetEngineValues.latLng(.object(JSONObject([("latitude", .number(JSONNumber(values[2])!)), ("longitude", .number(JSONNumber(values[3])!))])), at: "viewport.high")
            request.viewport = (low, high)
        }
        try query.finish()
        return request
    }

    // MARK: - Responses

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: .bytes(value.compactBytes()))
    }

    /// Fleet Engine's error shape; anything unmapped is INTERNAL with the request id, logged.
    static func errorResponse(_ error: APIError, requestId: String, log: (@Sendable (String) -> Void)?) -> HTTPResponse {
        var message = error.message
        if error.code == .internal {
            log?("internal error (request \(requestId)): \(error) \(error.underlying.map { "\($0)" } ?? "") at \(error.file):\(error.line)")
            message = "internal error (request id \(requestId))"
        }
        var members: [(String, JSONValue)] = [
            ("code", .number(JSONNumber(error.code.httpStatus))), ("message", .string(message)), ("status", .string(error.code.statusName)),
        ]
        if let reason = error.reason {
            members.append(("details", .array([.object(JSONObject([
                ("@type", "type.googleapis.com/google.rpc.ErrorInfo"), ("reason", .string(reason)), ("domain", "waymark"),
            ]))])))
        }
        var response = json(.object(JSONObject([("error", .object(JSONObject(members)))])), status: error.code.httpStatus)
        if error.code == .unauthenticated { response.headers.append(("WWW-Authenticate", "Bearer")) }
        if error.code == .resourceExhausted { response.headers.append(("Retry-After", "5")) }
        return response
    }

    /// The body for errors the HTTP server itself produces (413, 503 while stopping).
    package static func serverErrorBody(status: Int, message: String) -> (contentType: String, body: [UInt8]) {
        let statusName = switch status {
        case 413: "INVALID_ARGUMENT"
        case 503: "UNAVAILABLE"
        case 408: "DEADLINE_EXCEEDED"
        default: status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT"
        }
        let value: JSONValue = .object(JSONObject([("error", .object(JSONObject([
            ("code", .number(JSONNumber(status))), ("message", .string(message)), ("status", .string(statusName)),
        ])))]))
        return ("application/json; charset=utf-8", value.compactBytes())
    }
}
