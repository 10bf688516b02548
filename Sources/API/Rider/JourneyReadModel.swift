import EventStore
import Foundation
import JSON
import Projections
import ReadModels
import ReadSide

/// The journey projection's documents for the API: riders' views, share links, riders' trips and
/// journey styles.
///
/// While this node's journey runner owns the projection, its `DocumentMirror` answers from
/// memory (`memoryDocument`); otherwise `JourneyViewReader` reads the table. `waitUntilApplied`
/// gives read-your-writes for share links and styles, as `FleetReadModel` does for trips.
struct JourneyReadModel: Sendable {
    /// The table's reader (through the read replica, when one is configured; a read outside any
    /// request, the journey hub's polling, waits for the replica to catch up with the primary first).
    let reader: JourneyViewReader
    /// Read-your-writes: asks this node's runner, else polls the stored checkpoint.
    let waiter: ProjectionWaiter
    let mirror: DocumentMirror?
    var consistencyTimeout: Duration = .seconds(5)

    /// The mirrored collections (everything the rider endpoints read).
    static let mirroredCollections: Set<String> = [
        JourneyViewProjection.viewsCollection, JourneyViewProjection.sharesCollection,
        JourneyViewProjection.ridersCollection, JourneyViewProjection.stylesCollection,
    ]

    /// From memory: the document, `.some(nil)` when it does not exist, nil when memory cannot say.
    func memoryDocument(_ collection: String, _ key: String) -> JSONValue?? {
        mirror?.document(collection, key)
    }

    /// The document, from memory when possible, else from the table.
    func document(_ collection: String, _ key: String) async throws(APIError) -> JSONValue? {
        if let mirrored = memoryDocument(collection, key) { return mirrored }
        return try await documents(collection, keys: [key])[key]
    }

    /// Documents of `collection` by key (missing keys are left out); one query when not in memory.
    func documents(_ collection: String, keys: [String]) async throws(APIError) -> [String: JSONValue] {
        guard !keys.isEmpty else { return [:] }
        if let mirror, mirror.isValid {
            var found: [String: JSONValue] = [:]
            var complete = true
            for key in keys {
                switch mirror.document(collection, key) {
                case .some(.some(let document)): found[key] = document
                case .some(.none): continue
                case .none: complete = false
                }
            }
            if complete { return found }
        }
        do {
            return try await reader.documents(collection, keys: keys)
        } catch {
            throw APIError(.unavailable, "could not read the journey read model; retry", underlying: error)
        }
    }

    /// Waits until the journey projection has applied `position`; false after `consistencyTimeout`.
    func waitUntilApplied(_ position: FeedPosition) async -> Bool {
        await waiter.waitUntilApplied(position, timeout: consistencyTimeout)
    }
}
