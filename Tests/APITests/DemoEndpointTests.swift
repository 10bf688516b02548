import API
import Foundation
import JSON
import Testing
import TestSupport

extension RiderEndpoints {
    /// `waymark serve --demo`: the journey page, the city it draws, the demo provider's trips, and
    /// the tokens it mints (demo provider only, only with `--demo`).
    @Suite(.timeLimit(.minutes(3))) struct DemoEndpointTests {
        @Test func thePageItsScriptAndStylesAreServedFromTheBinary() async throws {
            try await TestServer.with(arguments: ["--demo"]) { server in
                let page = try await server.request("GET", "/demo")
                #expect(page.status == 200)
                #expect(page.header("content-type")?.hasPrefix("text/html") == true)
                #expect(page.text.contains(#"<svg id="map""#) && page.text.contains("/demo/demo.js"))
                #expect(!page.text.contains("https://"), "the page loads nothing from the internet")
                let rider = try await server.request("GET", "/demo/rider?provider=demo&trip=t-1")
                #expect(rider.status == 200 && rider.body == page.body)
                let script = try await server.request("GET", "/demo/demo.js")
                #expect(script.status == 200 && script.header("content-type")?.hasPrefix("text/javascript") == true)
                #expect(script.text.contains("journey:stream") && !script.text.contains("https://"))
                let styles = try await server.request("GET", "/demo/demo.css")
                #expect(styles.status == 200 && styles.header("content-type")?.hasPrefix("text/css") == true)
            }
        }

        @Test func theCityIsTheSimulatorsGridForTheSeed() async throws {
            try await TestServer.with(arguments: ["--demo", "--seed", "7"]) { server in
                let city = try await server.request("GET", "/demo/city.json")
                #expect(city.status == 200)
                let value = try JSONValue.parse(city.body)
                #expect(value["seed"] == "7")
                #expect(value["nodes"]?.arrayValue?.count == 12 * 14)
                #expect((value["streets"]?.arrayValue?.count ?? 0) > 300)
            }
        }

        @Test func activeTripsAreListedAndATokenIsMintedForOneOfThem() async throws {
            try await TestServer.with(arguments: ["--demo"]) { server in
                try await server.createVehicle("v-1", provider: "demo")
                try await server.createTrip("t-1", provider: "demo")
                let demoServer = server.token(.server, provider: "demo")
                let (assigned, body) = try await server.json("PUT", "/v1/providers/demo/trips/t-1?updateMask=vehicleId,tripStatus",
                                                             #"{"vehicleId":"v-1","tripStatus":"ENROUTE_TO_PICKUP"}"#, token: demoServer)
                try #require(assigned == 200, "\(body)")
                let listed = try await server.json("GET", "/demo/trips")
                #expect(listed.0 == 200)
                #expect(listed.1["trips"]?.arrayValue?.map { $0["tripId"] } == ["t-1"])
                #expect(listed.1["trips"]?[0]?["vehicleId"] == "v-1")

                let (status, minted) = try await server.json("GET", "/demo/token?trip=t-1")
                #expect(status == 200)
                #expect(minted["provider"] == "demo" && minted["vehicleId"] == "v-1")
                let consumer = try #require(minted["token"]?.stringValue)
                let journey = try await server.journey("t-1", provider: "demo", token: consumer)
                #expect(journey.status == 200, "the minted consumer token reads the trip's journey")
                let other = try await server.request("GET", "/v1/providers/demo/vehicles/v-1", token: consumer)
                #expect(other.status == 403, "and nothing a rider may not read")
                let driver = try #require(minted["driverToken"]?.stringValue)
                let vehicle = try await server.request("GET", "/v1/providers/demo/vehicles/v-1", token: driver)
                #expect(vehicle.status == 200)
            }
        }

        @Test func tokensAreMintedOnlyForTripsOfTheDemoProvider() async throws {
            try await TestServer.with(arguments: ["--demo"]) { server in
                try await server.createTrip("t-1")  // provider acme
                let before = try await server.eventCount()
                expectError(try await server.json("GET", "/demo/token?trip=t-1"), 404, "NOT_FOUND", containing: "provider demo")
                expectError(try await server.json("GET", "/demo/token"), 400, "INVALID_ARGUMENT", containing: "trip is required")
                expectError(try await server.json("POST", "/demo/token?trip=t-1", "{}"), 405, "UNIMPLEMENTED")
                expectError(try await server.json("GET", "/demo/elsewhere"), 404, "NOT_FOUND")
                let after = try await server.eventCount()
                #expect(after == before)
            }
        }

        @Test func withoutDemoThereIsNoTripListNoCityAndNoTokens() async throws {
            try await TestServer.with { server in
                for path in ["/demo", "/demo/", "/demo/trips", "/demo/city.json", "/demo/token?trip=t-1"] {
                    let response = try await server.request("GET", path)
                    #expect(response.status == 404, "\(path): \(response.status)")
                    #expect(response.text.contains("--demo"), "\(path): \(response.text)")
                }
            }
        }

        /// A share link's `url` names the rider page; it must open on every server, not only on
        /// one started with `--demo` (the page takes its token from the link, it mints none).
        @Test func theRiderPageAShareLinkNamesIsServedWithoutDemo() async throws {
            try await TestServer.with { server in
                try await server.createVehicle("v-1")
                try await server.createTrip("t-1")
                _ = try await server.updateTrip("t-1", mask: "vehicleId", #"{"vehicleId":"v-1"}"#)
                let (status, link) = try await server.json("POST", "/v1/providers/acme/trips/t-1:share", "{}")
                try #require(status == 200, "\(link)")
                let url = try #require(link["url"]?.stringValue)
                let path = String(url[try #require(url.range(of: "/demo/rider")).lowerBound...].prefix { $0 != "#" })
                let page = try await server.request("GET", path)
                #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true, "\(path): \(page.status)")
                for asset in ["/demo/demo.js", "/demo/demo.css"] {
                    #expect(try await server.request("GET", asset).status == 200, "\(asset)")
                }
            }
        }
    }
}
