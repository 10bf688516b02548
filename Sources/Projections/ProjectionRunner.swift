import EventStore
import Foundation
import JSON
import Postgres
import ReadModels
import Synchronization

/// Keeps one projection's read model up to date from the live feed.
///
/// Each batch of events is folded into the in-memory projector, and the changed documents are
/// written together with the checkpoint in one transaction, guarded by the checkpoint that was
/// read (fencing): if another runner or a rebuild moved it, the batch is abandoned and the runner
/// reloads. So every event affects the read model exactly once across crashes and restarts.
/// A projection with a mirror may fold ahead of its table (`Options.snapshotInterval`): the
/// mirror answers this node's readers at once, and the table is written as a snapshot of it, each
/// changed document once, so a live runner costs close to a rebuild when documents change often.
///
/// Of several runners (several `waymark serve` nodes), one owns the projection (`FeedFollower`: a
/// session-level advisory lock); the others stand by and take over when the owner's session ends.
/// The follower supervises, and the runner reads and writes ahead on its own (`follow`).
/// The owner announces each batch's changed documents on `waymark_<name>` (`ProjectionNotification`),
/// so the others can push them to their own clients without waiting for a poll.
package final class ProjectionRunner: Sendable {
    /// Tuning and test hooks.
    package struct Options: Sendable {
        package var batchSize: Int
        package var standbyInterval: Duration
        /// Runs after a batch is written and before it commits (tests simulate crashes here).
        package var beforeCommit: (@Sendable (Connection) throws -> Void)?
        /// Kept equal to the stored documents while this runner owns the projection.
        package var mirror: DocumentMirror?
        /// Changes to these collections are announced with a `ProjectionNotification` in each batch's
        /// transaction (other nodes push them to their clients); empty: nothing is sent.
        package var notifyCollections: Set<String>

        /// How long a runner that keeps up lets events gather before it reads its next batch (zero:
        /// it reads ahead at once). Events that arrive meanwhile share one batch: a vehicle that
        /// reported twice has its documents encoded and written once, and the batch's fixed costs
        /// are paid once. A reader waiting for a position (read-your-writes) cuts the wait short.
        /// For projections no rider watches live; the journey projection keeps zero.
        package var settle: Duration
        /// At most this many records the projector keeps in memory after a batch (nil: all). Those
        /// it lets go are read back from the table before a batch that needs them (`Projector.prepare`).
        package var recordLimit: Int?
        /// How long a runner that is behind may keep folded documents before it writes them (zero:
        /// each page is written as soon as it is folded). Pages folded meanwhile are written
        /// together, each document once, with the checkpoint of the last; the mirror has every page
        /// at once. A reader waiting for a position (read-your-writes) has them written at once.
        package var writeBehind: Duration
        /// At most this many events folded and not written (a runner that is behind).
        package var maximumPendingEvents: Int
        /// For a projection with a mirror: how long a runner that keeps up may keep folded documents
        /// before it writes them (zero: each page is written as soon as it is folded). The mirror,
        /// and through it this node's riders, have every page when it is folded; the table, with
        /// the checkpoint, is a snapshot at most this old. A document changed several times in
        /// that time is written once, which is what makes a live runner cost close to a rebuild
        /// when vehicles report more often than the interval. A reader waiting for a position
        /// (read-your-writes) has what is pending written at once.
        package var snapshotInterval: Duration
        /// At most this many distinct documents, and this many of their bytes, folded and not
        /// written while `snapshotInterval` holds them. A write copies its documents into its
        /// statement, so the bytes bound the write's memory too (in `bench memory` with a 2 s
        /// interval, 8 MiB took the server's peak from 287 to 361 MB, and 2 MiB to 304 MB).
        package var maximumPendingDocuments: Int
        package var maximumPendingBytes: Int

        /// Events per batch unless set.
        package static let defaultBatchSize = 250
        /// A few batches: pending documents and a write's statements are held together, four runners
        /// at once (5,000 took the server past its memory budget in `bench memory`).
        package static let defaultMaximumPendingEvents = 1_000
        /// The fleet's two documents for each of 25,000 vehicles. The bytes of documents the mirror
        /// keeps are shared with it (arrays are copied on write only), so what is held beyond the
        /// mirror is an entry per document and the documents it does not keep (vehicle records).
        package static let defaultMaximumPendingDocuments = 50_000
        package static let defaultMaximumPendingBytes = 16 << 20

        package init(batchSize: Int = Options.defaultBatchSize, standbyInterval: Duration = .seconds(1), beforeCommit: (@Sendable (Connection) throws -> Void)? = nil,
                     mirror: DocumentMirror? = nil, notifyCollections: Set<String> = [], settle: Duration = .zero, recordLimit: Int? = nil,
                     writeBehind: Duration = .zero, maximumPendingEvents: Int = Options.defaultMaximumPendingEvents,
                     snapshotInterval: Duration = .zero, maximumPendingDocuments: Int = Options.defaultMaximumPendingDocuments,
                     maximumPendingBytes: Int = Options.defaultMaximumPendingBytes) {
            self.snapshotInterval = snapshotInterval
            self.maximumPendingBytes = maximumPendingBytes
            self.maximumPendingDocuments = maximumPendingDocuments
            self.recordLimit = recordLimit
            self.writeBehind = writeBehind
            self.maximumPendingEvents = maximumPendingEvents
            self.batchSize = batchSize
            self.standbyInterval = standbyInterval
            self.beforeCommit = beforeCommit
            self.mirror = mirror
            self.notifyCollections = notifyCollections
            self.settle = settle
        }
    }

    /// What the runner is doing, for metrics and readiness.
    ///
    /// Ownership, checkpoint, lag and the last error are its follower's (`FeedFollower.Status`).
    package struct Status: Sendable, Hashable {
        package var isOwner = false
        /// The PostgreSQL backend of the owner's session (its writes and restores), for measuring its CPU.
        package var backendPID: Int32?
        package var checkpoint = FeedPosition.start
        /// The last event folded into the mirror: what this node's readers of the mirror see. Ahead
        /// of `checkpoint` by what is folded and not yet written (`Options.snapshotInterval`); equal
        /// to it for a projection without a mirror, or while this runner does not own the projection.
        package var visible = FeedPosition.start
        package var eventsApplied: Int64 = 0
        /// Seconds from the last applied event's recording to its batch's commit.
        package var lagSeconds: Double = 0
        package var batchesAbandoned = 0
        /// Events the projector could not apply since this runner loaded it (undecodable payloads).
        package var skippedEvents = 0
        package var lastError: String?
        /// Where the time of the committed batches went (since this runner started).
        package var stages = Stages()
        /// Records the projector let go from memory, and records read back from the table for a batch.
        package var recordsLetGo: Int64 = 0
        package var recordsRestored: Int64 = 0
        /// Of those, records read back from documents folded and not yet written (`Options.writeBehind`).
        package var recordsRestoredUnwritten: Int64 = 0
        /// Whether the projector keeps every record in memory although `Options.recordLimit` is set:
        /// a batch read a record that was let go and not read back (a bug), so the runner stopped
        /// letting records go.
        package var recordLimitDisabled = false
        /// The most recent batches whose last event took `SlowBatch.threshold` or more from its
        /// recording to the batch's commit, oldest first (for finding stalls).
        package var slowBatches: [SlowBatch] = []
    }

    /// A batch whose last event took long from its recording to the batch's commit, with its stages.
    package struct SlowBatch: Sendable, Hashable {
        package static let threshold: Int64 = 100_000
        static let kept = 32

        /// Wall-clock microseconds: the recording of the batch's last event, and the batch's commit.
        package let lastRecordedMicros: Int64
        package let committedAtMicros: Int64
        package let events: Int64
        /// Microseconds from the recording to the runner holding the page, then of each stage.
        package let readAgeMicros: Int64
        package let readMicros: Int64
        package let applyMicros: Int64
        package let commitMicros: Int64
        package let publishMicros: Int64

        /// One line: the stages in milliseconds.
        package var summary: String {
            func ms(_ micros: Int64) -> String { String(format: "%.1f", Double(micros) / 1000) }
            return "\(events) events, \(ms(committedAtMicros - lastRecordedMicros)) ms from the last event's recording to the commit: "
                + "age at read \(ms(readAgeMicros)) (of which reading \(ms(readMicros))), apply \(ms(applyMicros)), publish \(ms(publishMicros)), commit \(ms(commitMicros))"
        }
    }

    /// Cumulative time per stage of the committed batches, for finding where propagation time goes.
    ///
    /// A batch's stages follow one another on the runner's task: `read` (waiting for and reading the
    /// next feed page), `apply` (folding its events and draining the changed documents), `publish`
    /// (the mirror and its observer, which pushes to riders), `commit` (writing the documents with
    /// the checkpoint; the next page is read meanwhile). `readAge` sums, per batch, the time from
    /// the recording of its last event (stamped by the committer before its transaction commits)
    /// to the runner holding the page: commit, the gap-safe horizon and the runner being busy with
    /// the previous batch.
    package struct Stages: Sendable, Hashable {
        package var batches: Int64 = 0
        package var events: Int64 = 0
        package var readMicros: Int64 = 0
        package var applyMicros: Int64 = 0
        package var commitMicros: Int64 = 0
        package var publishMicros: Int64 = 0
        package var readAgeMicros: Int64 = 0
        package var maxReadAgeMicros: Int64 = 0
        /// Thread CPU of the runner's own work, microseconds: folding (decode, apply, drain), encoding
        /// the batch's statements, the mirror with its observer, and the Swift side of the write (on the
        /// connection's thread). The PostgreSQL side is its session's backend (`Status.backendPID`).
        package var foldCPUMicros: Int64 = 0
        package var encodeCPUMicros: Int64 = 0
        package var publishCPUMicros: Int64 = 0
        package var writeCPUMicros: Int64 = 0
        /// Documents written or deleted by the committed batches.
        package var documentsWritten: Int64 = 0

        package init() {}

        init(batches: Int64, events: Int64, readMicros: Int64, applyMicros: Int64, commitMicros: Int64, publishMicros: Int64,
             readAgeMicros: Int64, maxReadAgeMicros: Int64) {
            (self.batches, self.events, self.readMicros, self.applyMicros) = (batches, events, readMicros, applyMicros)
            (self.commitMicros, self.publishMicros, self.readAgeMicros, self.maxReadAgeMicros) = (commitMicros, publishMicros, readAgeMicros, maxReadAgeMicros)
        }

        /// The stages of the batches committed between `earlier` and `self`.
        package func since(_ earlier: Stages) -> Stages {
            var delta = Stages(batches: batches - earlier.batches, events: events - earlier.events, readMicros: readMicros - earlier.readMicros,
                               applyMicros: applyMicros - earlier.applyMicros, commitMicros: commitMicros - earlier.commitMicros,
                               publishMicros: publishMicros - earlier.publishMicros, readAgeMicros: readAgeMicros - earlier.readAgeMicros,
                               maxReadAgeMicros: maxReadAgeMicros)
            delta.foldCPUMicros = foldCPUMicros - earlier.foldCPUMicros
            delta.encodeCPUMicros = encodeCPUMicros - earlier.encodeCPUMicros
            delta.publishCPUMicros = publishCPUMicros - earlier.publishCPUMicros
            delta.writeCPUMicros = writeCPUMicros - earlier.writeCPUMicros
            delta.documentsWritten = documentsWritten - earlier.documentsWritten
            return delta
        }

        /// Adds the CPU counters of `other` (a batch's) to these.
        mutating func addCPU(of other: Stages) {
            foldCPUMicros += other.foldCPUMicros
            encodeCPUMicros += other.encodeCPUMicros
            publishCPUMicros += other.publishCPUMicros
            writeCPUMicros += other.writeCPUMicros
            documentsWritten += other.documentsWritten
        }

        /// One line: batches, events per batch, and milliseconds per batch for each stage.
        package var summary: String {
            guard batches > 0 else { return "no batches" }
            func perBatch(_ micros: Int64) -> String { String(format: "%.1f", Double(micros) / Double(batches) / 1000) }
            return "\(batches) batches, \(events / batches) events/batch; ms per batch: read \(perBatch(readMicros)), apply \(perBatch(applyMicros)), "
                + "commit \(perBatch(commitMicros)), publish \(perBatch(publishMicros)); last event's age at read \(perBatch(readAgeMicros)) "
                + "(max \(String(format: "%.1f", Double(maxReadAgeMicros) / 1000)))"
        }
    }

    package let name: String
    private let options: Options
    private let makeProjector: @Sendable () -> any Projector
    /// Ownership of the projection, supervision, the feed reader, and the status fields it names.
    private let follower: FeedFollower
    /// The rest of the status (the follower's fields are filled in by `status`).
    private let state = Mutex(Status())
    /// Notified after every committed batch (read-your-writes waiters park on it).
    private let progress = FeedSignal()
    /// Bumped by readers that wait for a position, and by finished page reads; wakes a settling
    /// runner, or one that waits for its next page with documents pending.
    private let hurry = FeedSignal()
    /// Bumped by readers that wait for a position: what is pending is written at once.
    private let asked = FeedSignal()
    /// The furthest position a reader waiting for the table asked for (see `asked`).
    private let requested = Mutex(FeedPosition.start)

    package init(store: EventStore, conninfo: String, setupStatements: [String] = [], options: Options = Options(),
                 projector: @escaping @Sendable () -> any Projector) {
        self.options = options
        self.makeProjector = projector
        let name = projector().name
        self.name = name
        self.follower = FeedFollower(store: store, conninfo: conninfo, setupStatements: setupStatements,
                                     options: .init(name: name, lockNamespace: Self.lockNamespace, connectionName: "projector-\(name)",
                                                    standbyInterval: options.standbyInterval, retryDelay: .milliseconds(200)))
    }

    package var status: Status {
        let following = follower.status
        var status = state.withLock { $0 }
        status.isOwner = following.isOwner
        status.backendPID = following.backendPID
        status.checkpoint = following.checkpoint
        if !status.isOwner || options.mirror == nil || status.visible < status.checkpoint { status.visible = status.checkpoint }
        status.lagSeconds = following.lagSeconds
        status.lastError = following.lastError
        return status
    }

    /// Starts the loop in the background.
    package func start() {
        let readModels: ReadModelStore
        do { readModels = try ReadModelStore(name: name) } catch {
            follower.failed(error)
            return
        }
        let mirror = options.mirror
        follower.start(stopped: { mirror?.invalidate() }) { owner in try await self.follow(readModels, owner) }
    }

    /// Stops the loop (a batch in flight finishes or rolls back) and closes the connection,
    /// which releases the ownership lock.
    package func stop() async {
        await follower.stop()
    }

    static let lockNamespace: Int32 = 0x574D  // "WM"

    /// A monotonic clock in microseconds, for the stage timings.
    private static func monotonicMicros() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }

    /// The calling thread's CPU time (user and system) in microseconds.
    static func threadCPUMicros() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }

    /// Loads the model and follows the feed until fenced, disconnected or cancelled.
    ///
    /// The next feed page is read in the background while a page is folded and written. Each
    /// page's changes reach the mirror, and so the riders, as soon as it is folded, before its
    /// documents are written; the checkpoint moves with each write's commit. A runner that is
    /// behind (full pages) keeps folding while the documents wait (`PendingWrite`) and writes them
    /// when `Options.writeBehind` has passed since the first of them, when
    /// `Options.maximumPendingEvents` are folded, when it caught up, or when a reader waits for a
    /// position. With a mirror and `Options.snapshotInterval`, a runner that keeps up holds them
    /// the same way, for up to the interval or `Options.maximumPendingDocuments` documents: the
    /// mirror is then ahead of the table (`Status.visible`). Writes stay one at a time and in order, and the runner folds the next page while
    /// one commits; before it waits for more events, and before it reads records back from the
    /// table, the last write must have committed, so a failed write (fenced, disconnected) reloads
    /// at once and nothing after it is written.
    private func follow(_ readModels: ReadModelStore, _ owner: FeedFollower.Owner) async throws {
        let loaded = try await owner.withConnection { connection in try readModels.load(connection) }
        var (checkpoint, documents) = loaded
        var projector = makeProjector()
        projector.load(documents)
        options.mirror?.reset(documents)
        documents = []
        if !state.withLock({ $0.recordLimitDisabled }) {
            projector.recordLimit = options.recordLimit
            let released = projector.letGo()
            state.withLock { $0.recordsLetGo += Int64(released) }
        }
        state.withLock {
            $0.eventsApplied = checkpoint.eventsApplied
            $0.visible = checkpoint.position
        }
        follower.loaded(checkpoint.position)
        // With a mirror and a snapshot interval, a runner that keeps up holds what it folded for up
        // to the interval (`Options.snapshotInterval`); otherwise only one that is behind holds.
        let holds = options.mirror != nil && options.snapshotInterval > .zero
        let window = holds ? max(options.writeBehind, options.snapshotInterval) : options.writeBehind
        // The next page is read ahead while a page folds and writes, except when the runner settles
        // (`Options.settle`): it then holds the reader and reads only after the wait. `reads` counts
        // the pages read, so the runner can tell whether the one it waits for is in.
        let reads = FeedSignal()
        var readsBefore = reads.generation
        var next: Task<(FeedReader, [RecordedEvent]?), any Error>? =
            read(owner.reader(after: checkpoint.position, batchSize: options.batchSize), counting: reads)
        var settling: (reader: FeedReader, since: ContinuousClock.Instant, hurried: UInt64)?
        var committing: Task<Void, any Error>?
        var pending = PendingWrite()
        // Whether a reader waits for an event that is folded and not written (or being written):
        // asks for positions the last write covers are not a reason to write again.
        func wanted() -> Bool { requested.withLock { $0 } > checkpoint.position }

        /// Writes what is pending with the checkpoint, after the write before it committed.
        func write() async throws {
            try await committing?.value
            committing = nil
            guard let last = pending.last else { return }
            let from = checkpoint
            checkpoint = ReadModelStore.Checkpoint(position: last.feedPosition, eventsApplied: from.eventsApplied + Int64(pending.events),
                                                   generation: from.generation)
            let written = checkpoint
            var stages = pending.stages
            stages.batches = 1
            stages.documentsWritten = Int64(pending.changes.count)
            let cpu = Self.threadCPUMicros()
            let statements = readModels.batchStatements(pending.changes, from: from, to: last.feedPosition, events: pending.events)
            let notification = notification(pending.changes)
            stages.encodeCPUMicros += Self.threadCPUMicros() - cpu
            let skipped = projector.skippedEvents
            let lastRecorded = last.recordedAtMicros
            pending = PendingWrite()
            let started = Self.monotonicMicros()
            committing = Task { [stages] in
                var stages = stages
                stages.writeCPUMicros = try await self.commit(statements, notification: notification, owner: owner)
                self.published(written, lastRecorded: lastRecorded, skipped: skipped, stages: stages,
                               commitMicros: Self.monotonicMicros() - started, publishMicros: stages.publishMicros)
            }
        }

        do {
            while !Task.isCancelled {
                if let held = settling {
                    // Caught up, and the last page is being written: it must commit before the wait.
                    try await committing?.value
                    committing = nil
                    let remaining = options.settle - (ContinuousClock.now - held.since)
                    if remaining > .zero { await hurry.wait(after: held.hurried, timeout: remaining) }
                    readsBefore = reads.generation
                    next = read(held.reader, counting: reads)
                    settling = nil
                }
                let waitStarted = Self.monotonicMicros()
                guard let reading = next else { break }
                if reads.generation == readsBefore {
                    // The next page is not in yet. What is pending waits for it until it is due.
                    while reads.generation == readsBefore, !pending.isEmpty, let since = pending.since, !Task.isCancelled {
                        let seenAsk = asked.generation
                        if wanted() || ContinuousClock.now >= since + window {
                            try await write()
                            break
                        }
                        await waitForPage(reads, after: readsBefore, asked: seenAsk, until: since + window)
                    }
                    // Caught up: the last write must have committed before the runner waits for events.
                    if reads.generation == readsBefore {
                        try await committing?.value
                        committing = nil
                    }
                }
                let (reader, fetched) = try await withTaskCancellationHandler { try await reading.value } onCancel: { reading.cancel() }
                guard let batch = fetched, let last = batch.last else { break }
                let caughtUp = batch.count < options.batchSize
                if options.settle > .zero, caughtUp {
                    // Caught up: let the next events gather (a full batch means the runner is behind).
                    settling = (reader, ContinuousClock.now, hurry.generation)
                    next = nil
                } else {
                    readsBefore = reads.generation
                    next = read(reader, counting: reads)
                }
                let readAt = Self.monotonicMicros()
                let readAge = max(0, MonotonicMicros.wallClock() - last.recordedAtMicros)
                var cpu = Self.threadCPUMicros()
                let needed = projector.prepare(batch)
                var foldCPU = Self.threadCPUMicros() - cpu
                if !needed.isEmpty {
                    // Records let go are read back from what is pending, else from the table, once it
                    // holds every write before.
                    try await committing?.value
                    committing = nil
                    let (unwritten, rest) = pending.split(needed)
                    let found = rest.isEmpty ? [] : try await owner.withConnection { connection in try readModels.readDocuments(rest, connection) }
                    projector.restore(needed, found: unwritten + found)
                    state.withLock {
                        $0.recordsRestored += Int64(unwritten.count + found.count)
                        $0.recordsRestoredUnwritten += Int64(unwritten.count)
                    }
                }
                cpu = Self.threadCPUMicros()
                projector.apply(batch: batch)
                let unrestored = projector.takeUnrestoredReads()
                guard unrestored.isEmpty else {
                    // Nothing of this batch is written; the runner reloads and keeps every record from now on.
                    state.withLock { $0.recordLimitDisabled = true }
                    throw ProjectionError(.recordNotRestored, "a batch read records that were let go from memory and not read back "
                        + "(\(unrestored.prefix(3).joined(separator: ", "))); the batch was not written, and \(name) keeps every record in memory from now on")
                }
                let changes = projector.drainChanges()
                let released = projector.letGo()
                if released > 0 { state.withLock { $0.recordsLetGo += Int64(released) } }
                foldCPU += Self.threadCPUMicros() - cpu
                cpu = Self.threadCPUMicros()
                // Each changed document is encoded once, as the table stores it: for the write and for the mirror.
                let canonical = changes.map(\.canonicalBytes)
                let encodeCPU = Self.threadCPUMicros() - cpu
                let appliedAt = Self.monotonicMicros()
                cpu = Self.threadCPUMicros()
                // The mirror, and through it the riders' streams, get the page before it is written:
                // every event in it is durable already, and folding the same events from the
                // stored checkpoint gives the same documents and versions, whether this runner
                // retries after a failed write or another node takes over. Riders see a change
                // without waiting for its document write; the checkpoint moves only after the commit.
                if let mirror = options.mirror {
                    mirror.apply(changes, canonical: canonical)
                    state.withLock { $0.visible = last.feedPosition }
                    progress.notify()  // waiters for what is visible
                }
                let publishCPU = Self.threadCPUMicros() - cpu
                cpu = Self.threadCPUMicros()
                pending.add(changes, canonical: canonical, events: batch.count, through: last)
                pending.stages.encodeCPUMicros += encodeCPU + Self.threadCPUMicros() - cpu
                pending.stages.events += Int64(batch.count)
                pending.stages.readMicros += readAt - waitStarted
                pending.stages.applyMicros += appliedAt - readAt
                pending.stages.publishMicros += Self.monotonicMicros() - appliedAt
                pending.stages.readAgeMicros = readAge
                pending.stages.maxReadAgeMicros = readAge
                pending.stages.foldCPUMicros += foldCPU
                pending.stages.publishCPUMicros += publishCPU
                let full = holds ? pending.changes.count >= options.maximumPendingDocuments || pending.bytes >= options.maximumPendingBytes
                    : caughtUp || pending.events >= options.maximumPendingEvents
                if full || wanted() || ContinuousClock.now - (pending.since ?? .now) >= window {
                    try await write()
                }
            }
            // Cancelled: what is folded is written, and the write finishes (or rolls back) before
            // the connection closes.
            next?.cancel()
            try await write()
            try await committing?.value
        } catch {
            next?.cancel()
            _ = try? await committing?.value
            throw error
        }
    }

    /// Waits until a page read after `generation` is in, a reader asked for a position, or `due`.
    private func waitForPage(_ reads: FeedSignal, after generation: UInt64, asked askedBefore: UInt64, until due: ContinuousClock.Instant) async {
        while !Task.isCancelled {
            let seen = hurry.generation
            guard reads.generation == generation, asked.generation == askedBefore else { return }
            let remaining = due - ContinuousClock.now
            guard remaining > .zero else { return }
            await hurry.wait(after: seen, timeout: remaining)
        }
    }

    /// The next feed page, read in the background; nil when cancelled. Counts on `reads`, and wakes
    /// the runner if it waits (`hurry`), when done.
    private func read(_ reader: FeedReader, counting reads: FeedSignal) -> Task<(FeedReader, [RecordedEvent]?), any Error> {
        let hurry = self.hurry
        return Task {
            defer {
                reads.notify()
                hurry.notify()
            }
            var reader = reader
            let batch = try await reader.nextBatch()
            return (reader, batch)
        }
    }

    /// The notification of a batch's changes, sent right after its commit (a listener that re-reads on it sees the batch).
    private func notification(_ changes: [DocumentChange]) -> [Statement] {
        ProjectionNotification.payload(changes, collections: options.notifyCollections)
            .map { [ProjectionNotification.statement(projection: name, payload: $0)] } ?? []
    }

    /// Writes one batch's statements and the checkpoint in one transaction, on the session that holds
    /// the ownership lock, and sends `notification` after the commit in the same round trip; on
    /// failure rolls back, invalidates the mirror and rethrows.
    ///
    /// The notification is a hint with a transaction of its own: inside the batch's, it would take
    /// PostgreSQL's global notify lock for the whole commit, and every other notifying commit (the
    /// event store's among them) would wait for it (see `CommitterWorker.notification`). Its
    /// failure is ignored: the batch is committed by then, and listeners also poll.
    /// Returns the thread CPU the write took on this side (microseconds).
    private func commit(_ statements: [Statement], notification: [Statement], owner: FeedFollower.Owner) async throws -> Int64 {
        let beforeCommit = options.beforeCommit
        do {
            // The session that holds the lock must be the one that writes.
            return try await owner.withSession(orThrow: { ProjectionError(.fenced, "the projector's session changed; ownership must be taken again") }) { connection in
                let cpu = Self.threadCPUMicros()
                // A read model is derived data: its commit need not wait for the WAL flush. A
                // crash can lose only the latest batches, documents and checkpoint together,
                // and they are applied again from the (durable) log.
                let begin = [Statement("BEGIN"), Statement("SET LOCAL synchronous_commit = off")]
                if let beforeCommit {
                    _ = try connection.pipeline(begin + statements)
                    try beforeCommit(connection)
                    _ = try connection.pipeline([Statement("COMMIT")], hints: notification)
                } else {
                    _ = try connection.pipeline(begin + statements + [Statement("COMMIT")], hints: notification)
                }
                return Self.threadCPUMicros() - cpu
            }
        } catch {
            options.mirror?.invalidate()
            _ = try? await owner.withConnection { connection in
                if connection.isHealthy && connection.inTransaction { try connection.execute("ROLLBACK") }
            }
            state.withLock { $0.batchesAbandoned += 1 }
            follower.failed(error)
            throw error  // the runner reloads from what is stored
        }
    }

    /// Publishes a committed batch: checkpoint, lag, stage timings; wakes read-your-writes waiters.
    private func published(_ checkpoint: ReadModelStore.Checkpoint, lastRecorded: Int64, skipped: Int, stages: Stages,
                           commitMicros: Int64, publishMicros: Int64) {
        let now = MonotonicMicros.wallClock()
        let lag = Double(now - lastRecorded) / 1_000_000
        let slow = now - lastRecorded < SlowBatch.threshold ? nil
            : SlowBatch(lastRecordedMicros: lastRecorded, committedAtMicros: now, events: stages.events, readAgeMicros: stages.readAgeMicros,
                        readMicros: stages.readMicros, applyMicros: stages.applyMicros, commitMicros: commitMicros, publishMicros: publishMicros)
        state.withLock {
            if let slow {
                $0.slowBatches.append(slow)
                if $0.slowBatches.count > SlowBatch.kept { $0.slowBatches.removeFirst($0.slowBatches.count - SlowBatch.kept) }
            }
            $0.eventsApplied = checkpoint.eventsApplied
            $0.skippedEvents = skipped
            $0.stages.batches += stages.batches
            $0.stages.events += stages.events
            $0.stages.readMicros += stages.readMicros
            $0.stages.applyMicros += stages.applyMicros
            $0.stages.commitMicros += commitMicros
            $0.stages.publishMicros += publishMicros
            $0.stages.readAgeMicros += stages.readAgeMicros
            $0.stages.maxReadAgeMicros = max($0.stages.maxReadAgeMicros, stages.maxReadAgeMicros)
            $0.stages.addCPU(of: stages)
        }
        follower.committed(checkpoint.position, lagSeconds: max(0, lag))
        progress.notify()
    }

    /// Waits until the runner has applied everything up to `position` (read-your-writes), or `timeout` passes.
    ///
    /// Wakes on each committed batch rather than polling, so the wait ends as soon as the batch
    /// holding `position` commits. Only meaningful while this runner owns the projection.
    /// - Parameter written: whether `position` must be in the table (a reader of the table, or one
    ///   that waits for its own write: what is pending is written at once). False: in the mirror
    ///   is enough (`Status.visible`), and nothing is hurried (ingest pacing, which bounds how far
    ///   riders' maps fall behind), when the runner holds snapshots (`Options.snapshotInterval`);
    ///   a runner that writes every page is waited for as with true.
    package func waitUntilApplied(_ position: FeedPosition, timeout: Duration = .seconds(10), written: Bool = true) async -> Bool {
        let written = written || options.mirror == nil || options.snapshotInterval == .zero
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = progress.generation
            if written ? follower.status.checkpoint >= position : status.visible >= position { return true }
            let now = ContinuousClock.now
            guard now < deadline else { return false }
            if written {
                requested.withLock { $0 = max($0, position) }
                asked.notify()  // pending documents are written now
                hurry.notify()  // a settling runner reads now
            }
            await progress.wait(after: seen, timeout: min(deadline - now, .milliseconds(250)))
        }
    }
}
