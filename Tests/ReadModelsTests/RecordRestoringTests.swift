import JSON
import Journey
@testable import ReadModels
import Testing

/// A projection run as the runner runs it with a record limit: before each batch the records it
/// let go are read back from what it stored, and after each batch it lets go of what it may.
struct LimitedProjectionStore<P: ReadModelProjection> {
    var projection = P()
    var documents: [DocumentAddress: JSONValue] = [:]
    let limit: Int
    var restored = 0
    var letGo = 0
    var unrestoredReads: [String] = []

    init(limit: Int) {
        self.limit = limit
    }

    /// Applies the envelopes as one batch and returns the drained changes.
    mutating func apply(_ envelopes: [EventEnvelope]) -> [DocumentChange] {
        let needed = projection.documentsNeeded(by: envelopes)
        let found = needed.compactMap { address in
            documents[address].map { DocumentChange(collection: address.collection, key: address.key, document: $0) }
        }
        restored += found.count
        projection.restore(needed, found: found)
        for envelope in envelopes { projection.apply(envelope) }
        unrestoredReads += projection.takeUnrestoredReads()
        let changes = projection.drainChanges()
        for change in changes { documents[DocumentAddress(collection: change.collection, key: change.key)] = change.document }
        letGo += projection.letGo(keeping: limit)
        return changes
    }
}

extension FleetScenario {
    /// Four vehicles, of which those without a trip are let go at once by a limit of 0: a trip
    /// created and assigned to an idle vehicle, driven and completed; another assigned, unassigned
    /// and reassigned to a second idle vehicle, then canceled; an offer answered by an idle
    /// vehicle; a vehicle deleted and registered again; the idle vehicles changed after all that.
    static func idleVehicles() throws -> FleetScenario {
        var s = FleetScenario()
        for (index, id) in ["v-1", "v-2", "v-3", "v-4"].enumerated() {
            try s.vehicle(id, .registerVehicle(.init(
                vehicleId: id, vehicleState: .online, supportedTripTypes: [.exclusive, .shared], maximumCapacity: 4,
                vehicleType: VehicleType(category: .auto)), at: t(Double(index))), at: Double(index))
            try s.report(id, start, at: Double(index) + 5)
        }
        try s.trip("t-1", .createTrip(.init(tripId: "t-1", tripType: .exclusive, pickup: pickup, dropoff: dropoff), at: t(10)), at: 10)
        try s.trip("t-1", .assignVehicle(vehicleId: "v-3", vehicle: s.vehicles["v-3"], at: t(11)), at: 11)
        try s.trip("t-1", .planRoute(plan, at: t(12)), at: 12)
        try s.trip("t-1", .updateTripStatus(.enrouteToPickup, at: t(13)), at: 13)
        try s.report("v-3", point(52.5160, 13.4010), at: 14)
        try s.trip("t-2", .createTrip(.init(tripId: "t-2", tripType: .exclusive, pickup: stop1, dropoff: stop2), at: t(15)), at: 15)
        try s.trip("t-2", .assignVehicle(vehicleId: "v-1", vehicle: s.vehicles["v-1"], at: t(16)), at: 16)
        try s.trip("t-2", .unassignVehicle(at: t(17)), at: 17)
        try s.report("v-2", stop1.point, at: 18)
        try s.trip("t-2", .assignVehicle(vehicleId: "v-2", vehicle: s.vehicles["v-2"], at: t(19)), at: 19)
        try s.trip("t-3", .createTrip(.init(tripId: "t-3", tripType: .exclusive, pickup: stop2), at: t(20)), at: 20)
        try s.vehicle("v-4", .offerTrip(tripId: "t-3", trip: s.trips["t-3"], expiresAt: t(80), at: t(20)), at: 20)
        try s.vehicle("v-4", .answerOffer(tripId: "t-3", accept: false, at: t(21)), at: 21)
        try s.report("v-3", pickup.point, at: 30)
        try s.trip("t-1", .updateTripStatus(.arrivedAtPickup, at: t(31)), at: 31)
        try s.trip("t-1", .updateTripStatus(.enrouteToDropoff, at: t(32)), at: 32)
        try s.trip("t-2", .cancelTrip(at: t(33)), at: 33)
        try s.report("v-3", dropoff.point, at: 40)
        try s.trip("t-1", .updateTripStatus(.complete, at: t(41)), at: 41)
        try s.trip("t-1", .setAttributes([Attribute(key: "rating", value: .number(5))], at: t(42)), at: 42)
        try s.vehicle("v-1", .deleteVehicle(at: t(43)), at: 43)
        try s.vehicle("v-1", .registerVehicle(.init(
            vehicleId: "v-1", vehicleState: .offline, supportedTripTypes: [.shared], maximumCapacity: 2,
            vehicleType: VehicleType(category: .taxi)), at: t(44)), at: 44)
        try s.vehicle("v-3", .mergeAttributes([Attribute(key: "seats", value: .number(5))], at: t(45)), at: 45)
        try s.report("v-2", stop2.point, at: 46)
        try s.vehicle("v-4", .setVehicleState(.offline, at: t(47)), at: 47)
        try s.trip("t-2", .deleteTrip(at: t(48)), at: 48)
        try s.trip("t-1", .deleteTrip(at: t(49)), at: 49)
        try s.report("v-3", stop1.point, at: 50)
        return s
    }

    /// `completed`, then more trips created while `t-1`'s finished audit may be let go, `t-1`
    /// deleted, created again and assigned (each of which reads the finished audit back).
    static func finishedTripNamedAgain() throws -> FleetScenario {
        var s = try completed()
        try s.trip("t-2", .createTrip(.init(tripId: "t-2", tripType: .exclusive, pickup: pickup), at: t(500)), at: 500)
        try s.trip("t-1", .deleteTrip(at: t(501)), at: 501)
        try s.trip("t-3", .createTrip(.init(tripId: "t-3", tripType: .exclusive, pickup: stop1), at: t(502)), at: 502)
        try s.trip("t-4", .createTrip(.init(tripId: "t-4", tripType: .exclusive, pickup: stop2), at: t(503)), at: 503)
        try s.trip("t-1", .createTrip(.init(tripId: "t-1", tripType: .exclusive, pickup: stop2, dropoff: pickup), at: t(504)), at: 504)
        try s.trip("t-1", .assignVehicle(vehicleId: "v-1", vehicle: s.vehicles["v-1"], at: t(505)), at: 505)
        try s.report("v-1", stop2.point, at: 506)
        return s
    }

    static func named(_ name: String) throws -> FleetScenario {
        switch name {
        case "finishedTripNamedAgain": try finishedTripNamedAgain()
        case "idleVehicles": try idleVehicles()
        case "completed": try completed()
        case "offRouteTrip": try RouteAuditProjectionTests.offRouteTrip()
        case "completedUpdatedAndDeleted": try completedUpdatedAndDeleted()
        default: try lifecycles()
        }
    }
}

/// Projections that let records go from memory write exactly what they write keeping everything.
@Suite struct RecordRestoringTests {
    static let scenarios = ["idleVehicles", "completed", "offRouteTrip", "completedUpdatedAndDeleted", "lifecycles", "finishedTripNamedAgain"]

    /// Folds `envelopes` in batches of `size`, once keeping everything and once letting every
    /// record go that may go after each batch, and compares every batch's changes.
    static func compare<P: ReadModelProjection>(_ type: P.Type, _ envelopes: [EventEnvelope], batch size: Int)
        -> (batches: Int, restored: Int, letGo: Int) {
        var whole = ProjectionStore<P>()
        var limited = LimitedProjectionStore<P>(limit: 0)
        var batches = 0
        for start in stride(from: 0, to: envelopes.count, by: size) {
            let batch = Array(envelopes[start..<min(start + size, envelopes.count)])
            whole.apply(batch)
            let changes = limited.apply(batch)
            #expect(changes == whole.lastBatch, "batch \(batches) of \(size) event(s) differs")
            batches += 1
        }
        #expect(limited.unrestoredReads.isEmpty)
        return (batches, limited.restored, limited.letGo)
    }

    @Test(arguments: scenarios, [1, 2, 3, 7])
    func theFleetProjectionLettingIdleVehiclesGoWritesWhatItWritesKeepingThem(scenario: String, batch: Int) throws {
        let result = Self.compare(FleetResourceProjection.self, try FleetScenario.named(scenario).envelopes, batch: batch)
        #expect(result.batches > 1)
        if scenario == "idleVehicles" { #expect(result.restored > 0 && result.letGo > 0) }
    }

    @Test(arguments: scenarios, [1, 2, 3, 7])
    func theJourneyProjectionLettingIdleVehiclesGoWritesWhatItWritesKeepingThem(scenario: String, batch: Int) throws {
        let result = Self.compare(JourneyViewProjection.self, try FleetScenario.named(scenario).envelopes, batch: batch)
        #expect(result.batches > 1)
        if scenario == "idleVehicles" { #expect(result.restored > 0 && result.letGo > 0) }
    }

    @Test(arguments: scenarios, [1, 2, 3, 7])
    func theDriverFeedLettingIdleVehiclesGoWritesWhatItWritesKeepingThem(scenario: String, batch: Int) throws {
        let result = Self.compare(DriverFeedProjection.self, try FleetScenario.named(scenario).envelopes, batch: batch)
        #expect(result.batches > 1)
        if scenario == "idleVehicles" { #expect(result.restored > 0 && result.letGo > 0) }
    }

    @Test(arguments: scenarios, [1, 2, 3, 7])
    func theRouteAuditLettingFinishedAuditsGoWritesWhatItWritesKeepingThem(scenario: String, batch: Int) throws {
        let result = Self.compare(RouteAuditProjection.self, try FleetScenario.named(scenario).envelopes, batch: batch)
        #expect(result.batches > 1)
        // A finished audit let go is read back when its trip is deleted and when the id is used again.
        if scenario == "finishedTripNamedAgain" && batch == 1 { #expect(result.restored >= 2 && result.letGo >= 2) }
    }

    @Test func anAuditInProgressStaysInMemoryAndAFinishedOneIsLetGo() throws {
        // given two trips on one vehicle, one of them completed
        var scenario = try FleetScenario.withVehicle()
        for (index, id) in ["t-1", "t-2"].enumerated() {
            let at = Double(10 + index * 10)
            try scenario.trip(id, .createTrip(.init(tripId: id, tripType: .shared, pickup: FleetScenario.pickup), at: FleetScenario.t(at)), at: at)
            try scenario.trip(id, .assignVehicle(vehicleId: "v-1", vehicle: scenario.vehicles["v-1"], at: FleetScenario.t(at + 1)), at: at + 1)
        }
        try scenario.trip("t-1", .cancelTrip(at: FleetScenario.t(40)), at: 40)
        var store = LimitedProjectionStore<RouteAuditProjection>(limit: 0)
        // when the route audit lets go of what it may
        _ = store.apply(scenario.envelopes)
        // then only the finished audit is gone from memory
        #expect(store.letGo == 1)
        #expect(store.projection.audits.keys.sorted() == ["providers/acme/trips/t-2"])
        // and a later event of that trip asks for its stored audit
        try scenario.trip("t-1", .deleteTrip(at: FleetScenario.t(50)), at: 50)
        #expect(store.projection.documentsNeeded(by: Array(scenario.envelopes.suffix(1)))
            == [DocumentAddress(collection: "audit_states", key: "providers/acme/trips/t-1")])
    }

    @Test func aVehicleServingATripStaysInMemoryAndAnIdleOneIsLetGo() throws {
        // given two vehicles, one of them assigned to a trip
        var scenario = FleetScenario()
        for id in ["v-1", "v-2"] {
            try scenario.vehicle(id, .registerVehicle(.init(vehicleId: id, vehicleState: .online, supportedTripTypes: [.exclusive],
                                                            maximumCapacity: 4, vehicleType: VehicleType(category: .auto)), at: FleetScenario.t(0)), at: 0)
        }
        try scenario.trip("t-1", .createTrip(.init(tripId: "t-1", tripType: .exclusive, pickup: FleetScenario.pickup), at: FleetScenario.t(1)), at: 1)
        try scenario.trip("t-1", .assignVehicle(vehicleId: "v-1", vehicle: scenario.vehicles["v-1"], at: FleetScenario.t(2)), at: 2)
        var fleet = LimitedProjectionStore<FleetResourceProjection>(limit: 0)
        var journey = LimitedProjectionStore<JourneyViewProjection>(limit: 0)
        // when both projections let go of what they may
        _ = fleet.apply(scenario.envelopes)
        _ = journey.apply(scenario.envelopes)
        // then only the idle vehicle is gone from memory
        #expect(fleet.letGo == 1 && journey.letGo == 1)
        #expect(fleet.projection.vehicles.keys.sorted() == ["providers/acme/vehicles/v-1"])
        #expect(journey.projection.vehicles.keys.sorted() == ["providers/acme/vehicles/v-1"])
        // and an event of the idle vehicle asks for its stored record
        try scenario.report("v-2", FleetScenario.start, at: 3)
        #expect(fleet.projection.documentsNeeded(by: Array(scenario.envelopes.suffix(1)))
            == [DocumentAddress(collection: "vehicle_states", key: "providers/acme/vehicles/v-2")])
    }

    @Test func aRecordReadWithoutBeingRestoredIsReported() throws {
        // given a fleet projection that let its idle vehicle go
        var scenario = try FleetScenario.withVehicle()
        var store = LimitedProjectionStore<FleetResourceProjection>(limit: 0)
        _ = store.apply(scenario.envelopes)
        #expect(store.letGo == 1)
        // when an event of that vehicle is applied without restoring it first
        try scenario.report("v-1", FleetScenario.pickup.point, at: 10)
        store.projection.apply(scenario.envelopes.last!)
        // then the read is reported
        #expect(store.projection.takeUnrestoredReads() == ["providers/acme/vehicles/v-1"])
        #expect(store.projection.takeUnrestoredReads().isEmpty)
    }
}

@Suite struct RecordMapTests {
    @Test func lettingGoKeepsTheMostRecentlyWrittenRecordsThatMayGo() {
        var map = RecordMap<Int>()
        for index in 0..<20 {
            map["k\(index)"] = index
            if index < 19 { _ = map.letGo(keeping: 100) { _, _ in true } }
        }
        // k0…k19 written in 20 batches; k3 may not go
        let released = map.letGo(keeping: 8) { key, _ in key != "k3" }
        #expect(released == 12)
        #expect(Set(map.keys) == Set(["k3"] + (13..<20).map { "k\($0)" }))
        #expect(map.isPartial)
    }

    @Test func aMapAtItsLimitLetsNothingGoUntilItGrowsAnEighthPastIt() {
        var map = RecordMap<Int>()
        for index in 0..<18 { map["k\(index)"] = index }
        #expect(map.letGo(keeping: 16) { _, _ in true } == 0)
        map["k18"] = 18
        #expect(map.letGo(keeping: 16) { _, _ in true } == 3)
        #expect(map.count == 16)
    }

    @Test func keysRestoredOrRemovedAreNotReportedAndOthersLetGoAre() {
        var map = RecordMap<Int>()
        map["a"] = 1
        map["b"] = 2
        map["c"] = 3
        #expect(map.letGo(keeping: 0) { _, _ in true } == 3)
        #expect(map.needsRestoring("a") && map.needsRestoring("b"))
        map.restore("a", 10)
        map.restore("b", nil)
        #expect(map["a"] == 10 && map["b"] == nil)
        #expect(map.takeUnrestoredReads().isEmpty)
        #expect(map["c"] == nil)
        #expect(map.takeUnrestoredReads() == ["c"])
        // a key removed in the batch reads as absent without a report
        map["a"] = nil
        #expect(map["a"] == nil && map.takeUnrestoredReads().isEmpty)
        // the next batch forgets what was known absent
        _ = map.letGo(keeping: 0) { _, _ in true }
        #expect(map["b"] == nil && map.takeUnrestoredReads() == ["b"])
    }

    @Test func aMapThatNeverLetAnythingGoReportsNoReads() {
        var map = RecordMap<Int>()
        map["a"] = 1
        #expect(map.letGo(keeping: 5) { _, _ in true } == 0)
        #expect(map["missing"] == nil && map.takeUnrestoredReads().isEmpty && !map.isPartial)
    }
}
