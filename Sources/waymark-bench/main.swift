import Foundation
import WaymarkCLI

// `waymark-bench NAME [options]`: the benchmarks, a binary apart from the server's (docs/performance-notes.md,
// "The benchmarks' own binary"). `waymark bench NAME ...` runs this with the words after `bench`, so
// messages and help name the command as users type it: `waymark bench NAME`.
await CommandRunner.run(errorPrefix: "waymark bench", usage: BenchCommand.spec.help) {
    try await BenchCommand.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
}
