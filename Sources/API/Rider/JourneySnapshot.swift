import JSON
import Journey
import Synchronization

/// One version of a trip's journey view, encoded once: what GET, long-poll and SSE hand out.
///
/// Made once per version (by the first reader, or by the hub when riders are subscribed) and
/// shared: the response bytes, the ETag and the SSE frame are never rebuilt per request. The
/// frame is made on first use (most views are only ever read by GET).
///
/// The projected view judges the vehicle marker's staleness only against the trip's events, so a
/// car that goes silent would never look stale. The clock judges it at read time: past the
/// marker's `staleTime`, readers get `seen(at:)`'s stale variant (same version, `stale: true`,
/// ETag `"<version>-stale"`), made once per version.
final class JourneySnapshot: Sendable {
    /// `providers/{p}/trips/{t}`.
    let key: String
    let version: Int64
    let tripStatus: String
    /// The compact JSON of the view.
    let body: [UInt8]
    /// `"<version>"`, or `"<version>-stale"` for the stale variant.
    let etag: String
    /// When the visible vehicle marker's position turns stale; nil when there is none or it is stale already.
    let staleTime: Timestamp?
    /// Whether this is the variant served once `staleTime` has passed.
    let isStaleVariant: Bool
    private let framed = Mutex<[UInt8]?>(nil)
    private let staleVariant = Mutex<JourneySnapshot?>(nil)

    init(key: String, version: Int64, tripStatus: String, body: [UInt8], staleTime: Timestamp? = nil, isStaleVariant: Bool = false) {
        self.key = key
        self.version = version
        self.tripStatus = tripStatus
        self.body = body
        self.staleTime = staleTime
        self.isStaleVariant = isStaleVariant
        self.etag = isStaleVariant ? "\"\(version)-stale\"" : "\"\(version)\""
    }

    /// Orders what a reader has been sent: every version, and within one the stale variant after the fresh one.
    var rank: Int64 { version &* 2 &+ (isStaleVariant ? 1 : 0) }

    /// The rank of a version's fresh snapshot (what a `Last-Event-ID` or a version names).
    static func rank(ofVersion version: Int64) -> Int64 { version &* 2 }

    /// This snapshot as a reader at `now` sees it: itself, or once `staleTime` has passed the stale variant.
    func seen(at now: Timestamp) -> JourneySnapshot {
        guard let staleTime, now >= staleTime else { return self }
        return staleVariant.withLock { variant in
            if let variant { return variant }
            let made = makeStaleVariant()
            variant = made
            return made
        }
    }

    /// The same view with the vehicle marker's `stale` true.
    private func makeStaleVariant() -> JourneySnapshot {
        guard case .object(var view)? = try? JSONValue.parse(body), var markers = view["markers"]?.arrayValue else { return self }
        for (index, marker) in markers.enumerated() where marker["type"]?.stringValue == "TRIP_VEHICLE" {
            guard case .object(var object) = marker else { continue }
            object["stale"] = .bool(true)
            markers[index] = .object(object)
        }
        view["markers"] = .array(markers)
        return JourneySnapshot(key: key, version: version, tripStatus: tripStatus, body: JSONValue.object(view).compactBytes(), isStaleVariant: true)
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
        let vehicle = document["markers"]?.arrayValue?.last { $0["type"]?.stringValue == "TRIP_VEHICLE" }
        var staleTime: Timestamp?
        if let vehicle, vehicle["visible"]?.boolValue == true, vehicle["stale"]?.boolValue == false {
            staleTime = vehicle["staleTime"]?.stringValue.flatMap(Timestamp.init(rfc3339:))
        }
        self.init(key: key, version: version, tripStatus: document["tripStatus"]?.stringValue ?? "UNKNOWN_TRIP_STATUS", body: document.compactBytes(),
                  staleTime: staleTime)
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
