import Foundation

/// How every waymark executable ends a command: the exit status and what goes where.
///
/// `--help` prints the help on stdout (0); a usage error prints the message and the command's usage
/// on stderr (2); any other error prints the message on stderr (1).
package enum CommandRunner {
    /// Runs `body`; `errorPrefix` begins an error's line (`waymark export`) unless a usage error
    /// names its command, and `usage` follows a usage error that carries none of its own.
    package static func run(isolation: isolated (any Actor)? = #isolation, errorPrefix: String, usage: String,
                            _ body: () async throws -> Void) async {
        do {
            try await body()
        } catch let help as HelpRequested {
            printOut(help.text)
        } catch let error as UsageError {
            let text = "\(error.command.map { "waymark " + $0 } ?? errorPrefix): \(error)\n\n\(error.usage ?? usage)\n"
            FileHandle.standardError.write(Data(text.utf8))
            exit(2)
        } catch {
            FileHandle.standardError.write(Data("\(errorPrefix): \(error)\n".utf8))
            exit(1)
        }
    }
}
