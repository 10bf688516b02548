/// An error from the HTTP server.
///
/// Messages state the rule, then the values: "cannot bind 127.0.0.1:8080: address already in
/// use". Tests and callers assert `code`, never the text.
package struct HTTPError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let name: String
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
    }

    package let code: Code
    package let message: String
    package let file: String
    package let line: Int

    package init(_ code: Code, _ message: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    package var description: String { "\(code): \(message)" }
}
