import struct Foundation.Data
import JSON

extension ShareLink {
    /// Facts about a trip's share links. Type strings are declared constants.
    package enum Event: Sendable, Hashable {
        case created(Created)
        case revoked(Revoked)

        package static let shareLinkCreated = "ShareLinkCreated"
        package static let shareLinksRevoked = "ShareLinksRevoked"

        /// Every stored type string of this aggregate.
        package static let allTypes: [String] = [shareLinkCreated, shareLinksRevoked]

        /// The stored type string.
        package var type: String {
            switch self {
            case .created: Event.shareLinkCreated
            case .revoked: Event.shareLinksRevoked
            }
        }

        /// `ShareLinkCreated`: link `linkId` reads the trip's journey until `expireTime`.
        package struct Created: Codable, Hashable, Sendable {
            package var tripId: String
            package var linkId: String
            package var expireTime: Timestamp
            package var at: Timestamp

            package init(tripId: String, linkId: String, expireTime: Timestamp, at: Timestamp) {
                self.tripId = tripId
                self.linkId = linkId
                self.expireTime = expireTime
                self.at = at
            }
        }

        /// `ShareLinksRevoked`: the listed links stop working.
        package struct Revoked: Codable, Hashable, Sendable {
            package var tripId: String
            package var linkIds: [String]
            package var at: Timestamp

            package init(tripId: String, linkIds: [String], at: Timestamp) {
                self.tripId = tripId
                self.linkIds = linkIds
                self.at = at
            }
        }

        /// Decodes a stored event from its type string and its bytes.
        package static func decode(type storedType: String, data: Data) throws(JourneyError) -> Event {
            try decode(type: storedType, json: try EventJSON.parse(data, type: storedType))
        }

        /// Decodes a stored event from its type string and its parsed payload (after upcasting).
        package static func decode(type storedType: String, json storedJSON: JSONValue) throws(JourneyError) -> Event {
            let (type, json) = EventUpcasters.upcast(type: storedType, json: storedJSON)
            switch type {
            case shareLinkCreated: return .created(try EventJSON.decode(Created.self, from: json, type: type))
            case shareLinksRevoked: return .revoked(try EventJSON.decode(Revoked.self, from: json, type: type))
            default: throw EventJSON.unknownType(type, aggregate: "share link")
            }
        }

        /// The JSON payload to store with `type`.
        package func encodePayload() throws(JourneyError) -> Data {
            switch self {
            case .created(let p): try EventJSON.encode(p, type: type)
            case .revoked(let p): try EventJSON.encode(p, type: type)
            }
        }
    }
}
