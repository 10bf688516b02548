import API
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

extension RiderEndpoints {
    /// `GET /v1/providers/{p}/trips/{t}/journey`: the view, its ETag, 304, the long poll, who may read it.
    @Suite(.timeLimit(.minutes(3))) struct JourneyEndpointTests {
        @Test func theJourneyCarriesItsVersionAsETagAndAnswers304ToAMatchingIfNoneMatch() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                let view = try await server.journeyView("t-1")
                let response = try await server.journey("t-1")
                #expect(response.status == 200)
                let current = response.json
                #expect(response.header("ETag") == "\"\(version(current))\"", "headers \(response.headers)")
                #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
                #expect(current["name"]?.stringValue == "providers/acme/trips/t-1")
                #expect(current["styleVersion"]?.int64Value == 0)
                #expect(version(current) >= version(view))

                let etag = try #require(response.header("ETag"))
                let unchanged = try await server.journey("t-1", headers: ["If-None-Match": etag])
                #expect(unchanged.status == 304)
                #expect(unchanged.header("ETag") == etag)
                #expect(unchanged.body.isEmpty)
                // Weak tags, lists and * match too; another version does not.
                #expect(try await server.journey("t-1", headers: ["If-None-Match": "\"0\", W/\(etag)"]).status == 304)
                #expect(try await server.journey("t-1", headers: ["If-None-Match": "*"]).status == 304)
                #expect(try await server.journey("t-1", headers: ["If-None-Match": "\"0\""]).status == 200)
                // The same bytes on every read (encoded once per version).
                #expect(try await server.journey("t-1").body == response.body)
            }
        }

        @Test func aLongPollWakesWhenTheViewChangesAndTimesOutWith304WhenItDoesNot() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                try await server.report(latitude: 52.5201)
                let before = try await server.journeyView("t-1") { vehicleLatitude($0) == 52.5201 }
                let etag = "\"\(version(before))\""

                // Woken by a change: a location report moves the vehicle marker.
                let started = ContinuousClock.now
                async let polled = server.journey("t-1", query: "?waitSeconds=30", headers: ["If-None-Match": etag])
                // A moment for the poll to park before the change (a poll that comes later is answered
                // at once with the newer view: the checks below hold either way).
                try await Task.sleep(for: .milliseconds(500))
                try await server.report(latitude: 52.5202)
                let woken = try await polled
                let waited = ContinuousClock.now - started
                #expect(woken.status == 200, "\(woken.status) \(woken.text)")
                #expect(version(woken.json) > version(before))
                #expect(woken.header("ETag") == "\"\(version(woken.json))\"")
                #expect(waited >= .milliseconds(400) && waited < .seconds(15), "waited \(waited)")

                // No change: 304 with the same ETag after about the wait.
                let etag2 = try #require(woken.header("ETag"))
                let quiet = ContinuousClock.now
                let timedOut = try await server.journey("t-1", query: "?waitSeconds=1", headers: ["If-None-Match": etag2])
                let quietFor = ContinuousClock.now - quiet
                #expect(timedOut.status == 304)
                #expect(timedOut.header("ETag") == etag2)
                #expect(quietFor >= .milliseconds(900) && quietFor < .seconds(6), "timed out after \(quietFor)")

                // A stale If-None-Match answers at once, waitSeconds or not.
                let stale = ContinuousClock.now
                let fresh = try await server.journey("t-1", query: "?waitSeconds=30", headers: ["If-None-Match": etag])
                #expect(fresh.status == 200 && ContinuousClock.now - stale < .seconds(5))
            }
        }

        @Test func theTripsConsumerItsDriverAndAuditorsMayReadItsJourneyOthersMayNot() async throws {
            try await TestServer.with { server in
                try await server.startTrip(consumer: "rider-1")
                try await server.createVehicle("v-2")
                let allowed = [
                    server.token(.consumer, trip: "t-1"), server.token(.consumer, consumer: "rider-1"), server.token(.driver, vehicle: "v-1"),
                    server.token(.auditor),
                ]
                for token in allowed {
                    let response = try await server.journey("t-1", token: token)
                    #expect(response.status == 200, "\(response.text)")
                }
                expectError((try await server.journey("t-1", token: server.token(.consumer, trip: "t-2"))).pair, 403, "PERMISSION_DENIED")
                expectError((try await server.journey("t-1", token: server.token(.consumer, consumer: "rider-2"))).pair, 403, "PERMISSION_DENIED")
                expectError((try await server.journey("t-1", token: server.token(.driver, vehicle: "v-2"))).pair, 403, "PERMISSION_DENIED")
                expectError((try await server.journey("t-1", token: server.token(.server, provider: "other"))).pair, 403, "PERMISSION_DENIED")
                let anonymous = try await server.request("GET", "/v1/providers/acme/trips/t-1/journey")
                expectError(anonymous.pair, 401, "UNAUTHENTICATED")
                expectError((try await server.journey("t-1", token: "not-a-jwt")).pair, 401, "UNAUTHENTICATED")
                expectError((try await server.journey("t-9")).pair, 404, "NOT_FOUND")
                // A consumer of another trip learns nothing about whether t-9 exists.
                expectError((try await server.journey("t-9", token: server.token(.consumer, trip: "t-1"))).pair, 403, "PERMISSION_DENIED")
            }
        }

        @Test func badJourneyRequestsAreRejectedWithTheParameterNamed() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                expectError((try await server.journey("t-1", query: "?waitSeconds=61")).pair, 400, "INVALID_ARGUMENT", containing: "waitSeconds")
                expectError((try await server.journey("t-1", query: "?waitSeconds=soon")).pair, 400, "INVALID_ARGUMENT", containing: "waitSeconds")
                expectError((try await server.journey("t-1", query: "?waitSeconds=-1")).pair, 400, "INVALID_ARGUMENT", containing: "waitSeconds")
                expectError((try await server.journey("t-1", query: "?colour=red")).pair, 400, "INVALID_ARGUMENT", containing: "colour")
            expectError((try await server.journey("t-1", query: "?waitSeconds=1&waitSeconds=2")).pair, 400, "INVALID_ARGUMENT", containing: "waitSeconds")
                let post = try await server.request("POST", "/v1/providers/acme/trips/t-1/journey", body: "{}", token: server.server)
                expectError(post.pair, 405, "UNIMPLEMENTED")
                // The token once: header or access_token, not both.
                let both = try await server.journey("t-1", query: "?access_token=\(server.server)")
                expectError(both.pair, 400, "INVALID_ARGUMENT", containing: "not both")
            }
        }

        @Test func theAccessTokenQueryParameterWorksAndIsNeverLogged() async throws {
            try await TestServer.with(environment: ["WAYMARK_LOG_LEVEL": "debug"]) { server in
                try await server.startTrip()
                let token = server.token(.consumer, trip: "t-1")
                let response = try await server.request("GET", "/v1/providers/acme/trips/t-1/journey?access_token=\(token)",
                                                        headers: ["x-request-id": "with-token-1"])
                #expect(response.status == 200, "\(response.text)")
                let denied = try await server.request("GET", "/v1/providers/acme/trips/t-2/journey?access_token=\(token)",
                                                      headers: ["x-request-id": "with-token-2"])
                #expect(denied.status == 403)
                // Only the journey, stream and share endpoints take it.
                let elsewhere = try await server.request("GET", "/v1/providers/acme/trips/t-1?access_token=\(server.server)",
                                                         headers: ["x-request-id": "with-token-3"])
                #expect(elsewhere.status == 401, "\(elsewhere.text)")
                // Each request's access log line is written once it is done: all three are the marker
                // that everything logged about them is in.
                #expect(await waitFor { (1...3).allSatisfy { server.process.stderr.contains("with-token-\($0)") } }, "\(server.process.stderr.suffix(600))")
                let log = server.process.stderr
                #expect(log.contains("/v1/providers/acme/trips/t-1/journey"), "the access log lists the request")
                #expect(!log.contains(token) && !log.contains(server.server), "a token reached the log")
                #expect(!log.contains("access_token"))
            }
        }
    }
}

extension TestServer.Response {
    /// Status and JSON body, as `expectError` takes them.
    var pair: (Int, JSONValue) { (status, json) }
}
