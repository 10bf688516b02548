import CNGHTTP2
import Foundation
import HTTP
import Synchronization

/// A plaintext HTTP/2 (h2c, prior knowledge) gRPC server for unary calls, over libnghttp2.
///
/// An accept thread takes connections; each connection runs on a thread of its own
/// (`GRPCConnection`) and hands every complete request to the handler on a Swift Task, so the
/// socket loops never wait for the database. TLS is a deployment concern in front of it.
package final class GRPCServer: Sendable {
    /// Where and how to listen.
    package struct Configuration: Sendable {
        /// An IPv4 address (`127.0.0.1`, `0.0.0.0`).
        package var host: String
        /// 0 picks a free port (see `port` after `start`).
        package var port: UInt16
        /// The largest request message accepted; larger ones get RESOURCE_EXHAUSTED.
        package var maxMessageBytes: Int
        /// Open connections at most (each has a thread); more are closed right after accept.
        package var maxConnections: Int
        /// Calls in flight on one connection at most (SETTINGS_MAX_CONCURRENT_STREAMS); more are refused.
        package var maxConcurrentStreams: Int
        /// A connection with no call open this long gets GOAWAY and is closed.
        package var idleTimeout: Duration

        package init(host: String = "127.0.0.1", port: UInt16, maxMessageBytes: Int = 4 << 20, maxConnections: Int = 512,
                     maxConcurrentStreams: Int = 100, idleTimeout: Duration = .seconds(120)) {
            self.host = host
            self.port = port
            self.maxMessageBytes = maxMessageBytes
            self.maxConnections = maxConnections
            self.maxConcurrentStreams = maxConcurrentStreams
            self.idleTimeout = idleTimeout
        }
    }

    private struct State {
        var listener: Int32 = -1
        var port: UInt16 = 0
        var connections: [ObjectIdentifier: GRPCConnection] = [:]
        var stopping = false
    }

    let configuration: Configuration
    let handler: any GRPCHandler
    private let state = Mutex(State())
    private let wake: (read: Int32, write: Int32)

    package init(configuration: Configuration, handler: any GRPCHandler) {
        self.configuration = configuration
        self.handler = handler
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        wake = (fds[0], fds[1])
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// The bound port (after `start`).
    package var port: UInt16 { state.withLock { $0.port } }

    /// Open connections.
    package var connectionCount: Int { state.withLock { $0.connections.count } }

    /// Binds, listens and starts the accept thread.
    package func start() throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = configuration.port.bigEndian
        guard inet_pton(AF_INET, configuration.host, &address.sin_addr) == 1 else {
            throw GRPCError("\(configuration.host.debugDescription) is not an IPv4 address")
        }
        let listener = socket(AF_INET, SocketConstants.stream, 0)
        guard listener >= 0 else { throw GRPCError("socket failed: errno \(errno)") }
        var one: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 128) == 0 else {
            let code = errno
            close(listener)
            throw GRPCError("cannot listen on \(configuration.host):\(configuration.port): \(String(cString: strerror(code)))")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        state.withLock {
            $0.listener = listener
            $0.port = UInt16(bigEndian: actual.sin_port)
        }
        let thread = Thread { [self] in acceptLoop(listener) }
        thread.name = "waymark-grpc-accept"
        thread.start()
    }

    private func acceptLoop(_ listener: Int32) {
        while true {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || fds[1].revents != 0 || state.withLock({ $0.stopping }) { break }
            let client = accept(listener, nil, nil)
            if client < 0 { continue }
            let connection: GRPCConnection
            do {
                connection = try GRPCConnection(fd: client, handler: handler, maxMessageBytes: configuration.maxMessageBytes,
                                                maxConcurrentStreams: configuration.maxConcurrentStreams, idleTimeout: configuration.idleTimeout) { [weak self] closed in
                    _ = self?.state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(closed)) }
                }
            } catch {
                close(client)
                continue
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.stopping, state.connections.count < configuration.maxConnections else { return false }
                state.connections[ObjectIdentifier(connection)] = connection
                return true
            }
            if admitted {
                connection.start()
            } else {
                close(client)
            }
        }
        close(listener)
    }

    /// Stops accepting, sends GOAWAY on every connection, lets calls in flight finish for up to
    /// `grace`, then returns (connections still open then are left to close on their own).
    package func shutdown(grace: Duration) async {
        let connections = state.withLock { state -> [GRPCConnection] in
            state.stopping = true
            return Array(state.connections.values)
        }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        for connection in connections { connection.stop() }
        let deadline = ContinuousClock.now + grace
        while connectionCount > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
