import JSON
import Journey
import ReadModels
import Testing

/// The journey projection's rider access documents: share links, riders' trips, journey styles.
@Suite struct JourneyViewAccessTests {
    typealias F = JourneyViewFixtures

    static func shareEvent(_ world: inout JourneyViewWorld, _ tripId: String, _ event: ShareLink.Event, at: Timestamp) {
        world.record(.share(provider: "acme", tripId: tripId, event), stream: "share:acme/\(tripId)", at: at)
    }

    static func created(_ id: String, _ tripId: String = "t-1", expires: Timestamp = F.t(3600), at: Timestamp = F.t(1)) -> ShareLink.Event {
        .created(.init(tripId: tripId, linkId: id, expireTime: expires, at: at))
    }

    /// A deleted document in `documents` (JSONValue's own nil literal is `null`, a document).
    static let deleted: JSONValue?? = .some(JSONValue?.none)

    static func documents(_ changes: [DocumentChange], _ collection: String) -> [String: JSONValue?] {
        var result: [String: JSONValue?] = [:]
        for change in changes where change.collection == collection { result[change.key] = change.document }
        return result
    }

    @Test func shareLinksFollowCreationRevocationTripEndAndDeletion() throws {
        var w = JourneyViewWorld()
        try w.create("t-1", at: F.t(0))
        _ = w.projection.drainChanges()
        Self.shareEvent(&w, "t-1", Self.created("l-1"), at: F.t(1))
        Self.shareEvent(&w, "t-1", Self.created("l-2"), at: F.t(2))
        Self.shareEvent(&w, "t-1", .revoked(.init(tripId: "t-1", linkIds: ["l-1"], at: F.t(3))), at: F.t(3))
        let shares = Self.documents(w.projection.drainChanges(), "shares")
        #expect(shares == ["providers/acme/trips/t-1": .some(["links": [["id": "l-2", "expireTime": .string(F.t(3600).rfc3339)]], "tripEndTime": nil])])
        let links = try #require(w.projection.shareLinks(provider: "acme", tripId: "t-1"))
        #expect(links.refusal(of: "l-1", at: F.t(10)) == "LINK_REVOKED")
        #expect(links.refusal(of: "l-2", at: F.t(10)) == nil)
        #expect(links.refusal(of: "l-2", at: F.t(3600)) == "LINK_EXPIRED")

        // The trip ends: links work 15 more minutes.
        try w.status("t-1", .canceled, at: F.t(100))
        let ended = try #require(Self.documents(w.projection.drainChanges(), "shares")["providers/acme/trips/t-1"] ?? nil)
        #expect(ended["tripEndTime"]?.stringValue == F.t(100).rfc3339)
        let after = try #require(w.projection.shareLinks(provider: "acme", tripId: "t-1"))
        #expect(after.refusal(of: "l-2", at: F.t(100 + 899)) == nil)
        #expect(after.refusal(of: "l-2", at: F.t(100 + 900)) == "LINK_EXPIRED")

        // Deleted with the trip; a trip created again under the id starts with none, and links of unknown trips are ignored.
        try w.trip("t-1", .deleteTrip(at: F.t(200)), at: F.t(200))
        #expect(Self.documents(w.projection.drainChanges(), "shares") == ["providers/acme/trips/t-1": Self.deleted])
        Self.shareEvent(&w, "t-1", Self.created("l-3"), at: F.t(201))
        Self.shareEvent(&w, "t-9", Self.created("l-4", "t-9"), at: F.t(201))
        #expect(Self.documents(w.projection.drainChanges(), "shares").isEmpty)
        try w.create("t-1", at: F.t(300))
        #expect(w.projection.shareLinks(provider: "acme", tripId: "t-1") == nil)
    }

    @Test func theRidersIndexFollowsTheConsumerIdAttribute() throws {
        var w = JourneyViewWorld()
        let create = Trip.CreateTrip(tripId: "t-1", tripType: .exclusive, pickup: TerminalLocation(point: F.pickup),
                                     dropoff: TerminalLocation(point: F.dropoff), attributes: [Attribute(key: "consumerId", value: .string("c-1"))])
        try w.trip("t-1", .createTrip(create, at: F.t(0)), at: F.t(0))
        try w.create("t-2", at: F.t(0))
        try w.trip("t-2", .setAttributes([Attribute(key: "consumerId", value: .string("c-1"))], at: F.t(1)), at: F.t(1))
        #expect(Self.documents(w.projection.drainChanges(), "riders") == ["providers/acme/consumers/c-1": .some(["trips": ["t-1", "t-2"]])])
        try w.trip("t-1", .setAttributes([Attribute(key: "consumerId", value: .string("c-2"))], at: F.t(2)), at: F.t(2))
        #expect(Self.documents(w.projection.drainChanges(), "riders") == [
            "providers/acme/consumers/c-1": .some(["trips": ["t-2"]]), "providers/acme/consumers/c-2": .some(["trips": ["t-1"]]),
        ])
        try w.trip("t-2", .deleteTrip(at: F.t(3)), at: F.t(3))
        #expect(Self.documents(w.projection.drainChanges(), "riders") == ["providers/acme/consumers/c-1": Self.deleted])
    }

    @Test func aStyleChangeReversionsEveryViewOfItsProviderWithTheStyleVersion() throws {
        var w = JourneyViewWorld()
        try w.create("t-1", at: F.t(0))
        try w.create("t-2", at: F.t(0))
        let before = try #require(w.view("t-1"))
        _ = w.projection.drainChanges()
        let options = JourneyStyle.Options(polylines: ["ACTIVE_ROUTE": .init(width: 6)])
        w.record(.style(provider: "acme", .set(.init(version: 1, options: options, at: F.t(5)))), stream: "style:acme/journey", at: F.t(5))
        w.record(.style(provider: "other", .set(.init(version: 1, options: options, at: F.t(5)))), stream: "style:other/journey", at: F.t(5))
        let changes = w.projection.drainChanges()
        let styles = Self.documents(changes, "styles")
        #expect(styles["providers/acme"]??["version"] == 1)
        #expect(styles["providers/acme"]??["polylines"] == ["ACTIVE_ROUTE": ["width": 6, "trafficEnabled": false]])
        #expect(styles["providers/acme"]??["name"] == "providers/acme/journeyStyle")
        #expect(Set(Self.documents(changes, "views").keys) == ["providers/acme/trips/t-1", "providers/acme/trips/t-2"])
        let after = try #require(w.view("t-1"))
        #expect(after["styleVersion"] == 1)
        #expect(after["version"]?.int64Value == (before["version"]?.int64Value ?? 0) + 1)
        #expect(after["updateTime"]?.stringValue == F.t(5).rfc3339)

        // Restored from the stored documents, the projection goes on the same way.
        var reloaded = JourneyViewProjection()
        var all = JourneyViewProjection()
        for envelope in w.log { all.apply(envelope) }
        let everything = all.drainChanges()
        reloaded.load(everything)
        let next = EventEnvelope(streamId: "style:acme/journey", streamVersion: 2, globalPosition: 999, recordedAt: F.t(9),
                                 event: .style(provider: "acme", .set(.init(version: 2, options: JourneyStyle.Options(), at: F.t(9)))))
        reloaded.apply(next)
        all.apply(next)
        #expect(reloaded.drainChanges() == all.drainChanges())
        #expect(reloaded.view(provider: "acme", tripId: "t-2")?["styleVersion"] == 2)
    }
}
