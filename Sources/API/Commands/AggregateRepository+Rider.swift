import EventStore
import Foundation
import JSON
import Journey

/// The share-link aggregate for the command layer.
enum ShareLinkAggregate: Aggregate {
    static let kind = "share link"
    static var initial: ShareLink.State { ShareLink.State() }
    static func evolve(_ state: ShareLink.State, with event: ShareLink.Event) -> ShareLink.State { ShareLink.evolve(state, with: event) }
    static func decode(type: String, json: JSONValue) throws(JourneyError) -> ShareLink.Event { try ShareLink.Event.decode(type: type, json: json) }
    static func type(of event: ShareLink.Event) -> String { event.type }
    static func payload(of event: ShareLink.Event) throws(JourneyError) -> JSONValue { try jsonPayload(event.encodePayload(), type: event.type) }
    static func changesOnlyLocation(_ event: ShareLink.Event) -> Bool { false }
}

/// The journey-style aggregate for the command layer.
enum JourneyStyleAggregate: Aggregate {
    static let kind = "journey style"
    static var initial: JourneyStyle.State { JourneyStyle.State() }
    static func evolve(_ state: JourneyStyle.State, with event: JourneyStyle.Event) -> JourneyStyle.State { JourneyStyle.evolve(state, with: event) }
    static func decode(type: String, json: JSONValue) throws(JourneyError) -> JourneyStyle.Event { try JourneyStyle.Event.decode(type: type, json: json) }
    static func type(of event: JourneyStyle.Event) -> String { event.type }
    static func payload(of event: JourneyStyle.Event) throws(JourneyError) -> JSONValue { try jsonPayload(event.encodePayload(), type: event.type) }
    static func changesOnlyLocation(_ event: JourneyStyle.Event) -> Bool { false }
}

/// A payload encoded as bytes, as the JSON value the store appends (rare events: shares and styles).
private func jsonPayload(_ data: Data, type: String) throws(JourneyError) -> JSONValue {
    do {
        return try JSONValue.parse(data)
    } catch {
        throw JourneyError(code: .invalidArgument, message: "event payload is not valid JSON (type \(type))", underlying: error)
    }
}

extension AggregateRepository {
    static func shareStream(provider: String, tripId: String) -> String { "share:\(provider)/\(tripId)" }
    static func styleStream(provider: String) -> String { "style:\(provider)/journey" }

    /// A trip's share links, read from the store every time (rare commands; no cache to go stale).
    func loadShareLinks(provider: String, tripId: String) async throws(APIError) -> Loaded<ShareLink.State> {
        try await loadUncached(ShareLinkAggregate.self, Self.shareStream(provider: provider, tripId: tripId))
    }

    /// A provider's journey style, read from the store every time.
    func loadJourneyStyle(provider: String) async throws(APIError) -> Loaded<JourneyStyle.State> {
        try await loadUncached(JourneyStyleAggregate.self, Self.styleStream(provider: provider))
    }

    /// Folds a whole stream (these streams are short: a few events per trip or per provider).
    private func loadUncached<A: Aggregate>(_: A.Type, _ stream: String) async throws(APIError) -> Loaded<A.State> {
        var loaded = Loaded(state: A.initial, version: 0)
        let pageSize = 1000
        while true {
            let events: [RecordedEvent]
            do throws(EventStoreError) {
                events = try await store.readStream(stream, from: loaded.version + 1, limit: pageSize)
            } catch {
                throw APIError(error, doing: "read \(A.kind) stream")
            }
            for event in events {
                do {
                    loaded.state = A.evolve(loaded.state, with: try A.decode(type: event.type, json: event.data))
                } catch {
                    // An event this build cannot read counts for the version, as elsewhere.
                }
                loaded.version = event.streamVersion
            }
            if events.count < pageSize { break }
        }
        return loaded
    }

    /// Appends `events` to `stream` after `before` (expected version), in one transaction.
    func appendDecided<A: Aggregate>(_: A.Type, stream: String, before: Loaded<A.State>, events: [A.Event],
                                     metadata: JSONValue) async throws(APIError) -> Result<AppendResult, EventStoreError> {
        let append = try self.append(Pending<A>(stream: stream, before: before, events: events), metadata: metadata)
        return await commit([append])[0]
    }
}
