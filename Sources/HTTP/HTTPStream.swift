internal import CMicroHTTPD
import Glibc
import Synchronization

/// A streaming response body (Server-Sent Events): the application writes, the server sends as
/// data arrives.
///
/// Writes are buffered until libmicrohttpd asks for data. When the buffer is empty the connection
/// is suspended (no polling, no busy wait) and the next `write` or `finish` resumes it. The
/// stream closes exactly once: on `finish`, when the client disconnects, when the server shuts
/// down (after sending `finalBytesOnShutdown`), or when more than `maxBufferedBytes` wait for a
/// client that does not read. From then on `write` returns false; the `onClose` actions run once,
/// at that moment, on the thread that noticed.
///
/// A stream dropped for overflow frees its buffer at once, and its connection is shut down so the
/// server closes it without waiting for the client (which is not reading) or the idle timeout; the
/// server counts it (`HTTPServer.droppedStreams`).
///
/// A client that hangs up while the stream is idle is noticed at once (the server watches idle
/// stream sockets for a hang-up); one that hangs up mid-transfer is noticed when sending fails.
package final class HTTPStream: Sendable {
    /// Sent, then the stream ends, when the server shuts down while the stream is open.
    package let finalBytesOnShutdown: [UInt8]
    /// The limit a stream without one of its own has until a server serves it (then the server's
    /// `Configuration.streamBufferBytes`).
    package static let defaultMaxBufferedBytes = 1 << 20

    let state: Mutex<State>

    /// Makes an open stream; it starts sending once a handler returns it in a response.
    /// `maxBufferedBytes`: the most unsent bytes it may hold; nil takes the serving server's
    /// `Configuration.streamBufferBytes`.
    package init(finalBytesOnShutdown: [UInt8] = [], maxBufferedBytes: Int? = nil) {
        self.finalBytesOnShutdown = finalBytesOnShutdown
        var initial = State()
        if let maxBufferedBytes {
            initial.limit = maxBufferedBytes
            initial.limitIsOwn = true
        }
        state = Mutex(initial)
    }

    /// The most bytes that may wait for the client; a write beyond this closes the stream.
    package var maxBufferedBytes: Int {
        state.withLock { $0.limit }
    }

    /// True when the stream was closed because its client did not read and its buffer overflowed.
    package var overflowed: Bool {
        state.withLock { $0.overflowed }
    }

    /// True once the stream no longer accepts writes (finished, client gone, shut down, overflow).
    package var isClosed: Bool {
        state.withLock { $0.phase != .open }
    }

    /// Queues bytes for the client. Returns false, and sends nothing, once the stream is closed.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        var accepted = false
        var wake: ConnectionHandle?
        var actions: [@Sendable () -> Void] = []
        var dropped: (@Sendable () -> Void)?
        state.withLock { state in
            guard state.phase == .open else { return }
            if state.pendingCount + bytes.count > state.limit {
                state.phase = .aborted
                state.overflowed = true
                // Nothing more will be sent: free the buffer now, not when the connection goes.
                state.pending = []
                state.readIndex = 0
                actions = state.takeCloseActions()
                dropped = state.onOverflow
                state.cutConnection()
            } else {
                state.append(bytes)
                accepted = true
            }
            wake = state.takeSuspension()
        }
        if let wake { MHD_resume_connection(wake.pointer) }
        dropped?()
        for action in actions { action() }
        return accepted
    }

    /// Sends `final` after everything already written, then ends the response. Does nothing when
    /// the stream is already closed.
    package func finish(_ final: [UInt8] = []) {
        var wake: ConnectionHandle?
        var actions: [@Sendable () -> Void] = []
        state.withLock { state in
            guard state.phase == .open else { return }
            state.append(final)
            state.phase = .finishing
            actions = state.takeCloseActions()
            wake = state.takeSuspension()
        }
        if let wake { MHD_resume_connection(wake.pointer) }
        for action in actions { action() }
    }

    /// Runs `action` once when the stream closes; at once if it already has.
    package func onClose(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.closeActionsRan { return true }
            state.closeActions.append(action)
            return false
        }
        if runNow { action() }
    }
}

extension HTTPStream {
    /// The stream's mutable state, always accessed under the stream's lock.
    struct State {
        enum Phase {
            /// Accepting writes.
            case open
            /// `finish` was called: send what is buffered, then end the response.
            case finishing
            /// End of stream was reported to libmicrohttpd.
            case ended
            /// The client is gone or the buffer overflowed: end the response with an error.
            case aborted
        }

        var phase = Phase.open
        /// See `maxBufferedBytes`; `limitIsOwn` when given to `init` (the server's does not replace it).
        var limit = HTTPStream.defaultMaxBufferedBytes
        var limitIsOwn = false
        var overflowed = false
        /// Set by the server on attach: counts the stream as dropped.
        var onOverflow: (@Sendable () -> Void)?
        var pending: [UInt8] = []
        var readIndex = 0
        var closeActions: [@Sendable () -> Void] = []
        var closeActionsRan = false
        var bytesDelivered = 0

        /// Set while the stream is attached to a libmicrohttpd response.
        var connection: ConnectionHandle?
        var socket: Int32 = -1
        var watcher: DisconnectWatcher?
        var attachedOnce = false
        /// True while the reader has suspended the connection for lack of data.
        var suspended = false
        var watchToken: UInt64?

        var pendingCount: Int { pending.count - readIndex }

        mutating func append(_ bytes: [UInt8]) {
            if readIndex == pending.count {
                pending.removeAll(keepingCapacity: true)
                readIndex = 0
            }
            pending.append(contentsOf: bytes)
        }

        /// Copies up to `buffer.count` pending bytes into `buffer`.
        mutating func drain(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            let count = min(buffer.count, pendingCount)
            pending.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + readIndex, byteCount: count)
            }
            readIndex += count
            bytesDelivered += count
            if readIndex == pending.count {
                pending.removeAll(keepingCapacity: true)
                readIndex = 0
            } else if readIndex >= 64 * 1024, readIndex * 2 >= pending.count {
                pending.removeFirst(readIndex)
                readIndex = 0
            }
            return count
        }

        /// The actions to run for closing, once.
        mutating func takeCloseActions() -> [@Sendable () -> Void] {
            guard !closeActionsRan else { return [] }
            closeActionsRan = true
            defer { closeActions = [] }
            return closeActions
        }

        /// Shuts the socket of a stream being sent (not suspended) down, so libmicrohttpd's next
        /// event on it fails and closes the connection even though the client reads nothing. Only
        /// while attached: until `detach` the connection, and so the descriptor, is still MHD's
        /// for this response. A suspended connection is resumed instead and ends on its next read.
        mutating func cutConnection() {
            guard connection != nil, !suspended, socket >= 0 else { return }
            _ = shutdown(socket, SocketConstants.shutReadWrite)
        }

        /// Ends the reader's suspension: stops watching the socket and returns the connection the
        /// caller must resume (after releasing the lock), or nil when not suspended.
        mutating func takeSuspension() -> ConnectionHandle? {
            guard suspended, let connection else { return nil }
            suspended = false
            if let token = watchToken {
                watcher?.unregister(token: token, socket: socket)
                watchToken = nil
            }
            return connection
        }
    }
}
