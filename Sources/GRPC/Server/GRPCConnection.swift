import CNGHTTP2
import Foundation
import HTTP
import Synchronization

/// One HTTP/2 connection of the gRPC server: an nghttp2 server session driven by its own thread.
///
/// The thread polls the socket, a wake-up pipe and the earliest deadline; it feeds received bytes
/// to nghttp2, starts a Task per complete request, submits the answers tasks post back through the
/// outbox, and writes what nghttp2 produces without blocking. nghttp2 does the flow control in both
/// directions (WINDOW_UPDATE as data is consumed; DATA deferred while the peer's window is closed),
/// PING acks and SETTINGS.
///
/// `@unchecked Sendable`: `session`, `streams` and the write buffer are touched only by the
/// connection's thread (nghttp2 callbacks run inside `mem_recv`/`mem_send` on that thread); the
/// outbox is behind a Mutex and the wake-up pipe is written by any thread.
final class GRPCConnection: @unchecked Sendable {
    /// One request stream.
    final class Stream {
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        var deadline: ContinuousClock.Instant?
        var task: Task<Void, Never>?
        /// Set once an answer (or error) was submitted: later completions are ignored.
        var answered = false
        /// Rejected while receiving (too large): further DATA is dropped.
        var rejected = false
        /// The framed response message and how much of it nghttp2 has taken.
        var response: [UInt8] = []
        var sent = 0
    }

    let fd: Int32
    let handler: any GRPCHandler
    let maxMessageBytes: Int
    let maxConcurrentStreams: Int
    let idleTimeout: Duration
    /// Since when the connection has had no stream open (nil while one is): past `idleTimeout` it
    /// gets GOAWAY and is closed, as gRPC's MAX_CONNECTION_IDLE does; a client that connects and
    /// never calls holds a thread only that long.
    private var idleSince: ContinuousClock.Instant? = .now
    private var session: OpaquePointer?
    private var streams: [Int32: Stream] = [:]
    private var pump: HTTP2Pump
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Answers posted by tasks, and whether the connection has closed. The wake-up pipe is closed
    /// only in `deinit`, when no task can hold the connection any more, so no late task writes to
    /// a reused descriptor; the write itself happens outside the lock.
    private let outbox = Mutex<(answers: [(Int32, GRPCResponse)], closed: Bool)>(([], false))
    private let stopping = Atomic<Bool>(false)
    private var goawaySent = false
    private let onClose: @Sendable (GRPCConnection) -> Void

    init(fd: Int32, handler: any GRPCHandler, maxMessageBytes: Int, maxConcurrentStreams: Int = 100, idleTimeout: Duration = .seconds(120),
         onClose: @escaping @Sendable (GRPCConnection) -> Void) throws {
        self.fd = fd
        self.handler = handler
        self.maxMessageBytes = maxMessageBytes
        self.maxConcurrentStreams = maxConcurrentStreams
        self.idleTimeout = idleTimeout
        self.onClose = onClose
        var pipeFds: [Int32] = [0, 0]
        guard pipe(&pipeFds) == 0 else { throw GRPCError("pipe failed: errno \(errno)") }
        wakeRead = pipeFds[0]
        wakeWrite = pipeFds[1]
        _ = fcntl(wakeRead, F_SETFL, fcntl(wakeRead, F_GETFL) | O_NONBLOCK)
        _ = fcntl(wakeWrite, F_SETFL, fcntl(wakeWrite, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        pump = HTTP2Pump(fd: fd, wakeRead: wakeRead)
        var one: Int32 = 1
        _ = setsockopt(fd, SocketConstants.tcp, TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Starts the connection's thread.
    func start() {
        let thread = Thread { [self] in
            self.run()
        }
        thread.name = "waymark-grpc-conn"
        thread.start()
    }

    /// Asks the connection to finish: GOAWAY now, close once the streams in flight are answered.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wake()
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Called by a request's task (any thread) with the handler's answer.
    func complete(_ streamId: Int32, _ response: GRPCResponse) {
        let first = outbox.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.answers.append((streamId, response))
            return state.answers.count == 1
        }
        // One wake-up per batch: the loop drains every answer queued before it runs.
        if first { wake() }
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: - The loop (connection thread only)

    private func run() {
        defer {
            for stream in streams.values { stream.task?.cancel() }
            streams.removeAll()
            if let session { nghttp2_session_del(session) }
            close(fd)
            outbox.withLock { state in
                state.closed = true
                state.answers.removeAll()
            }
            onClose(self)
        }
        guard makeSession() else { return }
        while true {
            if stopping.load(ordering: .sequentiallyConsistent), !goawaySent {
                goawaySent = true
                _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session), UInt32(NGHTTP2_NO_ERROR.rawValue), nil, 0)
            }
            drainOutbox()
            expireDeadlines()
            if !goawaySent, let idleSince, ContinuousClock.now - idleSince >= idleTimeout {
                goawaySent = true
                _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session), UInt32(NGHTTP2_NO_ERROR.rawValue), nil, 0)
            }
            guard pump.flush(session) else { return }
            let wantsRead = nghttp2_session_want_read(session) != 0
            let wantsWrite = nghttp2_session_want_write(session) != 0 || pump.hasOutput
            if !wantsRead && !wantsWrite { return }
            if goawaySent && streams.values.allSatisfy({ $0.answered }) && !pump.hasOutput && nghttp2_session_want_write(session) == 0 { return }
            guard pump.receive(session, timeout: pollTimeout()) else { return }
        }
    }

    private func makeSession() -> Bool {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0 else { return false }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            let connection = Unmanaged<GRPCConnection>.fromOpaque(user).takeUnretainedValue()
            if frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
                connection.streams[frame.pointee.hd.stream_id] = Stream()
                connection.idleSince = nil
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value, let user else { return 0 }
            let connection = Unmanaged<GRPCConnection>.fromOpaque(user).takeUnretainedValue()
            guard let stream = connection.streams[frame.pointee.hd.stream_id] else { return 0 }
            let key = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
            let text = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
            stream.headers.append((key, text))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamId, data, length, user in
            guard let data, let user else { return 0 }
            let connection = Unmanaged<GRPCConnection>.fromOpaque(user).takeUnretainedValue()
            guard let stream = connection.streams[streamId], !stream.rejected, !stream.answered else { return 0 }
            if stream.body.count + length > connection.maxMessageBytes + 5 {
                stream.rejected = true
                stream.body = []
                connection.answer(streamId, stream, .status(.resourceExhausted("the request message is larger than \(connection.maxMessageBytes) bytes")))
                return 0
            }
            stream.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            let connection = Unmanaged<GRPCConnection>.fromOpaque(user).takeUnretainedValue()
            let type = frame.pointee.hd.type
            let ended = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            if ended, type == UInt8(NGHTTP2_DATA.rawValue) || type == UInt8(NGHTTP2_HEADERS.rawValue) {
                connection.requestComplete(frame.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamId, _, user in
            guard let user else { return 0 }
            let connection = Unmanaged<GRPCConnection>.fromOpaque(user).takeUnretainedValue()
            if let stream = connection.streams.removeValue(forKey: streamId) { stream.task?.cancel() }
            if connection.streams.isEmpty { connection.idleSince = .now }
            return 0
        }
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_server_new(&session, callbacks, user) == 0 else { return false }
        var settings = [
            // nghttp2 refuses (RST_STREAM REFUSED_STREAM) streams past this once the peer acknowledged it.
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: UInt32(maxConcurrentStreams)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0 else { return false }
        // A connection-level window to match (the initial one is 64 KiB whatever SETTINGS say).
        _ = nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 1 << 24)
        return true
    }

    /// A request's END_STREAM arrived: validate it and hand it to the handler on a Task.
    private func requestComplete(_ streamId: Int32) {
        guard let stream = streams[streamId], !stream.answered, !stream.rejected else { return }
        func header(_ name: String) -> String? { stream.headers.first { $0.name == name }?.value }
        guard header(":method") == "POST" else {
            submitHeadersOnly(streamId, stream, status: "405", grpc: .unimplemented("gRPC requires POST"))
            return
        }
        guard let type = header("content-type"), type.hasPrefix("application/grpc") else {
            submitHeadersOnly(streamId, stream, status: "415", grpc: .unimplemented("content-type must be application/grpc"))
            return
        }
        if let timeout = header("grpc-timeout") {
            guard let nanos = grpcTimeoutNanoseconds(timeout) else {
                answer(streamId, stream, .status(.invalidArgument("grpc-timeout \(timeout.debugDescription) is malformed")))
                return
            }
            stream.deadline = ContinuousClock.now + .nanoseconds(nanos)
        }
        // Exactly one length-prefixed message: flag byte, 4-byte big-endian length, payload.
        let body = stream.body
        guard body.count >= 5 else {
            answer(streamId, stream, .status(.internal("a unary call needs exactly one request message (got \(body.count) bytes)")))
            return
        }
        let length = Int(body[1]) << 24 | Int(body[2]) << 16 | Int(body[3]) << 8 | Int(body[4])
        guard body[0] == 0 else {
            answer(streamId, stream, .status(.unimplemented("compressed messages are not supported (send with grpc-encoding identity)")))
            return
        }
        guard body.count == 5 + length else {
            answer(streamId, stream, .status(.internal("a unary call needs exactly one request message (frame says \(length) bytes, got \(body.count - 5))")))
            return
        }
        let request = GRPCRequest(path: header(":path") ?? "", metadata: stream.headers.filter { !$0.name.hasPrefix(":") }, message: Array(body[5...]))
        stream.body = []
        let handler = handler
        stream.task = Task { [self] in
            let response = await handler.handle(request)
            self.complete(streamId, response)
        }
    }

    private func drainOutbox() {
        let done = outbox.withLock { state in
            defer { state.answers.removeAll() }
            return state.answers
        }
        for (streamId, response) in done {
            guard let stream = streams[streamId], !stream.answered else { continue }
            answer(streamId, stream, response)
        }
    }

    private func expireDeadlines() {
        let now = ContinuousClock.now
        for (streamId, stream) in streams where !stream.answered {
            if let deadline = stream.deadline, deadline <= now {
                stream.task?.cancel()
                answer(streamId, stream, .status(.deadlineExceeded("the deadline (grpc-timeout) passed before the call finished")))
            }
        }
    }

    private func pollTimeout() -> Int32 {
        var pending = streams.values.filter { !$0.answered }.compactMap(\.deadline)
        if !goawaySent, let idleSince { pending.append(idleSince + idleTimeout) }
        guard let next = pending.min() else { return goawaySent ? 100 : -1 }
        let left = next - ContinuousClock.now
        let millis = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
        return Int32(max(0, min(millis, 60_000)))
    }

    // MARK: - Answers

    /// Submits a response: headers, the framed message and `grpc-status: 0` trailers; or, for an
    /// error, a trailers-only response carrying `grpc-status` and `grpc-message`.
    private func answer(_ streamId: Int32, _ stream: Stream, _ response: GRPCResponse) {
        stream.answered = true
        switch response {
        case .message(let message):
            stream.response = GRPCFrame.framed(message)
            stream.sent = 0
            var provider = nghttp2_data_provider()
            provider.read_callback = { session, streamId, buffer, length, flags, _, user in
                guard let user, let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
                let connection = Unmanaged<GRPCConnection>.fromOpaque(user).takeUnretainedValue()
                guard let stream = connection.streams[streamId] else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
                let (count, done) = GRPCFrame.copyChunk(of: stream.response, sent: &stream.sent, into: buffer, length: length)
                if done {
                    flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) | UInt32(NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue)
                    withHeaders([("grpc-status", "0")]) { nva, count in _ = nghttp2_submit_trailer(session, streamId, nva, count) }
                }
                return count
            }
            withHeaders([(":status", "200"), ("content-type", "application/grpc")]) { nva, count in
                _ = nghttp2_submit_response(session, streamId, nva, count, &provider)
            }
        case .status(let status):
            submitHeadersOnly(streamId, stream, status: "200", grpc: status)
        }
    }

    private func submitHeadersOnly(_ streamId: Int32, _ stream: Stream, status: String, grpc: GRPCStatus) {
        stream.answered = true
        var headers = [(":status", status), ("content-type", "application/grpc"), ("grpc-status", String(grpc.code))]
        if !grpc.message.isEmpty { headers.append(("grpc-message", GRPCStatus.percentEncoded(grpc.message))) }
        withHeaders(headers) { nva, count in _ = nghttp2_submit_response(session, streamId, nva, count, nil) }
    }
}

/// Calls `body` with an `nghttp2_nv` array of `headers` (nghttp2 copies names and values).
func withHeaders(_ headers: [(String, String)], _ body: (UnsafeMutablePointer<nghttp2_nv>, Int) -> Void) {
    var storage: [[UInt8]] = []
    for (name, value) in headers {
        storage.append(Array(name.utf8) + [0])
        storage.append(Array(value.utf8) + [0])
    }
    let pointers = storage.map { bytes -> UnsafeMutablePointer<UInt8> in
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        pointer.initialize(from: bytes, count: bytes.count)
        return pointer
    }
    defer { pointers.forEach { $0.deallocate() } }
    var nva: [nghttp2_nv] = []
    for index in 0..<headers.count {
        nva.append(nghttp2_nv(name: pointers[2 * index], value: pointers[2 * index + 1], namelen: storage[2 * index].count - 1,
                              valuelen: storage[2 * index + 1].count - 1, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
    }
    nva.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
}
