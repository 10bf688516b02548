import API
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

extension RiderEndpoints {
    /// Several `waymark serve` nodes on one database: riders on any node get changes written through
    /// any other (the projection owner's NOTIFY), projection ownership moves when its owner dies, and
    /// each node groups its own concurrent appends into shared transactions.
    ///
    /// The rider nodes run with `WAYMARK_JOURNEY_POLL_MS=60000`, so their fallback poll cannot deliver
    /// within a test's time: every update they push came through a notification.
    @Suite(.timeLimit(.minutes(3))) struct ScaleOutTests {
        static let slowPoll = ["WAYMARK_JOURNEY_POLL_MS": "60000"]

        @Test func aRiderOnANonOwnerNodeGetsEachChangeWrittenOnTheOwnerWellUnderThePollInterval() async throws {
            try await TestDatabase.withTestDatabase { url in
                let first = try await TestServer.start(databaseURL: url)
                defer { first.stop() }
                let second = try await TestServer.start(databaseURL: url, environment: Self.slowPoll.merging(["WAYMARK_JWT_SECRET": first.secret]) { $1 })
                defer { second.stop() }
                try await first.startTrip()
                let owners = try await Self.journeyOwners([first, second])
                try #require(owners == [true, false], "the first node should own the journey projection: \(owners)")

                let stream = try await second.openStream("/v1/providers/acme/trips/t-1/journey:stream", token: first.server)
                defer { stream.close() }
                try #require(stream.status == 200)
                var last = Int64(try #require(try await stream.nextEventAsync()).id ?? "") ?? 0

                var delays: [Duration] = []
                for round in 1...6 {
                    let latitude = 52.53 + Double(round) / 1000
                    let started = ContinuousClock.now
                    // Read concurrently with the write: the update may arrive before the write's answer.
                    let after = last
                    let reader = Task { try await Self.nextView(stream, after: after) }
                    try await first.report(latitude: latitude)
                    let view = try #require(try await reader.value, "round \(round): no update on the second node's stream")
                    delays.append(ContinuousClock.now - started)
                    #expect(abs((vehicleLatitude(view) ?? 0) - latitude) < 0.0005, "round \(round): \(view)")
                    last = version(view)
                }
                let median = delays.sorted()[delays.count / 2]
                print("scale-out: write on the owner to push on the other node: median \(median), all \(delays)")
                #expect(median < .milliseconds(800), "delays from write to push on the other node: \(delays)")
                #expect(delays.allSatisfy { $0 < .seconds(5) }, "\(delays)")
            }
        }

        @Test func whenTheOwnerDiesAnotherNodeTakesOverAndRidersKeepGettingUpdates() async throws {
            try await TestDatabase.withTestDatabase { url in
                let first = try await TestServer.start(databaseURL: url)
                var firstAlive = true
                defer { if firstAlive { first.stop() } }
                let second = try await TestServer.start(databaseURL: url, environment: Self.slowPoll.merging(["WAYMARK_JWT_SECRET": first.secret]) { $1 })
                defer { second.stop() }
                try await first.startTrip()
                try #require(try await Self.journeyOwners([first, second]) == [true, false])

                let stream = try await second.openStream("/v1/providers/acme/trips/t-1/journey:stream", token: first.server, timeoutSeconds: 20)
                defer { stream.close() }
                try #require(stream.status == 200)
                var last = Int64(try #require(try await stream.nextEventAsync()).id ?? "") ?? 0
                try await first.report(latitude: 52.531)
                last = version(try #require(try await Self.nextView(stream, after: last), "no update before the owner died"))

                // The owner dies without a goodbye: its sessions end, and with them its advisory locks.
                first.process.stop(signal: SIGKILL)
                firstAlive = false
                let deadline = ContinuousClock.now + .seconds(15)
                while try await Self.journeyOwners([second]) != [true], ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(100))
                }
                try #require(try await Self.journeyOwners([second]) == [true], "the second node did not take the journey projection over")

                // Its own rider keeps getting updates, now from its own runner.
                try await Self.report(on: second, latitude: 52.532, token: first.server)
                let afterTakeover = try #require(try await Self.nextView(stream, after: last), "no update after the takeover")
                #expect(abs((vehicleLatitude(afterTakeover) ?? 0) - 52.532) < 0.0005, "\(afterTakeover)")

                // A node started now stands by, and its riders get the new owner's changes through its notifications.
                let third = try await TestServer.start(databaseURL: url, environment: Self.slowPoll.merging(["WAYMARK_JWT_SECRET": first.secret]) { $1 })
                defer { third.stop() }
                #expect(try await Self.journeyOwners([second, third]) == [true, false])
                let thirdStream = try await third.openStream("/v1/providers/acme/trips/t-1/journey:stream", token: first.server, timeoutSeconds: 20)
                defer { thirdStream.close() }
                try #require(thirdStream.status == 200)
                let opened = Int64(try #require(try await thirdStream.nextEventAsync()).id ?? "") ?? 0
                try await Self.report(on: second, latitude: 52.533, token: first.server)
                let onThird = try #require(try await Self.nextView(thirdStream, after: opened), "no update on the third node")
                #expect(abs((vehicleLatitude(onThird) ?? 0) - 52.533) < 0.0005, "\(onThird)")
            }
        }

        @Test func concurrentWritesOnTwoNodesAllLandAndEachNodeGroupsItsOwnIntoFewerTransactions() async throws {
            try await TestDatabase.withTestDatabase { url in
                let first = try await TestServer.start(databaseURL: url)
                defer { first.stop() }
                let second = try await TestServer.start(databaseURL: url, environment: ["WAYMARK_JWT_SECRET": first.secret])
                defer { second.stop() }
                let vehicles = 16
                for n in 0..<vehicles { try await first.createVehicle("v-\(n)") }
                let nodes = [first, second]
                var before: [(events: Int, transactions: Int)] = []
                for node in nodes {
                    before.append((try await IngestEndpointTests.metric(node, "waymark_events_appended_total"),
                                   try await IngestEndpointTests.metric(node, "waymark_append_transactions_total")))
                }
                let eventsBefore = try await first.eventCount()
                let perNode = 48
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for n in 0..<perNode {
                        for (index, node) in nodes.enumerated() {
                            group.addTask {
                                let (status, body) = try await node.json(
                                    "PUT", "/v1/providers/acme/vehicles/v-\(n % vehicles)?updateMask=lastLocation",
                                    #"{"lastLocation":{"location":{"latitude":52.5,"longitude":13.4},"heading":\#(index * 180 + n)}}"#,
                                    token: first.server)
                                #expect(status == 200, "\(body)")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(try await first.eventCount() - eventsBefore == Int64(perNode * nodes.count), "every acknowledged write is in the log")
                for (index, node) in nodes.enumerated() {
                    let events = try await IngestEndpointTests.metric(node, "waymark_events_appended_total") - before[index].events
                    let transactions = try await IngestEndpointTests.metric(node, "waymark_append_transactions_total") - before[index].transactions
                    #expect(events == perNode, "node \(index): \(events) events appended for \(perNode) requests")
                    #expect(transactions > 0 && transactions < perNode, "node \(index): \(transactions) transactions for \(perNode) requests")
                }
            }
        }

        /// Whether each node owns the journey projection (`waymark_projection_owner`), once exactly one
        /// of them does (for up to 10 s: runners take ownership shortly after starting).
        static func journeyOwners(_ nodes: [TestServer]) async throws -> [Bool] {
            let deadline = ContinuousClock.now + .seconds(10)
            var owners: [Bool] = []
            repeat {
                owners = []
                for node in nodes {
                    let text = try await node.request("GET", "/metrics").text
                    owners.append(text.split(separator: "\n").contains { $0 == #"waymark_projection_owner{projection="journey"} 1"# })
                }
                if owners.filter({ $0 }).count == 1 { return owners }
                try await Task.sleep(for: .milliseconds(100))
            } while ContinuousClock.now < deadline
            return owners
        }

        /// Reports v-1's location through `node` (its tokens are signed with the first node's secret).
        static func report(on node: TestServer, latitude: Double, token: String) async throws {
            let (status, body) = try await node.json("PUT", "/v1/providers/acme/vehicles/v-1?updateMask=lastLocation",
                                                     #"{"lastLocation":{"location":{"latitude":\#(latitude),"longitude":13.405},"heading":90}}"#, token: token)
            try #require(status == 200, "report: \(body)")
        }

        /// The next view on `stream` newer than version `after` (heartbeats skipped); nil when the stream ends or times out.
        static func nextView(_ stream: EventStreamClient, after: Int64) async throws -> JSONValue? {
            while let event = try await stream.nextEventAsync() {
                guard event.event != "end", event.event != "shutdown" else { return nil }
                guard let view = try? JSONValue.parse(Array(event.data.utf8)) else { continue }
                if version(view) > after { return view }
            }
            return nil
        }
    }
}
