import HTTP
import JSON

/// The operator's endpoints: health, readiness, metrics and the OpenAPI document, without a token.
extension OperationTable {
    static var operations: [APIOperation] {
        [
            APIOperation("healthz", "GET", "/healthz", access: .open) { input throws(APIError) in
                try input.query.finish()
                return RESTHandler.json(["status": "ok"])
            },
            APIOperation("readyz", "GET", "/readyz", access: .open) { input throws(APIError) in
                let strict = try input.query.value("projections").map { v throws(APIError) in try ProtoValue.bool(QueryParameters.json(v), at: "projections") } ?? false
                try input.query.finish()
                let report = await input.api.readiness.check(projections: strict)
                var members: [(String, JSONValue)] = [("status", .string(report.ready ? "ready" : "not ready"))]
                if let problem = report.problem { members.append(("reason", .string(problem))) }
                if !report.warnings.isEmpty { members.append(("warnings", .array(report.warnings.map { .string($0) }))) }
                return RESTHandler.json(.object(JSONObject(members)), status: report.ready ? 200 : 503)
            },
            APIOperation("metrics", "GET", "/metrics", access: .open) { input throws(APIError) in
                try input.query.finish()
                guard !input.api.metricsServedElsewhere else {
                    throw .notFound("/metrics is served on this server's metrics listener (WAYMARK_METRICS_ADDRESS), not here")
                }
                return await input.api.metricsResponse()
            },
            APIOperation("openapi", "GET", "/openapi.json", access: .open) { input throws(APIError) in
                try input.query.finish()
                return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: .bytes(input.api.openAPIDocument))
            },
        ]
    }
}
