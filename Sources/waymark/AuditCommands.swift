import EventStore
import Foundation
import Journey
import Postgres
import Signing

/// `waymark verify`, `waymark export` and `waymark import`: tamper evidence and the round trip
/// of the event log through a file.
enum AuditCommands {
    static let verifySpec = CommandSpec(
        name: "verify", synopsis: "[--stream S] [--since T] [--page-size N] | verify --file FILE",
        summary: """
            Recomputes every stream's hash chain, and every signed root when WAYMARK_AUDIT_KEY is set;
            prints one line per broken stream or root and exits 1 on any break, else `verify OK: ...`.
            With --file it verifies an export or archive file on its own, without a database.
            """,
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
            """,
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
            ids, recorded times and hashes, and verifies every chain before committing.
            """,
        flags: CommandSpec.Flag.database,
        operands: 1)

    static let archiveSpec = CommandSpec(
        name: "archive", synopsis: "--before T --to FILE",
        summary: """
            Moves the vehicle events of every whole day before T (never today's) to FILE: exported,
            verified, anchored in audit_anchors, then the daily partitions are dropped. Nothing is dropped
            unless the file verifies.
            """,
        flags: [
            .value("before", "T", "archive days that end at or before T (RFC 3339; required)"),
            .value("to", "FILE", "the archive file to write (required; must not exist)"),
        ] + CommandSpec.Flag.database)

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
        let database = try Database.open(settings, logger: logger)
        defer { database.close(logger: logger) }
        try database.migrate(logger: logger)
        let progress = TerminalProgress(label: "verify")
        let chainVerifier = verifier
        let started = ContinuousClock.now
        let (chains, roots) = try await onConnection(database.url) { connection -> (ChainVerification, AuditRoots.RootVerification?) in
            let chains = try chainVerifier.run(on: connection) { progress.update($0) }
            progress.finish()
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
            database.close(logger: logger)
            exit(1)
        }
        printOut("verify OK: \(summary)")
    }

    /// `export --provider P [--since T] [--until T] [--stream S] [--format ndjson|csv]`: the
    /// provider's events to stdout in feed order, with a progress line on stderr when it is a terminal.
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
        let database = try Database.open(settings, logger: logger)
        defer { database.close(logger: logger) }
        let progress = TerminalProgress(label: "export")
        let exporter = export
        let count = try await onConnection(database.url) { connection in
            try exporter.run(on: connection, write: writeOut) { progress.update($0) }
        }
        progress.finish()
        logger.info("exported \(count) events")
    }

    /// `import FILE`: loads an NDJSON export into an empty database and verifies it.
    static func importFile(_ arguments: [String], environment: [String: String]) async throws {
        let flags = try Flags(arguments, for: importSpec)
        let settings = try Settings.load(environment, flags: flags)
        let logger = Logger(label: "waymark.import", minimum: settings.logLevel)
        guard flags.positional.count == 1, let path = flags.positional.first else { throw UsageError("import needs exactly one FILE (an NDJSON export)") }
        guard let file = FileHandle(forReadingAtPath: path) else { throw UsageError("cannot open \(path.debugDescription) for reading") }
        let reader = ChunkReader(file: file)
        let database = try Database.open(settings, logger: logger)
        defer { database.close(logger: logger) }
        try database.migrate(logger: logger)
        let progress = TerminalProgress(label: "import")
        let started = ContinuousClock.now
        let report = try await onConnection(database.url) { connection in
            try EventImport().run(on: connection, read: { try reader.next() }) { progress.update($0) }
        }
        progress.finish()
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
        let database = try Database.open(settings, logger: logger)
        defer { database.close(logger: logger) }
        try database.migrate(logger: logger)
        let now = Timestamp(Date()).microsecondsSinceEpoch
        let partitions = try await onConnection(database.url) { try VehicleArchive.partitions(before: cutoff, nowMicros: now, on: $0) }
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
        let written = try await onConnection(database.url) { connection in
            try exporter.run(on: connection, write: { output.write(Data($0)) })
        }
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
            database.close(logger: logger)
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
    static func onConnection<T: Sendable>(_ url: String, _ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let pool = ConnectionPool(.init(conninfo: url, size: 1, name: "audit"))
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

/// A progress line on stderr when stderr is a terminal; silent otherwise (output may be piped).
final class TerminalProgress: @unchecked Sendable {
    // @unchecked: updated from one thread at a time (the command's connection thread).
    private let label: String
    private let terminal = isatty(STDERR_FILENO) == 1
    private let started = Date()
    private var lastPrint = Date.distantPast
    private var printed = false

    init(label: String) { self.label = label }

    func update(_ count: Int) {
        guard terminal else { return }
        let now = Date()
        guard now.timeIntervalSince(lastPrint) >= 0.2 else { return }
        lastPrint = now
        printed = true
        let rate = Double(count) / max(now.timeIntervalSince(started), 0.001)
        FileHandle.standardError.write(Data(String(format: "\r%@: %d events, %.0f events/s ", label, count, rate).utf8))
    }

    func finish() {
        if printed { FileHandle.standardError.write(Data("\n".utf8)) }
        printed = false
    }
}

extension Duration {
    /// This duration in seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
