import API
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

extension RiderEndpoints {
    /// `GET /v1/providers/{p}/trips/{t}/journey:stream`: Server-Sent Events of the journey view.
    @Suite(.timeLimit(.minutes(4))) struct JourneyStreamTests {
        static let path = "/v1/providers/acme/trips/t-1/journey:stream"

        @Test func theStreamSendsTheViewFirstThenEveryChangeInVersionOrder() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                let stream = try await server.openStream(Self.path, token: server.server)
                defer { stream.close() }
                #expect(stream.status == 200)
                #expect(stream.headers["content-type"]?.hasPrefix("text/event-stream") == true)
                #expect(stream.headers["cache-control"] == "no-cache")
                let first = try #require(try await stream.nextEventAsync())
                let view = try JSONValue.parse(Array(first.data.utf8))
                #expect(first.id == String(version(view)))
                #expect(view["name"]?.stringValue == "providers/acme/trips/t-1")

                var last = version(view)
                let latitudes = [52.5211, 52.5212, 52.5213]
                for latitude in latitudes { try await server.report(latitude: latitude) }
                // Every event is a newer version; the last one shows the last report.
                while true {
                    let event = try #require(try await stream.nextEventAsync())
                    let next = try JSONValue.parse(Array(event.data.utf8))
                    #expect(event.event == nil)
                    #expect(event.id == String(version(next)))
                    #expect(version(next) > last, "versions must increase: \(version(next)) after \(last)")
                    last = version(next)
                    if vehicleLatitude(next) == latitudes.last { break }
                }
            }
        }

        @Test func anIdleStreamGetsAHeartbeatCommentEvery15Seconds() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                let stream = try await server.openStream(Self.path, token: server.server, timeoutSeconds: 25)
                defer { stream.close() }
                _ = try #require(try await stream.nextEventAsync())
                let opened = ContinuousClock.now
                let heartbeat = try #require(try await stream.nextAsync())
                let waited = ContinuousClock.now - opened
                #expect(heartbeat.isComment, "the first block after the view on an idle stream is a heartbeat comment, got \(heartbeat)")
                #expect(waited >= .seconds(13) && waited < .seconds(18), "heartbeat after \(waited)")
            }
        }

        @Test func lastEventIdResumesWithoutResendingAViewTheRiderHas() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                try await server.report(latitude: 52.5221)
                let current = try await server.journeyView("t-1") { vehicleLatitude($0) == 52.5221 }
                let resumed = try await server.openStream(Self.path, token: server.server, headers: [("Last-Event-ID", String(version(current)))])
                defer { resumed.close() }
                try await server.report(latitude: 52.5222)
                let event = try #require(try await resumed.nextEventAsync())
                #expect(Int64(event.id ?? "") ?? 0 > version(current), "the first event after resuming is a newer version, got \(event.id ?? "none")")
                // An older id gets the current view at once.
                let behind = try await server.openStream(Self.path, token: server.server, headers: [("Last-Event-ID", "1")])
                defer { behind.close() }
                let catchUp = try #require(try await behind.nextEventAsync())
                #expect(Int64(catchUp.id ?? "") ?? 0 > 1)
            }
        }

        @Test func theStreamEndsWithAnEndEventWhenTheTripCompletes() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                let stream = try await server.openStream(Self.path, token: server.token(.consumer, trip: "t-1"))
                defer { stream.close() }
                _ = try #require(try await stream.nextEventAsync())
                try await server.completeTrip()
                var sawComplete = false
                while let event = try await stream.nextEventAsync() {
                    if event.event == "end" {
                        #expect(sawComplete, "the final view comes before the end event")
                        #expect(try JSONValue.parse(Array(event.data.utf8))["reason"] == "TRIP_COMPLETE")
                        break
                    }
                    sawComplete = try JSONValue.parse(Array(event.data.utf8))["tripStatus"] == "COMPLETE"
                }
                #expect(try await stream.nextAsync() == nil, "the server closes the stream after the end event")
                // Opening the stream of an ended trip sends the last view and the end at once.
                let late = try await server.openStream(Self.path, token: server.server)
                defer { late.close() }
                #expect(try JSONValue.parse(Array(try #require(try await late.nextEventAsync()).data.utf8))["tripStatus"] == "COMPLETE")
                #expect(try await late.nextEventAsync()?.event == "end")
            }
        }

        @Test func aDeletedTripEndsItsStreams() async throws {
            try await TestServer.with { server in
                try await server.createTrip("t-2")
                _ = try await server.journeyView("t-2")
                let stream = try await server.openStream("/v1/providers/acme/trips/t-2/journey:stream", token: server.server)
                defer { stream.close() }
                _ = try #require(try await stream.nextEventAsync())
                let (status, body) = try await server.json("DELETE", "/v1/providers/acme/trips/t-2")
                #expect(status == 200, "\(body)")
                let end = try #require(try await stream.nextEventAsync())
                #expect(end.event == "end")
                #expect(try JSONValue.parse(Array(end.data.utf8))["reason"] == "TRIP_DELETED")
            }
        }

        @Test func theStreamTakesTheTokenAsAccessTokenAndRefusesWhatGetRefuses() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                let token = server.token(.consumer, trip: "t-1")
                let viaQuery = try await server.openStream(Self.path + "?access_token=\(token)", token: nil)
                defer { viaQuery.close() }
                #expect(viaQuery.status == 200)
                #expect(try await viaQuery.nextEventAsync()?.id != nil)
                let anonymous = try await server.openStream(Self.path, token: nil)
                #expect(anonymous.status == 401)
                let otherTrip = try await server.openStream(Self.path, token: server.token(.consumer, trip: "t-2"))
                #expect(otherTrip.status == 403)
                #expect(otherTrip.errorBody.contains("PERMISSION_DENIED"))
                let missing = try await server.openStream("/v1/providers/acme/trips/t-9/journey:stream", token: server.server)
                #expect(missing.status == 404)
                let unknownParameter = try await server.openStream(Self.path + "?since=3", token: server.server)
                #expect(unknownParameter.status == 400)
            }
        }

        @Test func aShutdownEndsOpenStreamsWithAShutdownEvent() async throws {
            try await TestDatabase.withTestDatabase { url in
                let server = try await TestServer.start(databaseURL: url)
                do {
                    try await server.startTrip()
                    let stream = try await server.openStream(Self.path, token: server.server)
                    defer { stream.close() }
                    _ = try #require(try await stream.nextEventAsync())
                    kill(server.process.pid, SIGTERM)
                    let final = try #require(try await stream.nextEventAsync())
                    #expect(final.event == "shutdown")
                    #expect(try JSONValue.parse(Array(final.data.utf8))["reason"] == "SERVER_SHUTDOWN")
                    #expect(try await stream.nextAsync() == nil)
                } catch {
                    server.stop()
                    throw error
                }
                server.stop()
            }
        }

        @Test func twoThousandIdleStreamsCostTheServerNoThreads() async throws {
            try await TestServer.with(environment: TestServer.manyClients) { server in
                try await server.startTrip()
                let port = server.port
                let token = server.server
                // Warm up: the server's threads (HTTP, projections, pool) are all running once a few
                // streams are open and a change has reached them.
                let warm = try await Self.open(50, port: port, token: token)
                try await server.report(latitude: 52.5291)
                for stream in [warm[0], warm[49]] { _ = try #require(try await stream.nextEventAsync()) }
                let before = try server.threadCount()
                let more = try await Self.open(1950, port: port, token: token)
                let streams = warm + more
                defer { for stream in streams { stream.close() } }
                #expect(streams.count == 2000)
                // Every stream is live: a change reaches the first and the last. Threads are counted
                // once it has, so any the 2,000 streams would cost the server are running by then.
                try await server.report(latitude: 52.5301)
                for stream in [streams[0], streams[999], streams[1999]] {
                    let event = try #require(try await stream.nextEventAsync())
                    #expect(event.id != nil)
                }
                let after = try server.threadCount()
                #expect(after == before, "threads before \(before), after \(after) with 2,000 open streams")
                let gauges = try await server.request("GET", "/metrics")
                #expect(gauges.text.contains("waymark_http_open_streams 2000"), "\(gauges.text.split(separator: "\n").filter { $0.contains("open_streams") })")
            }
        }

        /// Opens `count` streams on t-1 and reads each one's first event, off the cooperative pool.
        static func open(_ count: Int, port: UInt16, token: String) async throws -> [EventStreamClient] {
            try await Blocking.run {
                var streams: [EventStreamClient] = []
                for _ in 0..<count {
                    let stream = try EventStreamClient(port: port, path: Self.path, headers: [("Authorization", "Bearer \(token)")])
                    guard stream.status == 200, try stream.nextEvent()?.id != nil else {
                        throw TestSetupError("stream \(streams.count) did not open: \(stream.status) \(stream.errorBody)")
                    }
                    streams.append(stream)
                }
                return streams
            }
        }
    }
}
