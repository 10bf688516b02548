import EventStore
import Foundation
import Postgres
import Schema

/// Where the database is: the configured `DATABASE_URL`, or the embedded cluster (started on demand).
package struct Database {
    package let url: String
    /// Set when this process started the embedded cluster and should stop it on exit.
    package let startedEmbedded: EmbeddedPostgres?
    package let binDirectory: String?

    package init(url: String, startedEmbedded: EmbeddedPostgres?, binDirectory: String?) {
        self.url = url
        self.startedEmbedded = startedEmbedded
        self.binDirectory = binDirectory
    }

    package static func open(_ settings: Settings, logger: Logger) throws -> Database {
        if let url = settings.databaseURL { return Database(url: url, startedEmbedded: nil, binDirectory: nil) }
        let bin = try EmbeddedPostgres.binDirectory(override: settings.postgresBin)
        let cluster = EmbeddedPostgres(directory: settings.dataDirectory, port: settings.embeddedPort)
        let started = try cluster.start(binDirectory: bin) { logger.info($0) }
        return Database(url: cluster.url, startedEmbedded: started ? cluster : nil, binDirectory: bin)
    }

    package func close(logger: Logger) {
        guard let cluster = startedEmbedded, let binDirectory else { return }
        do { try cluster.stop(binDirectory: binDirectory) { logger.info($0) } } catch { logger.error("could not stop embedded PostgreSQL: \(error)") }
    }

    /// Applies pending migrations and logs what was applied.
    package func migrate(logger: Logger) throws {
        let connection = try Connection(conninfo: url)
        let applied = try Migrator().migrate(connection)
        if applied.isEmpty {
            logger.info("schema is up to date", [LogKey.applied: "0"])
        } else {
            logger.info("applied migrations: " + applied.map { "\($0.version)_\($0.name)" }.joined(separator: ", "), [LogKey.applied: String(applied.count)])
        }
    }

    /// Statements every server connection runs: act as the append-only role when the login may.
    package func sessionSetup(role: String, logger: Logger) throws -> [String] {
        let connection = try Connection(conninfo: url)
        let member = try connection.query("SELECT pg_has_role(current_user, $1, 'MEMBER')", [role]).first?.bool(0) ?? false
        guard member else {
            logger.warning("the database login is not a member of role \(role); the server will run with the login's own privileges")
            return ["SET application_name = 'waymark'"]
        }
        return ["SET application_name = 'waymark'", "SET ROLE " + Connection.quoteIdentifier(role)]
    }
}
