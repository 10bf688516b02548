import Foundation
import HTTP
import JSON
import Journey
import ReadModels

/// The REST front door: routes a request, checks its token and body, calls the service, and
/// renders the answer (or Fleet Engine's error shape) as JSON.
package final class RESTHandler: HTTPHandler {
    let api: WaymarkAPI

    init(api: WaymarkAPI) {
        self.api = api
    }

    package func respond(to request: HTTPRequest) async -> HTTPResponse {
        var response = await withReadRouting(request) { await self.dispatch(request) }
        crossOrigin(&response, request)
        return response
    }

    /// Adds CORS headers to the answer of a rider route called from an allowed origin.
    func crossOrigin(_ response: inout HTTPResponse, _ request: HTTPRequest) {
        guard api.cors.origins != nil, request.method != "OPTIONS", let origin = request.header("origin"),
              let route = try? RiderRoute.match(method: request.method, path: request.path), route.allowsCrossOrigin
        else { return }
        api.cors.decorate(&response, origin: origin)
    }

    /// A CORS preflight of a rider route; nil for any other request (which then gets its usual
    /// answer, 405 for OPTIONS). PERMISSION_DENIED when the origin or method is not allowed.
    private func preflight(_ request: HTTPRequest) throws(APIError) -> HTTPResponse? {
        guard request.method == "OPTIONS", let method = request.header("access-control-request-method"),
              let route = try? RiderRoute.match(method: method, path: request.path)
        else { return nil }
        let origin = request.header("origin")
        guard api.cors.origins != nil else {
            throw .permissionDenied("cross-origin requests are off on this server (set WAYMARK_CORS_ORIGINS to allow a rider app's origin)")
        }
        guard route.allowsCrossOrigin else {
            throw .permissionDenied("\(method) \(request.path) is not available to other origins (only the rider routes are)")
        }
        guard let answer = api.cors.preflight(origin: origin, methods: route.corsMethods) else {
            throw .permissionDenied("origin \(String((origin ?? "(none)").prefix(200)).debugDescription) is not in WAYMARK_CORS_ORIGINS")
        }
        return answer
    }

    private func dispatch(_ request: HTTPRequest) async -> HTTPResponse {
        let started = ContinuousClock.now
        var label = "unknown"
        let response: HTTPResponse
        do throws(APIError) {
            try Self.validatePath(request.path)
            if let preflight = try preflight(request) {
                label = "CORSPreflight"
                response = preflight
            } else if let webhook = try WebhookRoute.match(method: request.method, path: request.path) {
                label = webhook.label
                response = try await handleWebhook(webhook, request)
            } else if let rider = try RiderRoute.match(method: request.method, path: request.path) {
                label = rider.label
                response = try await handleRider(rider, request)
            } else if let audit = try AuditRoute.match(method: request.method, path: request.path) {
                label = audit.label
                response = try await handleAudit(audit, request)
            } else if let roots = try AuditRootsRoute.match(method: request.method, path: request.path) {
                label = roots.label
                response = try await handleAuditRoots(roots, request)
            } else if let driver = try DriverRoute.match(method: request.method, path: request.path) {
                label = driver.label
                response = try await handleDriver(driver, request)
            } else {
                let route = try Route.match(method: request.method, path: request.path)
                label = route.label
                response = try await handle(route, request)
            }
        } catch {
            response = Self.errorResponse(error, requestId: request.requestId, log: api.log)
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        api.metrics.observe(route: label, method: request.method, status: response.status, seconds: seconds)
        return response
    }

    private func handle(_ route: Route, _ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        var query = QueryParameters(request.query)
        let numeric = query.numericEnums
        switch route {
        case .healthz:
            try query.finish()
            return Self.json(["status": "ok"])
        case .readyz:
            let strict = try query.value("projections").map { v throws(APIError) in try ProtoValue.bool(QueryParameters.json(v), at: "projections") } ?? false
            try query.finish()
            let report = await api.readiness.check(projections: strict)
            var members: [(String, JSONValue)] = [("status", .string(report.ready ? "ready" : "not ready"))]
            if let problem = report.problem { members.append(("reason", .string(problem))) }
            if !report.warnings.isEmpty { members.append(("warnings", .array(report.warnings.map { .string($0) }))) }
            return Self.json(.object(JSONObject(members)), status: report.ready ? 200 : 503)
        case .metrics:
            try query.finish()
            guard !api.metricsServedElsewhere else {
                throw .notFound("/metrics is served on this server's metrics listener (WAYMARK_METRICS_ADDRESS), not here")
            }
            return await api.metricsResponse()
        case .openAPI:
            try query.finish()
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: .bytes(api.openAPIDocument))
        default:
            break
        }

        let bearer = try Authenticator.bearerToken(request.header("authorization"))
        if ShareLinkToken.looksLikeLink(bearer) {
            _ = try api.riders.reader(token: bearer)  // a forged or expired link is 401, a genuine one 403
            throw .permissionDenied("a share-link token may only read its trip's journey")
        }
        let caller = try api.authenticator.verify(token: bearer)
        let context = CommandContext(caller: caller, requestId: request.requestId)
        let body: JSONValue = route.hasBody ? try Self.body(request) : .null
        let trips = api.trips
        let vehicles = api.vehicles
        let result: JSONValue
        switch route {
        case .createTrip(let provider):
            guard let tripId = try query.value("tripId"), !tripId.isEmpty else { throw .invalidArgument("tripId is required (query parameter)") }
            try Self.validateId(tripId, field: "tripId")
            try query.finish()
            result = try await trips.create(try TripJSON.create(body, provider: provider, tripId: tripId), context: context)
        case .getTrip(let provider, let tripId):
            let view = try query.value("view").map { v throws(APIError) in try ProtoValue.enumName(QueryParameters.json(v), .tripView, at: "view") } ?? "TRIP_VIEW_UNSPECIFIED"
            var versions = FleetResourceViews.TripVersions()
            versions.currentRouteSegmentVersion = try Self.timestamp(&query, "currentRouteSegmentVersion")
            versions.currentRouteSegmentTrafficVersion = try Self.timestamp(&query, "currentRouteSegmentTrafficVersion")
            versions.remainingWaypointsRouteVersion = try Self.timestamp(&query, "remainingWaypointsRouteVersion")
            _ = try Self.timestamp(&query, "remainingWaypointsVersion")  // deprecated: remaining waypoints are always returned
            if let format = try query.value("routeFormatType") {
                _ = try ProtoValue.enumName(QueryParameters.json(format), .polylineFormatType, at: "routeFormatType")
            }
            let asOf = try Self.timestamp(&query, "asOf")
            try query.finish()
            let request = TripService.GetRequest(provider: provider, tripId: tripId, view: view == "JOURNEY_SHARING_V1S" ? .journeySharing : .sdk, versions: versions)
            if let asOf {
                result = try await api.audit.trip(request, asOf: asOf, caller: caller)
            } else {
                result = try await trips.get(request, caller: caller)
            }
        case .updateTrip(let provider, let tripId):
            let mask = try Self.mask(&query)
            try query.finish()
            result = try await trips.update(try TripJSON.update(body, mask: mask, provider: provider, tripId: tripId), context: context)
        case .deleteTrip(let provider, let tripId):
            try query.finish()
            try await trips.delete(provider: provider, tripId: tripId, context: context)
            result = .object(JSONObject())
        case .searchTrips(let provider):
            try query.finish()
            let found = try await trips.search(try TripJSON.search(body, provider: provider), caller: caller)
            var members: [(String, JSONValue)] = [("trips", .array(found.trips))]
            if !found.nextPageToken.isEmpty { members.append(("nextPageToken", .string(found.nextPageToken))) }
            result = .object(JSONObject(members))
        case .reportBillableTrip:
            throw APIError(.unimplemented, "ReportBillableTrip is not offered by this server (billing is Google's)")
        case .createVehicle(let provider):
            guard let vehicleId = try query.value("vehicleId"), !vehicleId.isEmpty else { throw .invalidArgument("vehicleId is required (query parameter)") }
            try Self.validateId(vehicleId, field: "vehicleId")
            try query.finish()
            result = try await vehicles.create(try VehicleJSON.create(body, provider: provider, vehicleId: vehicleId), context: context)
        case .getVehicle(let provider, let vehicleId):
            var versions = FleetResourceViews.VehicleVersions()
            versions.currentRouteSegmentVersion = try Self.timestamp(&query, "currentRouteSegmentVersion")
            versions.waypointsVersion = try Self.timestamp(&query, "waypointsVersion")
            try query.finish()
            result = try await vehicles.get(provider: provider, vehicleId: vehicleId, versions: versions, caller: caller)
        case .updateVehicle(let provider, let vehicleId):
            let mask = try Self.mask(&query)
            try query.finish()
            result = try await vehicles.update(try VehicleJSON.update(body, mask: mask, provider: provider, vehicleId: vehicleId), context: context)
        case .updateVehicleAttributes(let provider, let vehicleId):
            try query.finish()
            let attributes = try await vehicles.updateAttributes(provider: provider, vehicleId: vehicleId, attributes: try VehicleJSON.attributes(body), context: context)
            result = .object(JSONObject([("attributes", attributes)]))
        case .deleteVehicle(let provider, let vehicleId):
            try query.finish()
            try await vehicles.delete(provider: provider, vehicleId: vehicleId, context: context)
            result = .object(JSONObject())
        case .listVehicles(let provider):
            let listed = try await vehicles.list(try Self.listRequest(&query, provider: provider), caller: caller)
            var members: [(String, JSONValue)] = [("vehicles", .array(listed.vehicles))]
            if !listed.nextPageToken.isEmpty { members.append(("nextPageToken", .string(listed.nextPageToken))) }
            members.append(("totalSize", .string(String(listed.totalSize))))
            result = .object(JSONObject(members))
        case .searchVehicles(let provider):
            try query.finish()
            result = .object(JSONObject([("matches", .array(try await vehicles.search(try VehicleJSON.search(body, provider: provider), caller: caller)))]))
        case .reportLocations(let provider):
            try query.finish()
            let outcomes = try await reportLocations(provider: provider, body: body, context: context)
            // The answer holds no enum a client would want numbered: written straight to bytes.
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: .bytes(IngestJSON.resultBytes(outcomes)))
        case .healthz, .readyz, .metrics, .openAPI:
            preconditionFailure("answered above")
        }
        return Self.json(numeric ? ProtoEnum.numbered(result) : result)
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
