import CNGHTTP2
import Foundation
import HTTP

/// Moves bytes between an nghttp2 session and a non-blocking socket: the loop body shared by the
/// server's connections and the client.
///
/// `flush` writes what nghttp2 has to send, keeping what the socket will not take yet;
/// `receive` polls the socket (for POLLOUT too while output waits) and the owner's wake-up pipe,
/// empties the pipe and feeds what arrived to nghttp2, whose callbacks run inside these calls.
/// Used by the owner's thread only.
struct HTTP2Pump {
    let fd: Int32
    let wakeRead: Int32
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var input = [UInt8](repeating: 0, count: 64 * 1024)

    init(fd: Int32, wakeRead: Int32) {
        self.fd = fd
        self.wakeRead = wakeRead
    }

    /// Whether bytes wait for the socket to take them.
    var hasOutput: Bool { outputOffset < output.count }

    /// Moves what nghttp2 wants to send into the output buffer (at most 256 KiB at a time) and
    /// writes it, until nghttp2 has nothing more or the socket would block (then `receive` polls
    /// for POLLOUT). False when the connection failed.
    mutating func flush(_ session: OpaquePointer?) -> Bool {
        while true {
            while outputOffset < output.count {
                // send with MSG_NOSIGNAL: a peer that hung up must not raise SIGPIPE (which would end the process).
                let written = output.withUnsafeBufferPointer { send(fd, $0.baseAddress! + outputOffset, output.count - outputOffset, SocketConstants.noSignal) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno == EAGAIN
                }
                outputOffset += written
            }
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
            while output.count < 256 * 1024 {
                var data: UnsafePointer<UInt8>?
                let count = nghttp2_session_mem_send(session, &data)
                if count < 0 { return false }
                guard count > 0, let data else { break }
                output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            }
            if output.isEmpty { return true }
        }
    }

    /// Waits up to `timeout` milliseconds (-1: until something happens) for the socket or the
    /// wake-up pipe, empties the pipe, and feeds one read's bytes to nghttp2. False when the peer
    /// closed the connection or it failed.
    mutating func receive(_ session: OpaquePointer?, timeout: Int32) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN) | (hasOutput ? Int16(POLLOUT) : 0), revents: 0),
                   pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if poll(&fds, 2, timeout) < 0 && errno != EINTR { return false }
        if fds[1].revents != 0 {
            var sink = [UInt8](repeating: 0, count: 256)
            while read(wakeRead, &sink, sink.count) > 0 {}
        }
        if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            let count = read(fd, &input, input.count)
            if count == 0 { return false }
            if count < 0 { return errno == EAGAIN || errno == EINTR }
            let consumed = input.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, count) }
            if consumed < 0 { return false }
        }
        return true
    }
}
