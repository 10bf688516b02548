import EventStore
import JSON
import Journey
import ReadModels

/// Turns stored events of `trip:`, `vehicle:`, `share:` and `style:` streams into domain envelopes.
package enum EnvelopeDecoder {
    /// nil for streams of other categories; a failure for a payload that does not decode.
    ///
    /// The payload is decoded straight from the `JSONValue` the store already parsed.
    package static func decode(_ event: RecordedEvent) -> Result<EventEnvelope, JourneyError>? {
        guard let (category, provider, id) = parse(event.streamId) else { return nil }
        let decoded: Result<DomainEvent, JourneyError>
        switch category {
        case "trip":
            do { decoded = .success(.trip(provider: provider, tripId: id, try Trip.Event.decode(type: event.type, json: event.data))) } catch { decoded = .failure(error) }
        case "vehicle":
            do { decoded = .success(.vehicle(provider: provider, vehicleId: id, try Vehicle.Event.decode(type: event.type, json: event.data))) } catch { decoded = .failure(error) }
        case "share":
            do { decoded = .success(.share(provider: provider, tripId: id, try ShareLink.Event.decode(type: event.type, json: event.data))) } catch { decoded = .failure(error) }
        case "style":
            do { decoded = .success(.style(provider: provider, try JourneyStyle.Event.decode(type: event.type, json: event.data))) } catch { decoded = .failure(error) }
        default:
            return nil
        }
        return decoded.map {
            EventEnvelope(streamId: event.streamId, streamVersion: event.streamVersion, globalPosition: event.globalPosition,
                          recordedAt: Timestamp(microsecondsSinceEpoch: event.recordedAtMicros), event: $0)
        }
    }

    /// `decode(event)`, made once per event read from the feed: the node's runners hold the same
    /// copies of each page (`FeedCache`), and the first to decode an event keeps the result in the
    /// event's memo for the others (`EventMemo`).
    package static func decoded(_ event: RecordedEvent) -> Result<EventEnvelope, JourneyError>? {
        guard let memo = event.memo else { return decode(event) }
        return memo.value { Decoded(envelope: decode(event)) }.envelope
    }

    /// What `decoded` keeps: nil (another category of stream) is kept too.
    private struct Decoded: Sendable {
        let envelope: Result<EventEnvelope, JourneyError>?
    }

    /// `trip:acme/t-1` → ("trip", "acme", "t-1").
    package static func parse(_ streamId: String) -> (String, String, String)? {
        guard let colon = streamId.firstIndex(of: ":") else { return nil }
        let category = String(streamId[..<colon])
        let rest = streamId[streamId.index(after: colon)...]
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let provider = String(rest[..<slash]), id = String(rest[rest.index(after: slash)...])
        guard !provider.isEmpty, !id.isEmpty else { return nil }
        return (category, provider, id)
    }
}
