internal import CMicroHTTPD
import Foundation
import Synchronization

/// The server state that libmicrohttpd's callbacks reach through their `cls` pointer.
///
/// Retained on behalf of the daemon from `start()` until after `MHD_stop_daemon`. The phase moves
/// one way: serving → draining (new requests get 503) → forcing (no request may suspend any more;
/// handlers past the grace period are answered 503; streams are finished). Registering a running
/// handler or an open stream and reading the phase happen under one lock, so shutdown sees every
/// connection that is or may become suspended.
final class ServerCore: Sendable {
    enum Phase: Sendable {
        case serving
        case draining
        case forcing
    }

    /// The buffer libmicrohttpd allocates with each streamed response (SSE, long streams) and
    /// fills from the stream in pieces of at most this size. Every open stream holds one for
    /// its whole life; events larger than it are sent in several pieces.
    static let streamBlockBytes = 4 * 1024

    let configuration: HTTPServer.Configuration
    let handler: any HTTPHandler
    let observer: (@Sendable (HTTPExchange) -> Void)?
    let watcher: DisconnectWatcher
    /// Requests that reached the handler stage and are not complete, streams excluded.
    let inFlight = Atomic<Int>(0)
    /// Streams closed because their client did not read and their buffer overflowed.
    let droppedStreams = Atomic<Int>(0)
    /// Mirrors `phase != .serving` for the per-request check without taking the lock.
    let draining = Atomic<Bool>(false)
    private let registry = Mutex(Registry())

    private struct Registry {
        var phase = Phase.serving
        var running: [ObjectIdentifier: RequestContext] = [:]
        var streams: [ObjectIdentifier: HTTPStream] = [:]
    }

    init(
        configuration: HTTPServer.Configuration, handler: any HTTPHandler,
        observer: (@Sendable (HTTPExchange) -> Void)?, watcher: DisconnectWatcher
    ) {
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
        self.watcher = watcher
    }

    var openStreams: Int {
        registry.withLock { $0.streams.count }
    }

    // MARK: Lifecycle

    /// New requests are answered 503 from now on.
    func beginDraining() {
        registry.withLock { registry in
            if registry.phase == .serving { registry.phase = .draining }
        }
        draining.store(true, ordering: .releasing)
    }

    /// Ends the grace period: handlers still running are answered 503 (their late results are
    /// dropped) and every open stream is finished with its final bytes. Nothing suspends after this.
    func forceRemaining() {
        let (running, streams) = registry.withLock { registry in
            registry.phase = .forcing
            return (Array(registry.running.values), Array(registry.streams.values))
        }
        draining.store(true, ordering: .releasing)
        for context in running {
            settle(context, with: errorResponse(503, "the server is shutting down; the request did not finish in time"))
        }
        for stream in streams {
            stream.finish(stream.finalBytesOnShutdown)
        }
    }

    // MARK: Handler dispatch

    /// Suspends the connection and runs the handler in a Task. Runs on the connection's MHD thread.
    /// False when shutdown no longer allows suspending; the caller answers 503 instead.
    func dispatch(_ context: RequestContext, request: HTTPRequest, on connection: OpaquePointer) -> Bool {
        let started = context.phase.withLock { phase -> Bool in
            guard case .receiving = phase else { return false }
            let admitted = registry.withLock { registry -> Bool in
                guard registry.phase != .forcing else { return false }
                registry.running[ObjectIdentifier(context)] = context
                return true
            }
            guard admitted else { return false }
            MHD_suspend_connection(connection)
            phase = .running
            return true
        }
        guard started else { return false }
        let handler = self.handler
        Task {
            let response = await handler.respond(to: request)
            self.settle(context, with: response)
        }
        return true
    }

    /// Stores the response of a running request and resumes its connection; the next access-handler
    /// call queues it. A request that is no longer running (already forced) drops the response.
    func settle(_ context: RequestContext, with response: HTTPResponse) {
        let resume = context.phase.withLock { phase -> Bool in
            guard case .running = phase else { return false }
            phase = .ready(response)
            return true
        }
        _ = registry.withLock { $0.running.removeValue(forKey: ObjectIdentifier(context)) }
        if resume {
            MHD_resume_connection(context.connection.pointer)
        } else if case .stream(let stream) = response.body {
            stream.abandon()
        }
    }

    // MARK: Streams

    /// Records an open stream; true when shutdown has already begun finishing streams, in which
    /// case the caller finishes this one too.
    func registerStream(_ stream: HTTPStream) -> Bool {
        registry.withLock { registry in
            registry.streams[ObjectIdentifier(stream)] = stream
            return registry.phase == .forcing
        }
    }

    func unregisterStream(_ stream: HTTPStream) {
        _ = registry.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    // MARK: Responses

    /// A response produced by the server itself, rendered by `configuration.errorBody`.
    func errorResponse(_ status: Int, _ message: String) -> HTTPResponse {
        let rendered = configuration.errorBody(status, message)
        return .bytes(status: status, contentType: rendered.contentType, rendered.body)
    }

    /// Queues `response` on the connection. Runs on the connection's MHD thread.
    func queue(_ response: HTTPResponse, for context: RequestContext, on connection: OpaquePointer, close: Bool = false) -> MHD_Result {
        var response = response
        if !(100...599).contains(response.status) {
            if case .stream(let stream) = response.body { stream.abandon() }
            response = errorResponse(500, "the handler answered with the invalid status \(response.status)")
        }
        var finishStream: HTTPStream?
        let created: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            created = bytes.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
            }
            context.responseBytes = bytes.count
        case .stream(let stream):
            let socket = waymark_mhd_connection_fd(connection)
            let attached = stream.attach(connection: ConnectionHandle(pointer: connection), socket: socket, watcher: watcher,
                                         limit: configuration.streamBufferBytes) { [weak self] in
                self?.droppedStreams.add(1, ordering: .relaxed)
            }
            guard attached else {
                return queue(errorResponse(500, "the handler answered with a stream that was already used"),
                             for: context, on: connection, close: close)
            }
            let binding = Unmanaged.passRetained(StreamBinding(stream: stream, core: self)).toOpaque()
            created = MHD_create_response_from_callback(UInt64.max, Self.streamBlockBytes, readStream, binding, releaseStream)
            if created == nil {
                Unmanaged<StreamBinding>.fromOpaque(binding).release()
                stream.abandon()
            } else {
                context.stream = stream
                if context.countedInFlight {
                    context.countedInFlight = false
                    inFlight.subtract(1, ordering: .relaxed)
                }
                if registerStream(stream) { finishStream = stream }
            }
        }
        guard let created else { return .NO }
        for (name, value) in response.headers where !Self.isReserved(name) {
            _ = MHD_add_response_header(created, name, value)
        }
        _ = MHD_add_response_header(created, "x-request-id", context.requestId)
        if close || draining.load(ordering: .acquiring) {
            _ = MHD_add_response_header(created, "Connection", "close")
        }
        let result = MHD_queue_response(connection, UInt32(response.status), created)
        MHD_destroy_response(created)
        if result == .YES {
            context.status = response.status
            context.phase.withLock { $0 = .answered }
        }
        finishStream?.finish(finishStream?.finalBytesOnShutdown ?? [])
        return result
    }

    /// Queues one of the server's own error responses.
    func queueError(_ status: Int, _ message: String, for context: RequestContext, on connection: OpaquePointer, close: Bool) -> MHD_Result {
        queue(errorResponse(status, message), for: context, on: connection, close: close)
    }

    /// How many body bytes past `maxBodyBytes` are read and discarded so the 413 can be sent as an
    /// ordinary response; past that the connection is cut (see `abortTooLarge`).
    static let discardAllowance = 1 << 20

    /// Writes a 413 straight to the socket and tells MHD to close the connection.
    ///
    /// Only for a chunked body that runs past the limit and the discard allowance: MHD cannot queue
    /// a response mid-body, and reading on forever is not an option. Nothing else has been written
    /// for this request and MHD closes the connection right after, so the bytes cannot interleave
    /// with MHD's. Best effort: one non-blocking send.
    func abortTooLarge(_ context: RequestContext, on connection: OpaquePointer) -> MHD_Result {
        let limit = configuration.maxBodyBytes
        let rendered = configuration.errorBody(413, "the request body exceeds the limit of \(limit) bytes")
        let head = "HTTP/1.1 413 Payload Too Large\r\nContent-Type: \(rendered.contentType)\r\n"
            + "Content-Length: \(rendered.body.count)\r\nx-request-id: \(context.requestId)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + rendered.body
        let socket = waymark_mhd_connection_fd(connection)
        if socket >= 0 {
            _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, SocketConstants.noSignal | SocketConstants.dontWait) }
        }
        context.status = 413
        context.responseBytes = rendered.body.count
        return .NO
    }

    /// Headers the server owns: the framing MHD computes, and the request id.
    static func isReserved(_ name: String) -> Bool {
        HTTPHeaders.namesMatch(name, "Content-Length") || HTTPHeaders.namesMatch(name, "Transfer-Encoding")
            || HTTPHeaders.namesMatch(name, "x-request-id")
    }

    // MARK: Completion

    /// MHD is done with the request: report it and drop what is left. Runs on the connection's MHD
    /// thread (or the thread stopping the daemon).
    func complete(_ context: RequestContext, termination: MHD_RequestTerminationCode) {
        let previous = context.phase.withLock { phase -> RequestContext.Phase in
            defer { phase = .finished }
            return phase
        }
        if case .ready(let response) = previous, case .stream(let stream) = response.body {
            stream.abandon()
        }
        if context.countedInFlight {
            context.countedInFlight = false
            inFlight.subtract(1, ordering: .relaxed)
        }
        guard let observer else { return }
        let elapsed = context.started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        observer(HTTPExchange(
            method: context.method,
            path: context.path,
            status: context.status ?? 499,
            requestId: context.requestId,
            durationSeconds: seconds,
            requestBytes: context.receivedBytes,
            responseBytes: context.stream?.bytesDelivered ?? context.responseBytes,
            completed: termination == .REQUEST_TERMINATED_COMPLETED_OK && context.status != nil
        ))
    }
}
