import JSON
import Journey

/// Rider access kept by the journey projection: share links, riders' trips, journey styles.
extension JourneyViewProjection {
    /// `providers/{p}/trips/{t}`: the key of a trip's `views` and `shares` documents.
    package static func viewKey(provider: String, tripId: String) -> String {
        JourneyViewTrip.key(provider: provider, tripId: tripId)
    }

    /// Keeps a trip's live share links. Links of a trip the projection does not know (never
    /// created, or deleted before the link's event) are ignored, so a trip created again under
    /// the same id starts with no links.
    mutating func applyShare(provider: String, tripId: String, _ event: ShareLink.Event) {
        let key = JourneyViewTrip.key(provider: provider, tripId: tripId)
        guard let trip = trips[key], trip.trip.exists else { return }
        var current = shares[key] ?? JourneyViewShares()
        switch event {
        case .created(let e):
            current.links[e.linkId] = e.expireTime
        case .revoked(let e):
            for id in e.linkIds { current.links.removeValue(forKey: id) }
        }
        current.tripEndTime = trip.endedAt
        guard shares[key] != current else { return }
        shares[key] = current
        dirtyShares.insert(key)
    }

    /// Records the provider's new style and re-renders every view of the provider with its version.
    mutating func applyStyle(provider: String, _ event: JourneyStyle.Event, at time: Timestamp) {
        switch event {
        case .set(let e):
            guard (styleVersions[provider] ?? 0) < e.version else { return }
            styleVersions[provider] = e.version
            pending[Address(collection: Self.stylesCollection, key: "providers/\(provider)")] = Self.styleDocument(provider: provider, e)
            for key in trips.keys.sorted() where trips[key]?.provider == provider {
                refreshView(key, at: time)
            }
        }
    }

    /// The stored style: `name`, `version`, `updateTime`, `markers`, `polylines`.
    static func styleDocument(provider: String, _ event: JourneyStyle.Event.StyleSet) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("name", .string("providers/\(provider)/journeyStyle")), ("version", .number(JSONNumber(event.version))),
            ("updateTime", .string(event.at.rfc3339)),
        ]
        if case .object(let options) = event.options.json {
            for (key, value) in options { members.append((key, value)) }
        }
        return .object(JSONObject(members))
    }

    /// Moves trip `tripId` from one rider's list to another's (either may be nil).
    mutating func noteRider(of tripId: String, from before: String?, to after: String?) {
        guard before != after else { return }
        if let before, riders[before]?.remove(tripId) != nil {
            if riders[before]?.isEmpty == true { riders[before] = nil }
            dirtyRiders.insert(before)
        }
        if let after {
            riders[after, default: []].insert(tripId)
            dirtyRiders.insert(after)
        }
    }

    /// Queues the changed `shares` and `riders` documents (the end time of a trip with links follows the trip).
    mutating func drainAccess() {
        for key in dirtyShares {
            if var current = shares[key] {
                current.tripEndTime = trips[key]?.endedAt
                shares[key] = current
                pending[Address(collection: Self.sharesCollection, key: key)] = current.document
            } else {
                let deleted: JSONValue? = .none
                pending[Address(collection: Self.sharesCollection, key: key)] = deleted
            }
        }
        dirtyShares = []
        for key in dirtyRiders {
            if let list = riders[key], !list.isEmpty {
                pending[Address(collection: Self.ridersCollection, key: key)] = .object(JSONObject([("trips", .array(list.sorted().map(JSONValue.string)))]))
            } else {
                let deleted: JSONValue? = .none
                pending[Address(collection: Self.ridersCollection, key: key)] = deleted
            }
        }
        dirtyRiders = []
    }

    /// A trip's share links (for queries and tests).
    package func shareLinks(provider: String, tripId: String) -> JourneyViewShares? {
        shares[JourneyViewTrip.key(provider: provider, tripId: tripId)]
    }
}
