import API
import Foundation
import Geo
import JSON
import Postgres
import Synchronization
import Testing
import TestSupport

extension RiderEndpoints {
    /// Slow and hostile clients: idle streams, slowloris connections and riders that never read
    /// must not stop ingest or journey reads, nor cost the server unbounded memory.
    @Suite(.timeLimit(.minutes(5))) struct SlowClientTests {
        static let path = "/v1/providers/acme/trips/t-1/journey:stream"

        /// Idle streams to open: `WAYMARK_TEST_IDLE_STREAMS`, else 2,000.
        static var idleStreams: Int {
            ProcessInfo.processInfo.environment["WAYMARK_TEST_IDLE_STREAMS"].flatMap { Int($0) } ?? 2000
        }

        @Test func idleStreamsAndSlowlorisClientsDoNotStopIngestOrJourneyReads() async throws {
            raiseOpenFileLimit()
            try await TestServer.with(environment: TestServer.manyClients) { server in
                try await server.startTrip()
                try await server.createVehicle("v-2")
                let port = server.port
                let slowloris = try Slowloris(count: 200, port: port)
                defer { slowloris.stop() }
                let count = Self.idleStreams
                let streams = try await RiderEndpoints.JourneyStreamTests.open(count, port: port, token: server.server)
                defer { for stream in streams { stream.close() } }
                #expect(try await IngestEndpointTests.metric(server, "waymark_http_open_streams") == count)

                // Batches of location reports are accepted, and journey GETs answer, each promptly.
                var slowestReport = Duration.zero
                var slowestRead = Duration.zero
                for round in 0..<20 {
                    let reports = (0..<10).map { IngestEndpointTests.report("v-2", latitude: 52.50 + Double(round * 10 + $0) * 0.0001) }
                    var started = ContinuousClock.now
                    let (status, body) = try await server.json("POST", IngestEndpointTests.path, IngestEndpointTests.batch(reports))
                    slowestReport = max(slowestReport, ContinuousClock.now - started)
                    #expect(status == 200, "\(body)")
                    #expect(IngestEndpointTests.results(body).allSatisfy { $0["status"]?.stringValue == "ACCEPTED" }, "\(body)")
                    started = ContinuousClock.now
                    let journey = try await server.journey("t-1")
                    slowestRead = max(slowestRead, ContinuousClock.now - started)
                    #expect(journey.status == 200)
                }
                #expect(slowestReport < .seconds(5), "slowest batch of reports: \(slowestReport)")
                #expect(slowestRead < .seconds(5), "slowest journey GET: \(slowestRead)")
                // The slowloris connections were not dropped early nor did they crowd anyone out;
                // the streams are all alive: a change on the trip reaches the first and the last.
                #expect(slowloris.openCount == 200)
                try await server.report(latitude: 52.5401)
                for stream in [streams[0], streams[count - 1]] {
                    let event = try #require(try await stream.nextEventAsync())
                    #expect(event.id != nil)
                }
                #expect(try await IngestEndpointTests.metric(server, "waymark_http_streams_dropped_total") == 0)
            }
        }

        /// The stream buffer limit of the never-reading rider test: far above what a reading rider
        /// ever has queued (about forty views), so only the rider who never reads reaches it.
        static let bufferLimit = 1 << 20

        @Test func aRiderWhoNeverReadsIsDroppedAtTheBufferLimitWhileAnotherRiderKeepsReceiving() async throws {
            try await TestServer.with(environment: ["WAYMARK_STREAM_BUFFER_BYTES": String(Self.bufferLimit)]) { server in
                // A route segment of 5,000 points ahead of the vehicle makes every view about 25 KB,
                // so the stalled rider's kernel buffers and stream buffer fill in a few hundred changes.
                try await server.createVehicle("v-1")
                let stops = (1...20).map { #"{"point":{"latitude":\#(52.5 + Double($0) * 0.001),"longitude":\#(13.4 - Double($0) * 0.001)}}"# }
                try await server.createTrip("t-1", extra: #","intermediateDestinations":["# + stops.joined(separator: ",") + "]")
                let (assigned, body) = try await server.updateTrip("t-1", mask: "vehicleId,tripStatus", #"{"vehicleId":"v-1","tripStatus":"ENROUTE_TO_PICKUP"}"#)
                try #require(assigned == 200, "assign: \(body)")
                let segment = try Polyline.encode((0..<5000).map { i throws(GeoError) in
                    try LatLng(latitude: 52.5 + Double(i) * 0.001, longitude: 13.4 + Double(i % 2) * 0.002)
                })
                let (updated, answer) = try await server.json("PUT", "/v1/providers/acme/vehicles/v-1?updateMask=currentRouteSegment",
                                                              #"{"currentRouteSegment":"\#(segment.replacingOccurrences(of: "\\", with: "\\\\"))"}"#)
                try #require(updated == 200, "route segment: \(answer)")
                let first = try await server.journeyView("t-1") { $0["tripStatus"]?.stringValue == "ENROUTE_TO_PICKUP" && $0.compactBytes().count > 20_000 }
                let viewBytes = first.compactBytes().count
                let port = server.port
                // The smallest receive buffer the kernel allows, set before connecting: the window stays tiny.
                let stalled = try SlowSocket(port: port, receiveBuffer: 1)
                defer { stalled.close() }
                stalled.send(Array("GET \(Self.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.server)\r\n\r\n".utf8))
                let reader = try await server.openStream(Self.path, token: server.server)
                defer { reader.close() }
                _ = try #require(try await reader.nextEventAsync())
                #expect(await waitFor { try await IngestEndpointTests.metric(server, "waymark_http_open_streams") == 2 })

                // The reader reads on a thread of its own; the trip changes until the stalled rider overflows.
                let lastLatitude = Mutex<Double?>(nil)
                let reading = Task {
                    try await Blocking.run {
                        while let event = try reader.nextEvent() {
                            guard event.event == nil, let view = try? JSONValue.parse(Array(event.data.utf8)) else { continue }
                            lastLatitude.withLock { $0 = vehicleLatitude(view) }
                        }
                    }
                }
                var reports = 0
                var dropped = 0
                let deadline = ContinuousClock.now + .seconds(180)
                // The kernel's socket buffers fill first, then the stream's own buffer; every change
                // is a location report through the ingest endpoint.
                while dropped == 0, ContinuousClock.now < deadline {
                    for _ in 0..<25 {
                        reports += 1
                        let batch = IngestEndpointTests.batch([IngestEndpointTests.report("v-1", latitude: 52.5 + Double(reports) * 0.00001, longitude: 13.4)])
                        let (status, body) = try await server.json("POST", IngestEndpointTests.path, batch)
                        try #require(status == 200, "\(body)")
                    }
                    dropped = try await IngestEndpointTests.metric(server, "waymark_http_streams_dropped_total")
                }
                #expect(dropped == 1, "not dropped after \(reports) reports of views of \(viewBytes) bytes")
                #expect(await waitFor { try await IngestEndpointTests.metric(server, "waymark_http_open_streams") == 1 })
                #expect(try await Blocking.run { stalled.drainUntilClosed(timeout: .seconds(30)) }, "the stalled rider's connection stays open")

                // The other rider got every change up to now, and keeps getting them.
                let final = 52.5 + Double(reports + 1) * 0.00001
                try await server.report(latitude: final, longitude: 13.4)
                #expect(await waitFor(.seconds(60)) { lastLatitude.withLock { $0 } == final },
                        "the reader's last latitude: \(String(describing: lastLatitude.withLock { $0 }))")
                // Completing the trip ends the reader's stream, and so its reading thread.
                try await server.completeTrip()
                try await reading.value
            }
        }

        @Test func serveRaisesItsOpenFileLimitToTheHardLimit() async throws {
            var limits = rlimit()
            try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0)
            let hard = UInt64(limits.rlim_max)
            try #require(hard > 256, "the hard open-file limit is \(hard): nothing to raise to")
            try await TestDatabase.withTestDatabase { url in
                // Started with a soft limit of 256 (as a shell's `ulimit -Sn 256` would leave it).
                let process = try Subprocess.spawn("/bin/sh", ["-c", #"ulimit -Sn 256 && exec "$0" serve"#, WaymarkBinary.path], environment: [
                    "DATABASE_URL": url, "WAYMARK_JWT_SECRET": "limits-test-secret-0123456789abcdef", "WAYMARK_HTTP_PORT": "0", "WAYMARK_GRPC_PORT": "off",
                ])
                defer {
                    _ = process.stop()
                    process.cleanUp()
                }
                try #require(try await process.waitUntilListening(), "\(process.stderr)")
                let table = try String(contentsOfFile: "/proc/\(process.pid)/limits", encoding: .utf8)
                let line = try #require(table.split(separator: "\n").first { $0.hasPrefix("Max open files") })
                let numbers = line.split(separator: " ").compactMap { UInt64($0) }
                #expect(numbers == [hard, hard], "\(line)")
            }
        }

        @Test func aStreamBufferBelow4096BytesIsAUsageError() async throws {
            let result = try await WaymarkBinary.run(["serve"], environment: ["WAYMARK_STREAM_BUFFER_BYTES": "100"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("WAYMARK_STREAM_BUFFER_BYTES must be a whole number of bytes from 4096"), "\(result.stderr)")
        }
    }
}

/// Raises this process's soft open-file limit to the hard one (thousands of test sockets).
func raiseOpenFileLimit() {
    var limits = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0, limits.rlim_cur < limits.rlim_max else { return }
    limits.rlim_cur = limits.rlim_max
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
}
