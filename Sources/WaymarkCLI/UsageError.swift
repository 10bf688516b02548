/// A wrong command line or setting; printed with the command's usage, exit status 2.
package struct UsageError: Error, CustomStringConvertible {
    package let description: String
    /// The command it belongs to (`export`, `db start`) when the thrower knows it; main names the command word otherwise.
    package var command: String?
    /// That command's help; nil: main prints the help of the command word it ran.
    package var usage: String?

    package init(_ description: String, command: String? = nil, usage: String? = nil) {
        self.description = description
        self.command = command
        self.usage = usage
    }
}
