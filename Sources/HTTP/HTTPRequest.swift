/// A complete HTTP request as the handler sees it.
///
/// The body has been read in full (and is within `HTTPServer.Configuration.maxBodyBytes`) before
/// the handler is called. `path` is the path as libmicrohttpd gives it: percent-decoded, without
/// the query string.
package struct HTTPRequest: Sendable {
    /// The request method as sent (`GET`, `POST`, ...).
    package var method: String
    /// The percent-decoded path, without the query.
    package var path: String
    /// Every query argument in order, repeated names kept, names and values percent-decoded. An
    /// argument without `=` has the value "".
    package var query: [(name: String, value: String)]
    /// The request headers in the order received.
    package var headers: HTTPHeaders
    /// The request body (empty when there was none).
    package var body: [UInt8]
    /// The request id echoed in the response's `x-request-id`: the client's own when acceptable,
    /// else one the server generated.
    package var requestId: String
    /// The peer's IP address as text (the proxy's, behind one); "" when unknown.
    package var clientAddress: String

    /// Makes a request (the server does; handler tests may too).
    package init(
        method: String,
        path: String,
        query: [(name: String, value: String)] = [],
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        requestId: String,
        clientAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.requestId = requestId
        self.clientAddress = clientAddress
    }

    /// Every value of the query argument `name` (exact, case-sensitive match), in order.
    package func queryValues(_ name: String) -> [String] {
        query.filter { $0.name == name }.map(\.value)
    }

    /// The first value of the named header (case-insensitive), or nil.
    package func header(_ name: String) -> String? {
        headers[name]
    }
}
