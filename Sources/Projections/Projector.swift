import EventStore
import JSON
import ReadModels

/// What the projection runtime runs: a fold over stored events into JSON documents.
///
/// `ReadModelProjector` adapts the pure `ReadModelProjection`s (which see decoded domain events);
/// tests and infrastructure projections may implement this directly on raw events.
package protocol Projector: Sendable {
    /// Stable name: the checkpoint's name and the table `rm_<name>`.
    var name: String { get }
    /// Restores the model from its stored documents.
    mutating func load(_ documents: [DocumentChange])
    /// Folds one stored event in; events the projector does not understand are ignored.
    mutating func apply(_ event: RecordedEvent)
    /// Documents changed since the last call, each once, in a deterministic order.
    mutating func drainChanges() -> [DocumentChange]
    /// Events of its own kind that it could not apply (so the runner can report them, never skip silently).
    var skippedEvents: Int { get }
}

extension Projector {
    package var skippedEvents: Int { 0 }
}

/// Runs a `ReadModelProjection` on stored events by decoding trip and vehicle streams.
package struct ReadModelProjector<Model: ReadModelProjection>: Projector {
    package var model = Model()
    /// Events of trip/vehicle streams whose payload did not decode (reported in the runner's status).
    package private(set) var undecodable = 0

    package init() {}

    package var name: String { Model.name }

    package mutating func load(_ documents: [DocumentChange]) { model.load(documents) }

    package mutating func apply(_ event: RecordedEvent) {
        switch EnvelopeDecoder.decode(event) {
        case .some(.success(let envelope)): model.apply(envelope)
        case .some(.failure): undecodable += 1
        case .none: break
        }
    }

    package mutating func drainChanges() -> [DocumentChange] { model.drainChanges() }

    package var skippedEvents: Int { undecodable }
}
