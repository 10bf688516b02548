/// The share-link aggregate: the links a trip's journey is shared through.
///
/// A namespace with `State`, `Command`, `Event` and the pure `decide` / `evolve`. Stream id:
/// `share:{provider}/{tripId}`, beside the trip's own stream, so sharing never contends with the
/// trip's commands and the trip aggregate stays what Fleet Engine knows. The link's secret (the
/// signed token) is never stored: only its id and expiry are. Whether the trip exists, and when it
/// ended, is checked by the caller and by the journey projection, not here.
package enum ShareLink {
    /// The most links of one trip that may be live (not revoked, not expired) at once.
    package static let maximumLiveLinks = 50
    /// The longest a link may live, in seconds (24 h).
    package static let maximumLifetimeSeconds: Int64 = 24 * 3600
    /// How long a link keeps working after its trip ended (COMPLETE or CANCELED), in seconds.
    package static let graceAfterTripEndSeconds: Int64 = 15 * 60

    /// One link as the stream knows it.
    package struct Link: Sendable, Hashable, Codable {
        package var expireTime: Timestamp
        package var revoked: Bool

        package init(expireTime: Timestamp, revoked: Bool = false) {
            self.expireTime = expireTime
            self.revoked = revoked
        }
    }

    /// Everything `decide` needs: every link ever created on the stream, by id.
    package struct State: Sendable, Hashable {
        package var tripId: String = ""
        package var links: [String: Link] = [:]

        package init() {}

        /// Ids of links neither revoked nor expired at `time`, sorted.
        package func liveLinkIds(at time: Timestamp) -> [String] {
            links.filter { !$0.value.revoked && $0.value.expireTime > time }.keys.sorted()
        }
    }

    /// What a caller asks of the stream.
    package enum Command: Sendable, Hashable {
        /// Creates link `linkId` for `tripId`, valid until `expireTime`.
        case createLink(tripId: String, linkId: String, expireTime: Timestamp, at: Timestamp)
        /// Revokes the named links, or every link not yet revoked when `linkIds` is nil.
        case revokeLinks(tripId: String, linkIds: [String]?, at: Timestamp)
    }
}
