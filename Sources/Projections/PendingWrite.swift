import EventStore
import ReadModels

/// What a runner has folded and not written yet: the latest change of each document, and the
/// events they came from.
///
/// Documents are held as their canonical bytes, the form they are written in: a value tree costs
/// several times its encoded size, and up to `ProjectionRunner.Options.maximumPendingEvents`
/// events' documents wait here while the write before them commits.
///
/// A runner that is behind folds several pages before it writes (`ProjectionRunner.Options.writeBehind`),
/// so a document changed on several pages is written once, and the checkpoint moves to the last
/// event folded in the same transaction. Records the projector lets go meanwhile are read back
/// from here: the table does not hold their latest documents yet.
struct PendingWrite {
    /// The latest change of each document, in the order they first changed.
    private(set) var changes: [DocumentChange] = []
    private var positions: [String: Int] = [:]
    /// The canonical bytes of `changes` together (what a write copies into its statement).
    private(set) var bytes = 0
    /// Events folded, and the last of them.
    private(set) var events = 0
    private(set) var last: RecordedEvent?
    /// When the first of these events was folded.
    private(set) var since: ContinuousClock.Instant?
    /// The stages of the pages folded, summed (a write counts as one batch).
    var stages = ProjectionRunner.Stages()

    var isEmpty: Bool { events == 0 }

    private static func id(_ collection: String, _ key: String) -> String { collection + "\u{1}" + key }

    /// Adds a folded page: its events and the changes drained after it, already encoded
    /// (`canonical[i]` of `page[i]`, nil for a deletion): the runner encodes each change once, for
    /// this write and for its mirror.
    mutating func add(_ page: [DocumentChange], canonical: [[UInt8]?], events count: Int, through event: RecordedEvent) {
        precondition(page.count == canonical.count, "one encoding per change")
        if since == nil { since = .now }
        events += count
        last = event
        for (folded, bytes) in zip(page, canonical) {
            let change = bytes.map { DocumentChange(collection: folded.collection, key: folded.key, canonical: $0) }
                ?? DocumentChange(collection: folded.collection, key: folded.key, document: nil)
            let id = Self.id(change.collection, change.key)
            self.bytes += self.bytes(of: change)
            if let position = positions[id] {
                self.bytes -= self.bytes(of: changes[position])
                changes[position] = change
            } else {
                positions[id] = changes.count
                changes.append(change)
            }
        }
    }

    private func bytes(of change: DocumentChange) -> Int { change.canonicalBytes?.count ?? 0 }

    /// Of the documents at `addresses`, those changed here (`found`: each one that exists, as
    /// `ProjectionRunner` restores them), and the addresses the table must answer for.
    func split(_ addresses: [DocumentAddress]) -> (found: [DocumentChange], rest: [DocumentAddress]) {
        var found: [DocumentChange] = []
        var rest: [DocumentAddress] = []
        for address in addresses {
            if let position = positions[Self.id(address.collection, address.key)] {
                let change = changes[position]
                if !change.isDeletion { found.append(change) }
            } else {
                rest.append(address)
            }
        }
        return (found, rest)
    }
}
