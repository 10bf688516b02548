/// An error from the HTTP server or the outgoing client.
///
/// Messages state the rule, then the values: "cannot bind 127.0.0.1:8080: address already in
/// use". Tests and callers assert `code`, never the text.
package struct HTTPError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, used in logs.
        package let name: String
        /// The name.
        package var description: String { name }

        /// The listening socket could not be bound: the port is in use, the address is not local,
        /// or binding needs privileges.
        package static let bindFailed = Code(name: "bindFailed")
        /// libmicrohttpd (or the disconnect watcher) refused to start for another reason.
        package static let startFailed = Code(name: "startFailed")
        /// A configuration value is out of range or malformed.
        package static let invalidConfiguration = Code(name: "invalidConfiguration")
        /// The call does not fit the server's lifecycle (`start()` twice, or after `shutdown`).
        package static let invalidState = Code(name: "invalidState")
        /// An outgoing request (`HTTPClient`) failed: no connection, a protocol error, a name that does not resolve.
        package static let clientFailed = Code(name: "clientFailed")
        /// An outgoing request did not finish within its timeout.
        package static let clientTimedOut = Code(name: "clientTimedOut")
        /// An outgoing request was abandoned because its task was cancelled.
        package static let clientCancelled = Code(name: "clientCancelled")
    }

    /// What kind of failure this is; tests and callers switch on it.
    package let code: Code
    /// What was wrong and where (host:port, the offending value).
    package let message: String
    /// Where the error was made.
    package let file: String
    /// The line in `file`.
    package let line: Int

    /// Makes an error; `file` and `line` default to the caller's position.
    package init(_ code: Code, _ message: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    /// "code: message".
    package var description: String { "\(code): \(message)" }
}
