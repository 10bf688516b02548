import Geo
import JSON
import Journey
import ReadModels
import Testing
import Simulator

@Suite("Journey view projection")
struct JourneyViewProjectionTests {
    typealias F = JourneyViewFixtures

    /// A trip assigned to v-1, heading for its pickup along a 677 m segment (8 points).
    private func enrouteWorld(traffic: [TrafficSpeedInterval] = []) throws -> JourneyViewWorld {
        var w = JourneyViewWorld()
        try w.register("v-1", at: F.t(0))
        try w.locate("v-1", F.depot, at: F.t(1))
        try w.create("t-1", at: F.t(2))
        try w.assign("t-1", to: "v-1", at: F.t(3))
        try w.status("t-1", .enrouteToPickup, at: F.t(4))
        try w.segment("v-1", F.path(F.depot, F.point(52.52, 13.405), F.pickup), traffic: traffic, at: F.t(5))
        return w
    }

    private func points(_ polyline: JSONValue?) throws -> [LatLng] {
        try Polyline.decode(try #require(polyline?["encodedPath"]?.stringValue))
    }

    // MARK: Version

    @Test func versionBumpsByOneOnlyWhenTheViewChanges() throws {
        var w = try enrouteWorld()
        _ = w.projection.drainChanges()
        let before = try #require(w.view("t-1"))

        // A vehicle fact the view does not show (navigation status), seconds later: no new version.
        try w.vehicle("v-1", .setNavigationStatus(.enrouteToDestination, at: F.t(6)), at: F.t(6))
        try w.trip("t-1", .setAttributes([Attribute(key: "k", value: .string("v"))], at: F.t(7)), at: F.t(7))
        #expect(w.view("t-1") == before)
        #expect(!w.projection.drainChanges().contains { $0.collection == "views" })

        // A move changes the view: exactly one more version, stamped with the report's time.
        try w.locate("v-1", F.point(52.52, 13.403), at: F.t(20))
        let after = try #require(w.view("t-1"))
        #expect(after["version"]?.int64Value == (before["version"]?.int64Value ?? 0) + 1)
        #expect(after["updateTime"] == .string(F.t(20).rfc3339))
        let views = w.projection.drainChanges().filter { $0.collection == "views" }
        #expect(views.map(\.key) == ["providers/acme/trips/t-1"])
        #expect(views.first?.document == after)
    }

    @Test func vehicleEventsDoNotReachTripsTheVehicleDoesNotServe() throws {
        var w = try enrouteWorld()
        try w.create("t-2", pickup: F.stop0, at: F.t(6))
        let untouched = w.text("t-2")
        try w.locate("v-1", F.point(52.52, 13.403), at: F.t(20))
        #expect(w.text("t-2") == untouched)
        #expect(w.view("t-2")?.viewMarker("TRIP_VEHICLE")?["visible"] == false)
    }

    // MARK: Active route and traffic

    @Test func activeRouteShrinksAsTheVehicleMovesBetweenRouteUpdates() throws {
        var w = try enrouteWorld()
        var lengths = [Distance.pathLength(try points(w.view("t-1")?.viewPolyline("ACTIVE_ROUTE")))]
        for (i, lng) in [13.401, 13.403, 13.406, 13.4085].enumerated() {
            let position = F.point(52.52, lng)
            try w.locate("v-1", position, at: F.t(10 + 10 * Double(i)))
            let path = try points(w.view("t-1")?.viewPolyline("ACTIVE_ROUTE"))
            // Starts where the vehicle is (to the 1e-5° of the encoding) and ends at the pickup.
            #expect(Distance.meters(try #require(path.first), position) < 1)
            #expect(Distance.meters(try #require(path.last), F.pickup) < 1)
            lengths.append(Distance.pathLength(path))
        }
        #expect(zip(lengths, lengths.dropFirst()).allSatisfy { $0 > $1 + 50 })
        #expect(w.log.filter { if case .vehicle(_, _, .routeSegmentUpdated) = $0.event { true } else { false } }.count == 1)
    }

    @Test func activeRouteDoesNotGrowBackWhenAReportLagsBehind() throws {
        var w = try enrouteWorld()
        try w.locate("v-1", F.point(52.52, 13.406), at: F.t(20))
        let ahead = try points(w.view("t-1")?.viewPolyline("ACTIVE_ROUTE"))
        // A later report a little behind the last snap (GPS jitter): the line keeps its trim.
        try w.locate("v-1", F.point(52.52, 13.4055), at: F.t(25))
        #expect(try points(w.view("t-1")?.viewPolyline("ACTIVE_ROUTE")) == ahead)
    }

    @Test func trafficIntervalsAreReindexedToTheTrimmedPathWithGapsAsNoData() throws {
        // 5 points, 0.0025° (169 m) apart: SLOW over points 1...2, TRAFFIC_JAM over 3...4.
        var w = try enrouteWorld(traffic: [.init(startIndex: 1, endIndex: 2, speed: .slow), .init(startIndex: 3, endIndex: 4, speed: .trafficJam)])
        let full = try #require(w.view("t-1")?.viewPolyline("ACTIVE_ROUTE"))
        #expect(try points(full).count == 5)
        #expect(full["trafficIntervals"]?.compactString == #"[{"startIndex":0,"endIndex":1,"speed":"NO_DATA"},{"startIndex":1,"endIndex":2,"speed":"SLOW"},{"startIndex":2,"endIndex":3,"speed":"NO_DATA"},{"startIndex":3,"endIndex":4,"speed":"TRAFFIC_JAM"}]"#)

        // Halfway between points 1 and 2: the trimmed path is [vehicle, 2, 3, 4]; the slow
        // stretch is clipped to start at the vehicle, the rest shifted by one.
        try w.locate("v-1", F.point(52.52, 13.40375), at: F.t(20))
        let trimmed = try #require(w.view("t-1")?.viewPolyline("ACTIVE_ROUTE"))
        #expect(try points(trimmed).count == 4)
        #expect(trimmed["trafficIntervals"]?.compactString == #"[{"startIndex":0,"endIndex":1,"speed":"SLOW"},{"startIndex":1,"endIndex":2,"speed":"NO_DATA"},{"startIndex":2,"endIndex":3,"speed":"TRAFFIC_JAM"}]"#)

        // Inside the jam: only the jam is left, from the vehicle to the pickup.
        try w.locate("v-1", F.point(52.52, 13.408), at: F.t(40))
        let late = try #require(w.view("t-1")?.viewPolyline("ACTIVE_ROUTE"))
        #expect(try points(late).count == 2)
        #expect(late["trafficIntervals"]?.compactString == #"[{"startIndex":0,"endIndex":1,"speed":"TRAFFIC_JAM"}]"#)
    }

    // MARK: ETAs

    @Test func etaIsNeverInThePastWhileTheVehicleMoves() throws {
        var w = try enrouteWorld()
        // The driver's ETA is optimistic: 30 s for 677 m; the car then crawls at about 3 m/s.
        try w.remaining("v-1", meters: 677, eta: F.t(35), at: F.t(5))
        var etas: [Timestamp] = []
        for step in 1...20 {
            let at = F.t(5 + 10 * Double(step))
            let lng = 13.40 + 0.01 * min(1, Double(step) * 30 / 677)
            guard lng < 13.4099 else { break }
            try w.locate("v-1", F.point(52.52, lng), at: at)
            let view = try #require(w.view("t-1"))
            let eta = try #require(view.viewMarker("TRIP_PICKUP_POINT")?["eta"]?.stringValue.flatMap(Timestamp.init(rfc3339:)))
            #expect(eta >= at, "step \(step): eta \(eta) before report \(at)")
            #expect(view[viewPath: "nextStop.eta"] == .string(eta.rfc3339))
            etas.append(eta)
        }
        #expect(etas.count > 10)
        // While the report's ETA still lies ahead it is shown as reported (no jumps).
        #expect(etas.first == F.t(35))
        // Once late, the ETA is the report time + remaining distance at about 3 m/s (within 20 s).
        let lastReport = F.t(5 + 10 * Double(etas.count))
        let remaining = 677 * (1 - Double(etas.count) * 30 / 677)
        #expect(abs((etas.last ?? F.t0).seconds(since: lastReport) - remaining / 3) < 20)
    }

    @Test func reportedEtaStopsApplyingOnceItsWaypointIsLeftBehind() throws {
        var w = try enrouteWorld()
        try w.remaining("v-1", meters: 677, eta: F.t(100), at: F.t(5))
        #expect(w.view("t-1")?[viewPath: "nextStop.eta"] == .string(F.t(100).rfc3339))
        try w.locate("v-1", F.pickup, at: F.t(90))
        try w.status("t-1", .arrivedAtPickup, at: F.t(91))
        try w.status("t-1", .enrouteToDropoff, at: F.t(100))
        // No plan, no new segment or report for the dropoff: unknown, not the pickup's ETA.
        let view = try #require(w.view("t-1"))
        #expect(view[viewPath: "nextStop.type"] == "DROPOFF")
        #expect(view[viewPath: "nextStop.eta"] == .null)
        #expect(view["dropoffEta"] == .null)
        #expect(view.viewPolyline("REMAINING_ROUTE") == nil)
    }

    @Test func remainingRouteCarriesThePlansTrafficIntervals() throws {
        var w = try enrouteWorld()
        var plan = F.plan(from: F.depot, through: [F.pickup, F.dropoff])
        let points = try Polyline.decode(plan.legs[1].encodedPolyline).count
        plan.legs[1].speedIntervals = [TrafficSpeedInterval(startIndex: 0, endIndex: 4, speed: .slow),
                                       TrafficSpeedInterval(startIndex: 4, endIndex: points - 1, speed: .trafficJam)]
        try w.plan("t-1", plan, at: F.t(6))
        let remaining = try #require(w.view("t-1")?.viewPolyline("REMAINING_ROUTE"))
        let intervals = remaining["trafficIntervals"]?.arrayValue?.map { [$0["startIndex"]?.int64Value, $0["endIndex"]?.int64Value] }
        #expect(intervals == [[0, 4], [4, Int64(points - 1)]])
        #expect(remaining["trafficIntervals"]?.arrayValue?.map { $0["speed"]?.stringValue } == ["SLOW", "TRAFFIC_JAM"])
    }

    // MARK: Visibility and staleness

    @Test func vehicleMarkerTurnsStaleSixtySecondsAfterItsLastReport() throws {
        var w = try enrouteWorld()
        try w.locate("v-1", F.point(52.52, 13.403), at: F.t(20))
        try w.trip("t-1", .setAttributes([], at: F.t(80)), at: F.t(80))
        #expect(w.view("t-1")?.viewMarker("TRIP_VEHICLE")?["stale"] == false)
        try w.trip("t-1", .setAttributes([Attribute(key: "a", value: .bool(true))], at: F.t(81)), at: F.t(81))
        let vehicle = try #require(w.view("t-1")?.viewMarker("TRIP_VEHICLE"))
        #expect(vehicle["stale"] == true)
        #expect(vehicle["visible"] == true)
        #expect(vehicle["locationUpdateTime"] == .string(F.t(20).rfc3339))
        #expect(w.view("t-1")?["updateTime"] == .string(F.t(81).rfc3339))
    }

    @Test func unassignedTripHidesTheVehicleAndForgetsItsEtas() throws {
        var w = try enrouteWorld()
        try w.remaining("v-1", meters: 677, eta: F.t(100), at: F.t(6))
        try w.trip("t-1", .unassignVehicle(at: F.t(10)), at: F.t(10))
        let view = try #require(w.view("t-1"))
        #expect(view.viewMarker("TRIP_VEHICLE")?["visible"] == false)
        #expect(view.viewPolyline("ACTIVE_ROUTE")?["visible"] == false)
        #expect(view.viewMarker("TRIP_PICKUP_POINT")?["eta"] == .null)
        #expect(view.viewMarker("TRIP_PICKUP_POINT")?["visible"] == true)
        // The former vehicle's later moves do not reach the view.
        try w.locate("v-1", F.point(52.52, 13.405), at: F.t(20))
        #expect(w.view("t-1") == view)
    }

    @Test func tripWithoutDropoffHasAHiddenDropoffMarkerWithNullPosition() throws {
        var w = JourneyViewWorld()
        try w.create("t-1", dropoff: nil, at: F.t(0))
        let dropoff = try #require(w.view("t-1")?.viewMarker("TRIP_DROPOFF_POINT"))
        #expect(dropoff.compactString == #"{"type":"TRIP_DROPOFF_POINT","position":null,"visible":false,"eta":null,"remainingDistanceMeters":null}"#)
        try w.trip("t-1", .setDropoffPoint(TerminalLocation(point: F.dropoff), at: F.t(5)), at: F.t(5))
        #expect(w.view("t-1")?.viewMarker("TRIP_DROPOFF_POINT")?["visible"] == true)
    }

    // MARK: Restart and determinism

    @Test(arguments: ["long", "lifecycle"])
    func loadThenContinueEqualsApplyingEverything(journey: String) throws {
        let log = try (journey == "long" ? Self.longJourney() : JourneyViewLifecycleTests.lifecycleJourney()).log
        let (reference, referenceTable) = Self.run(log, batch: 3)
        for split in stride(from: 0, through: log.count, by: 5) {
            var first = JourneyViewProjection()
            var table: [String: [UInt8]] = [:]
            for (i, envelope) in log[..<split].enumerated() {
                first.apply(envelope)
                if i % 3 == 2 { Self.store(first.drainChanges(), in: &table) }
            }
            Self.store(first.drainChanges(), in: &table)
            // Restore from the stored bytes, re-parsed in canonical form (keys reordered, as jsonb would).
            var restored = JourneyViewProjection()
            restored.load(try Self.documents(table))
            var continued: [[UInt8]] = []
            for envelope in log[split...] {
                restored.apply(envelope)
                let changes = restored.drainChanges()
                continued += changes.map(Self.bytes)
                Self.store(changes, in: &table)
            }
            var fresh = JourneyViewProjection()
            for envelope in log[..<split] { fresh.apply(envelope) }
            _ = fresh.drainChanges()
            var expected: [[UInt8]] = []
            for envelope in log[split...] {
                fresh.apply(envelope)
                expected += fresh.drainChanges().map(Self.bytes)
            }
            #expect(continued.count == expected.count, "split at \(split)")
            for (a, b) in zip(continued, expected) where a != b {
                Issue.record("split at \(split): after load\n\(String(decoding: a, as: UTF8.self))\napplied all\n\(String(decoding: b, as: UTF8.self))")
                break
            }
            #expect(Self.canonical(table) == Self.canonical(referenceTable), "split at \(split)")
        }
        #expect(!reference.isEmpty)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomizedJourneysDrainByteIdenticalDocumentsAndSurviveRestart(seed: UInt64) throws {
        let log = Self.randomJourney(seed: seed).log
        #expect(log.count > 100)
        let (a, tableA) = Self.run(log, batch: 4)
        let (b, _) = Self.run(log, batch: 4)
        #expect(a == b)
        // Restart at a seeded point: same final documents.
        var rng = SeededRandom(seed: seed)
        let split = rng.below(log.count)
        var first = JourneyViewProjection()
        var table: [String: [UInt8]] = [:]
        for envelope in log[..<split] { first.apply(envelope) }
        Self.store(first.drainChanges(), in: &table)
        var restored = JourneyViewProjection()
        restored.load(try Self.documents(table))
        for envelope in log[split...] { restored.apply(envelope) }
        Self.store(restored.drainChanges(), in: &table)
        #expect(Self.canonical(table) == Self.canonical(tableA), "seed \(seed) split \(split)")
    }

    // MARK: Helpers

    /// Feeds `log`, draining every `batch` events: the drained bytes in order, and the final table.
    private static func run(_ log: [EventEnvelope], batch: Int) -> ([[UInt8]], [String: [UInt8]]) {
        var projection = JourneyViewProjection()
        var drained: [[UInt8]] = []
        var table: [String: [UInt8]] = [:]
        for (i, envelope) in log.enumerated() {
            projection.apply(envelope)
            if i % batch == batch - 1 || i == log.count - 1 {
                let changes = projection.drainChanges()
                drained += changes.map(bytes)
                store(changes, in: &table)
            }
        }
        return (drained, table)
    }

    private static func bytes(_ change: DocumentChange) -> [UInt8] {
        Array("\(change.collection)|\(change.key)|".utf8) + (change.document?.compactBytes() ?? Array("<deleted>".utf8))
    }

    private static func store(_ changes: [DocumentChange], in table: inout [String: [UInt8]]) {
        for change in changes {
            table["\(change.collection)|\(change.key)"] = change.document?.canonicalBytes()
        }
    }

    private static func canonical(_ table: [String: [UInt8]]) -> [String] {
        table.keys.sorted().map { "\($0)=\(String(decoding: table[$0] ?? [], as: UTF8.self))" }
    }

    /// The stored table as documents, in a scrambled (but fixed) order.
    private static func documents(_ table: [String: [UInt8]]) throws -> [DocumentChange] {
        try table.keys.sorted().reversed().map { address in
            let parts = address.split(separator: "|", maxSplits: 1).map(String.init)
            return DocumentChange(collection: parts[0], key: parts[1], document: try JSONValue.parse(table[address] ?? []))
        }
    }

    /// Exclusive, back-to-back and shared trips on two vehicles, with plans, segments and reports.
    static func longJourney() throws -> JourneyViewWorld {
        var w = JourneyViewWorld()
        try w.register("v-1", backToBack: true, at: F.t(0))
        try w.register("v-2", types: [.shared], at: F.t(0))
        try w.locate("v-1", F.depot, at: F.t(1))
        try w.locate("v-2", F.depot, at: F.t(1))
        try w.create("t-1", intermediates: [F.stop0], at: F.t(2))
        try w.plan("t-1", F.plan(from: F.depot, through: [F.pickup, F.stop0, F.dropoff]), at: F.t(3))
        try w.assign("t-1", to: "v-1", at: F.t(4))
        try w.status("t-1", .enrouteToPickup, at: F.t(5))
        try w.segment("v-1", F.path(F.depot, F.pickup), traffic: [.init(startIndex: 1, endIndex: 3, speed: .slow)], at: F.t(6))
        try w.remaining("v-1", meters: 677, eta: F.t(60), at: F.t(6))
        try w.create("t-a", type: .shared, at: F.t(7))
        try w.create("t-b", type: .shared, pickup: F.otherPickup, dropoff: F.otherDropoff, at: F.t(7))
        try w.assign("t-a", to: "v-2", at: F.t(8))
        try w.assign("t-b", to: "v-2", at: F.t(8))
        try w.status("t-a", .enrouteToPickup, at: F.t(9))
        try w.segment("v-2", F.path(F.depot, F.pickup), at: F.t(9))
        for i in 1...8 {
            let lng = 13.40 + 0.00125 * Double(i)
            try w.locate("v-1", F.point(52.52, lng), at: F.t(10 * Double(i) + 5))
            try w.locate("v-2", F.point(52.5201, lng), heading: 91, at: F.t(10 * Double(i) + 6))
        }
        try w.status("t-1", .arrivedAtPickup, at: F.t(90))
        try w.status("t-a", .arrivedAtPickup, at: F.t(90))
        try w.status("t-1", .enrouteToIntermediateDestination, index: 0, at: F.t(100))
        try w.status("t-a", .enrouteToDropoff, at: F.t(100))
        try w.segment("v-1", F.path(F.pickup, F.stop0), at: F.t(101))
        try w.segment("v-2", F.path(F.pickup, F.otherPickup), at: F.t(101))
        try w.create("t-2", pickup: F.stop1, at: F.t(102))
        try w.locate("v-1", F.stop0, at: F.t(160))
        try w.status("t-1", .arrivedAtIntermediateDestination, index: 0, at: F.t(161))
        try w.status("t-1", .enrouteToDropoff, at: F.t(170))
        try w.assign("t-2", to: "v-1", at: F.t(171))
        try w.segment("v-1", F.path(F.stop0, F.dropoff), at: F.t(172))
        try w.trip("t-b", .cancelTrip(at: F.t(180)), at: F.t(180))
        try w.locate("v-1", F.dropoff, at: F.t(300))
        try w.status("t-1", .complete, at: F.t(301))
        try w.status("t-2", .enrouteToPickup, at: F.t(302))
        try w.segment("v-1", F.path(F.dropoff, F.stop1), at: F.t(303))
        try w.locate("v-1", F.point(52.52, 13.435), at: F.t(330))
        try w.locate("v-2", F.otherPickup, at: F.t(400))
        return w
    }

    /// Random commands (rejected ones skipped) over three places per trip, two vehicles, four trips.
    static func randomJourney(seed: UInt64) -> JourneyViewWorld {
        var rng = SeededRandom(seed: seed)
        var w = JourneyViewWorld()
        let places = [F.depot, F.pickup, F.stop0, F.stop1, F.dropoff, F.otherPickup, F.otherDropoff]
        let vehicles = ["v-1", "v-2"]
        let trips = ["t-1", "t-2", "t-3", "t-4"]
        _ = try? w.register("v-1", backToBack: true, at: F.t(0))
        _ = try? w.register("v-2", types: [.shared, .exclusive], at: F.t(0))
        var clock = 1.0
        for _ in 0..<400 {
            clock += Double(1 + rng.below(20))
            let at = F.t(clock)
            let vehicle = vehicles[rng.below(vehicles.count)]
            let trip = trips[rng.below(trips.count)]
            switch rng.below(14) {
            case 0:
                let type: TripType = rng.chance(50) ? .shared : .exclusive
                let stops = type == .exclusive && rng.chance(50) ? [places[rng.below(places.count)]] : []
                _ = try? w.create(trip, type: type, pickup: places[rng.below(places.count)], intermediates: stops,
                                  dropoff: places[rng.below(places.count)], at: at)
            case 1:
                _ = try? w.assign(trip, to: vehicle, at: at)
            case 2:
                let next: [TripStatus] = [.enrouteToPickup, .arrivedAtPickup, .enrouteToIntermediateDestination,
                                          .arrivedAtIntermediateDestination, .enrouteToDropoff, .complete]
                _ = try? w.status(trip, next[rng.below(next.count)], index: 0, at: at)
            case 3:
                if rng.chance(30) { _ = try? w.trip(trip, .cancelTrip(at: at), at: at) } else { _ = try? w.trip(trip, .unassignVehicle(at: at), at: at) }
            case 4:
                let through = (0..<(1 + rng.below(3))).map { _ in places[rng.below(places.count)] }
                _ = try? w.plan(trip, F.plan(from: places[rng.below(places.count)], through: through), at: at)
            case 5, 6:
                let from = places[rng.below(places.count)]
                let to = places[rng.below(places.count)]
                guard from != to else { continue }
                let traffic: [TrafficSpeedInterval] = rng.chance(50) ? [.init(startIndex: 0, endIndex: 1, speed: .trafficJam)] : []
                _ = try? w.segment(vehicle, F.path(from, to), traffic: traffic, at: at)
            case 7:
                _ = try? w.remaining(vehicle, meters: rng.below(3000), eta: F.t(clock + Double(rng.below(300))), at: at)
            case 12:
                if rng.chance(50) {
                    _ = try? w.trip(trip, .deleteTrip(at: at), at: at)
                } else {
                    _ = try? w.trip(trip, .setPickupPoint(TerminalLocation(point: places[rng.below(places.count)]), at: at), at: at)
                }
            case 13:
                switch rng.below(4) {
                case 0: _ = try? w.vehicle(vehicle, .deleteVehicle(at: at), at: at)
                case 1: _ = try? w.register(vehicle, types: [.shared, .exclusive], backToBack: rng.chance(50), at: at)
                case 2: _ = try? w.vehicle(vehicle, .mergeAttributes([Attribute(key: "k\(rng.below(3))", value: .number(Double(rng.below(9))))], at: at), at: at)
                default: _ = try? w.vehicle(vehicle, .setBackToBackEnabled(rng.chance(50), at: at), at: at)
                }
            default:
                let base = places[rng.below(places.count)]
                let jitter = Double(rng.below(200) - 100) / 100_000
                let deviceLag = Double(rng.below(30))
                _ = try? w.locate(vehicle, F.point(base.latitude + jitter, base.longitude - jitter),
                                  heading: Double(rng.below(360)), at: at, deviceTime: F.t(clock - deviceLag))
            }
        }
        return w
    }
}
