import Foundation


/// A private PostgreSQL cluster under a directory of ours (default `./.waymark/pg`).
///
/// Made with the machine's `initdb` and run with its `pg_ctl`; it listens on a Unix socket in that
/// directory only (no TCP port). PostgreSQL refuses to run as root, so when we are root the cluster
/// belongs to, and runs as, the unprivileged `postgres` user that Debian's package creates.
///
/// The cluster trusts whoever reaches its socket, so nobody else may: the directory is mode 0700
/// (checked at every start) and the socket itself 0700. Its programs run with a clean environment,
/// so nothing of the server's (its signing secret) is visible in the postmaster's environment.
package struct EmbeddedPostgres: Sendable {
    /// A cluster operation failed; the message says what to do.
    package struct Failure: Error, CustomStringConvertible {
        package let message: String
        package var description: String { message }
    }

    package let directory: URL
    package let port: Int

    package init(directory: String, port: Int = 5432) {
        let absolute = directory.hasPrefix("/") ? directory : FileManager.default.currentDirectoryPath + "/" + directory
        self.directory = URL(fileURLWithPath: absolute).standardizedFileURL
        self.port = port
    }

    package var dataDirectory: String { directory.appendingPathComponent("data").path }
    package var logFile: String { directory.appendingPathComponent("postgres.log").path }
    package var isInitialized: Bool { FileManager.default.fileExists(atPath: dataDirectory + "/PG_VERSION") }

    /// The libpq URL of the cluster's `postgres` database.
    package var url: String { "postgresql:///postgres?host=\(directory.path)&port=\(port)&user=postgres" }

    private static var isRoot: Bool { geteuid() == 0 }

    /// Finds `initdb` and `pg_ctl`: `WAYMARK_PG_BIN`, then `pg_config --bindir`, then Debian's layout, then PATH.
    package static func binDirectory(override: String?) throws -> String {
        var candidates: [String] = []
        if let override, !override.isEmpty { candidates.append(override) }
        if let bindir = try? Subprocess.run("/bin/sh", ["-c", "pg_config --bindir 2>/dev/null"]).output, !bindir.isEmpty {
            candidates.append(bindir)
        }
        let debian = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in debian.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) { candidates.append("/usr/lib/postgresql/\(version)/bin") }
        for path in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") { candidates.append(String(path)) }
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate + "/initdb")
            && FileManager.default.isExecutableFile(atPath: candidate + "/pg_ctl") {
            return candidate
        }
        throw Failure(message: "PostgreSQL server binaries (initdb, pg_ctl) not found; run `make deps` (installs Debian's postgresql package) or set WAYMARK_PG_BIN")
    }

    /// Creates the cluster if needed and starts it; returns true when this call started it.
    @discardableResult
    package func start(binDirectory: String, log: (String) -> Void = { _ in }) throws -> Bool {
        if try isRunning(binDirectory: binDirectory) { return false }
        if !isInitialized { try initialize(binDirectory: binDirectory, log: log) }
        // Also for a cluster made by an older version, which left the directory as the umask made it.
        guard chmod(directory.path, 0o700) == 0 else {
            throw Failure(message: "cannot make \(directory.path) private (chmod 0700: \(String(cString: strerror(errno))))")
        }
        // A stale pid file from a killed cluster is handled by pg_ctl itself.
        let result = try runAsOwner(binDirectory + "/pg_ctl", ["-D", dataDirectory, "-l", logFile, "-w", "-t", "60", "-s", "start"])
        if result.status != 0 {
            if try isRunning(binDirectory: binDirectory) { return false }  // started concurrently by another process
            let tail = (try? String(contentsOfFile: logFile, encoding: .utf8))?.split(separator: "\n").suffix(5).joined(separator: "\n") ?? ""
            throw Failure(message: "pg_ctl start failed (exit \(result.status)): \(result.output)\n\(tail)")
        }
        log("embedded PostgreSQL started in \(directory.path)")
        return true
    }

    package func stop(binDirectory: String, log: (String) -> Void = { _ in }) throws {
        guard try isRunning(binDirectory: binDirectory) else { return }
        let result = try runAsOwner(binDirectory + "/pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "-t", "60", "-s", "stop"])
        guard result.status == 0 else { throw Failure(message: "pg_ctl stop failed (exit \(result.status)): \(result.output)") }
        log("embedded PostgreSQL stopped in \(directory.path)")
    }

    package func isRunning(binDirectory: String) throws -> Bool {
        guard isInitialized else { return false }
        return try runAsOwner(binDirectory + "/pg_ctl", ["-D", dataDirectory, "status"]).status == 0
    }

    private func initialize(binDirectory: String, log: (String) -> Void) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if Self.isRoot {
            guard getpwnam("postgres") != nil else {
                throw Failure(message: "running as root, but there is no `postgres` user to own the cluster; run `make deps` or run waymark as another user")
            }
            _ = try Subprocess.run("/bin/chown", ["-R", "postgres:postgres", directory.path])
            let reach = try Subprocess.run("/usr/sbin/runuser", ["-u", "postgres", "--", "test", "-w", directory.path])
            guard reach.status == 0 else {
                throw Failure(message: "the postgres user cannot reach \(directory.path) (a parent directory is closed to it); set WAYMARK_DATA_DIR to a directory it can reach, e.g. /var/tmp/waymark")
            }
        }
        log("creating embedded PostgreSQL cluster in \(directory.path)")
        let result = try runAsOwner(binDirectory + "/initdb", ["-D", dataDirectory, "-U", "postgres", "-A", "trust", "-E", "UTF8",
                                                               "--locale=C.UTF-8", "--no-instructions"])
        guard result.status == 0 else { throw Failure(message: "initdb failed (exit \(result.status)): \(result.output)") }
        let settings = """

            # Added by waymark: a private cluster reachable only through its Unix socket.
            listen_addresses = ''
            unix_socket_directories = '\(directory.path)'
            unix_socket_permissions = 0700
            port = \(port)
            max_connections = 300
            shared_buffers = 256MB
            fsync = on
            synchronous_commit = on
            max_wal_size = 2GB
            log_min_messages = warning

            """
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dataDirectory + "/postgresql.conf"))
        handle.seekToEndOfFile()
        handle.write(Data(settings.utf8))
        try handle.close()
    }

    private func runAsOwner(_ executable: String, _ arguments: [String]) throws -> Subprocess.Outcome {
        if Self.isRoot {
            return try Subprocess.run("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments, inheritEnvironment: false)
        }
        return try Subprocess.run(executable, arguments, inheritEnvironment: false)
    }
}
