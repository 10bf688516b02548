import Foundation
import CSpawn

/// Runs programs to completion with `posix_spawn` and `waitpid`.
///
/// Not Foundation's `Process`: `pg_ctl start` leaves the postmaster running, and it inherits the
/// descriptors `Process` watches to notice the child's exit, so `waitUntilExit` never returns.
/// Output goes to temporary files, not pipes, for the same reason.
package enum Subprocess {
    /// The exit status (128 + signal when killed) and what the program wrote.
    package struct Outcome: Sendable {
        package let status: Int32
        package let stdout: String
        package let stderr: String
        /// stdout and stderr together, trimmed.
        package var output: String { (stdout + stderr).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// Runs `executable` from `/` (a directory every user may enter) with `environment` added to
    /// ours, or with `environment` and a standard PATH alone when `inheritEnvironment` is false.
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                            inheritEnvironment: Bool = true) throws -> Outcome {
        let running = try spawn(executable, arguments, environment: environment, inheritEnvironment: inheritEnvironment)
        defer { running.cleanUp() }
        let status = running.wait()
        return Outcome(status: status, stdout: running.stdout, stderr: running.stderr)
    }
}

extension Subprocess {
    /// A program started in the background, its stderr captured in a file (see `spawn`).
    package final class Running: Sendable {
        package let pid: pid_t
        /// Where the program's stderr goes; read it to follow its log.
        package let stderrPath: String
        package let stdoutPath: String

        init(pid: pid_t, stdoutPath: String, stderrPath: String) {
            self.pid = pid
            self.stdoutPath = stdoutPath
            self.stderrPath = stderrPath
        }

        /// What the program wrote to stderr so far.
        package var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
        package var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

        /// Sends `signal` and waits for the exit; returns the exit status (128 + signal when killed).
        @discardableResult
        package func stop(signal: Int32 = SIGTERM) -> Int32 {
            kill(pid, signal)
            return wait()
        }

        /// Waits for the exit; returns the exit status (128 + signal when killed).
        package func wait() -> Int32 {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }

        /// Removes the captured output files.
        package func cleanUp() {
            try? FileManager.default.removeItem(atPath: stdoutPath)
            try? FileManager.default.removeItem(atPath: stderrPath)
        }
    }

    /// Starts `executable` from `/` in the background (stdin from /dev/null, stdout and stderr to
    /// files), with `environment` added to ours.
    ///
    /// posix_spawn + waitpid, not Foundation's Process: its `waitUntilExit` hung after `pg_ctl
    /// start`, whose postmaster inherits the pipes.
    package static func spawn(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                              inheritEnvironment: Bool = true) throws -> Running {
        let base = NSTemporaryDirectory() + "waymark-spawn-\(UUID().uuidString)"
        let outPath = base + ".out", errPath = base + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Nothing else is inherited: a child holding a copy of one of our sockets (a client
        // connection, a listener) would keep it open after we close it.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        // `env -C /` starts the program in `/`; the other variables are passed as KEY=VALUE words.
        // Without inheritance (`env -i`), nothing of ours (a secret in WAYMARK_JWT_SECRET) reaches the program.
        var words = inheritEnvironment ? ["/usr/bin/env", "-C", "/"] : ["/usr/bin/env", "-i", "-C", "/", "PATH=" + Self.standardPath]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { words.append("\(key)=\(value)") }
        words.append(executable)
        words.append(contentsOf: arguments)
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw EmbeddedPostgres.Failure(message: "could not run \(executable): \(String(cString: strerror(spawned)))")
        }
        return Running(pid: pid, stdoutPath: outPath, stderrPath: errPath)
    }

    /// The PATH a program started without our environment gets.
    static let standardPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
}
