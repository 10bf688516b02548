import EventStore
import Foundation
import JSON
import Projections
import ReadModels
import ReadSide

/// The fleet projection's documents for the API: Trip and Vehicle resources and the internal
/// records they are rendered from, from this node's mirror when it may answer, else through
/// `FleetReader`, with its failures worded for clients.
///
/// Read-your-writes: after a command, `waitUntilApplied` blocks until the fleet projection has
/// applied the command's events, so the document read next includes them. When this node's
/// runner owns the projection it is asked directly (it wakes on each committed batch);
/// otherwise the stored checkpoint is polled, since another node is doing the work.
struct FleetReadModel: Sendable {
    /// The table's reader (through the read replica, when one is configured).
    let reader: FleetReader
    /// Read-your-writes: asks this node's runner, else polls the stored checkpoint.
    let waiter: ProjectionWaiter
    let runner: ProjectionRunner?
    /// The owning runner's in-memory copy of the trips and vehicles, when this node owns the projection.
    var mirror: DocumentMirror?
    /// How long a write waits for the projection before answering 503 (the write itself is kept).
    var consistencyTimeout: Duration = .seconds(5)
    func document(_ collection: String, _ key: String) async throws(APIError) -> JSONValue? {
        // A read with a client's consistency token skips memory: the owner applies a batch to its mirror
        // just after the commit, so a write answered through another node may not be in memory yet.
        if !ReadRouter.readsAfterToken, let mirrored = mirror?.document(collection, key) { return mirrored }
        do {
            return try await reader.document(collection, key)
        } catch {
            throw APIError(.unavailable, "could not read the fleet read model; retry", underlying: error)
        }
    }

    /// Documents of `collection` whose key starts with `prefix`, in key order, after `after`, at most `limit`.
    func documents(_ collection: String, prefix: String, after: String? = nil, limit: Int = 10_000) async throws(APIError) -> [(key: String, document: JSONValue)] {
        do {
            return try await reader.documents(collection, prefix: prefix, after: after, limit: limit)
        } catch {
            throw APIError(.unavailable, "could not read the fleet read model; retry", underlying: error)
        }
    }

    /// Whether this node's runner owns the projection and its mirror may be read (see `DocumentMirror`).
    var mirrorIsCurrent: Bool { runner?.status.isOwner == true && mirror?.isValid == true }

    /// The mirrored document, when the mirror is valid and holds it.
    func mirrored(_ collection: String, _ key: String) -> JSONValue? {
        mirror?.document(collection, key) ?? nil
    }

    /// Whether this node's runner has applied `position` (false when it does not own the projection).
    func hasApplied(_ position: FeedPosition) -> Bool {
        guard let runner else { return false }
        let status = runner.status
        return status.isOwner && status.checkpoint >= position
    }

    /// Roughly how many events before `position` this node's runner has still to apply (by global
    /// position); nil when it does not own the projection.
    func eventsBehind(_ position: FeedPosition) -> Int64? {
        guard let runner else { return nil }
        let status = runner.status
        guard status.isOwner else { return nil }
        return max(0, position.globalPosition - status.checkpoint.globalPosition)
    }

    /// Waits for the fleet projection to apply a command's writes (read-your-writes); UNAVAILABLE,
    /// saying the change was kept, after `consistencyTimeout`.
    func settle(_ mark: WriteMark) async throws(APIError) {
        guard let position = mark.position else { return }
        guard await waitUntilApplied(position) else {
            throw APIError(.unavailable, "the change was saved, but the read model has not caught up within \(consistencyTimeout); read it again shortly")
        }
    }

    /// Waits until the fleet projection has applied `position`; false after `consistencyTimeout`.
    func waitUntilApplied(_ position: FeedPosition) async -> Bool {
        await waiter.waitUntilApplied(position, timeout: consistencyTimeout)
    }
}
