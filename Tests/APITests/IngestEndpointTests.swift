import API
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

/// `POST /v1/providers/{p}/vehicles:reportLocations` and the group commit of UpdateVehicle.
@Suite(.timeLimit(.minutes(3))) struct IngestEndpointTests {
    static let path = "/v1/providers/acme/vehicles:reportLocations"

    /// One report as JSON: `vehicleId`, then optional `eventId`, then `extra` members (default: a location).
    static func report(_ vehicleId: String, eventId: String? = nil, latitude: Double = 52.51, longitude: Double = 13.41, extra: String? = nil) -> String {
        var members = [#""vehicleId":"\#(vehicleId)""#]
        if let eventId { members.append(#""eventId":"\#(eventId)""#) }
        members.append(extra ?? #""location":{"location":{"latitude":\#(latitude),"longitude":\#(longitude)},"heading":90}"#)
        return "{" + members.joined(separator: ",") + "}"
    }

    static func batch(_ reports: [String]) -> String { #"{"reports":["# + reports.joined(separator: ",") + "]}" }

    static func results(_ body: JSONValue) -> [JSONValue] { body["results"]?.arrayValue ?? [] }

    /// How many events of `type` the database holds, and in how many transactions they were written.
    static func transactions(_ server: TestServer, type: String) async throws -> (events: Int64, transactions: Int64) {
        let url = server.databaseURL
        return try await Blocking.run {
            let row = try Connection(conninfo: url).query("SELECT count(*), count(DISTINCT txid) FROM events WHERE event_type = $1", [type]).first
            return (try row?.int64(0) ?? -1, try row?.int64(1) ?? -1)
        }
    }

    /// A counter of `/metrics`.
    static func metric(_ server: TestServer, _ name: String) async throws -> Int {
        let text = try await server.request("GET", "/metrics").text
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return Int(line?.split(separator: " ").last ?? "") ?? -1
    }

    @Test func reportsAreAnsweredInRequestOrderDurablyAndReadBackOnGetVehicle() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createVehicle("v-2")
            let id = "6F9619FF-8B86-4011-B42D-00CF4FC964FF"
            let before = try await server.eventCount()
            let (status, body) = try await server.json("POST", Self.path, Self.batch([
                Self.report("v-2", latitude: 52.60), Self.report("v-1", eventId: id, latitude: 52.61), Self.report("v-2", latitude: 52.62),
            ]))
            #expect(status == 200, "\(body)")
            let results = Self.results(body)
            #expect(results.map { $0["vehicleId"]?.stringValue } == ["v-2", "v-1", "v-2"])
            #expect(results.map { $0["status"]?.stringValue } == ["ACCEPTED", "ACCEPTED", "ACCEPTED"])
            #expect(results[1]["eventId"]?.stringValue == id.lowercased())
            for result in results {
                #expect(UUID(uuidString: result["eventId"]?.stringValue ?? "") != nil, "\(result)")
                #expect(result["error"] == nil)
            }
            // Acknowledged means committed: the events are there, all from one transaction.
            #expect(try await server.eventCount() == before + 3)
            let url = server.databaseURL
            let stored = try await Blocking.run {
                try Connection(conninfo: url).query("SELECT count(DISTINCT txid) FROM events WHERE event_id = $1::uuid", [id.lowercased()]).first?.int64(0)
            }
            #expect(stored == 1)
            // Reads that follow see the reports (the node waits for its own writes before answering).
            let (_, second) = try await server.json("GET", "/v1/providers/acme/vehicles/v-2")
            #expect(second["lastLocation"]?["location"]?["latitude"]?.doubleValue == 52.62, "\(second)")
            let (_, first) = try await server.json("GET", "/v1/providers/acme/vehicles/v-1")
            #expect(first["lastLocation"]?["location"]?["latitude"]?.doubleValue == 52.61, "\(first)")
        }
    }

    /// With `WAYMARK_PROJECTION_SNAPSHOT_MS` the fleet's table is a snapshot of its runner's memory:
    /// a report is held there, and a read that waits for its own write has it written at once.
    @Test func withSnapshotsAReportIsHeldFromTheTableUntilAReadWaitsForIt() async throws {
        try await TestServer.with(environment: ["WAYMARK_PROJECTION_SNAPSHOT_MS": "60000"]) { server in
            try await server.createVehicle("v-1")
            let url = server.databaseURL
            @Sendable func stored() async throws -> String {
                try await Blocking.run {
                    try Connection(conninfo: url).query("SELECT document FROM rm_fleet WHERE collection = 'vehicles' AND key LIKE '%/v-1'").first?.string(0) ?? ""
                }
            }
            let (status, body) = try await server.json("POST", Self.path, Self.batch([Self.report("v-1", latitude: 52.61)]))
            #expect(status == 200, "\(body)")
            try await Task.sleep(for: .seconds(1))
            let held = try await stored()
            #expect(!held.contains("52.61"), "held: nothing waited for the table: \(held)")
            let started = ContinuousClock.now
            let (_, vehicle) = try await server.json("GET", "/v1/providers/acme/vehicles/v-1")
            #expect(vehicle["lastLocation"]?["location"]?["latitude"]?.doubleValue == 52.61, "\(vehicle)")
            #expect(ContinuousClock.now - started < .seconds(30), "a read that waits has what is held written at once")
            #expect(try await stored().contains("52.61"), "the read waited for its write, which wrote what was held")
        }
    }

    @Test func oneBatchIsOneTransaction() async throws {
        try await TestServer.with { server in
            for n in 0..<5 { try await server.createVehicle("v-\(n)") }
            let reports = (0..<20).map { Self.report("v-\($0 % 5)", latitude: 52.5 + Double($0) / 1000) }
            let (status, body) = try await server.json("POST", Self.path, Self.batch(reports))
            #expect(status == 200 && Self.results(body).allSatisfy { $0["status"]?.stringValue == "ACCEPTED" }, "\(body)")
            let counted = try await Self.transactions(server, type: "VehicleLocationReported")
            // CreateVehicle wrote one location per vehicle in transactions of its own.
            #expect(counted.events == 25)
            let url = server.databaseURL
            let batchTransactions = try await Blocking.run {
                try Connection(conninfo: url).query("""
                    SELECT count(DISTINCT txid) FROM events WHERE event_type = 'VehicleLocationReported' AND metadata->>'requestId' IN (
                        SELECT metadata->>'requestId' FROM events WHERE event_type = 'VehicleLocationReported' GROUP BY 1 HAVING count(*) = 20)
                    """).first?.int64(0)
            }
            #expect(batchTransactions == 1)
        }
    }

    @Test func mixedAcceptedStaleAndRejectedReportsShareOneBatchAndNoneRejectsItsNeighbours() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createVehicle("v-2")
            let before = try await server.eventCount()
            let (status, body) = try await server.json("POST", Self.path, Self.batch([
                Self.report("v-1", latitude: 52.70),
                Self.report("v-1", extra: #""location":{"location":{"latitude":1,"longitude":1},"updateTime":"2001-01-01T00:00:00Z"}"#),
                Self.report("v-none"),
                Self.report("v-1", latitude: 95),
                Self.report("v-1", extra: #""location":{"location":{"latitude":52.5,"longitude":13.4},"heading":400}"#),
                Self.report("v-1", extra: #""location":{"location":{"latitude":52.5,"longitude":13.4}},"speedy":true"#),
                Self.report("v-1", eventId: "not-a-uuid"),
                Self.report("a/b"),
                "42",
                Self.report("v-1", extra: #""header":{}"#),
                Self.report("v-2", latitude: 52.71),
                Self.report("v-1", latitude: 52.72),
            ]))
            #expect(status == 200, "\(body)")
            let results = Self.results(body)
            #expect(results.count == 12)
            #expect(results.map { $0["status"]?.stringValue ?? "" } == [
                "ACCEPTED", "STALE", "REJECTED", "REJECTED", "REJECTED", "REJECTED", "REJECTED", "REJECTED", "REJECTED", "REJECTED", "ACCEPTED", "ACCEPTED",
            ])
            #expect(results.map { $0["vehicleId"]?.stringValue ?? "?" } == ["v-1", "v-1", "v-none", "v-1", "v-1", "v-1", "v-1", "a/b", "", "v-1", "v-2", "v-1"])
            func error(_ index: Int) -> (Int64?, String?, String) {
                let error = results[index]["error"]
                return (error?["code"]?.int64Value, error?["status"]?.stringValue, error?["message"]?.stringValue ?? "")
            }
            #expect(error(2).0 == 404 && error(2).1 == "NOT_FOUND" && error(2).2.contains("v-none"), "\(error(2))")
            #expect(error(3).1 == "INVALID_ARGUMENT" && error(3).2.contains("reports[3].location.location.latitude"), "\(error(3))")
            #expect(error(4).1 == "INVALID_ARGUMENT" && error(4).2.contains("reports[4].location.heading"), "\(error(4))")
            #expect(error(5).1 == "INVALID_ARGUMENT" && error(5).2.contains("unknown field \"speedy\" in reports[5]"), "\(error(5))")
            #expect(error(6).1 == "INVALID_ARGUMENT" && error(6).2.contains("reports[6].eventId must be a UUID"), "\(error(6))")
            #expect(results[6]["eventId"]?.stringValue == "not-a-uuid")
            #expect(error(7).1 == "INVALID_ARGUMENT" && error(7).2.contains("reports[7].vehicleId"), "\(error(7))")
            #expect(error(8).1 == "INVALID_ARGUMENT" && error(8).2.contains("reports[8] must be a JSON object"), "\(error(8))")
            #expect(error(9).1 == "INVALID_ARGUMENT" && error(9).2.contains("unknown field \"header\" in reports[9]"), "\(error(9))")
            for index in [0, 1, 10, 11] { #expect(results[index]["error"] == nil) }
            // Exactly the accepted and stale reports were recorded, one event each.
            #expect(try await server.eventCount() == before + 4)
            // The stale report did not move the vehicle; the last accepted one did.
            let (_, vehicle) = try await server.json("GET", "/v1/providers/acme/vehicles/v-1")
            #expect(vehicle["lastLocation"]?["location"]?["latitude"]?.doubleValue == 52.72, "\(vehicle)")
        }
    }

    /// Telematics gateways with many connections send batches whose vehicles overlap. Batches
    /// that name the same vehicles at the same time must each be settled (every report ACCEPTED or
    /// STALE), not aborted after rounds of conflicts between them.
    @Test func manyBatchesForTheSameVehiclesAtOnceAreAllSettledWithoutAborting() async throws {
        try await TestServer.with { server in
            let vehicles = (0..<60).map { "v-\($0)" }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<6 {
                    group.addTask { for vehicle in vehicles[(lane * 10)..<(lane * 10 + 10)] { try await server.createVehicle(vehicle) } }
                }
                try await group.waitForAll()
            }
            let before = try await server.eventCount()
            let batches = 16
            let statuses = try await withThrowingTaskGroup(of: [String].self) { group in
                for batch in 0..<batches {
                    group.addTask {
                        let body = Self.batch(vehicles.map { Self.report($0, latitude: 52.5 + Double(batch) * 0.001) })
                        let (status, answer) = try await server.json("POST", Self.path, body)
                        #expect(status == 200, "\(answer)")
                        let results = Self.results(answer)
                        if let refused = results.first(where: { $0["status"]?.stringValue == "REJECTED" }) { Issue.record("batch \(batch): \(refused)") }
                        return results.map { $0["status"]?.stringValue ?? "?" }
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(statuses.count == batches * vehicles.count)
            #expect(statuses.allSatisfy { $0 == "ACCEPTED" || $0 == "STALE" }, "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
            // Accepted and stale reports are recorded, one event each; nothing else.
            #expect(try await server.eventCount() == before + Int64(batches * vehicles.count))
        }
    }

    @Test func aRetriedBatchWithTheSameEventIdsGetsTheSameAnswerAndAppendsNothing() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createVehicle("v-2")
            let ids = (0..<5).map { _ in UUID().uuidString.lowercased() }
            let body = Self.batch([
                // location plus buffered history: several events for one report
                Self.report("v-1", eventId: ids[0], extra: #"""
                    "location":{"location":{"latitude":52.53,"longitude":13.43}},
                    "pastLocations":[{"location":{"latitude":52.52,"longitude":13.42},"updateTime":"2020-01-01T00:00:01Z"},{"location":{"latitude":52.521,"longitude":13.421}}]
                    """#),
                Self.report("v-1", eventId: ids[1], extra: #""location":{"location":{"latitude":1,"longitude":1},"updateTime":"2001-01-01T00:00:00Z"}"#),
                Self.report("v-2", eventId: ids[2], latitude: 52.54),
                Self.report("v-none", eventId: ids[3]),
                Self.report("v-2", eventId: ids[4], extra: #""pastLocations":[{"location":{"latitude":52.55,"longitude":13.45}}]"#),
            ])
            let before = try await server.eventCount()
            let (status, first) = try await server.json("POST", Self.path, body)
            #expect(status == 200, "\(first)")
            #expect(Self.results(first).map { $0["status"]?.stringValue ?? "" } == ["ACCEPTED", "STALE", "ACCEPTED", "REJECTED", "ACCEPTED"])
            #expect(Self.results(first).map { $0["eventId"]?.stringValue } == ids)
            let written = try await server.eventCount()
            #expect(written == before + 5)  // history + location, stale, location, history
            for _ in 0..<2 {
                let (again, second) = try await server.json("POST", Self.path, body)
                #expect(again == 200 && second == first, "\(second)")
                #expect(try await server.eventCount() == written)
            }
            // A batch that repeats one stored report and adds a new one appends only the new one.
            let fresh = UUID().uuidString.lowercased()
            let (_, mixed) = try await server.json("POST", Self.path, Self.batch([Self.report("v-2", eventId: ids[2], latitude: 1), Self.report("v-2", eventId: fresh)]))
            #expect(Self.results(mixed).map { $0["status"]?.stringValue ?? "" } == ["ACCEPTED", "ACCEPTED"], "\(mixed)")
            #expect(try await server.eventCount() == written + 1)
            // Two copies of one batch racing each other: one append, the same answer twice.
            let racing = (0..<3).map { _ in UUID().uuidString.lowercased() }
            let raceBody = Self.batch(racing.enumerated().map { Self.report("v-\($0.offset % 2 + 1)", eventId: $0.element) })
            async let a = server.json("POST", Self.path, raceBody)
            async let b = server.json("POST", Self.path, raceBody)
            let (ra, rb) = try await (a, b)
            #expect(ra.0 == 200 && rb.0 == 200 && ra.1 == rb.1, "\(ra.1) \(rb.1)")
            #expect(Self.results(ra.1).allSatisfy { $0["status"]?.stringValue == "ACCEPTED" }, "\(ra.1)")
            #expect(try await server.eventCount() == written + 4)
            // Reusing a report's id for another vehicle is refused, not answered from the stored event.
            let (_, clash) = try await server.json("POST", Self.path, Self.batch([Self.report("v-1", eventId: ids[2])]))
            #expect(Self.results(clash).first?["error"]?["status"]?.stringValue == "ALREADY_EXISTS", "\(clash)")
            let (_, repeated) = try await server.json("POST", Self.path, Self.batch([Self.report("v-1", eventId: fresh.uppercased()), Self.report("v-1", eventId: fresh)]))
            #expect(Self.results(repeated).map { $0["status"]?.stringValue ?? "" } == ["REJECTED", "REJECTED"], "\(repeated)")
            #expect(Self.results(repeated).last?["error"]?["message"]?.stringValue?.contains("repeats the eventId of reports[0]") == true, "\(repeated)")
            #expect(try await server.eventCount() == written + 4)
        }
    }

    @Test func aRetriedReportOfAVehicleDeletedSinceIsAnsweredFromItsStoredEventAndANewOneIsRefused() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createVehicle("v-2")
            let ids = (0..<2).map { _ in UUID().uuidString.lowercased() }
            let body = Self.batch([Self.report("v-1", eventId: ids[0], latitude: 52.53), Self.report("v-2", eventId: ids[1], latitude: 52.54)])
            let (status, first) = try await server.json("POST", Self.path, body)
            #expect(status == 200 && Self.results(first).map { $0["status"]?.stringValue ?? "" } == ["ACCEPTED", "ACCEPTED"], "\(first)")
            let (deleted, _) = try await server.json("DELETE", "/v1/providers/acme/vehicles/v-2")
            #expect(deleted == 200)
            let written = try await server.eventCount()
            // The retry's decision refuses v-2's report (the vehicle is gone); its stored event answers it.
            let (again, second) = try await server.json("POST", Self.path, body)
            #expect(again == 200 && second == first, "\(second)")
            #expect(try await server.eventCount() == written)
            // A new report for the deleted vehicle is refused.
            let (_, fresh) = try await server.json("POST", Self.path, Self.batch([Self.report("v-2", eventId: UUID().uuidString.lowercased())]))
            #expect(Self.results(fresh).first?["error"]?["status"]?.stringValue == "NOT_FOUND", "\(fresh)")
            #expect(try await server.eventCount() == written)
        }
    }

    @Test func driverTokensReportOnlyTheirOwnVehicleAndOtherRolesNothing() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createVehicle("v-2")
            let before = try await server.eventCount()
            let driver = server.token(.driver, vehicle: "v-1")
            let (status, body) = try await server.json("POST", Self.path, Self.batch([Self.report("v-2"), Self.report("v-1"), Self.report("v-2")]), token: driver)
            #expect(status == 200, "\(body)")
            let results = Self.results(body)
            #expect(results.map { $0["status"]?.stringValue ?? "" } == ["REJECTED", "ACCEPTED", "REJECTED"])
            #expect(results[0]["error"]?["status"]?.stringValue == "PERMISSION_DENIED" && results[0]["error"]?["code"]?.int64Value == 403)
            #expect(try await server.eventCount() == before + 1)
            let one = Self.batch([Self.report("v-1")])
            expectError(try await server.json("POST", Self.path, one, token: server.token(.consumer, trip: "t-1")), 403, "PERMISSION_DENIED")
            expectError(try await server.json("POST", Self.path, one, token: server.token(.auditor)), 403, "PERMISSION_DENIED")
            expectError(try await server.json("POST", Self.path, one, token: server.token(.server, provider: "other")), 403, "PERMISSION_DENIED")
            let anonymous = try await server.request("POST", Self.path, body: one)
            #expect(anonymous.status == 401, "\(anonymous.text)")
            let forged = try await server.request("POST", Self.path, body: one, token: server.server + "x")
            #expect(forged.status == 401, "\(forged.text)")
            #expect(try await server.eventCount() == before + 1)
        }
    }

    @Test func batchesAreLimitedTo5000ReportsAndBadEnvelopesAreRefusedWhole() async throws {
        try await TestServer.with { server in
            for n in 0..<10 { try await server.createVehicle("v-\(n)") }
            let before = try await server.eventCount()
            let tooMany = Self.batch((0...5000).map { Self.report("v-\($0 % 10)", latitude: 50 + Double($0 % 1000) / 1000) })
            expectError(try await server.json("POST", Self.path, tooMany), 400, "INVALID_ARGUMENT", containing: "at most 5000 reports")
            let valid = Self.batch([Self.report("v-1")])
            let text = try await server.request("POST", Self.path, body: valid, token: server.server, contentType: "text/plain")
            #expect(text.status == 415, "\(text.text)")
            expectError(try await server.json("POST", Self.path, String(valid.dropLast())), 400, "INVALID_ARGUMENT", containing: "not valid JSON")
            expectError(try await server.json("POST", Self.path, #"{"reports":[],"surprise":1}"#), 400, "INVALID_ARGUMENT", containing: "unknown field \"surprise\"")
            expectError(try await server.json("POST", Self.path, #"{"reports":{}}"#), 400, "INVALID_ARGUMENT", containing: "reports must be")
            expectError(try await server.json("POST", Self.path, #"{}"#), 400, "INVALID_ARGUMENT", containing: "reports is required")
            expectError(try await server.json("POST", Self.path, "[]"), 400, "INVALID_ARGUMENT", containing: "must be a JSON object")
            expectError(try await server.json("POST", Self.path + "?dryRun=true", valid), 400, "INVALID_ARGUMENT", containing: "dryRun")
            expectError(try await server.json("GET", Self.path), 405, "UNIMPLEMENTED")
            #expect(try await server.eventCount() == before)
            // An empty batch is answered with no results; 5,000 reports are taken.
            let (emptyStatus, empty) = try await server.json("POST", Self.path, #"{"reports":[],"header":{"traceId":"t"}}"#)
            #expect(emptyStatus == 200 && Self.results(empty).isEmpty && empty["results"] != nil, "\(empty)")
            let full = Self.batch((0..<5000).map { Self.report("v-\($0 % 10)", latitude: 50 + Double($0 % 1000) / 1000) })
            let (fullStatus, answer) = try await server.json("POST", Self.path, full)
            #expect(fullStatus == 200)
            #expect(Self.results(answer).count == 5000 && Self.results(answer).allSatisfy { $0["status"]?.stringValue == "ACCEPTED" })
            #expect(try await server.eventCount() == before + 5000)
        }
    }

    @Test func updateVehicleLocationAnswersAreWhatReadsShowAfterwards() async throws {
        try await TestServer.with { server in
            for n in 0..<4 { try await server.createVehicle("v-\(n)") }
            try await server.createTrip("t-1")
            let (assigned, _) = try await server.updateTrip("t-1", mask: "vehicleId,tripStatus", #"{"vehicleId":"v-0","tripStatus":"ENROUTE_TO_PICKUP"}"#)
            #expect(assigned == 200)
            for round in 0..<10 {
                // Concurrent location updates (with history, heading, speed, a stale one) on four vehicles.
                let answers = try await withThrowingTaskGroup(of: (Int, JSONValue).self) { group in
                    for n in 0..<4 {
                        group.addTask {
                            let body = n == 3 && round % 2 == 1
                                ? #"{"lastLocation":{"location":{"latitude":1,"longitude":1},"updateTime":"2001-01-01T00:00:00Z"}}"#
                                : #"{"lastLocation":{"location":{"latitude":\#(52.5 + Double(round) / 100),"longitude":\#(13.4 + Double(n) / 100)},"heading":\#(round * 7),"speed":\#(Double(round) / 2)},"pastLocations":[{"location":{"latitude":52.4,"longitude":13.3}}]}"#
                            let (status, answer) = try await server.json("PUT", "/v1/providers/acme/vehicles/v-\(n)?updateMask=lastLocation,pastLocations", body)
                            #expect(status == 200, "\(answer)")
                            return (n, answer)
                        }
                    }
                    return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
                for n in 0..<4 {
                    let (_, read) = try await server.json("GET", "/v1/providers/acme/vehicles/v-\(n)")
                    #expect(read == answers[n], "round \(round), v-\(n): answered \(answers[n] ?? .null), read \(read)")
                }
                let (_, trip) = try await server.json("GET", "/v1/providers/acme/trips/t-1")
                #expect(trip["lastLocation"]?["location"]?["latitude"] != nil)
            }
            // A vehicle's first location (its resource had none before) is answered as GetVehicle reads it.
            let (created, _) = try await server.json("POST", "/v1/providers/acme/vehicles?vehicleId=v-bare",
                                                     #"{"vehicleState":"ONLINE","supportedTripTypes":["EXCLUSIVE"],"maximumCapacity":4,"vehicleType":{"category":"AUTO"}}"#)
            #expect(created == 200)
            let (firstStatus, first) = try await server.json("PUT", "/v1/providers/acme/vehicles/v-bare?updateMask=lastLocation", #"{"lastLocation":{"location":{"latitude":48.2,"longitude":16.4}}}"#)
            #expect(firstStatus == 200 && first["name"]?.stringValue == "providers/acme/vehicles/v-bare", "\(first)")
            let (_, bare) = try await server.json("GET", "/v1/providers/acme/vehicles/v-bare")
            #expect(bare == first)
            // A query over many vehicles sees the last update too.
            let (_, moved) = try await server.json("PUT", "/v1/providers/acme/vehicles/v-2?updateMask=lastLocation", #"{"lastLocation":{"location":{"latitude":48.1,"longitude":11.5}}}"#)
            let (listed, list) = try await server.json("GET", "/v1/providers/acme/vehicles?vehicleTypeCategories=AUTO")
            #expect(listed == 200)
            let entry = list["vehicles"]?.arrayValue?.first { $0["name"]?.stringValue == "providers/acme/vehicles/v-2" }
            #expect(entry?["lastLocation"] == moved["lastLocation"], "\(list)")
        }
    }

    /// UpdateVehicle with one `lastLocation`; expects 200.
    static func updateLocation(_ server: TestServer, vehicle: String, heading: Int) async throws {
        let (status, body) = try await server.json("PUT", "/v1/providers/acme/vehicles/\(vehicle)?updateMask=lastLocation",
                                                   #"{"lastLocation":{"location":{"latitude":52.5,"longitude":13.4},"heading":\#(heading)}}"#)
        #expect(status == 200, "\(body)")
    }

    @Test func concurrentUpdateVehicleLocationCallsShareTransactions() async throws {
        try await TestServer.with { server in
            let vehicles = 32
            for n in 0..<vehicles { try await server.createVehicle("v-\(n)") }
            let before = try await Self.transactions(server, type: "VehicleLocationReported")
            let (eventsBefore, transactionsBefore) = (try await Self.metric(server, "waymark_events_appended_total"), try await Self.metric(server, "waymark_append_transactions_total"))
            let requests = 96
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<requests {
                    group.addTask { try await Self.updateLocation(server, vehicle: "v-\(n % vehicles)", heading: n % 360) }
                }
                try await group.waitForAll()
            }
            let after = try await Self.transactions(server, type: "VehicleLocationReported")
            #expect(after.events - before.events == Int64(requests))
            // Requests that arrived together were committed together: fewer transactions than requests.
            #expect(after.transactions - before.transactions < Int64(requests), "\(after.transactions - before.transactions) transactions for \(requests) requests")
            // The committers' own statistics say the same.
            let events = try await Self.metric(server, "waymark_events_appended_total") - eventsBefore
            let transactions = try await Self.metric(server, "waymark_append_transactions_total") - transactionsBefore
            #expect(events == requests && transactions > 0 && transactions < events, "\(events) events in \(transactions) transactions")
        }
    }

    /// A vehicle's location sent many times at once (a driver app retrying, a dispatcher and the
    /// app together), and a batch naming it meanwhile: every call is applied, none aborted.
    @Test func manyUpdateVehicleCallsForOneVehicleAtOnceAreAllApplied() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            let before = try await Self.transactions(server, type: "VehicleLocationReported")
            let requests = 48
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<requests {
                    group.addTask { try await Self.updateLocation(server, vehicle: "v-1", heading: n % 360) }
                }
                group.addTask {
                    let (status, body) = try await server.json("POST", Self.path, Self.batch([Self.report("v-1"), Self.report("v-1", latitude: 52.52)]))
                    #expect(status == 200 && Self.results(body).allSatisfy { $0["status"]?.stringValue != "REJECTED" }, "\(body)")
                }
                try await group.waitForAll()
            }
            let after = try await Self.transactions(server, type: "VehicleLocationReported")
            #expect(after.events - before.events == Int64(requests + 2))
        }
    }

    /// The projection runners, the arrival detector and the webhook dispatcher of a node all read
    /// each new event; the runners that settle before reading (fleet, route audit, driver feed)
    /// find the pages the journey runner read a moment before in the node's feed cache.
    @Test func aNodesFeedReadersShareItsCacheOfRecentEvents() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createVehicle("v-2")
            #expect(try await Self.metric(server, "waymark_feed_cache_hits_total") >= 0, "the metric is exported")
            #expect(try await Self.metric(server, "waymark_feed_reads_joined_total") >= 0, "the metric is exported")
            // A pair of reports every tenth poll (about half a second), until a reader finds a page in the cache.
            var polls = 0
            let hit = await waitFor(.seconds(60)) {
                if polls % 10 == 0 {
                    let round = Double(polls / 10)
                    let (status, body) = try await server.json("POST", Self.path, Self.batch([
                        Self.report("v-1", latitude: 52.60 + round / 1000), Self.report("v-2", latitude: 52.50 + round / 1000),
                    ]))
                    #expect(status == 200, "\(body)")
                }
                polls += 1
                return try await Self.metric(server, "waymark_feed_cache_hits_total") > 0
            }
            #expect(hit, "no feed cache hit after \(polls / 10 + 1) rounds of reports")
        }
    }

    /// Sustained overload is paced, not refused: past `WAYMARK_INGEST_MAX_BACKLOG` events that the
    /// journey projection has not applied, a batch waits for it (here it cannot move: its table is
    /// locked), goes on after the consistency timeout, and every report is kept. A burst under the
    /// bound never waits, and once the projection moves again batches pass without a timeout.
    @Test func batchesWaitForAProjectionFarBehindButEveryReportIsKept() async throws {
        try await TestServer.with(environment: Self.pacing) { server in
            try await Self.expectPacing(ingesting: server)
        }
    }

    /// The same on a node that does not run the projections: it reads their checkpoints.
    @Test func aNodeThatDoesNotOwnTheProjectionsPacesByTheirCheckpoints() async throws {
        try await TestDatabase.withTestDatabase { url in
            let owner = try await TestServer.start(databaseURL: url)
            defer { owner.stop() }
            // The first node must hold the projections before the second starts, or the second may
            // take one that the first had not taken yet (seen on a loaded machine).
            #expect(await waitFor(.seconds(60)) {
                let metrics = try await owner.request("GET", "/metrics").text
                return metrics.contains(#"waymark_projection_owner{projection="journey"} 1"#)
                    && metrics.contains(#"waymark_projection_owner{projection="fleet"} 1"#)
            }, "the first node owns the journey and fleet projections")
            var environment = Self.pacing
            environment["WAYMARK_JWT_SECRET"] = owner.secret
            let other = try await TestServer.start(databaseURL: url, environment: environment)
            defer { other.stop() }
            #expect(await waitFor {
                let metrics = try await other.request("GET", "/metrics").text
                return metrics.contains(#"waymark_projection_owner{projection="journey"} 0"#)
                    && metrics.contains(#"waymark_projection_owner{projection="fleet"} 0"#)
            }, "the second node owns a projection")
            try await Self.expectPacing(ingesting: other)
        }
    }

    /// A bound of 20 events and a consistency timeout of 1 s.
    static let pacing = ["WAYMARK_INGEST_MAX_BACKLOG": "20", "WAYMARK_CONSISTENCY_TIMEOUT_SECONDS": "1"]

    static func expectPacing(ingesting server: TestServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        // A consistency timeout of 1 s: a creation may answer 503 (saved) under the suite's load.
        for n in 0..<5 { try await server.createVehicle("v-\(n)", keptIsEnough: true) }
        var sent = 0
        func post(_ count: Int) async throws -> Duration {
            let reports = (0..<count).map { Self.report("v-\($0 % 5)", latitude: 52.5 + Double(sent + $0) / 10_000) }
            sent += count
            let started = ContinuousClock.now
            let (status, body) = try await server.json("POST", Self.path, Self.batch(reports))
            #expect(status == 200 && Self.results(body).allSatisfy { $0["status"]?.stringValue == "ACCEPTED" }, "\(body)", sourceLocation: sourceLocation)
            return ContinuousClock.now - started
        }
        let before = try await server.eventCount()
        _ = try await post(10)
        #expect(try await Self.metric(server, "waymark_ingest_paced_requests_total") == 0, sourceLocation: sourceLocation)

        // The journey runner's next write blocks on the lock (a table lock takes no transaction
        // id, so no other test's projections are held back).
        let lock = try await HeldTransaction.open(server.databaseURL, ["BEGIN", "LOCK TABLE rm_journey IN EXCLUSIVE MODE"])
        _ = try await post(30)  // 40 appended, the first 10 perhaps applied: no wait yet
        let waited = try await post(30)  // the 30 before it are not applied: waits, then goes on
        try await lock.release()
        #expect(waited >= .milliseconds(900), "\(waited)", sourceLocation: sourceLocation)
        #expect(try await Self.metric(server, "waymark_ingest_paced_requests_total") >= 1, sourceLocation: sourceLocation)
        #expect(try await Self.metric(server, "waymark_ingest_pace_timeouts_total") == 1, sourceLocation: sourceLocation)

        _ = try await post(30)  // the projection moves again: it may wait, but not time out
        #expect(try await Self.metric(server, "waymark_ingest_pace_timeouts_total") == 1, sourceLocation: sourceLocation)
        #expect(try await server.eventCount() == before + Int64(sent), sourceLocation: sourceLocation)
    }

    @Test func ingestPacingIsOffWithABacklogOfZeroAndRefusesBadSettings() async throws {
        try await TestServer.with(environment: ["WAYMARK_INGEST_MAX_BACKLOG": "0"]) { server in
            try await server.createVehicle("v-1")
            let (status, _) = try await server.json("POST", Self.path, Self.batch([Self.report("v-1")]))
            #expect(status == 200)
            #expect(try await Self.metric(server, "waymark_ingest_paced_requests_total") == -1, "no pacing metrics when it is off")
        }
        for bad in ["-1", "lots", "1000000001"] {
            let result = try await WaymarkBinary.run(["serve"], environment: ["WAYMARK_INGEST_MAX_BACKLOG": bad, "WAYMARK_HTTP_PORT": "0"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("WAYMARK_INGEST_MAX_BACKLOG must be a whole number of events from 0 to 1000000000"), "\(result.stderr)")
        }
    }
}
