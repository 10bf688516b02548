import EventStore
import JSON
import Journey
import ReadModels

/// What the projection runtime runs: a fold over stored events into JSON documents.
///
/// `ReadModelProjector` adapts the pure `ReadModelProjection`s (which see decoded domain events);
/// tests and infrastructure projections may implement this directly on raw events.
package protocol Projector: Sendable {
    /// Stable name: the checkpoint's name, and the name of its table (`ReadModelTable`).
    var name: String { get }
    /// Restores the model from its stored documents.
    mutating func load(_ documents: [DocumentChange])
    /// Folds one stored event in; events the projector does not understand are ignored.
    mutating func apply(_ event: RecordedEvent)
    /// Documents changed since the last call, each once, in a deterministic order.
    mutating func drainChanges() -> [DocumentChange]
    /// Events of its own kind that it could not apply (so the runner can report them, never skip silently).
    var skippedEvents: Int { get }

    // A projector may keep only some of its records in memory (`recordLimit`); the runner then
    // reads back, before each batch, the stored documents the batch needs. The defaults keep
    // everything in memory.

    /// At most this many records kept in memory after each batch (nil: all of them).
    var recordLimit: Int? { get set }
    /// The stored documents of records let go that applying `events` reads.
    mutating func prepare(_ events: [RecordedEvent]) -> [DocumentAddress]
    /// Puts back what `prepare` asked for: `found` holds the documents that are stored.
    mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange])
    /// Folds a batch in (after `prepare` of the same events, if any).
    mutating func apply(batch events: [RecordedEvent])
    /// After `drainChanges`: lets records beyond `recordLimit` go from memory; returns how many.
    mutating func letGo() -> Int
    /// Keys of records read while let go and not restored since the last call.
    func takeUnrestoredReads() -> [String]
}

extension Projector {
    package var skippedEvents: Int { 0 }
    package var recordLimit: Int? {
        get { nil }
        set {}  // keeps everything
    }
    package mutating func prepare(_ events: [RecordedEvent]) -> [DocumentAddress] { [] }
    package mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange]) {}
    package mutating func apply(batch events: [RecordedEvent]) {
        for event in events { apply(event) }
    }
    package mutating func letGo() -> Int { 0 }
    package func takeUnrestoredReads() -> [String] { [] }
}

/// Runs a `ReadModelProjection` on stored events by decoding trip and vehicle streams.
package struct ReadModelProjector<Model: ReadModelProjection>: Projector {
    package var model = Model()
    /// Events of trip/vehicle streams whose payload did not decode (reported in the runner's status).
    package private(set) var undecodable = 0
    package var recordLimit: Int?
    /// The events `prepare` decoded, for `apply(batch:)` (decoded once per batch).
    private var prepared: [Result<EventEnvelope, JourneyError>?] = []

    package init() {}

    package var name: String { Model.name }

    package mutating func load(_ documents: [DocumentChange]) { model.load(documents) }

    package mutating func apply(_ event: RecordedEvent) {
        apply(decoded: EnvelopeDecoder.decoded(event))
    }

    private mutating func apply(decoded: Result<EventEnvelope, JourneyError>?) {
        switch decoded {
        case .some(.success(let envelope)): model.apply(envelope)
        case .some(.failure): undecodable += 1
        case .none: break
        }
    }

    package mutating func prepare(_ events: [RecordedEvent]) -> [DocumentAddress] {
        guard recordLimit != nil else { return [] }
        prepared = events.map(EnvelopeDecoder.decoded)
        return model.documentsNeeded(by: prepared.compactMap { try? $0?.get() })
    }

    package mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange]) {
        model.restore(requested, found: found)
    }

    package mutating func apply(batch events: [RecordedEvent]) {
        guard prepared.count == events.count else {
            prepared = []
            for event in events { apply(event) }
            return
        }
        let decoded = prepared
        prepared = []
        for event in decoded { apply(decoded: event) }
    }

    package mutating func letGo() -> Int {
        recordLimit.map { model.letGo(keeping: $0) } ?? 0
    }

    package func takeUnrestoredReads() -> [String] { model.takeUnrestoredReads() }

    package mutating func drainChanges() -> [DocumentChange] { model.drainChanges() }

    package var skippedEvents: Int { undecodable }
}
