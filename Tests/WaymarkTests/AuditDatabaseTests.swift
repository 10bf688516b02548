import Foundation
import Postgres
import Testing
import TestSupport

/// What the audit commands ask of the database: they never migrate, create or start one; they
/// refuse a database that is missing or not at this binary's schema version; and the reading
/// ones (`verify`, `export`, `report`) need no more than SELECT.
@Suite(.timeLimit(.minutes(3))) struct AuditDatabaseTests {
    /// `url` with its login replaced by `role`.
    private static func url(_ url: String, as role: String) throws -> String {
        var components = try #require(URLComponents(string: url))
        components.user = nil
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "user" } + [URLQueryItem(name: "user", value: role)]
        return try #require(components.string)
    }

    private static func execute(_ url: String, _ statements: [String]) async throws {
        try await Blocking.run {
            let connection = try Connection(conninfo: url)
            for statement in statements { try connection.execute(statement) }
        }
    }

    @Test func verifyExportAndReportWorkWithALoginThatMayOnlyConnectAndSelect() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await loadWorkload(url, events: 300, provider: "acme")
            let role = "wm_auditor_" + UUID().uuidString.prefix(8).lowercased()
            let database = Connection.quoteIdentifier(String(try #require(URLComponents(string: url)).path.dropFirst()))
            try await Self.execute(url, [
                "CREATE ROLE \(role) LOGIN",
                "REVOKE ALL ON DATABASE \(database) FROM PUBLIC",  // no TEMP either: only what is granted here
                "GRANT CONNECT ON DATABASE \(database) TO \(role)",
                "GRANT USAGE ON SCHEMA public TO \(role)",
                "GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role)",
            ])
            do {
                let auditor = try Self.url(url, as: role)
                // The login really cannot write: otherwise this test would prove nothing.
                await #expect(throws: (any Error).self) {
                    try await Self.execute(auditor, ["CREATE TABLE public.audit_probe (x int)"])
                }
                await #expect(throws: (any Error).self) {
                    try await Self.execute(auditor, ["CREATE TEMP TABLE audit_probe (x int)"])
                }
                let verify = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": auditor])
                #expect(verify.status == 0, "\(verify.output)")
                #expect(verify.stdout.contains("verify OK: ") && verify.stdout.contains(" 300 events in "), "\(verify.stdout)")
                let export = try await WaymarkBinary.run(["export", "--provider", "acme"], environment: ["DATABASE_URL": auditor])
                #expect(export.status == 0, "\(export.stderr)")
                #expect(export.stdout.split(separator: "\n").count == 300)
                // The workload ran no projections: report gets as far as reading the route audit and finds none.
                let report = try await WaymarkBinary.run(["report", "trip", "t-none", "--out-dir", "/tmp"], environment: ["DATABASE_URL": auditor])
                #expect(report.status == 1 && report.stderr.contains("no route audit of trip \"t-none\""), "\(report.stderr)")
            } catch {
                try? await Self.execute(url, ["DROP OWNED BY \(role)", "DROP ROLE \(role)"])
                throw error
            }
            try await Self.execute(url, ["DROP OWNED BY \(role)", "DROP ROLE \(role)"])
        }
    }

    @Test func everyAuditCommandRefusesADatabaseWithoutTheSchemaAndLeavesItEmpty() async throws {
        let file = "/tmp/wm-archive-\(UUID().uuidString.prefix(8)).ndjson"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            let commands = [["verify"], ["export", "--provider", "acme"], ["report", "trip", "t-1", "--out-dir", "/tmp"],
                            ["import", "/dev/null"], ["archive", "--before", "2999-01-01T00:00:00Z", "--to", file]]
            for command in commands {
                let result = try await WaymarkBinary.run(command, environment: ["DATABASE_URL": url])
                #expect(result.status == 1, "\(command): exit \(result.status): \(result.output)")
                #expect(result.stderr.hasPrefix("waymark \(command[0]): the database has no waymark schema"), "\(command): \(result.stderr)")
                #expect(result.stderr.contains("expects schema version") && result.stderr.contains("run `waymark migrate` against this database first"),
                        "\(command): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(command): \(result.stdout)")
            }
            #expect(!FileManager.default.fileExists(atPath: file), "archive wrote no file")
            let created = try await scalar(url, "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'")
            #expect(created == "0", "no table, sequence or index was created")
        }
    }

    @Test func verifyRefusesAnOlderOrNewerSchemaNamingBothVersionsAndMigratesNothing() async throws {
        try await TestDatabase.withTestDatabase { url in
            let latest = try #require(try await scalar(url, "SELECT max(version) FROM schema_migrations").flatMap { Int($0) })
            _ = try await scalar(url, "DELETE FROM schema_migrations WHERE version = $1", [String(latest)])
            let older = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(older.status == 1, "\(older.output)")
            #expect(older.stderr.contains("the database is at schema version \(latest - 1) (migrations \(latest) not applied)"), "\(older.stderr)")
            #expect(older.stderr.contains("expects schema version \(latest)") && older.stderr.contains("`waymark migrate` applies them"), "\(older.stderr)")
            #expect(try await scalar(url, "SELECT count(*) FROM schema_migrations WHERE version = $1", [String(latest)]) == "0", "verify migrated")

            _ = try await scalar(url, "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, 'restored', 'x'), (9999, 'later', 'x')", [String(latest)])
            let newer = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(newer.status == 1, "\(newer.output)")
            #expect(newer.stderr.contains("the database is at schema version 9999, newer than this binary knows"), "\(newer.stderr)")
            #expect(!newer.stdout.contains("verify OK"))
        }
    }

    @Test func verifyWithoutADatabaseURLOrAClusterFailsAndCreatesNoDirectory() async throws {
        let root = "/tmp/wm-none-\(UUID().uuidString.prefix(8).lowercased())"
        let result = try await WaymarkBinary.run(["verify", "--data-dir", root + "/pg"], environment: ["DATABASE_URL": ""])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.stderr.contains("DATABASE_URL is not set and there is no embedded cluster in \(root)/pg"), "\(result.stderr)")
        #expect(result.stderr.contains("`waymark db start --data-dir \(root)/pg`"), "\(result.stderr)")
        #expect(!result.stdout.contains("OK"), "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: root), "verify created \(root)")
    }

    @Test func withoutADatabaseURLVerifyUsesARunningEmbeddedClusterButNeverStartsOne() async throws {
        try await PrivateCluster.with { cluster, url in
            let migrated = try await WaymarkBinary.run(["migrate"], environment: ["DATABASE_URL": url])
            try #require(migrated.status == 0, "\(migrated.stderr)")
            let embedded = ["DATABASE_URL": "", "WAYMARK_DATA_DIR": cluster.cluster.directory.path, "WAYMARK_PG_PORT": String(cluster.cluster.port)]
            let running = try await WaymarkBinary.run(["verify"], environment: embedded)
            #expect(running.status == 0 && running.stdout.contains("verify OK: 0 streams, 0 events"), "\(running.output)")

            try await cluster.stop()
            let stopped = try await WaymarkBinary.run(["verify"], environment: embedded)
            #expect(stopped.status == 1, "\(stopped.output)")
            #expect(stopped.stderr.contains("the embedded cluster in \(cluster.cluster.directory.path) is not running; verify never starts one"), "\(stopped.stderr)")
            let still = try await Blocking.run { try cluster.cluster.isRunning(binDirectory: try EmbeddedPostgres.binDirectory(override: nil)) }
            #expect(!still, "verify started the cluster")
        }
    }
}
