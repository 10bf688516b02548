/// `--name value` and `--name=value` flags, switches and positional words, checked against the
/// flags a command declares (`CommandSpec`).
package struct Flags {
    package private(set) var values: [String: String] = [:]
    package private(set) var switches: Set<String> = []
    package private(set) var positional: [String] = []

    /// Parses `arguments` for `command`.
    ///
    /// `--help` or `-h` anywhere throws `HelpRequested` before anything else is looked at. A flag the
    /// command does not declare, a missing value, a value given to a switch, and more positional
    /// words than the command takes are usage errors naming the command. A word after a flag that
    /// needs a value is that value unless it starts with `--` (`--trips -1` is a bad count, not a flag).
    package init(_ arguments: [String], for command: CommandSpec) throws {
        if arguments.contains("--help") || arguments.contains("-h") { throw HelpRequested(text: command.help) }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-"), argument != "-" else {
                positional.append(argument)
                continue
            }
            let spelled = String(argument.prefix { $0 != "=" })
            let name = String(spelled.drop { $0 == "-" })
            guard spelled.hasPrefix("--"), let flag = command.flags.first(where: { $0.name == name }) else {
                throw command.usageError("unknown flag \(spelled)")
            }
            let inline = argument.firstIndex(of: "=").map { String(argument[argument.index(after: $0)...]) }
            if flag.value == nil {
                guard inline == nil else { throw command.usageError("\(spelled) is a switch and takes no value") }
                switches.insert(name)
            } else if let inline {
                values[name] = inline
            } else {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw command.usageError("\(spelled) needs a value (\(flag.synopsis))")
                }
                values[name] = arguments[index]
                index += 1
            }
        }
        guard positional.count <= command.operands else {
            throw command.usageError("unexpected argument \(positional[command.operands].debugDescription)")
        }
    }

    package func value(_ name: String) -> String? { values[name] }

    package func int(_ name: String, default fallback: Int) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), value > 0 else { throw UsageError("--\(name) must be a positive whole number, got \(text.debugDescription)") }
        return value
    }
}
