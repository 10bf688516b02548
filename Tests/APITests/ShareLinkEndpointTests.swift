import API
import Foundation
import JSON
import Testing
import TestSupport

extension RiderEndpoints {
    /// `POST .../trips/{t}:share` and `:unshare`: links that read one trip's journey and nothing else.
    @Suite(.timeLimit(.minutes(3))) struct ShareLinkEndpointTests {
        static func share(_ server: TestServer, _ trip: String = "t-1", body: String = "{}", token: String? = nil) async throws -> (Int, JSONValue) {
            try await server.json("POST", "/v1/providers/acme/trips/\(trip):share", body, token: token)
        }

        @Test func aShareLinkReadsItsTripsJourneyAndEverythingElseIs403() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                try await server.createTrip("t-2")
                let before = Int64(Date().timeIntervalSince1970)
                let (status, shared) = try await Self.share(server)
                #expect(status == 200, "\(shared)")
                #expect(shared.objectValue?.keys == ["token", "url", "expireTime"])
                let link = try #require(shared["token"]?.stringValue)
                #expect(link.hasPrefix("wms1."))
                #expect(shared["url"]?.stringValue?.hasSuffix("#access_token=\(link)") == true)
                let expires = try #require(shared["expireTime"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: String($0.prefix(19)) + "Z") })
                #expect(Int64(expires.timeIntervalSince1970) <= before + 24 * 3600 + 5)

                // Reads: GET (header or access_token) and the stream.
                #expect(try await server.journey("t-1", token: link).status == 200)
                #expect(try await server.request("GET", "/v1/providers/acme/trips/t-1/journey?access_token=\(link)").status == 200)
                let stream = try await server.openStream("/v1/providers/acme/trips/t-1/journey:stream?access_token=\(link)", token: nil)
                defer { stream.close() }
                #expect(stream.status == 200)
                #expect(try await stream.nextEventAsync()?.id != nil)

                // Everything else: 403.
                expectError((try await server.journey("t-2", token: link)).pair, 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", "/v1/providers/acme/trips/t-1", token: link), 403, "PERMISSION_DENIED", containing: "share-link")
                expectError(try await server.json("GET", "/v1/providers/acme/trips/t-1?view=JOURNEY_SHARING_V1S", token: link), 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", "/v1/providers/acme/vehicles/v-1", token: link), 403, "PERMISSION_DENIED")
                expectError(try await server.json("PUT", "/v1/providers/acme/trips/t-1?updateMask=tripStatus", #"{"tripStatus":"CANCELED"}"#, token: link),
                            403, "PERMISSION_DENIED")
                expectError(try await Self.share(server, token: link), 403, "PERMISSION_DENIED")
                expectError(try await server.json("POST", "/v1/providers/acme/trips/t-1:unshare", "{}", token: link), 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", "/v1/providers/acme/journeyStyle", token: link), 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", "/v1/providers/acme/consumers/c-1/trips", token: link), 403, "PERMISSION_DENIED")
                // A tampered link is not a link.
                let forged = String(link.dropLast(2)) + (link.hasSuffix("AA") ? "BB" : "AA")
                expectError((try await server.journey("t-1", token: forged)).pair, 401, "UNAUTHENTICATED")
                expectError(try await server.json("GET", "/v1/providers/acme/trips/t-1", token: forged), 401, "UNAUTHENTICATED")
            }
        }

        @Test func whoMayShareAndBadShareRequests() async throws {
            try await TestServer.with { server in
                try await server.startTrip(consumer: "rider-1")
                #expect(try await Self.share(server, token: server.token(.consumer, trip: "t-1")).0 == 200)
                #expect(try await Self.share(server, token: server.token(.consumer, consumer: "rider-1")).0 == 200)
                expectError(try await Self.share(server, token: server.token(.consumer, trip: "t-2")), 403, "PERMISSION_DENIED")
                expectError(try await Self.share(server, token: server.token(.consumer, consumer: "rider-2")), 403, "PERMISSION_DENIED")
                expectError(try await Self.share(server, token: server.token(.driver, vehicle: "v-1")), 403, "PERMISSION_DENIED")
                expectError(try await Self.share(server, token: server.token(.auditor)), 403, "PERMISSION_DENIED")
                expectError(try await Self.share(server, token: server.token(.server, provider: "other")), 403, "PERMISSION_DENIED")
                let anonymous = try await server.request("POST", "/v1/providers/acme/trips/t-1:share", body: "{}")
                expectError(anonymous.pair, 401, "UNAUTHENTICATED")
                expectError(try await Self.share(server, body: #"{"ttlSeconds":0}"#), 400, "INVALID_ARGUMENT", containing: "ttlSeconds")
                expectError(try await Self.share(server, body: #"{"ttlSeconds":86401}"#), 400, "INVALID_ARGUMENT", containing: "ttlSeconds")
                expectError(try await Self.share(server, body: #"{"ttlSeconds":"soon"}"#), 400, "INVALID_ARGUMENT", containing: "ttlSeconds")
                expectError(try await Self.share(server, body: #"{"audience":"friends"}"#), 400, "INVALID_ARGUMENT", containing: "audience")
                expectError(try await Self.share(server, "t-9"), 404, "NOT_FOUND")
                expectError(try await server.json("GET", "/v1/providers/acme/trips/t-1:share"), 405, "UNIMPLEMENTED")
                let (_, short) = try await Self.share(server, body: #"{"ttlSeconds":60}"#)
                let expires = try #require(short["expireTime"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: String($0.prefix(19)) + "Z") })
                #expect(abs(expires.timeIntervalSinceNow - 60) < 10)
                // An ended trip cannot be shared.
                try await server.completeTrip()
                _ = try await server.journeyView("t-1") { $0["tripStatus"] == "COMPLETE" }
                expectError(try await Self.share(server), 400, "FAILED_PRECONDITION", containing: "ended")
            }
        }

        @Test func aLinkStopsWorkingWhenItExpires() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                let (_, shared) = try await Self.share(server, body: #"{"ttlSeconds":2}"#)
                let link = try #require(shared["token"]?.stringValue)
                #expect(try await server.journey("t-1", token: link).status == 200)
                let stream = try await server.openStream("/v1/providers/acme/trips/t-1/journey:stream", token: link)
                defer { stream.close() }
                _ = try #require(try await stream.nextEventAsync())
                // The link expires by the clock, so real time has to pass: its 2 s ran from before the
                // share was answered, so 3 s from the answer are past the expiry however slow the
                // machine (not a wait for an outcome; the stream's end below is waited for).
                try await Task.sleep(for: .seconds(3))
                expectError((try await server.journey("t-1", token: link)).pair, 401, "UNAUTHENTICATED", containing: "expired")
                // The open stream ended too (checked once a second).
                let end = try #require(try await stream.nextEventAsync())
                #expect(end.event == "end")
                #expect(try JSONValue.parse(Array(end.data.utf8))["reason"] == "LINK_EXPIRED")
            }
        }

        @Test func revokingALinkEndsItsOpenStreamsAndUnshareWithoutATokenRevokesEveryLink() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                let first = try #require(try await Self.share(server).1["token"]?.stringValue)
                let second = try #require(try await Self.share(server).1["token"]?.stringValue)
                let third = try #require(try await Self.share(server).1["token"]?.stringValue)
                let stream = try await server.openStream("/v1/providers/acme/trips/t-1/journey:stream?access_token=\(first)", token: nil)
                defer { stream.close() }
                _ = try #require(try await stream.nextEventAsync())
                let other = try await server.openStream("/v1/providers/acme/trips/t-1/journey:stream", token: second)
                defer { other.close() }
                _ = try #require(try await other.nextEventAsync())

                let started = ContinuousClock.now
                let (status, revoked) = try await server.json("POST", "/v1/providers/acme/trips/t-1:unshare", #"{"token":"\#(first)"}"#)
                #expect(status == 200, "\(revoked)")
                #expect(revoked["revoked"] == 1)
                let end = try #require(try await stream.nextEventAsync())
                #expect(end.event == "end")
                #expect(try JSONValue.parse(Array(end.data.utf8))["reason"] == "LINK_REVOKED")
                #expect(try await stream.nextAsync() == nil)
                #expect(ContinuousClock.now - started < .seconds(5))
                expectError((try await server.journey("t-1", token: first)).pair, 401, "UNAUTHENTICATED", containing: "revoked")
                // The other links still work; revoking again is a no-op.
                #expect(try await server.journey("t-1", token: second).status == 200)
                #expect(try await server.json("POST", "/v1/providers/acme/trips/t-1:unshare", #"{"token":"\#(first)"}"#).1["revoked"] == 0)

                // An empty body revokes every link of the trip.
                let (all, everything) = try await server.json("POST", "/v1/providers/acme/trips/t-1:unshare", "")
                #expect(all == 200)
                #expect(everything["revoked"] == 2)
                #expect(try await other.nextEventAsync()?.event == "end")
                for link in [second, third] {
                    expectError((try await server.journey("t-1", token: link)).pair, 401, "UNAUTHENTICATED")
                }
                // Unshare's own unhappy paths.
                expectError(try await server.json("POST", "/v1/providers/acme/trips/t-1:unshare", #"{"token":"wms1.nope.nope"}"#), 400, "INVALID_ARGUMENT")
                try await server.createTrip("t-2")
                _ = try await server.journeyView("t-2")
                let foreign = try #require(try await Self.share(server, "t-2").1["token"]?.stringValue)
                expectError(try await server.json("POST", "/v1/providers/acme/trips/t-1:unshare", #"{"token":"\#(foreign)"}"#), 400, "INVALID_ARGUMENT",
                            containing: "another trip")
                expectError(try await server.json("POST", "/v1/providers/acme/trips/t-1:unshare", "{}", token: server.token(.driver, vehicle: "v-1")),
                            403, "PERMISSION_DENIED")
                expectError(try await server.json("POST", "/v1/providers/acme/trips/t-1:unshare", "{}", token: server.token(.consumer, trip: "t-2")),
                            403, "PERMISSION_DENIED")
                let anonymous = try await server.request("POST", "/v1/providers/acme/trips/t-1:unshare", body: "{}")
                expectError(anonymous.pair, 401, "UNAUTHENTICATED")
                expectError(try await server.json("POST", "/v1/providers/acme/trips/t-1:unshare", #"{"token":7}"#), 400, "INVALID_ARGUMENT", containing: "token")
                expectError(try await server.json("POST", "/v1/providers/acme/trips/t-1:unshare", #"{"links":[]}"#), 400, "INVALID_ARGUMENT", containing: "links")
                // The trip's consumer may revoke its trip's links.
                #expect(try await server.json("POST", "/v1/providers/acme/trips/t-2:unshare", "{}", token: server.token(.consumer, trip: "t-2")).1["revoked"] == 1)
            }
        }
    }
}
