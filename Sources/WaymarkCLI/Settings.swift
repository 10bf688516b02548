/// Configuration read once from the environment and the command line (flags override environment
/// override defaults). Library modules never read the environment; they get these values.
package struct Settings {
    package var databaseURL: String?
    package var dataDirectory: String
    package var embeddedPort: Int
    package var postgresBin: String?
    package var databaseRole: String
    package var logLevel: Logger.Level

    package static func load(_ environment: [String: String], flags: Flags) throws -> Settings {
        let url = flags.value("database-url") ?? environment["DATABASE_URL"]
        let portText = flags.value("pg-port") ?? environment["WAYMARK_PG_PORT"] ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw UsageError("WAYMARK_PG_PORT must be a port number from 1 to 65535, got \(portText.debugDescription)")
        }
        let levelText = flags.value("log-level") ?? environment["WAYMARK_LOG_LEVEL"] ?? "info"
        let levels: [String: Logger.Level] = ["debug": .debug, "info": .info, "warning": .warning, "error": .error]
        guard let level = levels[levelText] else {
            throw UsageError("WAYMARK_LOG_LEVEL must be one of debug, info, warning, error; got \(levelText.debugDescription)")
        }
        return Settings(
            databaseURL: (url?.isEmpty ?? true) ? nil : url,
            dataDirectory: flags.value("data-dir") ?? environment["WAYMARK_DATA_DIR"] ?? ".waymark/pg",
            embeddedPort: port,
            postgresBin: environment["WAYMARK_PG_BIN"],
            databaseRole: flags.value("db-role") ?? environment["WAYMARK_DB_ROLE"] ?? "waymark_app",
            logLevel: level)
    }
}
