import JSON
import Journey

/// A trip's share links as the journey projection keeps them: the live ones, and when the trip ended.
///
/// Stored as the `shares` document of the trip, `{"links":[{"id","expireTime"}],"tripEndTime"}`,
/// links in id order. Revoked links are dropped; expired ones stay until the trip is deleted (the
/// projection reads no clock, so the reader compares `expireTime` with its own). A link works while
/// it is listed, before its `expireTime`, and, once the trip has ended, for
/// `ShareLink.graceAfterTripEndSeconds` after `tripEndTime`.
package struct JourneyViewShares: Sendable, Hashable {
    /// Live links: id → expiry.
    package var links: [String: Timestamp] = [:]
    /// When the trip became COMPLETE or CANCELED; nil while it has not.
    package var tripEndTime: Timestamp?

    package init(links: [String: Timestamp] = [:], tripEndTime: Timestamp? = nil) {
        self.links = links
        self.tripEndTime = tripEndTime
    }

    /// Reads a stored `shares` document; nil when it is not one.
    package init?(document: JSONValue) {
        guard case .array(let list)? = document["links"] else { return nil }
        for item in list {
            guard let id = item["id"]?.stringValue, let expiry = item["expireTime"]?.stringValue.flatMap(Timestamp.init(rfc3339:)) else { return nil }
            links[id] = expiry
        }
        tripEndTime = document["tripEndTime"]?.stringValue.flatMap(Timestamp.init(rfc3339:))
    }

    /// The stored document.
    package var document: JSONValue {
        let list = links.keys.sorted().map { id in
            JSONValue.object(JSONObject([("id", .string(id)), ("expireTime", .string(links[id]!.rfc3339))]))
        }
        return .object(JSONObject([("links", .array(list)), ("tripEndTime", tripEndTime.map { .string($0.rfc3339) } ?? .null)]))
    }

    /// Whether link `id` works at `time`; nil when it does, else why not (`LINK_REVOKED`, `LINK_EXPIRED`).
    package func refusal(of id: String, at time: Timestamp) -> String? {
        guard let expiry = links[id] else { return "LINK_REVOKED" }
        guard time < expiry else { return "LINK_EXPIRED" }
        if let end = tripEndTime, time >= end.adding(seconds: Double(ShareLink.graceAfterTripEndSeconds)) { return "LINK_EXPIRED" }
        return nil
    }

    /// `providers/{p}/consumers/{c}`: the key of a rider's `riders` document.
    package static func riderKey(provider: String, consumerId: String) -> String {
        "providers/\(provider)/consumers/\(consumerId)"
    }
}
