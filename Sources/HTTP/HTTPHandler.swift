/// Answers HTTP requests.
///
/// `respond` runs in a `Task`, never on a libmicrohttpd thread: while it runs, the connection is
/// suspended, so a slow handler holds no server thread. It cannot fail; errors are responses.
package protocol HTTPHandler: Sendable {
    /// Produces the response to one request.
    func respond(to request: HTTPRequest) async -> HTTPResponse
}
