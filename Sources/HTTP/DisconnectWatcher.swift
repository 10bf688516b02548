internal import CMicroHTTPD
import Foundation
import Synchronization

/// Notices clients that hang up while their stream connection is suspended.
///
/// libmicrohttpd does not poll a suspended connection, so a client that leaves an idle stream
/// would otherwise go unnoticed until the application writes again (and an idle subscription
/// would live forever). One thread of its own blocks in `epoll_wait` on the sockets of suspended
/// streams (`EPOLLRDHUP`, one-shot) and on an eventfd that stops it.
///
/// A socket is registered only while its connection is suspended, when MHD can neither close nor
/// reuse it, and is removed before the connection is resumed; events carry a token, never the
/// descriptor, so an event that races with removal finds no stream and is dropped.
final class DisconnectWatcher: Sendable {
    private let epollFD: Int32
    private let wakeFD: Int32
    private let registry = Mutex(Registry())
    private let exited = DispatchSemaphore(value: 0)

    private struct Registry {
        var nextToken: UInt64 = 1
        var streams: [UInt64: HTTPStream] = [:]
        var running = false
    }

    init() throws(HTTPError) {
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else {
            throw HTTPError(.startFailed, "epoll_create1 failed: \(String(cString: strerror(errno)))")
        }
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeFD >= 0 else {
            let reason = String(cString: strerror(errno))
            close(epollFD)
            throw HTTPError(.startFailed, "eventfd failed: \(reason)")
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = 0
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0 else {
            let reason = String(cString: strerror(errno))
            close(epollFD)
            close(wakeFD)
            throw HTTPError(.startFailed, "epoll_ctl(eventfd) failed: \(reason)")
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
    }

    deinit {
        close(epollFD)
        close(wakeFD)
    }

    /// Starts the watching thread.
    func start() {
        registry.withLock { $0.running = true }
        let thread = Thread { [self] in run() }
        thread.name = "waymark-http-hangups"
        thread.start()
    }

    /// Stops the watching thread and waits for it to exit. Idempotent.
    func stop() {
        let wasRunning = registry.withLock { registry -> Bool in
            defer { registry.running = false }
            return registry.running
        }
        guard wasRunning else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
        exited.wait()
        registry.withLock { $0.streams.removeAll() }
    }

    /// Watches `socket` for a hang-up on behalf of `stream`; nil if the kernel refused.
    func register(socket: Int32, stream: HTTPStream) -> UInt64? {
        registry.withLock { registry -> UInt64? in
            let token = registry.nextToken
            registry.nextToken += 1
            var event = epoll_event()
            event.events = EPOLLRDHUP.rawValue | EPOLLONESHOT.rawValue
            event.data.u64 = token
            guard epoll_ctl(epollFD, EPOLL_CTL_ADD, socket, &event) == 0 else { return nil }
            registry.streams[token] = stream
            return token
        }
    }

    /// Stops watching; the socket must still be open (its connection still suspended).
    func unregister(token: UInt64, socket: Int32) {
        registry.withLock { registry in
            guard registry.streams.removeValue(forKey: token) != nil else { return }
            _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, socket, nil)
        }
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        var stopping = false
        while !stopping {
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), -1)
            }
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in 0..<Int(count) {
                let token = events[index].data.u64
                if token == 0 {
                    stopping = true
                    continue
                }
                // Look up without holding the lock while calling into the stream: the stream takes
                // its own lock and then this registry's (lock order stream → registry).
                let stream = registry.withLock { $0.streams[token] }
                stream?.clientHungUp(token: token)
            }
        }
        exited.signal()
    }
}
