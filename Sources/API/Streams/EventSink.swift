/// Where a service writes a stream of Server-Sent Events (a rider's journey, a driver's feed).
///
/// The services only frame events and decide when a stream ends; the front door supplies the sink
/// (an `HTTPStream` over libmicrohttpd) and sends what is written. So the services know nothing of
/// HTTP, and a test can hand them a sink in memory.
package protocol EventSink: AnyObject, Sendable {
    /// Queues bytes for the client; false, and nothing queued, once the sink is closed.
    @discardableResult func write(_ bytes: [UInt8]) -> Bool
    /// Sends `final` after everything written, then ends the stream (nothing once closed).
    func finish(_ final: [UInt8])
    /// Runs `action` once when the sink closes; at once if it already has.
    func onClose(_ action: @escaping @Sendable () -> Void)
    /// Whether the sink no longer accepts writes (finished, client gone, server shutting down).
    var isClosed: Bool { get }
}
