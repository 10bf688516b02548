import Synchronization

/// Per-request state, owned by libmicrohttpd's `*con_cls` from the first access-handler call
/// until the request-completed notification releases it.
///
/// `@unchecked Sendable`: the stored `var`s are read and written only on the connection's
/// libmicrohttpd thread (MHD calls the access handler and the completion notification for one
/// connection on one thread, one call at a time). `phase` is the only state other threads touch
/// (the handler's Task, shutdown), and it is behind a Mutex. Suspending happens inside that lock
/// right before `phase` becomes `.running`, so whoever later sees `.running` under the lock may
/// resume the connection: it is suspended, and nobody else will resume it.
final class RequestContext: @unchecked Sendable {
    /// Where the request is between MHD, the handler and the response.
    enum Phase {
        /// Headers or body still arriving.
        case receiving
        /// The handler runs; the connection is suspended.
        case running
        /// A response is stored and the connection resumed; the next access-handler call queues it.
        case ready(HTTPResponse)
        /// A response was queued with MHD.
        case answered
        /// MHD reported the request complete; nothing may touch the connection any more.
        case finished
    }

    let connection: ConnectionHandle
    let method: String
    let path: String
    let query: [(name: String, value: String)]
    let headers: HTTPHeaders
    let requestId: String
    let clientAddress: String
    let started: ContinuousClock.Instant

    var body: [UInt8] = []
    var receivedBytes = 0
    var tooLarge = false
    /// The status queued with MHD, nil until then.
    var status: Int?
    var responseBytes = 0
    var stream: HTTPStream?
    /// True while the request counts in `ServerCore.inFlight`.
    var countedInFlight = false

    let phase = Mutex(Phase.receiving)

    init(
        connection: ConnectionHandle, method: String, path: String,
        query: [(name: String, value: String)], headers: HTTPHeaders, clientAddress: String, started: ContinuousClock.Instant
    ) {
        self.connection = connection
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.requestId = RequestID.resolve(headers["x-request-id"])
        self.clientAddress = clientAddress
        self.started = started
    }

    /// The request handed to the handler; takes the body out of the context.
    func takeRequest() -> HTTPRequest {
        let request = HTTPRequest(method: method, path: path, query: query, headers: headers, body: body, requestId: requestId,
                                  clientAddress: clientAddress)
        body = []
        return request
    }
}
