import Foundation
import Postgres

/// `waymark migrate`: applies pending migrations to `DATABASE_URL` or the embedded cluster.
enum MigrateCommand {
    static func run(_ arguments: [String], environment: [String: String]) throws {
        let flags = try Flags(arguments)
        let settings = try Settings.load(environment, flags: flags)
        let logger = Logger(label: "waymark.migrate", minimum: settings.logLevel)
        let database = try Database.open(settings, logger: logger)
        defer { database.close(logger: logger) }
        try database.migrate(logger: logger)
    }
}

/// `waymark db start|stop|status|url`: manages the embedded cluster explicitly.
enum DatabaseCommand {
    static func run(_ arguments: [String], environment: [String: String]) throws {
        let flags = try Flags(arguments)
        let settings = try Settings.load(environment, flags: flags)
        let logger = Logger(label: "waymark.db", minimum: settings.logLevel)
        let cluster = EmbeddedPostgres(directory: settings.dataDirectory, port: settings.embeddedPort)
        guard let action = flags.positional.first else { throw UsageError("db needs one of start, stop, status, url") }
        switch action {
        case "start":
            let bin = try EmbeddedPostgres.binDirectory(override: settings.postgresBin)
            let started = try cluster.start(binDirectory: bin) { logger.info($0) }
            if !started { logger.info("embedded PostgreSQL already running", [LogKey.dataDirectory: cluster.directory.path]) }
            printOut(cluster.url)
        case "stop":
            let bin = try EmbeddedPostgres.binDirectory(override: settings.postgresBin)
            try cluster.stop(binDirectory: bin) { logger.info($0) }
        case "status":
            let bin = try EmbeddedPostgres.binDirectory(override: settings.postgresBin)
            let running = try cluster.isRunning(binDirectory: bin)
            printOut(running ? "running \(cluster.url)" : (cluster.isInitialized ? "stopped" : "not initialized"))
            if !running { exit(3) }
        case "url":
            printOut(cluster.url)
        default:
            throw UsageError("unknown db action \(action.debugDescription); expected start, stop, status or url")
        }
    }
}
