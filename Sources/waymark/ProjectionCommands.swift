import EventStore
import Foundation
import Postgres
import Projections
import WaymarkCLI

/// `waymark rebuild [--projection NAME]` and `waymark verify-projections [--projection NAME]`.
enum ProjectionCommands {
    static let rebuildSpec = CommandSpec(
        name: "rebuild", synopsis: "[--projection NAME]",
        summary: """
            Rebuilds one or every read model from position zero into fresh tables and swaps them in
            atomically (readers never see a half-built model). Migrates the database first. A progress
            bar on a terminal, log lines otherwise.
            """,
        flags: [projectionFlag] + CommandSpec.Flag.database)

    static let verifySpec = CommandSpec(
        name: "verify-projections", synopsis: "[--projection NAME]",
        summary: """
            Rebuilds one or every read model in memory up to the live checkpoint and compares it with the
            live tables document by document; prints each difference and exits 1 on any. Migrates the
            database first.
            """,
        flags: [projectionFlag] + CommandSpec.Flag.database)

    static let projectionFlag = CommandSpec.Flag.value(
        "projection", "NAME", "only this one: " + ProjectionCatalog.all.map(\.name).joined(separator: ", ") + " (default: every one)")

    /// Rebuilds one or every projection from position zero into fresh tables, swapped in atomically.
    static func rebuild(_ arguments: [String], environment: [String: String]) async throws {
        try await withStore(arguments, rebuildSpec, environment, label: "waymark.rebuild") { store, url, chosen, logger in
            let total = Int(try await store.pool.query("SELECT count(*) FROM events").first?.int64(0) ?? 0)
            for (name, make) in chosen {
                let progress = Progress(label: "rebuild \(name)", total: total, logger: logger)
                let report = try await Rebuilder.rebuild(store: store, conninfo: url, make: make) { progress.update($0) }
                progress.finish()
                logger.info("rebuilt \(name): \(report.events) events, \(report.documents) documents in \(String(format: "%.2f", report.seconds)) s (\(Int(Double(report.events) / max(report.seconds, 0.001))) events/s)")
            }
            return true
        }
    }

    /// Rebuilds in memory and compares with the live tables; exit status 1 on any difference.
    static func verify(_ arguments: [String], environment: [String: String]) async throws {
        try await withStore(arguments, verifySpec, environment, label: "waymark.verify-projections") { store, url, chosen, logger in
            var identical = true
            for (name, make) in chosen {
                let differences = try await Rebuilder.verify(store: store, conninfo: url, make: make)
                for difference in differences { printOut(difference) }
                if differences.isEmpty {
                    logger.info("projection \(name): live model equals a rebuild")
                } else {
                    logger.error("projection \(name): \(differences.count) documents differ from a rebuild")
                    identical = false
                }
            }
            return identical
        }
    }

    /// Validates the projection names, opens and migrates the database, runs `body` with a store,
    /// then shuts everything down; exits with status 1 when `body` returns false.
    private static func withStore(
        _ arguments: [String], _ spec: CommandSpec, _ environment: [String: String], label: String,
        _ body: (EventStore, String, [(String, @Sendable () -> any Projector)], Logger) async throws -> Bool
    ) async throws {
        let flags = try Flags(arguments, for: spec)
        let settings = try Settings.load(environment, flags: flags)
        let chosen = try selected(flags)
        let logger = Logger(label: label, minimum: settings.logLevel)
        let database = try Database.open(settings, logger: logger)
        defer { database.close(logger: logger) }
        try database.migrate(logger: logger)
        let store = EventStore(.init(conninfo: database.url, listen: false))
        let succeeded: Bool
        do {
            succeeded = try await body(store, database.url, chosen, logger)
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
        if !succeeded {
            database.close(logger: logger)
            exit(1)
        }
    }

    private static func selected(_ flags: Flags) throws -> [(String, @Sendable () -> any Projector)] {
        if let name = flags.value("projection") {
            do { return [(name, try ProjectionCatalog.named(name))] } catch { throw UsageError(error.message) }
        }
        return ProjectionCatalog.all.map { ($0.name, $0.make) }
    }
}

/// A progress bar with events/s and ETA on a terminal; a log line every few seconds otherwise.
final class Progress: @unchecked Sendable {
    // @unchecked: updated from one task at a time (the rebuild loop), read nowhere else.
    private let label: String
    private let total: Int
    private let logger: Logger
    private let started = Date()
    private var lastPrint = Date.distantPast
    private let terminal = isatty(STDERR_FILENO) == 1
    private var done = 0

    init(label: String, total: Int, logger: Logger) {
        self.label = label
        self.total = max(total, 1)
        self.logger = logger
    }

    func update(_ count: Int) {
        done = count
        let now = Date()
        guard now.timeIntervalSince(lastPrint) >= (terminal ? 0.2 : 5) else { return }
        lastPrint = now
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let rate = Double(count) / elapsed
        let remaining = rate > 0 ? Double(max(total - count, 0)) / rate : 0
        let fraction = min(1, Double(count) / Double(total))
        if terminal {
            let width = 30, filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            FileHandle.standardError.write(Data(String(format: "\r%@ [%@] %3d%% %d events %.0f events/s ETA %.0fs ", label, bar, Int(fraction * 100), count, rate, remaining).utf8))
        } else {
            logger.info(String(format: "%@: %d of ~%d events, %.0f events/s, ETA %.0f s", label, count, total, rate, remaining))
        }
    }

    func finish() {
        if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
