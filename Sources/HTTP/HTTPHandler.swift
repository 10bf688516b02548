/// Answers HTTP requests.
///
/// `respond` runs in a `Task`, never on a libmicrohttpd thread: while it runs, the connection is
/// suspended, so a slow handler holds no server thread. It cannot fail; errors are responses.
///
/// `respondImmediately` is the fast path, tried first for every complete request: it runs on the
/// connection's libmicrohttpd thread, before any Task is made, and its answer is queued at once.
/// It must never block or wait (no database, no locks held for long, no I/O): answer from memory
/// or return nil, and the request goes on to `respond` as usual.
package protocol HTTPHandler: Sendable {
    /// Produces the response to one request.
    func respond(to request: HTTPRequest) async -> HTTPResponse

    /// The response when it can be produced at once from memory, else nil (then `respond` runs).
    func respondImmediately(to request: HTTPRequest) -> HTTPResponse?
}

extension HTTPHandler {
    /// No fast path: every request goes to `respond`.
    package func respondImmediately(to request: HTTPRequest) -> HTTPResponse? { nil }
}
