import Foundation
import Postgres
import Schema

/// A primary cluster and a streaming standby of it, both private to one test, under one directory.
package struct ReplicatedCluster: Sendable {
    package let root: String
    package let primaryURL: String
    package let replicaURL: String

    package var primaryDirectory: String { root + "/primary" }
    package var replicaDirectory: String { root + "/replica" }

    /// Starts a fresh primary (migrated), copies it with `pg_basebackup -R` and starts the copy as a
    /// hot standby listening in a socket directory of its own.
    package static func start() async throws -> ReplicatedCluster {
        let root = "/tmp/wm-replica-\(UUID().uuidString.prefix(8).lowercased())"
        let primary = root + "/primary", replica = root + "/replica"
        do {
            let started = try await WaymarkBinary.run(["db", "start", "--data-dir", primary])
            guard started.status == 0 else { throw TestSetupError("db start (primary): \(started.output)") }
            let primaryURL = try await url(primary)
            try await Blocking.run { _ = try Migrator().migrate(try Connection(conninfo: primaryURL)) }

            let bin = try EmbeddedPostgres.binDirectory(override: nil)
            let asOwner: [String] = geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
            try FileManager.default.createDirectory(atPath: replica, withIntermediateDirectories: true)
            if geteuid() == 0 { _ = try await WaymarkBinary.runTool("/bin/chown", ["postgres:postgres", replica]) }
            let command = asOwner + [bin + "/pg_basebackup", "-D", replica + "/data", "-R", "-X", "stream", "-c", "fast",
                                     "-h", primary, "-p", "5432", "-U", "postgres"]
            let copied = try await WaymarkBinary.runTool(command[0], Array(command.dropFirst()))
            guard copied.status == 0 else { throw TestSetupError("pg_basebackup: \(copied.output)") }
            // The copy carries the primary's settings: listen in the replica's own directory instead (the last setting wins).
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: replica + "/data/postgresql.conf"))
            handle.seekToEndOfFile()
            handle.write(Data("\n# Added by ReadReplicaTests: the standby's own socket directory.\nunix_socket_directories = '\(replica)'\n".utf8))
            try handle.close()
            let standby = try await WaymarkBinary.run(["db", "start", "--data-dir", replica])
            guard standby.status == 0 else { throw TestSetupError("db start (replica): \(standby.output)") }
            let replicaURL = try await url(replica)
            let cluster = ReplicatedCluster(root: root, primaryURL: primaryURL, replicaURL: replicaURL)
            let recovering = try await cluster.query(replicaURL, "SELECT pg_is_in_recovery()")
            guard recovering == "t" else { throw TestSetupError("the copy is not a standby (pg_is_in_recovery: \(recovering ?? "NULL"))") }
            return cluster
        } catch {
            await Self.destroy(root: root)
            throw error
        }
    }

    private static func url(_ directory: String) async throws -> String {
        let outcome = try await WaymarkBinary.run(["db", "url", "--data-dir", directory])
        let url = outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard outcome.status == 0, !url.isEmpty else { throw TestSetupError("db url: \(outcome.output)") }
        return url
    }

    /// The first column of the first row of `sql` on `url` (nil: no row or NULL), off the cooperative pool.
    @discardableResult
    package func query(_ url: String, _ sql: String) async throws -> String? {
        try await Blocking.run { try Connection(conninfo: url).query(sql).first?.values.first ?? nil }
    }

    /// Pauses (true) or resumes (false) replay on the standby.
    package func pauseReplay(_ paused: Bool) async throws {
        try await query(replicaURL, paused ? "SELECT pg_wal_replay_pause()" : "SELECT pg_wal_replay_resume()")
    }

    /// Stops both clusters (standby first) and removes them.
    package func destroy() async { await Self.destroy(root: root) }

    private static func destroy(root: String) async {
        _ = try? await WaymarkBinary.run(["db", "stop", "--data-dir", root + "/replica"])
        _ = try? await WaymarkBinary.run(["db", "stop", "--data-dir", root + "/primary"])
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Runs `body` with the cluster, and destroys it afterwards whatever happened.
    /// Holds a `TestLoad` slot throughout.
    package static func with(_ body: @Sendable (ReplicatedCluster) async throws -> Void) async throws {
        try await TestLoad.withSlot {
            let cluster = try await start()
            do {
                try await body(cluster)
            } catch {
                await cluster.destroy()
                throw error
            }
            await cluster.destroy()
        }
    }

    /// Two nodes on the primary, both reading from the replica, with one JWT secret.
    package func startNodes(environment: [String: String] = [:]) async throws -> (TestServer, TestServer) {
        var env = ["WAYMARK_READ_DATABASE_URL": replicaURL, "WAYMARK_CONSISTENCY_TIMEOUT_SECONDS": "20"]
        env.merge(environment) { $1 }
        let first = try await TestServer.start(databaseURL: primaryURL, environment: env)
        env["WAYMARK_JWT_SECRET"] = first.secret
        do {
            let second = try await TestServer.start(databaseURL: primaryURL, environment: env)
            return (first, second)
        } catch {
            first.stop()
            throw error
        }
    }
}

