import JSON
import ReadModels
import Synchronization

/// An in-memory copy of a projection's stored documents, kept by the runner that owns it.
///
/// The owning runner resets it from the table when it loads, and applies each batch's changes
/// after the batch commits and before it publishes the new checkpoint. So whoever waited for a
/// checkpoint (read-your-writes) finds at least that state here. While this node's runner does
/// not own the projection (another node does, or it is between owners) the mirror is invalid
/// and readers must go to the table.
package final class DocumentMirror: Sendable {
    private struct State {
        var valid = false
        var documents: [String: JSONValue] = [:]
    }

    private let state = Mutex(State())
    /// Only documents of these collections are kept (nil: all).
    private let collections: Set<String>?

    package init(collections: Set<String>? = nil) {
        self.collections = collections
    }

    private static func id(_ collection: String, _ key: String) -> String { collection + "\u{1}" + key }

    /// The document, `.some(nil)` when it is known not to exist, or nil when the mirror cannot say.
    package func document(_ collection: String, _ key: String) -> JSONValue?? {
        state.withLock { state in
            guard state.valid else { return nil }
            return .some(state.documents[Self.id(collection, key)])
        }
    }

    /// Whether readers may use the mirror.
    package var isValid: Bool { state.withLock { $0.valid } }

    func reset(_ documents: [DocumentChange]) {
        var copy: [String: JSONValue] = [:]
        for change in documents where collections?.contains(change.collection) ?? true {
            if let document = change.document { copy[Self.id(change.collection, change.key)] = document }
        }
        state.withLock {
            $0.documents = copy
            $0.valid = true
        }
    }

    func apply(_ changes: [DocumentChange]) {
        state.withLock { state in
            for change in changes where collections?.contains(change.collection) ?? true {
                state.documents[Self.id(change.collection, change.key)] = change.document
            }
        }
    }

    func invalidate() {
        state.withLock {
            $0.valid = false
            $0.documents = [:]
        }
    }
}
