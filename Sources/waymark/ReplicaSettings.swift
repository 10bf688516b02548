import API
import Postgres
import ReadSide
import WaymarkCLI

/// The read replica of `waymark serve`: `--read-database-url` / `WAYMARK_READ_DATABASE_URL` and
/// how long a read waits for it to replay a client's write (`WAYMARK_READ_REPLICA_WAIT_MS`).
struct ReplicaSettings {
    /// nil: no replica, every read goes to the primary.
    var url: String?
    var replayWait: Duration
    /// Connections to the replica.
    var poolSize: Int

    static func load(_ environment: [String: String], flags: Flags) throws -> ReplicaSettings {
        let url = flags.value("read-database-url") ?? environment["WAYMARK_READ_DATABASE_URL"]
        let wait = try wholeSetting(environment, "WAYMARK_READ_REPLICA_WAIT_MS", 0...60_000, default: 500, of: "milliseconds")
        return ReplicaSettings(url: (url?.isEmpty ?? true) ? nil : url, replayWait: .milliseconds(wait), poolSize: 4)
    }

    /// Connects to the replica once to check it, then opens its pool; nil when none is configured.
    ///
    /// An unreachable replica stops the server with an error naming the setting: a replica that is
    /// configured but silently unused would hide the mistake until the primary is overloaded. A
    /// server that is not in recovery (not a streaming standby) is accepted with a warning: reads
    /// that need a client's own writes go to the primary, since its replay cannot be checked.
    func open(setupStatements: [String], logger: Logger) throws -> ReadRouter.Replica? {
        guard let url else { return nil }
        let inRecovery: Bool
        do {
            let connection = try Connection(conninfo: url)
            for statement in setupStatements { _ = try connection.query(statement) }
            inRecovery = try connection.query("SELECT pg_is_in_recovery()").first?.bool(0) ?? false
        } catch {
            throw ReplicaUnavailable(description: "could not use the read replica (WAYMARK_READ_DATABASE_URL / --read-database-url): \(error)")
        }
        if inRecovery {
            logger.info("read replica ready: read-model reads go to it (read-your-writes wait \(replayWait))")
        } else {
            logger.warning("the read replica is not a streaming standby (pg_is_in_recovery() is false): reads that carry a consistency token go to the primary")
        }
        let pool = ConnectionPool(.init(conninfo: url, size: poolSize, setupStatements: setupStatements, name: "replica-read"))
        return ReadRouter.Replica(pool: pool, isStandby: inRecovery, replayWait: replayWait)
    }
}

/// The configured read replica cannot be used; `waymark serve` exits with status 1.
struct ReplicaUnavailable: Error, CustomStringConvertible {
    let description: String
}
