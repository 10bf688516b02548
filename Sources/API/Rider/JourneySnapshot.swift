import JSON
import Synchronization

/// One version of a trip's journey view, encoded once: what GET, long-poll and SSE hand out.
///
/// Made once per version (by the first reader, or by the hub when riders are subscribed) and
/// shared: the response bytes, the ETag and the SSE frame are never rebuilt per request. The
/// frame is made on first use (most views are only ever read by GET).
final class JourneySnapshot: Sendable {
    /// `providers/{p}/trips/{t}`.
    let key: String
    let version: Int64
    let tripStatus: String
    /// The compact JSON of the view.
    let body: [UInt8]
    /// `"<version>"`.
    let etag: String
    private let framed = Mutex<[UInt8]?>(nil)

    init(key: String, version: Int64, tripStatus: String, body: [UInt8]) {
        self.key = key
        self.version = version
        self.tripStatus = tripStatus
        self.body = body
        self.etag = "\"\(version)\""
    }

    /// `id: <version>\ndata: <view>\n\n`, made once.
    var frame: [UInt8] {
        framed.withLock { framed in
            if let framed { return framed }
            var frame = Array("id: \(version)\ndata: ".utf8)
            frame.reserveCapacity(frame.count + body.count + 2)
            frame += body
            frame += [10, 10]
            framed = frame
            return frame
        }
    }

    /// The snapshot of a stored view document; nil when it has no version.
    convenience init?(key: String, document: JSONValue) {
        guard let version = document["version"]?.int64Value else { return nil }
        self.init(key: key, version: version, tripStatus: document["tripStatus"]?.stringValue ?? "UNKNOWN_TRIP_STATUS", body: document.compactBytes())
    }

    /// COMPLETE or CANCELED: nothing more will happen to the trip.
    var isTerminal: Bool { tripStatus == "COMPLETE" || tripStatus == "CANCELED" }

    /// Why a stream of this trip ends once this version is sent (`TRIP_COMPLETE`, `TRIP_CANCELED`), nil while it goes on.
    var endReason: String? {
        switch tripStatus {
        case "COMPLETE": "TRIP_COMPLETE"
        case "CANCELED": "TRIP_CANCELED"
        default: nil
        }
    }

    /// `event: end` with the reason, the last bytes of a stream.
    static func endFrame(_ reason: String) -> [UInt8] {
        Array("event: end\ndata: {\"reason\":\"\(reason)\"}\n\n".utf8)
    }

    /// What open streams get when the server shuts down: reconnect (to another node) in a second.
    static let shutdownFrame = Array("retry: 1000\nevent: shutdown\ndata: {\"reason\":\"SERVER_SHUTDOWN\"}\n\n".utf8)

    /// A comment line that keeps idle connections (and proxies) alive.
    static let heartbeatFrame = Array(": keep-alive\n\n".utf8)
}
