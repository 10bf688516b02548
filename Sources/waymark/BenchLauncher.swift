import Foundation
import WaymarkCLI

/// `waymark bench ...`: runs the `waymark-bench` binary next to this one with the same words.
///
/// The benchmarks were most of this executable's code; they are a binary of their own so the server
/// does not carry them, and this keeps every documented `waymark bench NAME ...` command working.
/// The process is replaced (`execv`), so the exit status, signals and output are the benchmark's.
enum BenchLauncher {
    /// The word `help` lists; `waymark bench --help` prints the benchmarks' own help.
    static let spec = CommandSpec(name: "bench", synopsis: "NAME [options]",
                                  summary: "Benchmarks, run by the waymark-bench binary next to this one (waymark bench --help lists them).")

    static func run(_ arguments: [String], environment: [String: String]) throws {
        let path = try SiblingExecutable.path("waymark-bench")
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, &argv)
        let reason = String(cString: strerror(errno))
        for pointer in argv { free(pointer) }
        throw BenchLaunchFailed(description: "could not run \(path): \(reason)")
    }
}

/// `execv` of `waymark-bench` failed (the file is there but could not be run).
struct BenchLaunchFailed: Error, CustomStringConvertible {
    let description: String
}
