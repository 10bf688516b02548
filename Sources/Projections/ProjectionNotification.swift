import JSON
import Postgres
import ReadModels

/// What a projection runner tells other nodes after committing a batch: which documents changed.
///
/// The runner sends it with `pg_notify` right after the batch's commit, in the same round trip but
/// in a transaction of its own (see `ProjectionRunner.commit`), so it is delivered only after the
/// batch's documents are visible. The channel is `waymark_<projection>`; the payload names the
/// changed keys per collection, as a JSON object (`{"views":["acme/t-1"]}`), or is `*` ("many":
/// re-read everything watched) when the keys would not fit NOTIFY's 8000-byte payload limit. A
/// notification is a hint: listeners still poll, and re-read everything after their listening
/// connection (re)connects.
package enum ProjectionNotification: Sendable, Hashable {
    /// These keys changed (collection → keys).
    case changed([String: Set<String>])
    /// Too many changes to name (or the payload was not understood): re-read everything watched.
    case many

    /// The keys of every named collection together (nil for `.many`).
    package var keys: Set<String>? {
        switch self {
        case .changed(let collections): collections.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        case .many: nil
        }
    }

    /// The channel of projection `name`.
    package static func channel(_ name: String) -> String { "waymark_" + name }

    /// The payload for "many".
    static let manyPayload = "*"

    /// Payloads longer than this become `*` (PostgreSQL refuses 8000 bytes and more).
    package static let maximumPayloadBytes = 7900

    /// The payload naming the changes in `collections`, or nil when none of them changed.
    package static func payload(_ changes: [DocumentChange], collections: Set<String>,
                                maximumBytes: Int = maximumPayloadBytes) -> String? {
        var keys: [String: Set<String>] = [:]
        for change in changes where collections.contains(change.collection) {
            keys[change.collection, default: []].insert(change.key)
        }
        guard !keys.isEmpty else { return nil }
        var object = JSONObject()
        for collection in keys.keys.sorted() {
            object[collection] = .array(keys[collection]!.sorted().map { .string($0) })
        }
        let text = JSONValue.object(object).compactString
        return text.utf8.count <= maximumBytes ? text : manyPayload
    }

    /// Reads a payload; anything not understood counts as "many" (a hint must never be lost).
    package init(payload: String) {
        guard payload != Self.manyPayload, case .object(let object)? = try? JSONValue.parse(payload) else {
            self = .many
            return
        }
        var collections: [String: Set<String>] = [:]
        for (collection, value) in object {
            guard case .array(let items) = value else {
                self = .many
                return
            }
            var keys = Set<String>()
            for item in items {
                guard let key = item.stringValue else {
                    self = .many
                    return
                }
                keys.insert(key)
            }
            collections[collection] = keys
        }
        self = .changed(collections)
    }

    /// The statement that sends `payload` on projection `name`'s channel (delivered at commit).
    static func statement(projection name: String, payload: String) -> Statement {
        Statement("SELECT pg_notify($1, $2)", [channel(name), payload])
    }
}

extension ProjectionNotification {
    /// Listens on one projection's channel and hands each notification to `handler`, on the
    /// listener's thread. Each (re)connect counts as `.many`: notifications may have been missed
    /// while the connection was down.
    package final class Listener: Sendable {
        private let listener: NotificationListener

        package init(conninfo: String, projection name: String, handler: @escaping @Sendable (ProjectionNotification) -> Void) {
            listener = NotificationListener(conninfo: conninfo, channels: [ProjectionNotification.channel(name)]) { signal in
                switch signal {
                case .connected: handler(.many)
                case .notification(let notice): handler(ProjectionNotification(payload: notice.payload))
                }
            }
        }

        /// Stops listening and closes the connection.
        package func stop() async {
            await listener.stop()
        }
    }
}
