import API
import Foundation
import JSON
import Journey
import Postgres
import Signing
import Synchronization
import Testing
import TestSupport

/// Webhook delivery against local receivers that fail, delay, answer out of order or never answer.
@Suite(.timeLimit(.minutes(3))) struct WebhookDeliveryTests {
    static let secret = "whsec-0123456789abcdef"

    static func environment(maxFailures: Int = 50, timeoutMs: Int = 10_000) -> [String: String] {
        ["WAYMARK_WEBHOOKS_ALLOW_PRIVATE": "true", "WAYMARK_WEBHOOKS_RETRY_BASE_MS": "20", "WAYMARK_WEBHOOKS_RETRY_MAX_MS": "200",
         "WAYMARK_WEBHOOKS_MAX_FAILURES": String(maxFailures), "WAYMARK_WEBHOOKS_TIMEOUT_MS": String(timeoutMs)]
    }

    static func subscribe(_ server: TestServer, _ receiver: WebhookReceiver, id: String, extra: String = "") async throws {
        let (status, body) = try await server.json("POST", "/v1/providers/acme/webhooks?webhookId=\(id)",
                                                   #"{"url":"\#(receiver.url)","secret":"\#(secret)"\#(extra)}"#)
        try #require(status == 200, "\(body)")
    }

    /// The provider's events of delivered categories, as stored: (event id, stream, version).
    static func storedEvents(_ server: TestServer) async throws -> [(String, String, Int64)] {
        let url = server.databaseURL
        return try await Blocking.run {
            try Connection(conninfo: url).query("""
                SELECT event_id::text, stream_id, stream_version FROM events
                WHERE stream_id LIKE 'trip:acme/%' OR stream_id LIKE 'vehicle:acme/%' OR stream_id LIKE 'arrival:acme/%' ORDER BY global_position
                """).rows.map { (try $0.string(0), try $0.string(1), try $0.int64(2)) }
        }
    }

    /// A signature made independently of the server's code path: HMAC-SHA256 over "<t>.<body>".
    static func signatureIsValid(_ delivery: WebhookReceiver.Delivery) -> Bool {
        guard let header = delivery.headers["waymark-signature"] else { return false }
        let parts = Dictionary(uniqueKeysWithValues: header.split(separator: ",").compactMap { part -> (String, String)? in
            let pair = part.split(separator: "=", maxSplits: 1)
            return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
        })
        guard let t = parts["t"], let v1 = parts["v1"], let seconds = Int64(t), abs(Int64(Date().timeIntervalSince1970) - seconds) < 300 else { return false }
        let expected = Digest.hex(Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(t).".utf8) + delivery.body))
        return expected == v1
    }

    /// The subscription's stored checkpoint (the global position delivery has handled up to).
    static func position(_ server: TestServer, _ id: String) async throws -> Int64 {
        try await server.json("GET", "/v1/providers/acme/webhooks/\(id)").1["status"]?["position"]?.int64Value ?? 0
    }

    /// Per stream, the versions in the order the receiver accepted them must never go back.
    static func streamOrderViolations(_ deliveries: [WebhookReceiver.Delivery]) -> [String] {
        var last: [String: Int64] = [:]
        var violations: [String] = []
        for delivery in deliveries {
            if let previous = last[delivery.streamId], delivery.streamVersion < previous {
                violations.append("\(delivery.streamId): \(delivery.streamVersion) after \(previous)")
            }
            last[delivery.streamId] = delivery.streamVersion
        }
        return violations
    }

    /// Reports for several vehicles, `count` per vehicle, with increasing device times.
    static func reportLocations(_ server: TestServer, vehicles: [String], count: Int) async throws {
        let start = Date().timeIntervalSince1970
        for step in 0..<count {
            let reports = vehicles.map { vehicle in
                let time = Timestamp(microsecondsSinceEpoch: Int64((start + Double(step)) * 1_000_000)).rfc3339
                return #"{"vehicleId":"\#(vehicle)","location":{"location":{"latitude":\#(52.5 + Double(step) * 0.001),"longitude":13.4},"updateTime":"\#(time)"}}"#
            }
            let (status, body) = try await server.json("POST", "/v1/providers/acme/vehicles:reportLocations", #"{"reports":["# + reports.joined(separator: ",") + "]}")
            try #require(status == 200, "\(body)")
        }
    }

    @Test func everyEventArrivesAtLeastOnceInStreamOrderWithValidSignaturesDespiteFailuresAndDelays() async throws {
        // Fails the first attempt of about a third of the events, answers 500 to some second
        // attempts, and delays answers by up to 300 ms, so answers come back out of order.
        let receiver = try WebhookReceiver { delivery, before in
            let hash = delivery.eventId.utf8.reduce(UInt32(7)) { ($0 &* 31) &+ UInt32($1) }
            if before == 0 && hash % 3 == 0 { return .status(503) }
            if before == 1 && hash % 5 == 0 { return .status(500) }
            return .delayed(Double(hash % 300) / 1000, 200)
        }
        defer { receiver.stop() }
        // A short timeout, so some delayed answers also count as failures and are delivered again.
        try await TestServer.with(environment: Self.environment(timeoutMs: 1500)) { server in
            try await Self.subscribe(server, receiver, id: "all")
            let vehicles = (0..<4).map { "v-\($0)" }
            for vehicle in vehicles { try await server.createVehicle(vehicle) }
            for n in 0..<3 { try await server.createTrip("t-\(n)") }
            try await Self.reportLocations(server, vehicles: vehicles, count: 5)

            let stored = try await Self.storedEvents(server)
            #expect(stored.count >= 4 + 3 + 20, "registrations, trips and reports")
            let wanted = Set(stored.map(\.0))
            let deliveries = await receiver.wait(timeout: .seconds(60)) { Set($0.map(\.eventId)).isSuperset(of: wanted) }
            #expect(Set(deliveries.map(\.eventId)) == wanted, "missing \(wanted.subtracting(deliveries.map(\.eventId)).count) events")
            #expect(Self.streamOrderViolations(deliveries) == [])
            for delivery in deliveries {
                #expect(Self.signatureIsValid(delivery), "bad signature on \(delivery.eventId)")
                #expect(delivery.headers["waymark-event-id"] == delivery.eventId)
                #expect(delivery.headers["content-type"] == "application/json")
                #expect(delivery.json["recordedTime"]?.stringValue?.hasSuffix("Z") == true)
                #expect(delivery.json["data"]?.objectValue != nil)
            }
            // The body carries what the log holds.
            let byId = Dictionary(stored.map { ($0.0, $0) }, uniquingKeysWith: { a, _ in a })
            for delivery in deliveries {
                #expect(byId[delivery.eventId]?.1 == delivery.streamId && byId[delivery.eventId]?.2 == delivery.streamVersion)
            }
            // The checkpoint is written after each batch: the status catches up with the receiver.
            var status: JSONValue = .null
            for _ in 0..<100 {
                status = try await server.json("GET", "/v1/providers/acme/webhooks/all").1
                if status["status"]?["deliveredEvents"]?.int64Value ?? 0 >= Int64(wanted.count),
                   status["status"]?["position"]?.int64Value ?? 0 >= deliveries.map(\.globalPosition).max() ?? 1 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(status["status"]?["paused"] == false)
            #expect(status["status"]?["deliveredEvents"]?.int64Value ?? 0 >= Int64(wanted.count), "\(status)")
            #expect(status["status"]?["position"]?.int64Value ?? 0 >= deliveries.map(\.globalPosition).max() ?? 1, "the checkpoint passed every delivered event")
            let metrics = try await server.request("GET", "/metrics").text
            #expect(metrics.contains(#"waymark_webhook_paused{provider="acme",webhook="all"} 0"#))
            #expect(metrics.contains(#"waymark_webhook_failed_attempts_total{provider="acme",webhook="all"}"#))
        }
    }

    @Test func aPausedSubscriptionKeepsItsEventsAndResumesWithoutLoss() async throws {
        let healthy = Mutex(false)
        let receiver = try WebhookReceiver { _, _ in healthy.withLock { $0 } ? .status(200) : .status(503) }
        defer { receiver.stop() }
        try await TestServer.with(environment: Self.environment(maxFailures: 3)) { server in
            try await Self.subscribe(server, receiver, id: "w")
            for n in 0..<3 { try await server.createTrip("t-\(n)") }
            // Three failed attempts of the first event pause the subscription.
            var paused: JSONValue = .null
            for _ in 0..<200 {
                paused = try await server.json("GET", "/v1/providers/acme/webhooks/w").1
                if paused["status"]?["paused"] == true { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(paused["status"]?["paused"] == true, "\(paused)")
            #expect(paused["status"]?["consecutiveFailures"] == 3)
            #expect(paused["status"]?["lastError"]?.stringValue?.contains("503") == true, "\(paused)")
            #expect(paused["status"]?["deliveredEvents"] == 0)
            #expect(try await server.request("GET", "/metrics").text.contains(#"waymark_webhook_paused{provider="acme",webhook="w"} 1"#))

            // Events keep coming while paused; a healthy receiver alone does not unpause. The marker:
            // a second subscription, made now, which delivers the new events (a subscription starts
            // at the head). The dispatcher starts it on a pass over every subscription, the paused
            // one too, so once the marker has them all, that pass (and those while it delivered)
            // left the paused one alone.
            healthy.withLock { $0 = true }
            let marker = try WebhookReceiver()
            defer { marker.stop() }
            try await Self.subscribe(server, marker, id: "marker")
            for n in 3..<6 { try await server.createTrip("t-\(n)") }
            let later: Set = ["trip:acme/t-3", "trip:acme/t-4", "trip:acme/t-5"]
            let marked = await marker.wait(timeout: .seconds(60)) { Set($0.map(\.streamId)).isSuperset(of: later) }
            #expect(Set(marked.map(\.streamId)).isSuperset(of: later), "the marker subscription got \(marked.map(\.streamId))")
            #expect(receiver.deliveries.isEmpty)
            #expect(try await server.json("GET", "/v1/providers/acme/webhooks/w").1["status"]?["paused"] == true)

            let resumedAt = ContinuousClock.now
            let (resumed, body) = try await server.json("POST", "/v1/providers/acme/webhooks/w:resume")
            #expect(resumed == 200 && body["status"]?["paused"] == false, "\(body)")
            let wanted = Set(try await Self.storedEvents(server).map(\.0))
            #expect(wanted.count == 6)
            let deliveries = await receiver.wait { Set($0.map(\.eventId)).isSuperset(of: wanted) }
            #expect(Set(deliveries.map(\.eventId)) == wanted)
            #expect(deliveries.allSatisfy { $0.receivedAt >= resumedAt }, "a delivery arrived before the resume")
            #expect(Self.streamOrderViolations(deliveries) == [])
            let after = try await server.json("GET", "/v1/providers/acme/webhooks/w").1
            #expect(after["status"]?["consecutiveFailures"] == 0)
        }
    }

    @Test func aDeadReceiverDoesNotSlowASecondSubscription() async throws {
        let dead = try WebhookReceiver { _, _ in .hang }
        let alive = try WebhookReceiver()
        defer {
            dead.stop()
            alive.stop()
        }
        // Each attempt to the dead receiver waits 60 s for an answer before it times out.
        try await TestServer.with(environment: Self.environment(timeoutMs: 60_000)) { server in
            try await Self.subscribe(server, dead, id: "dead")
            try await Self.subscribe(server, alive, id: "alive")
            let started = ContinuousClock.now
            for n in 0..<10 { try await server.createTrip("t-\(n)") }
            let written = ContinuousClock.now
            let deliveries = await alive.wait(timeout: .seconds(40)) { $0.count >= 10 }
            let delivered = ContinuousClock.now
            #expect(deliveries.count == 10)
            // Writes never wait for deliveries, and the live subscription is done before the dead
            // receiver's first attempt could even time out (bounds loose for a loaded machine).
            #expect(written - started < .seconds(40), "writes took \(written - started)")
            #expect(delivered - written < .seconds(30), "the live receiver got everything \(delivered - written) after the writes")
            #expect(dead.deliveries.isEmpty)
            let (_, stuck) = try await server.json("GET", "/v1/providers/acme/webhooks/dead")
            #expect(stuck["status"]?["deliveredEvents"] == 0)
            #expect(stuck["status"]?["lagPositions"]?.int64Value ?? 0 >= 9, "\(stuck)")
        }
    }

    @Test func aSubscriptionToStatusChangesHearsEveryStatusIncludingCompleteAndCanceled() async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        try await TestServer.with(environment: Self.environment()) { server in
            try await Self.subscribe(server, receiver, id: "statuses", extra: #","eventTypes":["TripStatusChanged"]"#)
            try await server.startTrip("t-1", vehicle: "v-1")
            for status in ["ARRIVED_AT_PICKUP", "ENROUTE_TO_DROPOFF", "COMPLETE"] {
                let (moved, body) = try await server.updateTrip("t-1", mask: "tripStatus", #"{"tripStatus":"\#(status)"}"#)
                try #require(moved == 200, "\(body)")
            }
            try await server.createTrip("t-2")
            let (canceled, body) = try await server.updateTrip("t-2", mask: "tripStatus", #"{"tripStatus":"CANCELED"}"#)
            try #require(canceled == 200, "\(body)")
            // t-2's cancel is written last: once it arrives, everything before it has been handled.
            let deliveries = await receiver.wait { $0.contains { $0.type == "TripCanceled" } }
            let types = deliveries.map(\.type)
            #expect(types.contains("TripCanceled"), "\(types)")
            #expect(types.contains("TripCompleted"), "\(types)")
            // To ENROUTE_TO_PICKUP, ARRIVED_AT_PICKUP and ENROUTE_TO_DROPOFF (by event id: delivery is at least once).
            #expect(Set(deliveries.filter { $0.type == "TripStatusChanged" }.map(\.eventId)).count == 3, "\(types)")
            #expect(Set(types).isSubset(of: ["TripStatusChanged", "TripCompleted", "TripCanceled"]), "\(types)")
        }
    }

    @Test func deliveriesIgnoreProxiesNamedInTheServersEnvironment() async throws {
        let proxy = try WebhookReceiver()
        let receiver = try WebhookReceiver()
        defer {
            proxy.stop()
            receiver.stop()
        }
        let proxyURL = "http://127.0.0.1:\(proxy.port)"
        let environment = Self.environment().merging(["http_proxy": proxyURL, "HTTP_PROXY": proxyURL, "https_proxy": proxyURL,
                                                      "HTTPS_PROXY": proxyURL, "ALL_PROXY": proxyURL, "all_proxy": proxyURL]) { $1 }
        try await TestServer.with(environment: environment) { server in
            try await Self.subscribe(server, receiver, id: "direct")
            try await server.createTrip("t-1")
            // The delivery reaching the receiver itself is the marker: through a proxy it would not.
            let deliveries = await receiver.wait { $0.contains { $0.type == "TripCreated" } }
            #expect(deliveries.contains { $0.type == "TripCreated" }, "the receiver never heard of the trip")
            #expect(proxy.deliveries.isEmpty, "a delivery went through the environment's proxy")
        }
    }

    @Test func replayRedeliversHistoryAndFiltersSelectEvents() async throws {
        let receiver = try WebhookReceiver()
        let filtered = try WebhookReceiver()
        defer {
            receiver.stop()
            filtered.stop()
        }
        try await TestServer.with(environment: Self.environment()) { server in
            try await Self.subscribe(server, receiver, id: "all")
            try await Self.subscribe(server, filtered, id: "some", extra: #","eventTypes":["TripCreated"],"tripIds":["t-1","t-3"]"#)
            try await server.createVehicle("v-1")
            // t-3, written last, is the filtered subscription's marker.
            for n in 0..<4 { try await server.createTrip("t-\(n)") }
            let stored = try await Self.storedEvents(server)
            let first = await receiver.wait { $0.count >= stored.count }
            #expect(first.count == stored.count)
            let some = await filtered.wait { $0.contains { $0.streamId == "trip:acme/t-3" } }
            // Streams of a batch are delivered concurrently, so arrival order proves nothing; the
            // checkpoint does: it passes the marker only once every delivery up to it was answered.
            let marker = try #require(some.first { $0.streamId == "trip:acme/t-3" }?.globalPosition, "the marker was not delivered")
            #expect(await waitFor { try await Self.position(server, "some") >= marker }, "the filtered subscription's checkpoint did not pass its marker")
            #expect(filtered.deliveries.map(\.streamId).sorted() == ["trip:acme/t-1", "trip:acme/t-3"])
            #expect(filtered.deliveries.allSatisfy { $0.type == "TripCreated" })

            // Replay from the second event: every event from there on is delivered again.
            let from = first.map(\.globalPosition).sorted()[1]
            let replayed = first.filter { $0.globalPosition >= from }
            let (status, body) = try await server.json("POST", "/v1/providers/acme/webhooks/all:replay?fromPosition=\(from)")
            #expect(status == 200, "\(body)")
            #expect(body["status"]?["position"]?.int64Value == from - 1, "\(body)")
            let again = await receiver.wait { $0.count >= first.count + replayed.count }
            // The marker: an event after the replay. Once the checkpoint has passed it, every delivery
            // before it has been answered, so an extra one would be counted now.
            try await server.createTrip("t-9")
            let marked = await receiver.wait { $0.contains { $0.streamId == "trip:acme/t-9" } }
            let lastMarker = try #require(marked.first { $0.streamId == "trip:acme/t-9" }?.globalPosition, "the marker was not delivered")
            #expect(await waitFor { try await Self.position(server, "all") >= lastMarker }, "the checkpoint did not pass the marker")
            #expect(receiver.deliveries.count == first.count + replayed.count + 1)
            #expect(Set(again.dropFirst(first.count).map(\.eventId)) == Set(replayed.map(\.eventId)))
            #expect(Self.streamOrderViolations(Array(again.dropFirst(first.count))) == [])
        }
    }
}
