import Foundation
import Postgres
import Schema
import WaymarkCLI

/// How the audit commands (`verify`, `report`, `export`, `import`, `archive`) reach the database:
/// never creating, starting or migrating it.
///
/// An auditor's login may be read-only, and a newer binary run against production must not change
/// its schema on the way; and a cluster created on the spot is empty, so checking it would report
/// a log that does not exist as intact.
extension Database {
    /// `DATABASE_URL`, or the embedded cluster under the data directory when it is already running.
    static func existing(_ settings: Settings, command: String) throws -> Database {
        if let url = settings.databaseURL { return Database(url: url, startedEmbedded: nil, binDirectory: nil) }
        let cluster = EmbeddedPostgres(directory: settings.dataDirectory, port: settings.embeddedPort)
        let hint = "set DATABASE_URL to the database to \(command), or start the embedded cluster with `waymark db start --data-dir \(settings.dataDirectory)`"
        guard cluster.isInitialized else {
            throw DatabaseNotReady("DATABASE_URL is not set and there is no embedded cluster in \(cluster.directory.path); \(command) never creates one: \(hint)")
        }
        let bin = try EmbeddedPostgres.binDirectory(override: settings.postgresBin)
        guard try cluster.isRunning(binDirectory: bin) else {
            throw DatabaseNotReady("DATABASE_URL is not set and the embedded cluster in \(cluster.directory.path) is not running; \(command) never starts one: \(hint)")
        }
        return Database(url: cluster.url, startedEmbedded: nil, binDirectory: bin)
    }

    /// The schema version this binary's migrations end at.
    static var schemaVersion: Int { Migrations.all.map(\.version).max() ?? 0 }

    /// Refuses a database whose applied migrations are not exactly the ones this binary ships:
    /// none (empty, or not a waymark database), some missing, or some it does not know (newer).
    ///
    /// Reads `schema_migrations` only, so it works for a read-only login.
    static func requireCurrentSchema(on connection: Connection, command: String) throws {
        let applied = Set(try Migrator().appliedVersions(connection))
        let shipped = Set(Migrations.all.map(\.version))
        let expected = "this waymark (\(WaymarkVersion.current)) expects schema version \(schemaVersion)"
        if applied.isEmpty {
            throw DatabaseNotReady("""
                the database has no waymark schema (no migrations recorded in schema_migrations); \(expected). \
                \(command) never migrates: run `waymark migrate` against this database first (or check that DATABASE_URL names the right one)
                """)
        }
        let newer = applied.subtracting(shipped)
        if !newer.isEmpty {
            throw DatabaseNotReady("""
                the database is at schema version \(applied.max() ?? 0), newer than this binary knows (migrations \(list(newer)) are not in it); \(expected). \
                Use the waymark release that migrated it
                """)
        }
        let missing = shipped.subtracting(applied)
        if !missing.isEmpty {
            throw DatabaseNotReady("""
                the database is at schema version \(applied.max() ?? 0) (migrations \(list(missing)) not applied); \(expected). \
                \(command) never migrates: `waymark migrate` applies them
                """)
        }
    }

    private static func list(_ versions: Set<Int>) -> String {
        versions.sorted().map(String.init).joined(separator: ", ")
    }
}

/// The database cannot serve an audit command as it is: absent, not migrated, or at another
/// schema version. Exit status 1.
struct DatabaseNotReady: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
