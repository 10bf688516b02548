import JSON
import ReadModels
import Synchronization

/// An in-memory copy of a projection's stored documents, kept by the runner that owns it.
///
/// The owning runner resets it from the table when it loads, and applies each batch's changes
/// as soon as it folded them, while the batch commits, and publishes the new checkpoint after the
/// commit. So whoever waited for a checkpoint (read-your-writes) finds at least that state here,
/// and riders get a change without waiting for its document write. A batch whose commit fails
/// invalidates the mirror; the runner reloads and folds the same (durable) events again, to the
/// same documents. While this node's runner does not own the projection (another node does, or
/// it is between owners) the mirror is invalid and readers must go to the table.
///
/// An observer (`observe`) hears of every reset, applied batch (only the kept collections' changes)
/// and invalidation, right after the mirror itself changed and outside its lock: the journey
/// endpoints' hub pushes new views to riders from there.
///
/// A mirror with a `documentLimit` keeps at most that many documents (and an eighth more before
/// it looks): the least recently written go first. Once one went, a document it does not hold is
/// one it cannot answer for (nil), and readers go to the table; those written recently, the live
/// vehicles and trips, stay.
package final class DocumentMirror: Sendable {
    private struct State {
        var valid = false
        /// Each document as its JSON bytes, the canonical text the table stores (a batch's are
        /// applied as the runner encoded them for its write; a reset's loaded documents, written
        /// compact, come out the same): a `JSONValue` tree costs several times its encoded size
        /// (per-node enum payloads, member arrays, lexeme strings), and a mirror holds every
        /// document of its projection. Readers get a freshly parsed tree. `stamp` counts the batch
        /// that wrote it.
        var documents: [String: (bytes: [UInt8], stamp: UInt32)] = [:]
        /// Counts applied batches.
        var clock: UInt32 = 0
        /// Whether documents were let go: one not held may still exist.
        var partial = false
    }

    /// What an observer hears.
    package enum Update: Sendable {
        /// The runner (re)loaded the projection: every document may have changed.
        case reset
        /// A batch was folded with these changes (kept collections only); it commits next.
        case applied([DocumentChange])
        /// The runner lost ownership or failed: the mirror cannot answer until the next reset.
        case invalidated
    }

    private let state = Mutex(State())
    private let observer = Mutex<(@Sendable (Update) -> Void)?>(nil)
    /// Only documents of these collections are kept (nil: all).
    private let collections: Set<String>?
    /// At most this many documents are kept (nil: all).
    private let documentLimit: Int?

    package init(collections: Set<String>? = nil, documentLimit: Int? = nil) {
        self.collections = collections
        self.documentLimit = documentLimit
    }

    /// Calls `observer` after every change of the mirror, on the runner's task (keep it short and
    /// non-blocking). One observer; a second call replaces the first.
    package func observe(_ observer: @escaping @Sendable (Update) -> Void) {
        self.observer.withLock { $0 = observer }
    }

    private func notify(_ update: Update) {
        observer.withLock { $0 }?(update)
    }

    private static func id(_ collection: String, _ key: String) -> String { collection + "\u{1}" + key }

    /// The document, `.some(nil)` when it is known not to exist, or nil when the mirror cannot say.
    package func document(_ collection: String, _ key: String) -> JSONValue?? {
        guard let stored = documentBytes(collection, key) else { return nil }
        guard let bytes = stored else { return .some(nil) }
        // The bytes were written by a JSON writer; if they ever failed to parse, the mirror cannot say.
        do {
            return .some(try JSONValue.parse(bytes))
        } catch {
            return nil
        }
    }

    /// The document's JSON bytes, `.some(nil)` when it is known not to exist, or nil when
    /// the mirror cannot say.
    package func documentBytes(_ collection: String, _ key: String) -> [UInt8]?? {
        state.withLock { state in
            guard state.valid else { return nil }
            guard let document = state.documents[Self.id(collection, key)] else { return state.partial ? nil : .some(nil) }
            return .some(document.bytes)
        }
    }

    /// Compact bytes with no spare capacity.
    private static func encode(_ document: JSONValue) -> [UInt8] {
        document.compactBytes().withoutSpareCapacity()
    }

    /// Whether readers may use the mirror.
    package var isValid: Bool { state.withLock { $0.valid } }

    func reset(_ documents: [DocumentChange]) {
        var copy: [String: (bytes: [UInt8], stamp: UInt32)] = [:]
        var partial = false
        for change in documents where collections?.contains(change.collection) ?? true {
            guard let document = change.document else { continue }
            if let documentLimit, copy.count >= documentLimit {
                partial = true
                break
            }
            copy[Self.id(change.collection, change.key)] = (Self.encode(document), 0)
        }
        state.withLock {
            $0.documents = copy
            $0.clock = 0
            $0.partial = partial
            $0.valid = true
        }
        notify(.reset)
    }

    func apply(_ changes: [DocumentChange]) {
        apply(changes, canonical: changes.map(\.canonicalBytes))
    }

    /// Applies `changes`, given with their canonical bytes (nil: deleted), the bytes the table
    /// stores: the runner encodes each changed document once, for its write and for the mirror.
    /// The observer hears `changes` as they are (the journey hub renders from their values).
    func apply(_ changes: [DocumentChange], canonical: [[UInt8]?]) {
        precondition(changes.count == canonical.count, "one encoding per change")
        var kept: [DocumentChange] = []
        var encoded: [(String, [UInt8]?)] = []
        kept.reserveCapacity(changes.count)
        encoded.reserveCapacity(changes.count)
        for (change, bytes) in zip(changes, canonical) where collections?.contains(change.collection) ?? true {
            kept.append(change)
            encoded.append((Self.id(change.collection, change.key), bytes.map { $0.withoutSpareCapacity() }))
        }
        let documentLimit = documentLimit
        // Invalidated (a write failed while the runner folded on): nothing until the reload resets it.
        let applied = state.withLock { state -> Bool in
            guard state.valid else { return false }
            state.clock &+= 1
            for (id, bytes) in encoded {
                state.documents[id] = bytes.map { ($0, state.clock) }
            }
            if let documentLimit, LeastRecent.mustShrink(state.documents.count, keeping: documentLimit) {
                Self.letGo(&state, keeping: documentLimit)
            }
            return true
        }
        if applied, !kept.isEmpty { notify(.applied(kept)) }
    }

    /// Drops the least recently written documents until `limit` remain.
    private static func letGo(_ state: inout State, keeping limit: Int) {
        let stamps = state.documents.map { (key: $0.key, stamp: UInt64($0.value.stamp)) }
        for id in LeastRecent.oldest(state.documents.count - limit, of: stamps) {
            state.documents[id] = nil
        }
        state.partial = true
    }

    /// How many documents are held (for tests and metrics).
    package var count: Int { state.withLock { $0.documents.count } }

    func invalidate() {
        let wasValid = state.withLock { state -> Bool in
            defer {
                state.valid = false
                state.documents = [:]
            }
            return state.valid
        }
        if wasValid { notify(.invalidated) }
    }
}
