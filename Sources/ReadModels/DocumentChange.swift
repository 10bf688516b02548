import JSON

/// One document a projection writes (or deletes, when `document` is nil).
///
/// A projection's read model is a set of JSON documents addressed by (collection, key); the
/// projection runtime stores them in the projection's own table, in the same transaction as its
/// checkpoint. Everything a projection needs to continue after a restart must be in its documents
/// (internal state included, in collections of its own), because `load` is all it gets back.
package struct DocumentChange: Sendable, Hashable {
    package let collection: String
    package let key: String
    private let body: Body

    /// A document as a value, or as the canonical bytes a projection wrote straight away (the
    /// records rewritten at every location report, which never need a value tree).
    private enum Body: Sendable {
        case value(JSONValue?)
        case canonical([UInt8])
    }

    package init(collection: String, key: String, document: JSONValue?) {
        self.collection = collection
        self.key = key
        self.body = .value(document)
    }

    /// A document given as its canonical bytes (``JSONValue/canonicalBytes()`` of its value),
    /// written by a `CanonicalJSONWriter`.
    package init(collection: String, key: String, canonical: [UInt8]) {
        self.collection = collection
        self.key = key
        self.body = .canonical(canonical)
    }

    /// The document; nil for a deletion. One given as bytes is parsed here (for loading, mirrors
    /// and tests; the store writes the bytes as they are).
    package var document: JSONValue? {
        switch body {
        case .value(let value): value
        case .canonical(let bytes):
            // Written by a `CanonicalJSONWriter` from a record: it always parses.
            (try? JSONValue.parse(bytes)) ?? { preconditionFailure("a document written as canonical bytes does not parse") }()
        }
    }

    /// Whether this change deletes the document.
    package var isDeletion: Bool {
        if case .value(nil) = body { return true }
        return false
    }

    /// Appends the document's canonical bytes; nothing for a deletion.
    package func writeCanonical(to out: inout [UInt8]) {
        switch body {
        case .value(let value): value?.writeCanonical(to: &out)
        case .canonical(let bytes): out.append(contentsOf: bytes)
        }
    }

    /// The document's canonical bytes; nil for a deletion.
    package var canonicalBytes: [UInt8]? {
        switch body {
        case .value(let value): value?.canonicalBytes()
        case .canonical(let bytes): bytes
        }
    }

    /// Equal when they address the same document and hold the same JSON, in whichever form.
    package static func == (lhs: DocumentChange, rhs: DocumentChange) -> Bool {
        lhs.collection == rhs.collection && lhs.key == rhs.key && lhs.canonicalBytes == rhs.canonicalBytes
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(collection)
        hasher.combine(key)
        hasher.combine(canonicalBytes)
    }
}

/// A read model built by folding events, with no I/O, clock or randomness.
///
/// The runtime feeds events in feed order with `apply`, and after each batch takes the documents
/// that changed with `drainChanges` and writes them with the checkpoint. On start it restores the
/// projection with `load` from everything it stored. Applying the same events to a fresh value
/// must produce the same documents (rebuild equals live).
package protocol ReadModelProjection: Sendable {
    /// Stable name; the runtime's table is named after it (`ReadModelTable` in ReadSide).
    static var name: String { get }
    /// An empty read model.
    init()
    /// Restores the model from its stored documents (in any order).
    mutating func load(_ documents: [DocumentChange])
    /// Folds one event in.
    mutating func apply(_ envelope: EventEnvelope)
    /// The documents changed since the last call, each once, in a deterministic order.
    mutating func drainChanges() -> [DocumentChange]

    // Records let go from memory (optional; see `RecordMap`). A model that keeps everything in
    // memory needs none of these. One that lets records go names, before each batch, the stored
    // documents of the records the batch will read, and gets them back before it applies it.

    /// The stored documents of records let go that applying `envelopes` reads.
    func documentsNeeded(by envelopes: [EventEnvelope]) -> [DocumentAddress]
    /// Puts back the records `documentsNeeded` asked for: `found` holds those stored.
    mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange])
    /// After `drainChanges`: lets records beyond `limit` go from memory; returns how many.
    mutating func letGo(keeping limit: Int) -> Int
    /// Keys of records read while let go and not restored since the last call: a batch folded
    /// with one of them missing must not be written.
    func takeUnrestoredReads() -> [String]
}

extension ReadModelProjection {
    package func documentsNeeded(by envelopes: [EventEnvelope]) -> [DocumentAddress] { [] }
    package mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange]) {}
    package mutating func letGo(keeping limit: Int) -> Int { 0 }
    package func takeUnrestoredReads() -> [String] { [] }
}

/// Where a document is stored: its collection and key.
package struct DocumentAddress: Sendable, Hashable {
    package let collection: String
    package let key: String

    package init(collection: String, key: String) {
        self.collection = collection
        self.key = key
    }
}
