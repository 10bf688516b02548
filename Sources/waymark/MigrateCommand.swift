import Foundation
import Postgres
import WaymarkCLI

/// `waymark migrate`: applies pending migrations to `DATABASE_URL` or the embedded cluster.
enum MigrateCommand {
    static let spec = CommandSpec(
        name: "migrate", synopsis: "[--database-url URL | --data-dir DIR]",
        summary: """
            Applies the pending schema migrations to DATABASE_URL, or to the embedded cluster under --data-dir
            (created and started when needed, stopped again afterwards if this run started it). Each
            migration runs once, in its own transaction, and is recorded in schema_migrations; running it
            again is a no-op. It needs a login that may create tables.
            """,
        flags: CommandSpec.Flag.database)

    static func run(_ arguments: [String], environment: [String: String]) throws {
        let flags = try Flags(arguments, for: spec)
        let settings = try Settings.load(environment, flags: flags)
        let logger = Logger(label: "waymark.migrate", minimum: settings.logLevel)
        let database = try Database.open(settings, logger: logger)
        defer { database.close(logger: logger) }
        try database.migrate(logger: logger)
    }
}

/// `waymark db start|stop|status|url`: manages the embedded cluster explicitly.
enum DatabaseCommand {
    static let spec = CommandSpec(
        name: "db", synopsis: "start|stop|status|url [--data-dir DIR] [--pg-port N]",
        summary: """
            Manages the embedded PostgreSQL cluster: a private cluster under --data-dir, reachable only
            through its Unix socket there.
            """,
        subcommands: [
            CommandSpec(name: "db start", synopsis: "[--data-dir DIR] [--pg-port N]",
                        summary: "Creates the cluster (initdb) if needed and starts it; prints its libpq URL.",
                        flags: CommandSpec.Flag.cluster + [CommandSpec.Flag.logLevel]),
            CommandSpec(name: "db stop", synopsis: "[--data-dir DIR] [--pg-port N]",
                        summary: "Stops the cluster (fast shutdown) when it is running.",
                        flags: CommandSpec.Flag.cluster + [CommandSpec.Flag.logLevel]),
            CommandSpec(name: "db status", synopsis: "[--data-dir DIR] [--pg-port N]",
                        summary: "Prints `running URL`, `stopped` or `not initialized`; exit status 3 when it is not running.",
                        flags: CommandSpec.Flag.cluster + [CommandSpec.Flag.logLevel]),
            CommandSpec(name: "db url", synopsis: "[--data-dir DIR] [--pg-port N]",
                        summary: "Prints the cluster's libpq URL (whether or not it is running), for DATABASE_URL.",
                        flags: CommandSpec.Flag.cluster),
        ])

    static func run(_ arguments: [String], environment: [String: String]) throws {
        let (command, rest) = try spec.subcommand(arguments, expected: "db needs one of start, stop, status, url")
        let flags = try Flags(rest, for: command)
        let settings = try Settings.load(environment, flags: flags)
        let logger = Logger(label: "waymark.db", minimum: settings.logLevel)
        let cluster = EmbeddedPostgres(directory: settings.dataDirectory, port: settings.embeddedPort)
        switch command.word {
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
            preconditionFailure("db \(command.word) is declared but not handled")
        }
    }
}
