import EventStore
import Foundation
import Journey
import Postgres
import Signing
import WaymarkCLI

/// `waymark verify`, `export`, `import` and `archive`: tamper evidence and the round trip of the
/// event log through a file.
///
/// None of them migrates or starts a database (`Database.existing`, `requireCurrentSchema`): they
/// refuse one that is missing or not at this binary's schema version. `verify` and `export` run
/// read-only sessions, so a login with SELECT alone will do.
enum AuditCommands {
    static let verifySpec = CommandSpec(
        name: "verify", synopsis: "[--stream S] [--since T] [--page-size N] | verify --file FILE",
        summary: """
            Recomputes every stream's hash chain, and every signed root when WAYMARK_AUDIT_KEY is set;
            prints one line per broken stream or root and exits 1 on any break, else `verify OK: ...`.
            With --file it verifies an export or archive file on its own, without a database.
            """ + readOnlyNote,
        flags: [
            .value("stream", "S", "check this stream only"),
            .value("since", "T", "check events recorded at or after T (RFC 3339), each stream from the stored hash before"),
            .value("page-size", "N", "rows per keyset page (5000)"),
            .value("file", "FILE", "verify this export or archive file instead of the database"),
        ] + CommandSpec.Flag.database)

    static let exportSpec = CommandSpec(
        name: "export", synopsis: "--provider P [--since T] [--until T] [--stream S] [--format ndjson|csv]",
        summary: """
            Writes the provider's events to stdout in feed order (COPY), one NDJSON line or CSV row per
            event; progress on stderr.
            """ + readOnlyNote,
        flags: [
            .value("provider", "P", "whose events (required)"),
            .value("since", "T", "events recorded at or after T (RFC 3339)"),
            .value("until", "T", "events recorded before T (RFC 3339)"),
            .value("stream", "S", "this stream only"),
            .value("format", "F", "ndjson or csv (ndjson)"),
        ] + CommandSpec.Flag.database)

    static let importSpec = CommandSpec(
        name: "import", synopsis: "FILE",
        summary: """
            Loads an NDJSON export into an empty database in one transaction, keeping positions, versions,
            ids, recorded times and hashes, and verifies every chain before committing. It never
            migrates: run `waymark migrate` against the empty database first.
            """ + existingNote,
        flags: CommandSpec.Flag.database,
        operands: 1)

    static let archiveSpec = CommandSpec(
        name: "archive", synopsis: "--before T --to FILE",
        summary: """
            Moves the vehicle events of every whole day before T (never today's) to FILE: exported,
            verified, anchored in audit_anchors, then the daily partitions are dropped. Nothing is dropped
            unless the file verifies. It never migrates: the database must be at this waymark's schema
            version, and the login must own the event tables (to drop partitions).
            """ + existingNote,
        flags: [
            .value("before", "T", "archive days that end at or before T (RFC 3339; required)"),
            .value("to", "FILE", "the archive file to write (required; must not exist)"),
        ] + CommandSpec.Flag.database)

    /// What the help of the reading commands says about the database they need.
    static let readOnlyNote = """

        It only reads (a login with SELECT on the schema will do) and never migrates: the database
        must be at this waymark's schema version.
        """ + existingNote

    /// What the help of every audit command says about finding the database.
    static let existingNote = """

        Without DATABASE_URL it uses the embedded cluster under --data-dir only when that is running
        (`waymark db start`); it never creates or starts one.
        """

    /// `verify [--stream S] [--since T]`: recomputes every hash chain and, when
    /// `WAYMARK_AUDIT_KEY` is set, every signed root; one line per broken stream or root on
    /// stdout and exit status 1 on any break, else a summary and exit status 0.
    static func verify(_ arguments: [String], environment: [String: String]) async throws {
        let flags = try Flags(arguments, for: verifySpec)
        if let file = flags.value("file") { return try verifyFile(file) }
        let settings = try Settings.load(environment, flags: flags)
        let logger = Logger(label: "waymark.verify", minimum: settings.logLevel)
        var verifier = ChainVerifier(stream: flags.value("stream"), sinceMicros: try time(flags, "since"))
        verifier.pageSize = try flags.int("page-size", default: verifier.pageSize)
        let key = auditKey(environment)
        let database = try Database.existing(settings, command: "verify")
        let progress = EventProgress(label: "verify", logger: logger)
        let chainVerifier = verifier
        let started = ContinuousClock.now
        let (chains, roots) = try await onConnection(database.url, readOnly: true) { connection -> (ChainVerification, AuditRoots.RootVerification?) in
            try Database.requireCurrentSchema(on: connection, command: "verify")
            let chains = try chainVerifier.run(on: connection) { progress.update($0) }
            progress.finish(chains.events)
            let roots = try key.map { key in try AuditRoots.verify(on: connection, key: key) }
            return (chains, roots)
        }
        let seconds = max((ContinuousClock.now - started).seconds, 0.000_001)
        for broken in chains.breaks { printOut(broken.description) }
        for broken in roots?.breaks ?? [] { printOut(broken.description) }
        let rootSummary = roots.map { roots in
            "\(roots.roots - roots.archived) signed roots checked" + (roots.archived > 0 ? ", \(roots.archived) not rechecked (they cover archived vehicle events)" : "")
        } ?? "signed roots not checked (WAYMARK_AUDIT_KEY is not set)"
        let summary = "\(chains.streams) streams, \(chains.events) events in \(String(format: "%.2f", seconds)) s "
            + "(\(Int((Double(chains.events) / seconds).rounded())) events/s); \(rootSummary)"
        let broken = chains.breaks.count + (roots?.breaks.count ?? 0)
        if broken > 0 {
            printOut("verify FAILED: \(chains.breaks.count) broken streams, \(roots?.breaks.count ?? 0) broken roots; \(summary)")
            exit(1)
        }
        printOut("verify OK: \(summary)")
    }

    /// `export --provider P [--since T] [--until T] [--stream S] [--format ndjson|csv]`: the
    /// provider's events to stdout in feed order, with progress on stderr (`EventProgress`).
    static func export(_ arguments: [String], environment: [String: String]) async throws {
        let flags = try Flags(arguments, for: exportSpec)
        let settings = try Settings.load(environment, flags: flags)
        let logger = Logger(label: "waymark.export", minimum: settings.logLevel)
        guard let provider = flags.value("provider"), !provider.isEmpty else { throw UsageError("export needs --provider P") }
        let formatText = flags.value("format") ?? "ndjson"
        guard let format = EventExport.Format(rawValue: formatText) else {
            throw UsageError("--format must be ndjson or csv, got \(formatText.debugDescription)")
        }
        var export = EventExport(format: format)
        export.provider = provider
        export.stream = flags.value("stream")
        export.sinceMicros = try time(flags, "since")
        export.untilMicros = try time(flags, "until")
        let database = try Database.existing(settings, command: "export")
        let progress = EventProgress(label: "export", logger: logger)
        let exporter = export
        let count = try await onConnection(database.url, readOnly: true) { connection in
            try Database.requireCurrentSchema(on: connection, command: "export")
            return try exporter.run(on: connection, write: writeOut) { progress.update($0) }
        }
        progress.finish(count)
    }

    /// `import FILE`: loads an NDJSON export into an empty database and verifies it. The database must
    /// be migrated already (`waymark migrate`), since import needs the schema but never changes it.
    static func importFile(_ arguments: [String], environment: [String: String]) async throws {
        let flags = try Flags(arguments, for: importSpec)
        let settings = try Settings.load(environment, flags: flags)
        let logger = Logger(label: "waymark.import", minimum: settings.logLevel)
        guard flags.positional.count == 1, let path = flags.positional.first else { throw UsageError("import needs exactly one FILE (an NDJSON export), loaded into an empty database that `waymark migrate` has prepared") }
        guard let file = FileHandle(forReadingAtPath: path) else { throw UsageError("cannot open \(path.debugDescription) for reading") }
        let reader = ChunkReader(file: file)
        let database = try Database.existing(settings, command: "import")
        let progress = EventProgress(label: "import", logger: logger)
        let started = ContinuousClock.now
        let report = try await onConnection(database.url) { connection in
            try Database.requireCurrentSchema(on: connection, command: "import")
            return try EventImport().run(on: connection, read: { try reader.next() }) { progress.update($0) }
        }
        progress.finish(report.events)
        let seconds = max((ContinuousClock.now - started).seconds, 0.000_001)
        printOut("imported \(report.events) events in \(report.streams) streams in \(String(format: "%.2f", seconds)) s; every chain verified")
    }

    /// `verify --file F`: an export or archive file on its own, without the database.
    static func verifyFile(_ path: String) throws {
        guard let file = FileHandle(forReadingAtPath: path) else { throw UsageError("cannot open \(path.debugDescription) for reading") }
        let reader = ChunkReader(file: file)
        let started = ContinuousClock.now
        let report = try ExportFileVerifier().run(read: { try reader.next() })
        let seconds = max((ContinuousClock.now - started).seconds, 0.000_001)
        for broken in report.breaks { printOut(broken.description) }
        let summary = "\(report.heads.count) streams, \(report.events) events in \(String(format: "%.2f", seconds)) s; "
            + "\(report.continued) streams continue an earlier archive (checked from their first event in the file)"
        if !report.breaks.isEmpty {
            printOut("verify FAILED: \(report.breaks.count) broken streams; \(summary)")
            exit(1)
        }
        printOut("verify OK: \(summary)")
    }

    /// `archive --before T --to FILE`: exports the vehicle events of every whole daily partition
    /// before T (and before today), verifies the file, records each stream's anchor and drops the partitions.
    static func archive(_ arguments: [String], environment: [String: String]) async throws {
        let flags = try Flags(arguments, for: archiveSpec)
        let settings = try Settings.load(environment, flags: flags)
        let logger = Logger(label: "waymark.archive", minimum: settings.logLevel)
        guard let cutoff = try time(flags, "before") else { throw UsageError("archive needs --before T (RFC 3339)") }
        guard let path = flags.value("to"), !path.isEmpty else { throw UsageError("archive needs --to FILE") }
        guard !FileManager.default.fileExists(atPath: path) else { throw UsageError("\(path.debugDescription) exists; archive never overwrites a file") }
        let database = try Database.existing(settings, command: "archive")
        let now = Timestamp(Date()).microsecondsSinceEpoch
        let partitions = try await onConnection(database.url) { connection in
            try Database.requireCurrentSchema(on: connection, command: "archive")
            return try VehicleArchive.partitions(before: cutoff, nowMicros: now, on: connection)
        }
        guard let end = partitions.last?.endMicros else {
            printOut("nothing to archive: no whole day of vehicle events before \(Timestamp(microsecondsSinceEpoch: cutoff).rfc3339) (today's partition is never archived)")
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: nil), let output = FileHandle(forWritingAtPath: path) else {
            throw UsageError("cannot create \(path.debugDescription)")
        }
        var export = EventExport(format: .ndjson)
        export.category = "vehicle"
        export.untilMicros = end
        let exporter = export
        let progress = EventProgress(label: "archive", logger: logger)
        let written = try await onConnection(database.url) { connection in
            try exporter.run(on: connection, write: { output.write(Data($0)) }) { progress.update($0) }
        }
        progress.finish(written)
        try output.synchronize()
        try output.close()
        logger.info("wrote \(written) vehicle events from \(partitions.count) daily partitions to \(path)")
        // Verify the file as written, continuing each stream from its anchor of an earlier archive.
        guard let input = FileHandle(forReadingAtPath: path) else { throw UsageError("cannot reopen \(path.debugDescription)") }
        let reader = ChunkReader(file: input)
        let url = database.url
        let report = try await onConnection(url) { connection in
            var verifier = ExportFileVerifier()
            verifier.anchor = { stream in
                try connection.query("SELECT stream_version, hash FROM audit_anchors WHERE stream_id = $1", [stream]).first.map { (try $0.int64(0), try $0.bytes(1)) }
            }
            return try verifier.run(read: { try reader.next() })
        }
        guard report.breaks.isEmpty, report.continued == 0, report.events == written else {
            for broken in report.breaks { printOut(broken.description) }
            printOut("archive FAILED: the file did not verify (\(report.breaks.count) broken streams, \(report.continued) without an anchor); nothing was dropped")
            exit(1)
        }
        try await onConnection(url) { connection in
            try VehicleArchive.commit(partitions, cutoffMicros: end, file: path, report: report, on: connection)
        }
        printOut("archived \(report.events) vehicle events of \(report.heads.count) streams recorded before \(Timestamp(microsecondsSinceEpoch: end).rfc3339) to \(path); "
                 + "dropped \(partitions.map(\.name).joined(separator: ", "))")
    }

    // MARK: - Pieces

    /// `WAYMARK_AUDIT_KEY` as bytes; nil when unset or empty.
    static func auditKey(_ environment: [String: String]) -> [UInt8]? {
        guard let key = environment["WAYMARK_AUDIT_KEY"], !key.isEmpty else { return nil }
        return Array(key.utf8)
    }

    /// An RFC 3339 flag as microseconds since the Unix epoch.
    static func time(_ flags: Flags, _ name: String) throws -> Int64? {
        guard let text = flags.value(name) else { return nil }
        guard let time = Timestamp(rfc3339: text) else {
            throw UsageError("--\(name) must be an RFC 3339 time such as 2026-03-01T08:00:00Z, got \(text.debugDescription)")
        }
        return time.microsecondsSinceEpoch
    }

    /// Runs `body` with a fresh connection on a thread of its own (libpq blocks).
    ///
    /// `readOnly`: every transaction of the session is read-only, so a command that should only
    /// read cannot write even when its login could.
    static func onConnection<T: Sendable>(_ url: String, readOnly: Bool = false, _ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let setup = readOnly ? ["SET default_transaction_read_only = on"] : []
        let pool = ConnectionPool(.init(conninfo: url, size: 1, setupStatements: setup, name: "audit"))
        do {
            let value = try await pool.withConnection(body)
            await pool.shutdown()
            return value
        } catch {
            await pool.shutdown()
            throw error
        }
    }

    /// Writes all of `bytes` to standard output.
    @Sendable static func writeOut(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw UsageError("writing to standard output failed (errno \(errno))")
            }
            offset += written
        }
    }
}

/// Reads a file in 1 MiB chunks.
final class ChunkReader: @unchecked Sendable {
    // @unchecked: used by one thread at a time (the import's connection thread).
    private let file: FileHandle
    init(file: FileHandle) { self.file = file }
    func next() throws -> [UInt8] {
        guard let data = try file.read(upToCount: 1 << 20) else { return [] }
        return [UInt8](data)
    }
}

/// Progress of a command that moves many events: a line rewritten in place on stderr when it is a
/// terminal; otherwise (a service, a pipe) a log line at most every `logInterval` seconds. Either
/// way one line at the end with the total.
final class EventProgress: @unchecked Sendable {
    // @unchecked: updated from one thread at a time (the command's connection thread).
    private let label: String
    private let logger: Logger
    private let terminal: Bool
    private let logInterval: TimeInterval
    private let started = Date()
    private var lastPrint = Date()

    init(label: String, logger: Logger, terminal: Bool = isatty(STDERR_FILENO) == 1, logInterval: TimeInterval = 5) {
        self.label = label
        self.logger = logger
        self.terminal = terminal
        self.logInterval = logInterval
    }

    func update(_ count: Int) {
        let now = Date()
        guard now.timeIntervalSince(lastPrint) >= (terminal ? 0.2 : logInterval) else { return }
        lastPrint = now
        let line = String(format: "%@: %d events so far, %.0f events/s", label, count, Double(count) / max(now.timeIntervalSince(started), 0.001))
        if terminal {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
        } else {
            logger.info(line)
        }
    }

    /// The total: replaces the terminal line, or is logged.
    func finish(_ count: Int) {
        let seconds = max(Date().timeIntervalSince(started), 0.001)
        let line = String(format: "%@: %d events in %.2f s (%.0f events/s)", label, count, seconds, Double(count) / seconds)
        if terminal {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(line)\n".utf8))
        } else {
            logger.info(line)
        }
    }
}
