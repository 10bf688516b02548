import HTTP

/// `/metrics` on a listener of its own (`WAYMARK_METRICS_ADDRESS`), so operators can keep the
/// Prometheus text, which names routes, projections and queue depths, off the public port.
///
/// Serves `GET /metrics` and nothing else; once it is in use the public listener answers
/// `/metrics` with 404 (see `WaymarkAPI.serveMetricsElsewhere`).
package struct MetricsHandler: HTTPHandler {
    let api: WaymarkAPI

    package init(api: WaymarkAPI) {
        self.api = api
    }

    package func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard request.path == "/metrics" else {
            return RESTHandler.errorResponse(.notFound("this listener serves /metrics only"), requestId: request.requestId, log: nil)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return RESTHandler.errorResponse(APIError(.unimplemented, "/metrics accepts GET only"), requestId: request.requestId, log: nil)
        }
        return await api.metricsResponse()
    }
}
