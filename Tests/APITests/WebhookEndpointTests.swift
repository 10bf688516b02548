import API
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

/// `POST/GET/DELETE /v1/providers/{p}/webhooks[/{id}]`, `:resume`, `:replay`: the subscription resource and its refusals.
@Suite(.timeLimit(.minutes(3))) struct WebhookEndpointTests {
    static let path = "/v1/providers/acme/webhooks"
    static let allowPrivate = ["WAYMARK_WEBHOOKS_ALLOW_PRIVATE": "true"]

    static func body(url: String = "http://127.0.0.1:9/hook", secret: String = "0123456789abcdef", extra: String = "") -> String {
        #"{"url":"\#(url)","secret":"\#(secret)"\#(extra)}"#
    }

    /// Rows in `webhook_subscriptions` (to prove a refused request stored nothing).
    static func rows(_ server: TestServer) async throws -> Int64 {
        let url = server.databaseURL
        return try await Blocking.run { try Connection(conninfo: url).query("SELECT count(*) FROM webhook_subscriptions").first?.int64(0) ?? -1 }
    }

    @Test func aSubscriptionIsCreatedListedReadAndDeletedWithoutEverShowingItsSecret() async throws {
        try await TestServer.with(environment: Self.allowPrivate) { server in
            let (status, created) = try await server.json("POST", Self.path + "?webhookId=w-1", Self.body(extra: #","eventTypes":["TripStatusChanged","VehicleArrivedNearStop"],"tripIds":["t-1"]"#))
            #expect(status == 200, "\(created)")
            #expect(created["name"] == "providers/acme/webhooks/w-1")
            #expect(created["url"] == "http://127.0.0.1:9/hook")
            #expect(created["eventTypes"] == ["TripStatusChanged", "VehicleArrivedNearStop"])
            #expect(created["tripIds"] == ["t-1"])
            #expect(created["vehicleIds"] == [])
            #expect(created["status"]?["paused"] == false)
            #expect(created["status"]?["consecutiveFailures"] == 0)
            #expect(!created.compactText.contains("0123456789abcdef"), "the secret must never be rendered")

            // A generated id when none is given.
            let (_, second) = try await server.json("POST", Self.path, Self.body())
            let generated = try #require(second["webhookId"]?.stringValue)
            #expect(UUID(uuidString: generated) != nil)

            let (_, listed) = try await server.json("GET", Self.path)
            #expect(listed["webhooks"]?.arrayValue?.count == 2)
            #expect(!listed.compactText.contains("0123456789abcdef"))
            let (_, fetched) = try await server.json("GET", Self.path + "/w-1")
            #expect(fetched["webhookId"] == "w-1")

            // Another provider sees none of them.
            let (_, other) = try await server.json("GET", "/v1/providers/other/webhooks", token: server.token(.server, provider: "other"))
            #expect(other["webhooks"] == [])

            let (deleted, empty) = try await server.json("DELETE", Self.path + "/w-1")
            #expect(deleted == 200 && empty == [:])
            expectError(try await server.json("GET", Self.path + "/w-1"), 404, "NOT_FOUND", containing: "w-1")
            #expect(try await Self.rows(server) == 1)
        }
    }

    @Test func invalidSubscriptionsAreRefusedNamingTheProblemAndStoreNothing() async throws {
        try await TestServer.with(environment: Self.allowPrivate) { server in
            let cases: [(String, String)] = [
                ("{", "not valid JSON"),
                ("[]", "JSON object"),
                (#"{"secret":"0123456789abcdef"}"#, "url is required"),
                (Self.body(url: "ftp://example.com/x"), "http or https"),
                (Self.body(url: "not a url"), "url"),
                (Self.body(url: "http://user:pw@example.com/x"), "credentials"),
                (#"{"url":"http://127.0.0.1:9/"}"#, "secret is required"),
                (Self.body(secret: "short"), "16 to 256 bytes"),
                (Self.body(extra: #","eventTypes":["TripExploded"]"#), "unknown event type"),
                (Self.body(extra: #","eventTypes":"TripCreated""#), "eventTypes must be an array"),
                (Self.body(extra: #","tripIds":[1]"#), "tripIds[0] must be a string"),
                (Self.body(extra: #","vehicleIds":["a/b"]"#), "vehicleIds"),
                (Self.body(extra: #","colour":"red""#), "unknown field"),
            ]
            for (body, text) in cases {
                expectError(try await server.json("POST", Self.path, body), 400, "INVALID_ARGUMENT", containing: text)
            }
            let wrongType = try await server.request("POST", Self.path, body: Self.body(), token: server.server, contentType: "text/plain")
            #expect(wrongType.status == 415)
            expectError(try await server.json("POST", Self.path + "?webhookId=a:b", Self.body()), 400, "INVALID_ARGUMENT", containing: "webhookId")
            expectError(try await server.json("POST", Self.path + "?colour=red", Self.body()), 400, "INVALID_ARGUMENT")
            #expect(try await Self.rows(server) == 0)

            // A taken id is ALREADY_EXISTS.
            #expect(try await server.json("POST", Self.path + "?webhookId=w-1", Self.body()).0 == 200)
            expectError(try await server.json("POST", Self.path + "?webhookId=w-1", Self.body()), 409, "ALREADY_EXISTS", containing: "w-1")
            #expect(try await Self.rows(server) == 1)
        }
    }

    @Test func onlyTheProvidersServerTokensMayManageWebhooks() async throws {
        try await TestServer.with(environment: Self.allowPrivate) { server in
            #expect(try await server.json("POST", Self.path + "?webhookId=w-1", Self.body()).0 == 200)
            for role in [Principal.Role.driver, .consumer, .auditor] {
                let token = server.token(role, trip: "t-1", vehicle: "v-1")
                expectError(try await server.json("POST", Self.path, Self.body(), token: token), 403, "PERMISSION_DENIED", containing: "webhooks")
                expectError(try await server.json("GET", Self.path, token: token), 403, "PERMISSION_DENIED")
                expectError(try await server.json("DELETE", Self.path + "/w-1", token: token), 403, "PERMISSION_DENIED")
            }
            expectError(try await server.json("GET", Self.path, token: server.token(.server, provider: "other")), 403, "PERMISSION_DENIED", containing: "another provider")
            let anonymous = try await server.request("GET", Self.path)
            #expect(anonymous.status == 401)
            let garbage = try await server.request("GET", Self.path, token: "not-a-jwt")
            #expect(garbage.status == 401)
            #expect(try await Self.rows(server) == 1)
        }
    }

    @Test func unknownSubscriptionsAndBadReplayPositionsAreNamed() async throws {
        try await TestServer.with(environment: Self.allowPrivate) { server in
            expectError(try await server.json("GET", Self.path + "/nope"), 404, "NOT_FOUND", containing: "nope")
            expectError(try await server.json("DELETE", Self.path + "/nope"), 404, "NOT_FOUND")
            expectError(try await server.json("POST", Self.path + "/nope:resume"), 404, "NOT_FOUND")
            expectError(try await server.json("POST", Self.path + "/nope:replay?fromPosition=1"), 404, "NOT_FOUND")
            #expect(try await server.json("POST", Self.path + "?webhookId=w-1", Self.body()).0 == 200)
            expectError(try await server.json("POST", Self.path + "/w-1:replay"), 400, "INVALID_ARGUMENT", containing: "fromPosition is required")
            expectError(try await server.json("POST", Self.path + "/w-1:replay?fromPosition=0"), 400, "INVALID_ARGUMENT", containing: "≥ 1")
            expectError(try await server.json("POST", Self.path + "/w-1:replay?fromPosition=abc"), 400, "INVALID_ARGUMENT")
            expectError(try await server.json("PUT", Self.path + "/w-1"), 405, "UNIMPLEMENTED", containing: "DELETE, GET")
            expectError(try await server.json("GET", Self.path + "/w-1:resume"), 405, "UNIMPLEMENTED")
            expectError(try await server.json("DELETE", Self.path), 405, "UNIMPLEMENTED")
        }
    }

    @Test func urlsPointingIntoPrivateNetworksAreRefused() async throws {
        try await TestServer.with { server in
            for url in ["http://127.0.0.1:8080/x", "http://localhost/x", "http://10.1.2.3/x", "http://192.168.0.10/x", "http://172.20.0.1/x",
                        "http://169.254.169.254/latest/meta-data", "http://[::1]:8080/x", "http://[fe80::1]/x", "http://[fd00::1]/x",
                        "http://[::ffff:127.0.0.1]/x", "http://0.0.0.0/x", "http://100.64.0.1/x",
                        // IPv6 forms that carry a private IPv4 address: IPv4-compatible, SIIT, 6to4, Teredo (client 10.0.0.1).
                        "http://[::127.0.0.1]/x", "http://[::ffff:0:127.0.0.1]/x", "http://[2002:7f00:1::1]/x", "http://[2002:c0a8:101::1]/x",
                        "http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/x", "http://[64:ff9b:1::a00:1]/x"] {
                expectError(try await server.json("POST", Self.path, Self.body(url: url)), 400, "INVALID_ARGUMENT", containing: "public addresses")
            }
            // A public literal address passes the check (nothing is sent until there is an event).
            #expect(try await server.json("POST", Self.path + "?webhookId=public", Self.body(url: "http://203.0.113.7/hook")).0 == 200)
            #expect(try await Self.rows(server) == 1)
        }
    }
}

@Test func theDocumentedEventTypesAreExactlyTheOnesASubscriptionAccepts() async throws {
    let document = try JSONValue.parse(Array(String(decoding: try Data(contentsOf: URL(fileURLWithPath: WaymarkBinary.packageRoot + "/api/openapi.json")), as: UTF8.self).utf8))
    let documented = document["components"]?["schemas"]?["WebhookEventType"]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? []
    #expect(Set(documented) == WebhookService.knownEventTypes)
    #expect(documented.count == WebhookService.knownEventTypes.count)
}

extension JSONValue {
    /// The compact JSON text (to search an answer for a value that must not be there).
    var compactText: String { String(decoding: compactBytes(), as: UTF8.self) }
}
