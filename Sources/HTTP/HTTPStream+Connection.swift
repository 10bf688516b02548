internal import CMicroHTTPD
import Synchronization

/// The libmicrohttpd side of a stream: attaching to a connection, the content reader, hang-ups
/// and release. All of it runs with the stream's lock held for the state change, and resumes
/// connections only after releasing it.
extension HTTPStream {
    /// Binds the stream to the connection whose response it becomes. False when the stream was
    /// already used for another response.
    /// `limit` replaces the default buffer limit unless the stream has its own; `onOverflow` runs
    /// once if the stream is later dropped for overflow.
    func attach(connection: ConnectionHandle, socket: Int32, watcher: DisconnectWatcher,
                limit: Int, onOverflow: @escaping @Sendable () -> Void) -> Bool {
        let (attached, overflowedBefore) = state.withLock { state -> (Bool, Bool) in
            guard !state.attachedOnce else { return (false, false) }
            state.attachedOnce = true
            state.connection = connection
            state.socket = socket
            state.watcher = watcher
            if !state.limitIsOwn { state.limit = limit }
            state.onOverflow = onOverflow
            return (true, state.overflowed)
        }
        // Overflowed before the response was queued: counted now; the first read ends it.
        if overflowedBefore { onOverflow() }
        return attached
    }

    /// MHD's content reader: copies buffered bytes, reports the end, or suspends the connection
    /// while there is nothing to send. Runs on the connection's MHD thread.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        state.withLock { state -> Int in
            switch state.phase {
            case .aborted:
                return MHD_CONTENT_READER_END_WITH_ERROR
            case .open, .finishing, .ended:
                break
            }
            if state.pendingCount > 0 {
                return state.drain(into: buffer)
            }
            if state.phase != .open {
                state.phase = .ended
                return MHD_CONTENT_READER_END_OF_STREAM
            }
            guard let connection = state.connection else { return MHD_CONTENT_READER_END_WITH_ERROR }
            // Watch the socket before suspending: a hang-up reported in between waits for this lock
            // and then finds the connection suspended, ready to be resumed.
            if let watcher = state.watcher, state.socket >= 0 {
                state.watchToken = watcher.register(socket: state.socket, stream: self)
            }
            MHD_suspend_connection(connection.pointer)
            state.suspended = true
            return 0
        }
    }

    /// Called by the disconnect watcher when the client hung up while the stream was idle.
    func clientHungUp(token: UInt64) {
        var wake: ConnectionHandle?
        var actions: [@Sendable () -> Void] = []
        state.withLock { state in
            guard state.watchToken == token, state.suspended else { return }
            if state.phase == .open { state.phase = .aborted }
            actions = state.takeCloseActions()
            wake = state.takeSuspension()
        }
        if let wake { MHD_resume_connection(wake.pointer) }
        for action in actions { action() }
    }

    /// MHD is done with the response (sent, failed, or the connection closed): the stream is over.
    func detach() {
        var actions: [@Sendable () -> Void] = []
        state.withLock { state in
            if let token = state.watchToken {
                state.watcher?.unregister(token: token, socket: state.socket)
                state.watchToken = nil
            }
            state.suspended = false
            state.connection = nil
            state.watcher = nil
            state.onOverflow = nil
            if state.phase == .open { state.phase = .aborted }
            actions = state.takeCloseActions()
        }
        for action in actions { action() }
    }

    /// The response carrying this stream will never be sent (client gone, shutdown forced a 503).
    func abandon() {
        var actions: [@Sendable () -> Void] = []
        state.withLock { state in
            if state.phase == .open { state.phase = .aborted }
            actions = state.takeCloseActions()
        }
        for action in actions { action() }
    }

    /// Body bytes handed to MHD so far.
    var bytesDelivered: Int {
        state.withLock { $0.bytesDelivered }
    }
}
