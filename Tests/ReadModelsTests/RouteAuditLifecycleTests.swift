import Geo
import JSON
import Journey
import ReadModels
import Testing

/// The route audit of deleted and re-created trips: kept, stamped, and never mixed.
@Suite struct RouteAuditLifecycleTests {
    static let key = RouteAuditProjectionTests.key
    static let firstLifecycleKey = "providers/acme/trips/t-1/lifecycles/1"

    /// The members of an object document, in order.
    static func members(_ document: JSONValue?) -> [(String, JSONValue)] {
        guard let object = document?.objectValue else { return [] }
        return object.map { ($0.key, $0.value) }
    }

    @Test func aDeletedTripKeepsItsAuditStampedWithTheDeleteTime() throws {
        // given the audit of a completed trip
        let scenario = try FleetScenario.completedUpdatedAndDeleted()
        let before = try #require(RouteAuditProjectionTests.fold(scenario.envelopes.dropLast()).document("audits", Self.key))
        // when the trip is deleted
        let after = try #require(RouteAuditProjectionTests.fold(scenario.envelopes).document("audits", Self.key))
        // then the audit stays, with deleteTime (the deletion's recorded time) after endTime
        let deletedAt = try #require(scenario.envelopes.last?.recordedAt)
        #expect(after["deleteTime"]?.stringValue == deletedAt.rfc3339)
        var expected = Self.members(before)
        let end = try #require(expected.firstIndex { $0.0 == "endTime" })
        expected.insert(("deleteTime", .string(deletedAt.rfc3339)), at: end + 1)
        #expect(Self.members(after).map(\.0) == expected.map(\.0))
        #expect(Self.members(after).map(\.1) == expected.map(\.1))
    }

    @Test func aRecreatedTripGetsAFreshAuditAndTheFirstLifecycleMovesToItsOwnKey() throws {
        let deleted = try #require(RouteAuditProjectionTests.fold(try FleetScenario.completedUpdatedAndDeleted().envelopes).document("audits", Self.key))
        let store = RouteAuditProjectionTests.fold(try FleetScenario.lifecycles().envelopes)
        // the first lifecycle's audit is kept, unchanged but for its name and lifecycle number
        let archived = try #require(store.document("audits", Self.firstLifecycleKey))
        var expected = Self.members(deleted)
        expected[0] = ("name", .string(Self.firstLifecycleKey))
        expected.insert(("lifecycle", .number(JSONNumber(1))), at: 2)
        #expect(Self.members(archived).map(\.0) == expected.map(\.0))
        #expect(Self.members(archived).map(\.1) == expected.map(\.1))
        #expect(store.document("audit_states", Self.firstLifecycleKey) != nil)
        // the trip's key holds the second lifecycle only: its type, its stops (the moved pickup),
        // its one driven report, no plan, no deletion
        let current = try #require(store.document("audits", Self.key))
        #expect(current["lifecycle"] == 2)
        #expect(current["tripType"]?.stringValue == "SHARED")
        #expect(current["tripStatus"]?.stringValue == "ENROUTE_TO_PICKUP")
        #expect(current["deleteTime"] == nil && current["endTime"] == nil && current["plannedRoute"] == nil)
        #expect(current["drivenPath"]?["reportCount"] == 1)
        #expect(current["stops"]?.arrayValue?.map { $0["location"]?.compactString } == [
            #"{"latitude":52.525,"longitude":13.41}"#, #"{"latitude":52.52,"longitude":13.405}"#,
        ])
        // a trip created and deleted keeps its (short) audit too
        #expect(store.document("audits", "providers/acme/trips/t-2")?["deleteTime"] != nil)
    }

    @Test func vehicleFactsAboutADeletedTripLeaveItsAuditAlone() throws {
        // given a deleted trip whose vehicle had not yet heard of it (a late sync)
        var s = try FleetScenario.withVehicle()
        try s.trip("t-9", .createTrip(.init(tripId: "t-9", tripType: .exclusive, pickup: FleetScenario.pickup), at: FleetScenario.t(10)), at: 10)
        try s.trip("t-9", .deleteTrip(at: FleetScenario.t(11)), at: 11)
        var store = RouteAuditProjectionTests.fold(s.envelopes)
        let before = store.document("audits", "providers/acme/trips/t-9")
        // when the vehicle reports an off-route episode for it
        let late = EventEnvelope(
            streamId: "vehicle:acme/v-1", streamVersion: 99, globalPosition: Int64(s.envelopes.count + 1), recordedAt: FleetScenario.t(20),
            event: .vehicle(provider: "acme", vehicleId: "v-1", .wentOffRoute(.init(
                vehicleId: "v-1", tripId: "t-9", location: FleetScenario.start, deviationMeters: 80, consecutiveReports: 3,
                thresholdMeters: 50, at: FleetScenario.t(20)))))
        store.apply([late])
        // then nothing is written
        #expect(before != nil)
        #expect(store.lastBatch.isEmpty)
    }

    @Test func loadThenContinueEqualsApplyAllAtEverySplitPointAcrossDeletionsAndRecreations() throws {
        let envelopes = try FleetScenario.lifecycles().envelopes
        let all = RouteAuditProjectionTests.fold(envelopes)
        for split in 1..<envelopes.count {
            let first = RouteAuditProjectionTests.fold(envelopes[..<split])
            var restarted = ProjectionStore<RouteAuditProjection>()
            restarted.projection.load(first.stored.reversed())
            restarted.documents = first.documents
            #expect(restarted.projection == first.projection, "state differs after load at split \(split)")
            restarted.apply(envelopes[split...])
            #expect(restarted.documents == all.documents, "documents differ at split \(split)")
            #expect(restarted.projection == all.projection, "state differs at split \(split)")
        }
    }
}
