import Postgres

/// Applies numbered migrations, each once and each in its own transaction.
///
/// Applied migrations are recorded in `schema_migrations` with a checksum of their text. A failed
/// migration is rolled back whole, so nothing is half-applied; re-running applies only what is
/// missing. A session-level advisory lock keeps two processes from migrating at the same time.
package struct Migrator: Sendable {
    package let migrations: [Migration]

    /// The lock id that serializes migrations across processes ("waymark" in ASCII, truncated).
    static let advisoryLockID: Int64 = 0x7761_796D_6172_6B00

    package init(migrations: [Migration] = Migrations.all) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Applies every pending migration and returns those it applied, in order.
    @discardableResult
    package func migrate(_ connection: Connection) throws -> [Migration] {
        try connection.query("SELECT pg_advisory_lock($1)", [String(Self.advisoryLockID)])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [String(Self.advisoryLockID)]) }

        try connection.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version     integer     PRIMARY KEY,
                name        text        NOT NULL,
                checksum    text        NOT NULL,
                applied_at  timestamptz NOT NULL DEFAULT now()
            )
            """)
        var applied: [Int: String] = [:]
        for row in try connection.query("SELECT version, checksum FROM schema_migrations").rows {
            applied[Int(try row.int64(0))] = try row.string(1)
        }
        let known = Set(migrations.map(\.version))
        if let unknown = applied.keys.filter({ !known.contains($0) }).max() {
            throw SchemaError(.unknownMigration, "the database has migration \(unknown), which this binary does not ship; run a newer waymark")
        }

        var done: [Migration] = []
        for migration in migrations {
            let checksum = Self.checksum(migration.sql)
            if let existing = applied[migration.version] {
                guard existing == checksum else {
                    throw SchemaError(.checksumMismatch, "migration \(migration.version) (\(migration.name)) was applied with checksum \(existing) but the shipped text has checksum \(checksum); applied migrations must never change")
                }
                continue
            }
            do {
                try connection.withTransaction { connection in
                    try connection.execute(migration.sql)
                    try connection.query(
                        "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                        [String(migration.version), migration.name, checksum])
                }
            } catch {
                throw SchemaError(.migrationFailed, "migration \(migration.version) (\(migration.name)) failed and was rolled back", underlying: error)
            }
            done.append(migration)
        }
        return done
    }

    /// The versions recorded as applied, ascending.
    package func appliedVersions(_ connection: Connection) throws -> [Int] {
        let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL").first?.bool(0) ?? false
        guard exists else { return [] }
        return try connection.query("SELECT version FROM schema_migrations ORDER BY version").rows.map { Int(try $0.int64(0)) }
    }

    /// FNV-1a (64 bit) of the migration text, as 16 hex digits: detects edits, not attacks.
    static func checksum(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
