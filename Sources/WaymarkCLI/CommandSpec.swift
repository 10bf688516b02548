import Foundation

/// What one command accepts, declared once: `--help` prints it and `Flags` checks a command line
/// against it.
///
/// A flag that is not declared is a usage error naming it and the command, so a typo fails instead
/// of being ignored (`export --sinse T` once exported everything). A command with subcommands
/// (`db`, `bench`) lists them in `subcommands`; each declares its own flags.
package struct CommandSpec: Sendable {
    /// One `--name` a command takes.
    package struct Flag: Sendable {
        package let name: String
        /// The value's placeholder in the help (`N`, `T`, `FILE`); nil for a switch, which takes none.
        package let value: String?
        package let help: String

        /// A flag with a value: `--name VALUE` or `--name=VALUE`.
        package static func value(_ name: String, _ placeholder: String, _ help: String) -> Flag {
            Flag(name: name, value: placeholder, help: help)
        }

        /// A switch: there or not, no value.
        package static func `switch`(_ name: String, _ help: String) -> Flag {
            Flag(name: name, value: nil, help: help)
        }

        /// `--name VALUE` or `--name`, as the help shows it.
        package var synopsis: String { "--" + name + (value.map { " " + $0 } ?? "") }
    }

    /// The words after `waymark`: `export`, `db start`, `bench http`.
    package let name: String
    /// What follows the name in the usage line: `--provider P [--since T] ...`.
    package let synopsis: String
    /// What the command does; the first sentence also stands in its parent's list.
    package let summary: String
    package var flags: [Flag] = []
    /// The most positional words the command takes (`import FILE`: 1).
    package var operands: Int = 0
    package var subcommands: [CommandSpec] = []

    package init(name: String, synopsis: String, summary: String, flags: [Flag] = [], operands: Int = 0, subcommands: [CommandSpec] = []) {
        self.name = name
        self.synopsis = synopsis
        self.summary = summary
        self.flags = flags
        self.operands = operands
        self.subcommands = subcommands
    }

    /// The last word of the name: what selects a subcommand (`start` of `db start`).
    package var word: String { name.split(separator: " ").last.map(String.init) ?? name }

    /// The text `--help` prints.
    package var help: String {
        var lines = ["usage: waymark \(name) \(synopsis)", "", summary]
        if !subcommands.isEmpty {
            lines += ["", "commands (each takes --help):"]
            let width = (subcommands.map(\.word.count).max() ?? 0) + 2
            for command in subcommands {
                let first = command.summary.prefix { $0 != "." && $0 != "\n" }
                lines.append("  " + command.word.padding(toLength: width, withPad: " ", startingAt: 0) + first)
            }
        }
        let rows = flags.map { ($0.synopsis, $0.help) } + [("-h, --help", "show this text")]
        let width = min((rows.map(\.0.count).max() ?? 0) + 2, 28)
        lines += ["", "options:"]
        for (flag, text) in rows {
            lines.append(flag.count < width
                         ? "  " + flag.padding(toLength: width, withPad: " ", startingAt: 0) + text
                         : "  " + flag + "\n  " + String(repeating: " ", count: width) + text)
        }
        return lines.joined(separator: "\n")
    }

    /// A usage error of this command: printed as `waymark NAME: message`, then this command's help.
    package func usageError(_ message: String) -> UsageError {
        UsageError(message, command: name, usage: help)
    }

    /// The subcommand the first of `arguments` names, and the words after it.
    ///
    /// `--help` or `-h` in place of a subcommand asks for this command's help; a missing or unknown
    /// word is a usage error saying `expected`.
    package func subcommand(_ arguments: [String], expected: String) throws -> (CommandSpec, [String]) {
        guard let word = arguments.first, !word.hasPrefix("-") else {
            if let first = arguments.first, first == "--help" || first == "-h" { throw HelpRequested(text: help) }
            throw usageError(expected)
        }
        guard let command = subcommands.first(where: { $0.word == word }) else {
            throw usageError("\(expected); got \(word.debugDescription)")
        }
        return (command, Array(arguments.dropFirst()))
    }
}

/// `--help` or `-h` was given: print `text` on stdout and exit 0, before anything else is checked.
package struct HelpRequested: Error {
    package let text: String
}

extension CommandSpec.Flag {
    /// The embedded cluster's place (`Settings`).
    package static let cluster: [CommandSpec.Flag] = [
        .value("data-dir", "DIR", "the embedded cluster's directory (WAYMARK_DATA_DIR, .waymark/pg)"),
        .value("pg-port", "N", "the embedded cluster's port, which names its socket (WAYMARK_PG_PORT, 5432)"),
    ]

    /// How a command that uses the database finds it, and how much it logs (`Settings`).
    package static let database: [CommandSpec.Flag] = [
        .value("database-url", "URL", "a libpq URL or key=value string (DATABASE_URL; unset: the embedded cluster)"),
    ] + cluster + [logLevel]

    package static let logLevel = CommandSpec.Flag.value("log-level", "LEVEL", "debug, info, warning or error (WAYMARK_LOG_LEVEL, info)")
}
