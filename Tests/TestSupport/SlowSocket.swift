import Foundation
import Synchronization

/// A client socket for the slow- and hostile-client tests: it connects, sends only what it is
/// told, and reads only when asked (a client that never reads, or one that sends its request
/// header a byte at a time and never finishes it).
///
/// `@unchecked Sendable`: one test owns a socket; the drip thread of `Slowloris` is its only other user.
package final class SlowSocket: @unchecked Sendable {
    package let fd: Int32
    private var closed = false

    /// Connects to 127.0.0.1:`port`; `receiveBuffer` shrinks the kernel's receive buffer (set before
    /// connecting, so the advertised window stays small).
    package init(port: UInt16, receiveBuffer: Int? = nil) throws {
        fd = try LoopbackSocket.connect(port: port, receiveBuffer: receiveBuffer)
    }

    deinit { close() }

    package func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    /// Sends all of `bytes`; false when the server closed the connection.
    @discardableResult
    package func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Reads (and discards) until the server closes the connection; true when it did within
    /// `timeout`, false when the connection is still open then.
    package func drainUntilClosed(timeout: Duration) -> Bool {
        var wait = timeval(tv_sec: 0, tv_usec: 200_000)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let deadline = ContinuousClock.now + timeout
        var chunk = [UInt8](repeating: 0, count: 65536)
        while ContinuousClock.now < deadline {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 { return true }
            if count < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { return true }
        }
        return false
    }

    /// True when the server has not closed the connection (nothing to read, no end of stream).
    package var isOpen: Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }
}

/// Slowloris clients: `count` connections that each send a request header one byte at a time,
/// a byte every `interval`, and never finish it. Runs on a thread of its own until `stop`.
package final class Slowloris: Sendable {
    private let sockets: [SlowSocket]
    private let stopped = Atomic<Bool>(false)
    private let sentBytes = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)
    /// The header they crawl through: it never ends (no blank line), only grows.
    package static let header = Array("GET /v1/providers/acme/trips/t-1/journey HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)

    package init(count: Int, port: UInt16, interval: Duration = .milliseconds(500)) throws {
        sockets = try (0..<count).map { _ in try SlowSocket(port: port) }
        let thread = Thread { [self] in
            var sent = 0
            while !stopped.load(ordering: .relaxed) {
                let byte = sent < Self.header.count ? Self.header[sent] : UInt8(ascii: "a")
                for socket in sockets { socket.send([byte]) }
                sent += 1
                sentBytes.store(sent, ordering: .relaxed)
                Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
            }
            done.signal()
        }
        thread.start()
    }

    /// How many bytes each connection has sent so far.
    package var bytesSent: Int { sentBytes.load(ordering: .relaxed) }

    /// How many of the connections the server still holds open.
    package var openCount: Int { sockets.filter(\.isOpen).count }

    package func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        done.wait()
        for socket in sockets { socket.close() }
    }
}
