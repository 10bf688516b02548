import Foundation
import Postgres
import Schema

/// Throwaway databases on the PostgreSQL that `make test` starts.
///
/// `make test` starts an embedded cluster and exports its URL as `WAYMARK_TEST_DATABASE_URL`;
/// each test gets a database of its own (created, migrated, dropped), so tests run in parallel.
package enum TestDatabase {
    /// The URL of the test cluster's admin database.
    package static func adminURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["WAYMARK_TEST_DATABASE_URL"], !url.isEmpty else {
            throw TestSetupError("WAYMARK_TEST_DATABASE_URL is not set: run the suite with `make test`, which starts PostgreSQL for it")
        }
        return url
    }

    /// `url` with its database replaced by `database`.
    package static func url(_ url: String, database: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.path = "/" + database
        return components.string ?? url
    }

    /// Creates a database, migrates it (unless `migrate` is false), runs `body` with its URL, drops it.
    /// Holds a `TestLoad` slot throughout.
    package static func withTestDatabase<T: Sendable>(migrate: Bool = true, _ body: @Sendable (String) async throws -> T) async throws -> T {
        try await TestLoad.withSlot { try await withOwnDatabase(migrate: migrate, body) }
    }

    private static func withOwnDatabase<T: Sendable>(migrate: Bool, _ body: @Sendable (String) async throws -> T) async throws -> T {
        let admin = try adminURL()
        let name = "wm_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        try await Blocking.run {
            let connection = try Connection(conninfo: admin)
            try connection.execute("CREATE DATABASE " + Connection.quoteIdentifier(name))
        }
        let url = Self.url(admin, database: name)
        do {
            if migrate {
                try await Blocking.run { try Migrator().migrate(try Connection(conninfo: url)) }
            }
            let value = try await body(url)
            if dropsDatabases { try await drop(name, admin: admin) }
            return value
        } catch {
            if dropsDatabases { try? await drop(name, admin: admin) }
            throw error
        }
    }

    /// Whether each test drops its database at the end. `make test` turns this off
    /// (`WAYMARK_TEST_KEEP_DATABASES=1`) and drops them all after the run: `DROP DATABASE` forces a
    /// checkpoint and holds a transaction id while it waits, and the feed reads only below the
    /// oldest running transaction of the whole cluster, so concurrent drops would stall every
    /// other test's projections for seconds.
    static var dropsDatabases: Bool { ProcessInfo.processInfo.environment["WAYMARK_TEST_KEEP_DATABASES"] != "1" }

    private static func drop(_ name: String, admin: String) async throws {
        try await Blocking.run {
            let connection = try Connection(conninfo: admin)
            try connection.execute("DROP DATABASE IF EXISTS " + Connection.quoteIdentifier(name) + " WITH (FORCE)")
        }
    }
}

/// A test could not be set up (not a failure of the code under test).
package struct TestSetupError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Runs blocking work (libpq, processes) on a thread of its own, never on the cooperative pool.
package enum Blocking {
    @discardableResult
    package static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
            }.start()
        }
    }
}

/// The built `waymark` binary, for black-box tests.
package enum WaymarkBinary {
    /// `WAYMARK_BIN`, or the debug build next to the package.
    package static var path: String {
        if let path = ProcessInfo.processInfo.environment["WAYMARK_BIN"], !path.isEmpty { return path }
        return packageRoot + "/.build/debug/waymark"
    }

    package static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// Runs the binary with `arguments` and extra environment, to completion.
    @discardableResult
    package static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Subprocess.Outcome {
        try await Blocking.run { try Subprocess.run(path, arguments, environment: environment) }
    }
}

/// A private PostgreSQL cluster for tests that stop and start the server, so they never disturb
/// the shared test cluster.
package struct PrivateCluster: Sendable {
    package let cluster: EmbeddedPostgres
    private let root: String

    package init() {
        root = "/tmp/wm-private-\(UUID().uuidString.prefix(8).lowercased())"
        cluster = EmbeddedPostgres(directory: root + "/pg")
    }

    /// Runs `body` with a new cluster's URL, holding a `TestLoad` slot, and destroys the cluster afterwards.
    package static func with<T: Sendable>(_ body: @Sendable (PrivateCluster, String) async throws -> T) async throws -> T {
        try await TestLoad.withSlot {
            let cluster = PrivateCluster()
            do {
                let value = try await body(cluster, try await cluster.start())
                await cluster.destroy()
                return value
            } catch {
                await cluster.destroy()
                throw error
            }
        }
    }

    /// Starts it (creating it the first time) and returns its URL.
    package func start() async throws -> String {
        let cluster = self.cluster
        return try await Blocking.run {
            try cluster.start(binDirectory: try EmbeddedPostgres.binDirectory(override: nil))
            return cluster.url
        }
    }

    package func stop() async throws {
        let cluster = self.cluster
        try await Blocking.run { try cluster.stop(binDirectory: try EmbeddedPostgres.binDirectory(override: nil)) }
    }

    package func destroy() async {
        try? await stop()
        try? FileManager.default.removeItem(atPath: root)
    }
}

extension WaymarkBinary {
    /// Runs another program (a script, a Python tool) to completion, off the cooperative pool.
    @discardableResult
    package static func runTool(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> Subprocess.Outcome {
        try await Blocking.run { try Subprocess.run(executable, arguments, environment: environment) }
    }
}
