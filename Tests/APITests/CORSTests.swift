import API
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

/// `WAYMARK_CORS_ORIGINS`: a rider's browser app on another origin may call the rider routes, and
/// nothing else.
@Suite(.timeLimit(.minutes(2))) struct CORSTests {
    static let app = "https://rides.example.com"

    @Test func anAllowedOriginIsAnsweredOnTheRiderRoutesIncludingPreflightsAndTheStream() async throws {
        try await TestServer.with(environment: ["WAYMARK_CORS_ORIGINS": "http://localhost:3000, \(Self.app)"]) { server in
            try await server.startTrip()
            let rider = server.token(.consumer, trip: "t-1")
            let journey = "/v1/providers/acme/trips/t-1/journey"

            let preflight = try await server.request("OPTIONS", journey, token: nil, contentType: nil, headers: [
                "Origin": Self.app, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization",
            ])
            #expect(preflight.status == 204, "\(preflight.text)")
            #expect(preflight.header("Access-Control-Allow-Origin") == Self.app)
            #expect(preflight.header("Access-Control-Allow-Methods")?.contains("GET") == true)
            #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
            #expect(preflight.header("Vary") == "Origin")

            let read = try await server.request("GET", journey, token: rider, headers: ["Origin": Self.app])
            #expect(read.status == 200 && read.header("Access-Control-Allow-Origin") == Self.app)
            #expect(read.header("Access-Control-Expose-Headers")?.contains("ETag") == true)
            // An error answer carries the headers too, so the app can read why.
            let denied = try await server.request("GET", "/v1/providers/acme/trips/t-9/journey", token: rider, headers: ["Origin": Self.app])
            #expect(denied.status >= 400 && denied.header("Access-Control-Allow-Origin") == Self.app)

            let stream = try await server.openStream("\(journey):stream", token: rider, headers: [("Origin", Self.app)])
            #expect(stream.status == 200 && stream.headers["access-control-allow-origin"] == Self.app, "\(stream.headers)")
            stream.close()

            let share = try await server.request("OPTIONS", "/v1/providers/acme/trips/t-1:share", token: nil, contentType: nil,
                                                 headers: ["Origin": Self.app, "Access-Control-Request-Method": "POST"])
            #expect(share.status == 204 && share.header("Access-Control-Allow-Methods") == "POST", "\(share.text)")
        }
    }

    @Test func otherOriginsAndNonRiderRoutesGetNoCrossOriginAccess() async throws {
        try await TestServer.with(environment: ["WAYMARK_CORS_ORIGINS": Self.app]) { server in
            try await server.startTrip()
            let journey = "/v1/providers/acme/trips/t-1/journey"
            let stranger = try await server.request("OPTIONS", journey, token: nil, contentType: nil,
                                                    headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "GET"])
            #expect(stranger.status == 403 && stranger.header("Access-Control-Allow-Origin") == nil, "\(stranger.text)")
            #expect(stranger.text.contains("WAYMARK_CORS_ORIGINS"))
            let read = try await server.request("GET", journey, token: server.token(.consumer, trip: "t-1"), headers: ["Origin": "https://evil.example"])
            #expect(read.status == 200 && read.header("Access-Control-Allow-Origin") == nil)
            // The Fleet Engine API is server-to-server: no CORS answer, whatever the origin.
            let fleet = try await server.request("GET", "/v1/providers/acme/trips/t-1", token: server.server, headers: ["Origin": Self.app])
            #expect(fleet.status == 200 && fleet.header("Access-Control-Allow-Origin") == nil)
            let fleetPreflight = try await server.request("OPTIONS", "/v1/providers/acme/trips/t-1", token: nil, contentType: nil,
                                                          headers: ["Origin": Self.app, "Access-Control-Request-Method": "PUT"])
            #expect(fleetPreflight.status == 405 && fleetPreflight.header("Access-Control-Allow-Origin") == nil, "\(fleetPreflight.text)")
            // Changing the journey style is the provider's server's business.
            let style = try await server.request("OPTIONS", "/v1/providers/acme/journeyStyle", token: nil, contentType: nil,
                                                 headers: ["Origin": Self.app, "Access-Control-Request-Method": "PUT"])
            #expect(style.status == 403 && style.header("Access-Control-Allow-Origin") == nil, "\(style.text)")
        }
    }

    @Test func withoutTheSettingNoOriginIsAnsweredAndABadSettingStopsTheServer() async throws {
        try await TestServer.with { server in
            try await server.startTrip()
            let journey = "/v1/providers/acme/trips/t-1/journey"
            let read = try await server.request("GET", journey, token: server.token(.consumer, trip: "t-1"), headers: ["Origin": Self.app])
            #expect(read.status == 200 && read.header("Access-Control-Allow-Origin") == nil)
            let preflight = try await server.request("OPTIONS", journey, token: nil, contentType: nil,
                                                     headers: ["Origin": Self.app, "Access-Control-Request-Method": "GET"])
            #expect(preflight.status == 403 && preflight.text.contains("WAYMARK_CORS_ORIGINS"), "\(preflight.text)")
        }
        for bad in ["rides.example.com", "https://rides.example.com/app", "https://*.example.com", "ftp://x.example"] {
            let result = try await WaymarkBinary.run(["serve"], environment: ["WAYMARK_CORS_ORIGINS": bad, "WAYMARK_HTTP_PORT": "0"])
            #expect(result.status == 2 && result.stderr.contains("WAYMARK_CORS_ORIGINS must be"), "\(bad): \(result.stderr)")
        }
    }
}
