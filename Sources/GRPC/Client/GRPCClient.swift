import CNGHTTP2
import Foundation
import HTTP
import Synchronization

/// A minimal plaintext HTTP/2 gRPC client for unary calls over one connection, for benchmarks
/// and tests: many calls may be in flight at once, each on its own stream.
///
/// Like the server's connections it runs an nghttp2 session on a thread of its own; `call`
/// queues a request and wakes that thread, which submits it and resumes the caller when the
/// stream closes.
///
/// `@unchecked Sendable`: `session` and `streams` are touched only by the client's thread; the
/// queue of new calls is behind a Mutex; the wake-up pipe lives as long as the object.
package final class GRPCClient: @unchecked Sendable {
    /// The outcome of one call: the status from the trailers and the response message, if any.
    package struct Reply: Sendable {
        package var status: GRPCStatus
        package var message: [UInt8]?
    }

    private struct Pending {
        var method: String
        var contentType: String
        var path: String
        var metadata: [(String, String)]
        var body: [UInt8]
        var continuation: CheckedContinuation<Reply, Never>
    }

    private final class Stream {
        let body: [UInt8]
        var sent = 0
        var received: [UInt8] = []
        var status: Int?
        var message = ""
        let continuation: CheckedContinuation<Reply, Never>

        init(body: [UInt8], continuation: CheckedContinuation<Reply, Never>) {
            self.body = body
            self.continuation = continuation
        }
    }

    private let fd: Int32
    private let authority: String
    private var session: OpaquePointer?
    private var streams: [Int32: Stream] = [:]
    private let queue = Mutex<(pending: [Pending], closed: Bool)>(([], false))
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var pump: HTTP2Pump

    /// Connects to `host:port` (IPv4) and starts the client's thread.
    package init(host: String, port: UInt16) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw GRPCError("\(host) is not an IPv4 address") }
        let socketFd = socket(AF_INET, SocketConstants.stream, 0)
        guard socketFd >= 0 else { throw GRPCError("socket failed: errno \(errno)") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(socketFd)
            throw GRPCError("cannot connect to \(host):\(port): errno \(errno)")
        }
        var one: Int32 = 1
        _ = setsockopt(socketFd, SocketConstants.tcp, TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(socketFd, F_SETFL, fcntl(socketFd, F_GETFL) | O_NONBLOCK)
        fd = socketFd
        authority = "\(host):\(port)"
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        wakeRead = fds[0]
        wakeWrite = fds[1]
        _ = fcntl(wakeRead, F_SETFL, fcntl(wakeRead, F_GETFL) | O_NONBLOCK)
        pump = HTTP2Pump(fd: socketFd, wakeRead: wakeRead)
        try makeSession()
        let thread = Thread { [self] in run() }
        thread.name = "waymark-grpc-client"
        thread.start()
    }

    /// One unary call. Never throws: transport failures come back as UNAVAILABLE. `method` and
    /// `contentType` are there to test how a server refuses other ones.
    package func call(_ path: String, message: [UInt8], metadata: [(String, String)] = [], method: String = "POST",
                      contentType: String = "application/grpc") async -> Reply {
        let body = GRPCFrame.framed(message)
        return await withCheckedContinuation { continuation in
            let accepted = queue.withLock { state -> Bool? in
                guard !state.closed else { return nil }
                state.pending.append(Pending(method: method, contentType: contentType, path: path, metadata: metadata, body: body, continuation: continuation))
                return state.pending.count == 1
            }
            if let first = accepted {
                // One wake-up per batch: the loop takes every call queued before it runs.
                if first {
                    var byte: UInt8 = 1
                    _ = write(wakeWrite, &byte, 1)
                }
            } else {
                continuation.resume(returning: Reply(status: .unavailable("the client is closed"), message: nil))
            }
        }
    }

    /// Closes the connection; calls in flight get UNAVAILABLE.
    package func close() {
        queue.withLock { $0.closed = true }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    deinit {
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }

    private func makeSession() throws {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0 else { throw GRPCError("nghttp2_session_callbacks_new failed") }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value, let user else { return 0 }
            let client = Unmanaged<GRPCClient>.fromOpaque(user).takeUnretainedValue()
            guard let stream = client.streams[frame.pointee.hd.stream_id] else { return 0 }
            let key = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
            let text = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
            if key == "grpc-status" { stream.status = Int(text) }
            if key == "grpc-message" { stream.message = GRPCStatus.percentDecoded(text) }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamId, data, length, user in
            guard let data, let user else { return 0 }
            let client = Unmanaged<GRPCClient>.fromOpaque(user).takeUnretainedValue()
            client.streams[streamId]?.received.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamId, _, user in
            guard let user else { return 0 }
            let client = Unmanaged<GRPCClient>.fromOpaque(user).takeUnretainedValue()
            guard let stream = client.streams.removeValue(forKey: streamId) else { return 0 }
            let status = GRPCStatus(code: stream.status ?? 13, message: stream.status == nil ? "the stream closed without grpc-status" : stream.message)
            var message: [UInt8]?
            if stream.received.count >= 5 { message = Array(stream.received[5...]) }
            stream.continuation.resume(returning: Reply(status: status, message: message))
            return 0
        }
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_client_new(&session, callbacks, user) == 0 else { throw GRPCError("nghttp2_session_client_new failed") }
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 22)]
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        _ = nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 1 << 24)
    }

    private func run() {
        defer {
            for stream in streams.values { stream.continuation.resume(returning: Reply(status: .unavailable("the connection closed"), message: nil)) }
            streams.removeAll()
            // The wake-up pipe closes in deinit, so no caller writes to a reused descriptor.
            let left = queue.withLock { state -> [Pending] in
                state.closed = true
                defer { state.pending.removeAll() }
                return state.pending
            }
            for pending in left { pending.continuation.resume(returning: Reply(status: .unavailable("the connection closed"), message: nil)) }
            nghttp2_session_del(session)
            Glibc.close(fd)
        }
        while true {
            let (pending, closed) = queue.withLock { state -> ([Pending], Bool) in
                defer { state.pending.removeAll() }
                return (state.pending, state.closed)
            }
            if closed { return }
            for call in pending { submit(call) }
            guard pump.flush(session), pump.receive(session, timeout: -1) else { return }
        }
    }

    private func submit(_ call: Pending) {
        var provider = nghttp2_data_provider()
        provider.read_callback = { _, streamId, buffer, length, flags, _, user in
            guard let user, let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
            let client = Unmanaged<GRPCClient>.fromOpaque(user).takeUnretainedValue()
            guard let stream = client.streams[streamId] else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
            let (count, done) = GRPCFrame.copyChunk(of: stream.body, sent: &stream.sent, into: buffer, length: length)
            if done { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
            return count
        }
        let headers = [(":method", call.method), (":scheme", "http"), (":path", call.path), (":authority", authority),
                       ("content-type", call.contentType), ("te", "trailers")] + call.metadata
        var streamId: Int32 = -1
        let stream = Stream(body: call.body, continuation: call.continuation)
        withHeaders(headers) { nva, count in
            streamId = nghttp2_submit_request(session, nil, nva, count, &provider, nil)
        }
        if streamId < 0 {
            call.continuation.resume(returning: Reply(status: .unavailable("nghttp2_submit_request failed (\(streamId))"), message: nil))
        } else {
            streams[streamId] = stream
        }
    }
}
