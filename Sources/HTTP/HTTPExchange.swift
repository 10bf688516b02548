/// One finished request/response, reported to the server's observer for access logs and metrics.
///
/// Reported once per request that reached the server's handler code (including the server's own
/// 413 and 503 answers), when libmicrohttpd is done with it. `status` is 499 when the client left
/// before any response was queued.
package struct HTTPExchange: Sendable {
    /// The request method.
    package var method: String
    /// The percent-decoded path, without the query.
    package var path: String
    /// The status sent (499 when the client left before any response was queued).
    package var status: Int
    /// The `x-request-id` of the response.
    package var requestId: String
    /// From the request headers being received to the last response byte being handed to the socket.
    package var durationSeconds: Double
    /// Request body bytes received.
    package var requestBytes: Int
    /// Response body bytes handed to the socket (for streams: all chunks so far).
    package var responseBytes: Int
    /// False when the connection ended before the response was completely sent (client gone,
    /// timeout, shutdown, stream aborted).
    package var completed: Bool

    /// Makes an exchange (the server does; tests and log formatters may too).
    package init(
        method: String, path: String, status: Int, requestId: String, durationSeconds: Double,
        requestBytes: Int, responseBytes: Int, completed: Bool
    ) {
        self.method = method
        self.path = path
        self.status = status
        self.requestId = requestId
        self.durationSeconds = durationSeconds
        self.requestBytes = requestBytes
        self.responseBytes = responseBytes
        self.completed = completed
    }
}
