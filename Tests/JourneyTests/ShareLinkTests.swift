import Journey
import Testing

/// The share-link aggregate: given past events, when a command, then events or the error code.
@Suite struct ShareLinkTests {
    typealias F = Fixtures

    static func given(_ events: [ShareLink.Event]) -> ShareLink.State {
        events.reduce(ShareLink.State()) { ShareLink.evolve($0, with: $1) }
    }

    static func created(_ id: String, expires: Double = 3600, at: Double = 0) -> ShareLink.Event {
        .created(.init(tripId: "t-1", linkId: id, expireTime: F.t(expires), at: F.t(at)))
    }

    @Test func creatingALinkRecordsItsIdAndExpiry() throws {
        let events = try ShareLink.decide(.createLink(tripId: "t-1", linkId: "l-1", expireTime: F.t(900), at: F.t(0)), state: ShareLink.State())
        #expect(events == [Self.created("l-1", expires: 900)])
        #expect(Self.given(events).liveLinkIds(at: F.t(10)) == ["l-1"])
        #expect(Self.given(events).liveLinkIds(at: F.t(900)) == [])
    }

    @Test func aLinkMustExpireAfterItsCreationAndWithin24Hours() {
        expectRejection(.invalidArgument, mentioning: ["expire"]) {
            try ShareLink.decide(.createLink(tripId: "t-1", linkId: "l-1", expireTime: F.t(0), at: F.t(0)), state: ShareLink.State())
        }
        expectRejection(.invalidArgument, mentioning: ["86400"]) {
            try ShareLink.decide(.createLink(tripId: "t-1", linkId: "l-1", expireTime: F.t(86_401), at: F.t(0)), state: ShareLink.State())
        }
        #expect((try? ShareLink.decide(.createLink(tripId: "t-1", linkId: "l-1", expireTime: F.t(86_400), at: F.t(0)), state: ShareLink.State()))?.count == 1)
    }

    @Test func aLinkIdIsUsedOnceAndLiveLinksAreBounded() {
        expectRejection(.alreadyExists, mentioning: ["l-1"]) {
            try ShareLink.decide(.createLink(tripId: "t-1", linkId: "l-1", expireTime: F.t(60), at: F.t(1)), state: Self.given([Self.created("l-1")]))
        }
        let full = Self.given((0..<ShareLink.maximumLiveLinks).map { Self.created("l-\($0)") })
        expectRejection(.failedPrecondition, mentioning: ["\(ShareLink.maximumLiveLinks)"]) {
            try ShareLink.decide(.createLink(tripId: "t-1", linkId: "new", expireTime: F.t(60), at: F.t(1)), state: full)
        }
        // Expired links do not count.
        #expect((try? ShareLink.decide(.createLink(tripId: "t-1", linkId: "new", expireTime: F.t(7200), at: F.t(3600)), state: full))?.count == 1)
    }

    @Test func revokingNamesKnownLinksSkipsRevokedOnesAndWithoutNamesTakesEveryLink() throws {
        let state = Self.given([Self.created("l-1"), Self.created("l-2"), Self.created("l-3"),
                                .revoked(.init(tripId: "t-1", linkIds: ["l-2"], at: F.t(5)))])
        #expect(try ShareLink.decide(.revokeLinks(tripId: "t-1", linkIds: ["l-1", "l-2"], at: F.t(10)), state: state)
                == [.revoked(.init(tripId: "t-1", linkIds: ["l-1"], at: F.t(10)))])
        #expect(try ShareLink.decide(.revokeLinks(tripId: "t-1", linkIds: ["l-2"], at: F.t(10)), state: state) == [])
        #expect(try ShareLink.decide(.revokeLinks(tripId: "t-1", linkIds: nil, at: F.t(10)), state: state)
                == [.revoked(.init(tripId: "t-1", linkIds: ["l-1", "l-3"], at: F.t(10)))])
        #expect(try ShareLink.decide(.revokeLinks(tripId: "t-1", linkIds: nil, at: F.t(10)), state: ShareLink.State()) == [])
        expectRejection(.notFound, mentioning: ["l-9"]) {
            try ShareLink.decide(.revokeLinks(tripId: "t-1", linkIds: ["l-9"], at: F.t(10)), state: state)
        }
    }

    @Test func eventsRoundTripThroughTheirStoredJSON() throws {
        for event in [Self.created("l-1"), .revoked(.init(tripId: "t-1", linkIds: ["l-1", "l-2"], at: F.t(3)))] as [ShareLink.Event] {
            #expect(try ShareLink.Event.decode(type: event.type, data: try event.encodePayload()) == event)
        }
        #expect(ShareLink.Event.allTypes == ["ShareLinkCreated", "ShareLinksRevoked"])
    }
}
