import API
import Foundation
import JSON
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct OperationsTests {
    @Test func healthReadinessMetricsAndTheOpenAPIDocumentAreServedWithoutAToken() async throws {
        try await TestServer.with { server in
            let health = try await server.request("GET", "/healthz")
            #expect(health.status == 200 && health.text == #"{"status":"ok"}"#)
            var ready = try await server.request("GET", "/readyz")
            for _ in 0..<50 where ready.status != 200 {
                try await Task.sleep(for: .milliseconds(100))
                ready = try await server.request("GET", "/readyz")
            }
            #expect(ready.status == 200, "\(ready.text)")
            try await server.createVehicle("v-1")
            let metrics = try await server.request("GET", "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains(#"waymark_http_requests_total{route="CreateVehicle",method="POST",status="200"} 1"#), "\(metrics.text)")
            #expect(metrics.text.contains(#"waymark_http_request_duration_seconds_bucket{route="CreateVehicle",le="+Inf"} 1"#))
            #expect(metrics.text.contains(#"waymark_projection_lag_seconds{projection="fleet"}"#))
            #expect(metrics.text.contains("waymark_http_open_streams"))
            let openAPI = try await server.request("GET", "/openapi.json")
            let checkedIn = try [UInt8](Data(contentsOf: URL(fileURLWithPath: WaymarkBinary.packageRoot + "/api/openapi.json")))
            #expect(openAPI.status == 200 && openAPI.body == checkedIn)
        }
    }

    @Test func everyResponseCarriesARequestIdAndUnknownRoutesGetFleetEngineErrors() async throws {
        try await TestServer.with { server in
            let echoed = try await server.request("GET", "/healthz", headers: ["x-request-id": "trace-42"])
            #expect(echoed.header("x-request-id") == "trace-42")
            let generated = try await server.request("GET", "/v1/providers/acme/nothing", token: server.server)
            #expect(generated.header("x-request-id")?.isEmpty == false)
            #expect(generated.status == 404 && generated.text.contains("NOT_FOUND"))
            let wrongMethod = try await server.request("PATCH", "/v1/providers/acme/trips/t-1", body: "{}", token: server.server)
            #expect(wrongMethod.status == 405 && wrongMethod.text.contains("UNIMPLEMENTED"), "\(wrongMethod.text)")
        }
    }

    @Test func aBodyOverTheLimitIsRejectedWith413AndNothingIsWritten() async throws {
        try await TestServer.with(environment: ["WAYMARK_MAX_BODY_BYTES": "4096"]) { server in
            let before = try await server.eventCount()
            let padding = String(repeating: "x", count: 8000)
            let response = try await server.request("POST", "/v1/providers/acme/trips?tripId=t-big",
                                                    body: #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52,"longitude":13}},"name":"\#(padding)"}"#,
                                                    token: server.server)
            #expect(response.status == 413, "\(response.text)")
            #expect(response.text.contains("\"code\":413"))
            #expect(response.header("x-request-id") != nil)
            #expect(try await server.eventCount() == before)
        }
    }

    @Test func serveStopsCleanlyOnSigterm() async throws {
        try await TestDatabase.withTestDatabase { url in
            let server = try await TestServer.start(databaseURL: url)
            _ = try await server.request("GET", "/healthz")
            let status = server.stop()
            #expect(status == 0, "exit status \(status)")
        }
    }
}
