/// An error from the PostgreSQL layer.
///
/// `message` says what failed and where, never the bind values of a statement. `sqlState`
/// carries PostgreSQL's five-character code when the server sent one, so callers can tell a
/// unique violation from a serialization failure without parsing text.
package struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let name: String
        package var description: String { name }

        /// The server could not be reached, or refused the connection.
        package static let connectionFailed = Code(name: "connectionFailed")
        /// The connection broke while a statement was in flight; the outcome of that statement is unknown.
        package static let connectionLost = Code(name: "connectionLost")
        /// The server answered a statement with an error (see `sqlState`).
        package static let serverError = Code(name: "serverError")
        /// A row or value did not have the expected shape.
        package static let protocolViolation = Code(name: "protocolViolation")
        /// The pool was shut down, or its queue of waiting requests is full.
        package static let unavailable = Code(name: "unavailable")
        /// A configuration value is wrong.
        package static let invalidConfiguration = Code(name: "invalidConfiguration")
    }

    package let code: Code
    package let message: String
    /// PostgreSQL's SQLSTATE for server errors (e.g. `23505` unique violation).
    package let sqlState: String?
    package let file: String
    package let line: Int

    package init(_ code: Code, _ message: String, sqlState: String? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.file = file
        self.line = line
    }

    /// True when retrying the same work later may succeed (the connection was lost or could not be made,
    /// or the server reported a transient condition such as a serialization failure or shutdown).
    package var isRetriable: Bool {
        if code == .connectionFailed || code == .connectionLost || code == .unavailable { return true }
        guard let state = sqlState else { return false }
        return state == "40001" || state == "40P01" || state.hasPrefix("57P") || state.hasPrefix("08")
    }

    /// True when the server reported a unique constraint violation.
    package var isUniqueViolation: Bool { sqlState == "23505" }

    /// True when the session no longer has a prepared statement it was asked to run (26000
    /// invalid_sql_statement_name, as `DEALLOCATE` or `DISCARD ALL` leave it).
    package var isLostPreparedStatement: Bool { sqlState == Self.lostPreparedStatementState }

    static let lostPreparedStatementState = "26000"

    package var description: String {
        if let sqlState { return "\(code): \(message) (SQLSTATE \(sqlState))" }
        return "\(code): \(message)"
    }
}
