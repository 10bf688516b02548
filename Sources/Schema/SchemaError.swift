/// An error while migrating the database schema.
package struct SchemaError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let name: String
        package var description: String { name }
        /// A migration's SQL failed; nothing of it was applied.
        package static let migrationFailed = Code(name: "migrationFailed")
        /// An applied migration's text differs from the one this binary ships.
        package static let checksumMismatch = Code(name: "checksumMismatch")
        /// The database has a migration this binary does not know (it is newer than the binary).
        package static let unknownMigration = Code(name: "unknownMigration")
    }

    package let code: Code
    package let message: String
    package let underlying: (any Error)?

    package init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    package var description: String {
        if let underlying { return "\(code): \(message): \(underlying)" }
        return "\(code): \(message)"
    }
}
