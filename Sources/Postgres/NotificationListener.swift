import Foundation
import Synchronization

/// What a `NotificationListener` reports.
package enum ListenerSignal: Sendable, Hashable {
    /// A NOTIFY arrived on one of the channels.
    case notification(PostgresNotification)
    /// The listening connection was (re)established; notifications may have been missed while it was down,
    /// so a consumer should catch up by polling.
    case connected
}

/// A dedicated thread and connection that LISTENs on channels and reports what arrives.
///
/// Notifications are hints: a consumer must still poll, and must catch up after every `.connected`.
/// When the connection breaks, the thread reconnects with backoff (100 ms doubling to 2 s).
package final class NotificationListener: Sendable {
    private let stopped = StopFlag()
    private let exited = DispatchSemaphore(value: 0)

    /// Starts listening; `handler` runs on the listener's thread and must not block for long.
    package init(conninfo: String, channels: [String], handler: @escaping @Sendable (ListenerSignal) -> Void) {
        let stopped = self.stopped
        let exited = self.exited
        let thread = Thread {
            var backoff = 0.1
            while !stopped.isSet {
                do {
                    let connection = try Connection(conninfo: conninfo)
                    for channel in channels { try connection.listen(channel) }
                    backoff = 0.1
                    handler(.connected)
                    while !stopped.isSet {
                        for notice in try connection.waitForNotifications(timeout: 0.25) {
                            handler(.notification(notice))
                        }
                    }
                } catch {
                    if stopped.isSet { break }
                    Thread.sleep(forTimeInterval: backoff)
                    backoff = min(2, backoff * 2)
                }
            }
            exited.signal()
        }
        thread.name = "pg-listen"
        thread.start()
    }

    /// Stops the thread and closes its connection (returns within about 250 ms).
    ///
    /// Waits on a thread of its own, so no cooperative thread blocks while the listener winds down.
    package func stop() async {
        guard stopped.set() else { return }
        let exited = self.exited
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                exited.wait()
                continuation.resume()
            }.start()
        }
    }
}

/// A flag shared between the listener object and its thread.
private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .acquiring) }

    /// Sets the flag; returns false when it was already set.
    func set() -> Bool { !value.exchange(true, ordering: .acquiringAndReleasing) }
}
