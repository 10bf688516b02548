import Foundation
import Postgres
import Schema
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct MigratorTests {
    @Test func freshDatabaseGetsEveryMigrationAndRerunIsANoOp() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                let first = try Migrator().migrate(connection)
                #expect(first.map(\.version) == Migrations.all.map(\.version))
                let second = try Migrator().migrate(connection)
                #expect(second.isEmpty)
                #expect(try Migrator().appliedVersions(connection) == Migrations.all.map(\.version))
            }
        }
    }

    /// Roles and role memberships are cluster-wide: databases migrated at the same moment on one
    /// cluster (tests, several tenants) must not fail on each other's grants.
    @Test func databasesOfOneClusterMigrateConcurrently() async throws {
        let admin = try TestDatabase.adminURL()
        let names = (0..<6).map { _ in "wm_test_mig_\(UUID().uuidString.prefix(8).lowercased())" }
        try await Blocking.run {
            let connection = try Connection(conninfo: admin)
            for name in names { try connection.execute("CREATE DATABASE \(name)") }
        }
        // Not dropped here: DROP DATABASE holds the cluster's horizon back and stalls every other
        // test's projections; scripts/test.sh drops the wm_test_ databases after the run.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for name in names {
                group.addTask {
                    try await Blocking.run {
                        let connection = try Connection(conninfo: TestDatabase.url(admin, database: name))
                        _ = try Migrator().migrate(connection)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func failingMigrationLeavesNothingHalfApplied() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                let good = Migration(version: 1, name: "good", sql: "CREATE TABLE good (id int)")
                let bad = Migration(version: 2, name: "bad", sql: "CREATE TABLE half (id int); INSERT INTO good VALUES (1); SELECT 1/0;")
                do {
                    try Migrator(migrations: [good, bad]).migrate(connection)
                    Issue.record("the failing migration must throw")
                } catch let error as SchemaError {
                    #expect(error.code == .migrationFailed)
                    #expect(error.message.contains("migration 2 (bad)"))
                }
                #expect(try Migrator().appliedVersions(connection) == [1])
                #expect(try connection.query("SELECT to_regclass('half') IS NULL").first!.bool(0))
                #expect(try connection.query("SELECT count(*) FROM good").first!.int64(0) == 0)
            }
        }
    }

    @Test func editedAppliedMigrationIsReportedAsChecksumMismatch() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                try Migrator(migrations: [Migration(version: 1, name: "a", sql: "CREATE TABLE a (id int)")]).migrate(connection)
                do {
                    try Migrator(migrations: [Migration(version: 1, name: "a", sql: "CREATE TABLE a (id bigint)")]).migrate(connection)
                    Issue.record("an edited migration must be refused")
                } catch let error as SchemaError {
                    #expect(error.code == .checksumMismatch)
                }
            }
        }
    }

    @Test func databaseNewerThanTheBinaryIsRefused() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                try Migrator(migrations: [Migration(version: 1, name: "a", sql: "SELECT 1"), Migration(version: 2, name: "b", sql: "SELECT 1")]).migrate(connection)
                do {
                    try Migrator(migrations: [Migration(version: 1, name: "a", sql: "SELECT 1")]).migrate(connection)
                    Issue.record("an unknown applied migration must be refused")
                } catch let error as SchemaError {
                    #expect(error.code == .unknownMigration)
                }
            }
        }
    }

    @Test func everySQLFileIsListedInMigrationsInOrder() throws {
        let directory = WaymarkBinary.packageRoot + "/Sources/Schema/sql"
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".sql") }.sorted()
        let listed = Migrations.all.map { String(format: "%04d_%@.sql", $0.version, $0.name) }
        #expect(files == listed)
        for (file, migration) in zip(files, Migrations.all) {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            #expect(text == migration.sql, "embedded text of \(file) is stale")
        }
    }
}
