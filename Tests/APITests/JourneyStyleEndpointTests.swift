import API
import Foundation
import JSON
import Testing
import TestSupport

extension RiderEndpoints {
    /// `GET` / `PUT /v1/providers/{p}/journeyStyle`: the provider's style for riders' maps.
    @Suite(.timeLimit(.minutes(3))) struct JourneyStyleEndpointTests {
        static let path = "/v1/providers/acme/journeyStyle"
        static let style = """
            {"markers":{"TRIP_VEHICLE":{"groundAnchor":{"x":0.5,"y":0.5},"icon":"https://cdn.example.com/car.png","flat":true,"zIndex":3},
                        "TRIP_PICKUP_POINT":{"visible":false}},
             "polylines":{"ACTIVE_ROUTE":{"color":"#4285F4","width":8,"trafficEnabled":true,
                                          "trafficColors":{"SLOW":"#FFA500","TRAFFIC_JAM":"#FF0000CC"}},
                          "REMAINING_ROUTE":{"color":"#7f7f7f80","visible":true}}}
            """

        @Test func aStyleIsVersionedAndEveryJourneyViewOfTheProviderCarriesItsVersion() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                let (initial, empty) = try await server.json("GET", Self.path)
                #expect(initial == 200)
                #expect(empty == ["name": "providers/acme/journeyStyle", "version": 0, "updateTime": nil, "markers": [:], "polylines": [:]])
                let before = try await server.journeyView("t-1")

                let put = try await server.request("PUT", Self.path, body: Self.style, token: server.server)
                #expect(put.status == 200, "\(put.text)")
                #expect(put.header("ETag") == "\"1\"")
                let stored = put.json
                #expect(stored["version"] == 1)
                #expect(stored["markers"]?["TRIP_VEHICLE"] == ["groundAnchor": ["x": 0.5, "y": 0.5], "icon": "https://cdn.example.com/car.png", "zIndex": 3, "flat": true])
                #expect(stored["polylines"]?["ACTIVE_ROUTE"]?["trafficColors"] == ["SLOW": "#FFA500", "TRAFFIC_JAM": "#FF0000CC"])
                #expect(stored["polylines"]?["REMAINING_ROUTE"]?["trafficEnabled"] == false, "trafficEnabled defaults to false")
                let (_, fetched) = try await server.json("GET", Self.path, token: server.token(.consumer, trip: "t-1"))
                #expect(fetched == stored)

                // The journey view moved to a new version carrying the style's version.
                let restyled = try await server.journeyView("t-1") { $0["styleVersion"] == 1 }
                #expect(version(restyled) > version(before))

                // The same style again changes nothing; another one is version 2.
                #expect(try await server.json("PUT", Self.path, Self.style).1["version"] == 1)
                let (_, second) = try await server.json("PUT", Self.path, #"{"polylines":{"ACTIVE_ROUTE":{"width":4}}}"#)
                #expect(second["version"] == 2)
                #expect(second["markers"] == [:])
                _ = try await server.journeyView("t-1") { $0["styleVersion"] == 2 }
                // If-Match guards against lost updates.
                let stale = try await server.request("PUT", Self.path, body: Self.style, token: server.server, headers: ["If-Match": "\"1\""])
                expectError(stale.pair, 409, "ABORTED")
                let fresh = try await server.request("PUT", Self.path, body: Self.style, token: server.server, headers: ["If-Match": "\"2\""])
                #expect(fresh.status == 200 && fresh.json["version"] == 3)
                // Another provider's style is its own.
                let (_, other) = try await server.json("GET", "/v1/providers/other/journeyStyle", token: server.token(.server, provider: "other"))
                #expect(other["version"] == 0)
            }
        }

        @Test func invalidStylesAreRejectedNamingTheValue() async throws {
            try await TestServer.with { server in
                let cases: [(String, String)] = [
                    (##"{"polylines":{"ACTIVE_ROUTE":{"color":"red"}}}"##, "journeyStyle.polylines.ACTIVE_ROUTE.color"),
                    (##"{"polylines":{"ACTIVE_ROUTE":{"color":"#12345"}}}"##, "#RRGGBB"),
                    (##"{"polylines":{"ACTIVE_ROUTE":{"color":"#GG0000"}}}"##, "#RRGGBB"),
                    (##"{"polylines":{"ACTIVE_ROUTE":{"width":0}}}"##, "width"),
                    (##"{"polylines":{"ACTIVE_ROUTE":{"width":100.5}}}"##, "width"),
                    (##"{"polylines":{"ACTIVE_ROUTE":{"width":"wide"}}}"##, "width"),
                    (##"{"polylines":{"ACTIVE_ROUTE":{"trafficColors":{"FAST":"#00FF00"}}}}"##, "FAST"),
                    (##"{"polylines":{"ACTIVE_ROUTE":{"trafficColors":{"SLOW":"orange"}}}}"##, "trafficColors.SLOW"),
                    (##"{"polylines":{"ROUTE":{"width":3}}}"##, "polyline type"),
                    (##"{"markers":{"TRIP_VEHICLE":{"groundAnchor":{"x":1.5,"y":0.5}}}}"##, "groundAnchor.x"),
                    (##"{"markers":{"TRIP_VEHICLE":{"groundAnchor":{"x":0.5,"y":-0.1}}}}"##, "groundAnchor.y"),
                    (##"{"markers":{"TRIP_VEHICLE":{"groundAnchor":{"x":0.5}}}}"##, "groundAnchor"),
                    (##"{"markers":{"TRIP_VEHICLE":{"icon":"ftp://example.com/car.png"}}}"##, "icon"),
                    (##"{"markers":{"TRIP_VEHICLE":{"icon":"https://example.com/a car.png"}}}"##, "icon"),
                    (##"{"markers":{"TRIP_VEHICLE":{"zIndex":3000000000}}}"##, "zIndex"),
                    (##"{"markers":{"TRIP_VEHICLE":{"visible":"yes"}}}"##, "visible"),
                    (##"{"markers":{"CAR":{"visible":true}}}"##, "marker type"),
                    (##"{"markers":{"TRIP_VEHICLE":{"rotation":90}}}"##, "rotation"),
                    (##"{"markers":[],"polylines":{}}"##, "journeyStyle.markers"),
                    (##"{"theme":"dark"}"##, "theme"),
                ]
                for (body, named) in cases {
                    expectError(try await server.json("PUT", Self.path, body), 400, "INVALID_ARGUMENT", containing: named)
                }
                #expect(try await server.json("GET", Self.path).1["version"] == 0, "nothing was stored")
                let form = try await server.request("PUT", Self.path, body: "markers=none", token: server.server, contentType: "text/plain")
                #expect(form.status == 415)
                let badMatch = try await server.request("PUT", Self.path, body: "{}", token: server.server, headers: ["If-Match": "3"])
                expectError(badMatch.pair, 400, "INVALID_ARGUMENT", containing: "If-Match")
            }
        }

        @Test func onlyServerTokensMayChangeTheStyleAndEveryRoleOfTheProviderMayReadIt() async throws {
            try await TestServer.with { server in
                for token in [server.token(.consumer, trip: "t-1"), server.token(.driver, vehicle: "v-1"), server.token(.auditor)] {
                    expectError(try await server.json("PUT", Self.path, Self.style, token: token), 403, "PERMISSION_DENIED")
                    #expect(try await server.json("GET", Self.path, token: token).0 == 200)
                }
                expectError(try await server.json("PUT", Self.path, Self.style, token: server.token(.server, provider: "other")), 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", Self.path, token: server.token(.server, provider: "other")), 403, "PERMISSION_DENIED")
                let anonymous = try await server.request("GET", Self.path)
                expectError(anonymous.pair, 401, "UNAUTHENTICATED")
                expectError(try await server.json("DELETE", Self.path), 405, "UNIMPLEMENTED")
                expectError(try await server.json("GET", Self.path + "?version=2"), 400, "INVALID_ARGUMENT", containing: "version")
            }
        }
    }
}
