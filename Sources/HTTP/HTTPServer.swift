internal import CMicroHTTPD
import Foundation
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd that hands complete requests to an `HTTPHandler`.
///
/// libmicrohttpd's internal epoll thread (or pool of them) does the socket work; handlers run in
/// Tasks while their connection is suspended, so a slow handler holds no server thread.
/// Keep-alive, `Content-Length` bodies and chunked streams are supported; every response carries
/// `x-request-id`. `shutdown(grace:)` drains in-flight requests and finishes open streams before
/// stopping. A server starts once; after `shutdown` make a new one.
package final class HTTPServer: Sendable {
    /// The settings the server was made with.
    package let configuration: Configuration
    private let handler: any HTTPHandler
    private let observer: (@Sendable (HTTPExchange) -> Void)?
    private let state = Mutex(State())

    private struct State {
        var lifecycle = Lifecycle.idle
        var port: UInt16 = 0
        /// Kept after shutdown so the counters stay readable.
        var core: ServerCore?
    }

    private enum Lifecycle {
        case idle
        case starting
        case running(RunningDaemon)
        case stopping(waiters: [CheckedContinuation<Void, Never>])
        case stopped
    }

    /// A started daemon and the retained core its callbacks use.
    ///
    /// `@unchecked Sendable`: the daemon pointer is only passed to `MHD_stop_daemon`, which may be
    /// called from any thread, by the one caller that moved the lifecycle out of `.running`.
    private struct RunningDaemon: @unchecked Sendable {
        let daemon: OpaquePointer
        let core: ServerCore
        let coreReference: UnsafeMutableRawPointer
    }

    /// Creates a server; nothing is bound until `start()`.
    ///
    /// `observer` is called once per finished exchange on a libmicrohttpd thread; keep it short
    /// (hand the value to a logger or metrics counter).
    package init(configuration: Configuration, handler: any HTTPHandler, observer: (@Sendable (HTTPExchange) -> Void)? = nil) {
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
    }

    deinit {
        // A server dropped without shutdown is stopped at once (no grace, streams get their final
        // bytes only if MHD still sends them before the daemon stops).
        let lifecycle = state.withLock { state -> Lifecycle in
            defer { state.lifecycle = .stopped }
            return state.lifecycle
        }
        if case .running(let running) = lifecycle {
            running.core.beginDraining()
            running.core.forceRemaining()
            Self.stop(running)
        }
    }

    /// The bound port (the OS's choice when configured with 0); 0 before `start()`.
    package var port: UInt16 {
        state.withLock { $0.port }
    }

    /// Requests whose handler runs or whose byte response is being sent (streams not included).
    package var inFlightRequests: Int {
        state.withLock { $0.core }?.inFlight.load(ordering: .relaxed) ?? 0
    }

    /// Streamed responses libmicrohttpd still holds.
    package var openStreams: Int {
        state.withLock { $0.core }?.openStreams ?? 0
    }

    /// Streams closed since `start()` because their client did not read and more than
    /// `Configuration.streamBufferBytes` waited for it.
    package var droppedStreams: Int {
        state.withLock { $0.core }?.droppedStreams.load(ordering: .relaxed) ?? 0
    }

    /// Binds and starts serving.
    ///
    /// Throws `.bindFailed` naming host:port when the address cannot be bound (port in use),
    /// `.invalidConfiguration` for a bad setting, `.invalidState` when called twice.
    package func start() throws(HTTPError) {
        try configuration.validate()
        // A peer that hangs up must never end the process. libmicrohttpd sends with MSG_NOSIGNAL,
        // yet a stress test of shutdowns under sending clients died of SIGPIPE once; servers
        // (nginx among them) ignore it process-wide and handle EPIPE where it is returned.
        signal(SIGPIPE, SIG_IGN)
        let endpoint = try IPv4Endpoint(host: configuration.host, port: configuration.port)
        try state.withLock { state throws(HTTPError) in
            guard case .idle = state.lifecycle else {
                throw HTTPError(.invalidState, "start() may be called once, on a server that was never started")
            }
            state.lifecycle = .starting
        }
        let running: RunningDaemon
        do {
            running = try launch(endpoint)
        } catch {
            state.withLock { $0.lifecycle = .idle }
            throw error
        }
        let port = waymark_mhd_bound_port(running.daemon)
        state.withLock { state in
            state.port = port
            state.core = running.core
            state.lifecycle = .running(running)
        }
    }

    private func launch(_ endpoint: IPv4Endpoint) throws(HTTPError) -> RunningDaemon {
        let watcher = try DisconnectWatcher()
        let core = ServerCore(configuration: configuration, handler: handler, observer: observer, watcher: watcher)
        let coreReference = Unmanaged.passRetained(core).toOpaque()
        let threads = configuration.threads
        let flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        var startErrno: Int32 = 0
        let daemon = endpoint.withSocketAddress { address -> OpaquePointer? in
            let daemon = waymark_mhd_start(
                flags, endpoint.port, address,
                accessHandler, coreReference,
                requestCompleted, coreReference,
                UInt32(threads), UInt32(configuration.connectionLimit), UInt32(configuration.connectionTimeoutSeconds),
                configuration.connectionMemoryBytes, UInt32(configuration.connectionsPerAddress),
                configuration.diagnostics == nil ? nil : logDiagnostic, coreReference
            )
            startErrno = errno
            return daemon
        }
        guard let daemon else {
            Unmanaged<ServerCore>.fromOpaque(coreReference).release()
            if let bindErrno = endpoint.bindError() {
                throw HTTPError(.bindFailed, "cannot bind \(endpoint.description): \(String(cString: strerror(bindErrno)))")
            }
            throw HTTPError(.startFailed, "libmicrohttpd could not start on \(endpoint.description) (errno \(startErrno): \(String(cString: strerror(startErrno))))")
        }
        watcher.start()
        return RunningDaemon(daemon: daemon, core: core, coreReference: coreReference)
    }

    /// Stops gracefully: new requests, on open connections and on connections made meanwhile, get
    /// 503 (with `Connection: close`); requests already in the handler get up to `grace` to finish
    /// (later ones are answered 503); every open stream is then finished with its
    /// `finalBytesOnShutdown`; after at most two more seconds for those last bytes the daemon
    /// stops and closes the listening socket. Idempotent: a second call waits for the first.
    ///
    /// The daemon is not quiesced (`MHD_quiesce_daemon`), which would refuse new connections at
    /// once: on an epoll daemon with threads of its own, libmicrohttpd 0.9.75 (Debian 12's) aborts
    /// the process at random there. Quiescing removes the listening socket from each worker's
    /// epoll set while a worker that already saw the daemon quiesced may be removing it too; the
    /// loser's `epoll_ctl` fails with ENOENT, which MHD treats as fatal ("Failed to remove listen
    /// FD from epoll set"). `MHD_stop_daemon` alone has no such race.
    package func shutdown(grace: Duration) async {
        enum Action {
            case none
            case wait
            case stop(RunningDaemon)
        }
        let action = state.withLock { state -> Action in
            switch state.lifecycle {
            case .idle, .starting:
                state.lifecycle = .stopped
                return .none
            case .running(let running):
                state.lifecycle = .stopping(waiters: [])
                return .stop(running)
            case .stopping:
                return .wait
            case .stopped:
                return .none
            }
        }
        switch action {
        case .none:
            return
        case .wait:
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state -> Bool in
                    guard case .stopping(var waiters) = state.lifecycle else { return true }
                    waiters.append(continuation)
                    state.lifecycle = .stopping(waiters: waiters)
                    return false
                }
                if done { continuation.resume() }
            }
        case .stop(let running):
            await drainAndStop(running, grace: grace)
        }
    }

    private func drainAndStop(_ running: RunningDaemon, grace: Duration) async {
        let core = running.core
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: grace)
        core.beginDraining()
        await Self.wait(until: deadline) { core.inFlight.load(ordering: .relaxed) == 0 }
        core.forceRemaining()
        await Self.wait(until: clock.now.advanced(by: .seconds(2))) {
            core.inFlight.load(ordering: .relaxed) == 0 && core.openStreams == 0
        }
        Self.stop(running)
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.lifecycle = .stopped }
            if case .stopping(let waiters) = state.lifecycle { return waiters }
            return []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Stops the daemon (every suspended connection has been resumed by now), then the watcher,
    /// and releases the core the callbacks used.
    private static func stop(_ running: RunningDaemon) {
        MHD_stop_daemon(running.daemon)
        running.core.watcher.stop()
        Unmanaged<ServerCore>.fromOpaque(running.coreReference).release()
    }

    /// Polls `condition` every 5 ms until it holds, the deadline passes, or the task is cancelled.
    private static func wait(until deadline: ContinuousClock.Instant, _ condition: () -> Bool) async {
        while !condition(), ContinuousClock.now < deadline {
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                return
            }
        }
    }
}
