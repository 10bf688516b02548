import EventStore
import Projections

/// How `waymark serve` runs its projections.
package struct ProjectionSettings {
    /// `WAYMARK_PROJECTION_SETTLE_MS`: how long the fleet, route-audit and driver-feed runners,
    /// once caught up, let events gather before their next batch (default 200; 0 reads at once).
    /// The journey views riders watch never wait; readers that wait for a write cut it short.
    package var backgroundSettle: Duration
    /// `WAYMARK_FEED_CACHE_EVENTS`: how many of the latest feed events read are kept for the node's
    /// other feed readers (the projection runners, arrivals, webhooks; default 4096, 0 for none).
    package var feedCacheEvents: Int
    /// `WAYMARK_PROJECTION_RECORDS`: how many records each projection keeps in memory after a
    /// batch (default 10,000). Beyond that the fleet, journey and driver-feed projections let go of
    /// the least recently changed vehicles that no trip is linked to, and read them back from their
    /// stored documents when an event needs them.
    package var recordLimit: Int
    /// `WAYMARK_PROJECTION_BATCH`: at most this many events each projection folds and writes in one
    /// transaction (default 250). Larger batches amortize each transaction's fixed costs while a
    /// runner catches up; each batch's statements and decoded events are held until it commits.
    package var batchSize: Int
    /// `WAYMARK_PROJECTION_WRITE_BEHIND_MS`: how long a runner that is behind keeps folded documents
    /// before it writes them (default 0: every batch is written as soon as it is folded). Documents
    /// changed in that time are written once; the mirror and riders get every batch at once. Off by
    /// default: with 250 ms the server's peak in `bench memory` went from 285.8 to 307.5 MB, and
    /// with a fleet whose vehicles report less often than that, few documents repeat in a window.
    package var writeBehind: Duration = .milliseconds(ProjectionSettings.defaultWriteBehindMilliseconds)

    /// `WAYMARK_PROJECTION_SNAPSHOT_MS`: how long the journey and fleet runners, which keep their
    /// documents in memory (the mirrors riders and vehicle reads are answered from), may hold folded
    /// documents before they write them to the table, while they keep up (default 0: every batch is
    /// written as soon as it is folded). This node's riders see each change when it is folded; the
    /// table, which other nodes, read replicas and list queries read, is a snapshot at most this old.
    /// A document changed several times meanwhile is written once. Readers that wait for a write
    /// (read-your-writes) have it written at once. Off by default: what is held costs memory the
    /// server's 300 MB budget in `bench memory` does not have.
    package var snapshotInterval: Duration = .milliseconds(ProjectionSettings.defaultSnapshotMilliseconds)
    /// `WAYMARK_PROJECTION_SNAPSHOT_MB`: at most this many MiB of documents each of those runners
    /// holds (default 16); at the bound it writes them.
    package var snapshotBytes: Int = ProjectionRunner.Options.defaultMaximumPendingBytes

    package static let defaultWriteBehindMilliseconds = 0
    package static let defaultSnapshotMilliseconds = 0

    /// The default of `WAYMARK_PROJECTION_RECORDS`: like the command side's cache, a fleet's live
    /// vehicles, not every vehicle ever registered.
    package static let defaultRecordLimit = 10_000

    package static func load(_ environment: [String: String]) throws -> ProjectionSettings {
        let milliseconds = try wholeSetting(environment, "WAYMARK_PROJECTION_SETTLE_MS", 0...10_000, default: 200, of: "milliseconds")
        let events = try wholeSetting(environment, "WAYMARK_FEED_CACHE_EVENTS", 0...1_000_000, default: 4096, of: "events")
        let records = try wholeSetting(environment, "WAYMARK_PROJECTION_RECORDS", 0...100_000_000, default: defaultRecordLimit, of: "records")
        let batch = try wholeSetting(environment, "WAYMARK_PROJECTION_BATCH", 1...100_000, default: ProjectionRunner.Options.defaultBatchSize, of: "events")
        let behind = try wholeSetting(environment, "WAYMARK_PROJECTION_WRITE_BEHIND_MS", 0...10_000, default: defaultWriteBehindMilliseconds, of: "milliseconds")
        let snapshot = try wholeSetting(environment, "WAYMARK_PROJECTION_SNAPSHOT_MS", 0...60_000, default: defaultSnapshotMilliseconds, of: "milliseconds")
        let snapshotMiB = try wholeSetting(environment, "WAYMARK_PROJECTION_SNAPSHOT_MB", 1...4096,
                                           default: ProjectionRunner.Options.defaultMaximumPendingBytes >> 20, of: "MiB")
        return ProjectionSettings(backgroundSettle: .milliseconds(milliseconds), feedCacheEvents: events, recordLimit: records, batchSize: batch,
                                  writeBehind: .milliseconds(behind), snapshotInterval: .milliseconds(snapshot), snapshotBytes: snapshotMiB << 20)
    }

    /// The settle of the projection called `name`.
    package func settle(_ name: String) -> Duration {
        ProjectionCatalog.settle(name, background: backgroundSettle)
    }

    /// How many Trip and Vehicle resources the fleet mirror holds: one of each per live vehicle, as
    /// many as the projections keep records for.
    package var fleetMirrorLimit: Int { 2 * recordLimit }

    /// The runners of every projection, as `serve` runs them, with the mirrors given by projection name.
    package func runners(store: EventStore, conninfo: String, setupStatements: [String] = [], mirrors: [String: DocumentMirror],
                 notifyCollections: (String) -> Set<String> = { _ in [] }) -> [ProjectionRunner] {
        ProjectionCatalog.all.map { entry in
            ProjectionRunner(store: store, conninfo: conninfo, setupStatements: setupStatements,
                             options: .init(batchSize: batchSize, mirror: mirrors[entry.name], notifyCollections: notifyCollections(entry.name),
                                            settle: settle(entry.name), recordLimit: recordLimit, writeBehind: writeBehind,
                                            snapshotInterval: mirrors[entry.name] == nil ? .zero : snapshotInterval, maximumPendingBytes: snapshotBytes),
                             projector: entry.make)
        }
    }
}
