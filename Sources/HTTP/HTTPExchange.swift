/// One finished request/response, reported to the server's observer for access logs and metrics.
///
/// Reported once per request that reached the server's handler code (including the server's own
/// 413 and 503 answers), when libmicrohttpd is done with it. `status` is 499 when the client left
/// before any response was queued.
package struct HTTPExchange: Sendable {
    package var method: String
    package var path: String
    package var status: Int
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
