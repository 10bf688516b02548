/// What a handler answers: a status, headers and a body of bytes or a stream.
///
/// The server adds `x-request-id`, `Content-Length` (byte bodies) or chunked encoding (streams),
/// and `Date`. Handler headers named `Content-Length`, `Transfer-Encoding` or `x-request-id` are
/// ignored, so the framing the server chose cannot be contradicted. A status outside 100...599 is
/// answered as a 500.
package struct HTTPResponse: Sendable {
    /// The response body.
    package enum Body: Sendable {
        /// A body known in full, sent with `Content-Length`.
        case bytes([UInt8])
        /// A body written while the response is being sent (Server-Sent Events), sent chunked.
        case stream(HTTPStream)
    }

    /// The HTTP status code, 100...599.
    package var status: Int
    /// Response headers in order; the reserved ones (see the type's summary) are ignored.
    package var headers: [(name: String, value: String)]
    /// The body: bytes, or a stream.
    package var body: Body

    /// A response with the given parts (an empty byte body by default).
    package init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a byte body of the given content type.
    package static func bytes(
        status: Int = 200,
        contentType: String,
        _ body: [UInt8],
        headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: [(name: "Content-Type", value: contentType)] + headers, body: .bytes(body))
    }

    /// A `text/plain; charset=utf-8` response.
    package static func text(status: Int = 200, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        bytes(status: status, contentType: "text/plain; charset=utf-8", Array(text.utf8), headers: headers)
    }

    /// A streamed response, `text/event-stream` unless told otherwise.
    package static func stream(
        status: Int = 200,
        contentType: String = "text/event-stream",
        _ stream: HTTPStream,
        headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: [(name: "Content-Type", value: contentType)] + headers, body: .stream(stream))
    }
}
