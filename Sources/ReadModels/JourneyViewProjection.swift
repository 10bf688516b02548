import JSON
import Journey

/// The journey view: per trip, what a rider's app draws (markers, polylines, ETAs).
///
/// Documents (DESIGN.md §4):
/// - `views` / `providers/{p}/trips/{t}`: the view, `name`, `version`, `tripStatus`,
///   `updateTime`, `markers`, `polylines`, `nextStop`, `dropoffEta`,
///   `remainingDistanceToDropoffMeters`, in that order. `version` counts the changes of the
///   view; it moves (by one) only when the view minus `version`/`updateTime` differs from the
///   previous one, and `updateTime` is then the `recordedAt` of the event that changed it.
/// - `state` / `providers/{p}/trips/{t}` and `state` / `providers/{p}/vehicles/{v}`: the
///   internal state of each trip and vehicle (`JourneyViewTrip`, `JourneyViewVehicle`).
///
/// Trip events change their own trip's view. A vehicle event changes the views of the trips
/// the vehicle currently serves: assigned (`TripVehicleAssigned`, not yet unassigned) and not
/// COMPLETE or CANCELED, as the trip streams say. Which vehicle serves which trip is derived
/// from the trip states, so `load` rebuilds it. Everything is a function of the events and
/// their `recordedAt`; no clock is read.
///
/// `TripDeleted` deletes the trip's view and state documents; a trip created again under the same
/// id starts a new view at version 1 (so a client's cached version alone cannot tell the two
/// lifecycles apart; `updateTime` can). `VehicleDeleted` deletes the vehicle's state document.
///
/// Rider access lives here too, because it follows the same trips (see
/// `JourneyViewProjection+Access.swift`): `shares` / `providers/{p}/trips/{t}` (the trip's live
/// share links and when the trip ended), `riders` / `providers/{p}/consumers/{c}` (the trips whose
/// `consumerId` attribute names rider `c`) and `styles` / `providers/{p}` (the provider's journey
/// style). Each view carries `styleVersion`, its provider's style version (0: never set); a style
/// change re-renders, and so re-versions, every view of the provider.
package struct JourneyViewProjection: ReadModelProjection {
    package static let name = "journey"
    /// The collection of the riders' views.
    package static let viewsCollection = "views"
    /// The collection of the internal trip and vehicle state.
    package static let stateCollection = "state"
    /// The collection of each trip's share links (`providers/{p}/trips/{t}`).
    package static let sharesCollection = "shares"
    /// The collection of each rider's trips (`providers/{p}/consumers/{c}`).
    package static let ridersCollection = "riders"
    /// The collection of each provider's journey style (`providers/{p}`).
    package static let stylesCollection = "styles"

    /// The last view of a trip, split into what is compared and what is stamped.
    ///
    /// The content is kept as its compact JSON bytes (a third of the memory of a `JSONObject`
    /// tree, for every trip's view). Bytes the renderer wrote are compared with a new rendering's
    /// bytes; bytes loaded from the table (where member order and number spelling are the
    /// database's) are parsed and compared as JSON values once, until the next rendering replaces them.
    private struct View: Sendable {
        var version: Int64
        var updateTime: Timestamp
        var content: [UInt8]
        /// Whether `content` is the renderer's own writing (else it was loaded).
        var rendered: Bool

        /// `content`: the content's compact bytes.
        init(version: Int64, updateTime: Timestamp, content: [UInt8], rendered: Bool) {
            self.version = version
            self.updateTime = updateTime
            self.content = content.withoutSpareCapacity()
            self.rendered = rendered
        }

        /// The content as a JSON object (an unparsable one, which the renderer never writes, as empty).
        var contentObject: JSONObject {
            (try? JSONValue.parse(content))?.objectValue ?? JSONObject()
        }

        /// Whether `other`, a new rendering, is the same content.
        func hasContent(_ other: JSONObject, bytes: [UInt8]) -> Bool {
            rendered ? content == bytes : contentObject == other
        }

        /// `name`, `version`, `tripStatus`, `updateTime`, then the rest of the content.
        static func document(_ content: JSONObject, version: Int64, updateTime: Timestamp) -> JSONValue {
            var members: [(String, JSONValue)] = []
            for (key, value) in content {
                members.append((key, value))
                if key == "name" { members.append(("version", .number(JSONNumber(version)))) }
                if key == "tripStatus" { members.append(("updateTime", .string(updateTime.rfc3339))) }
            }
            return .object(JSONObject(members))
        }

        var document: JSONValue { Self.document(contentObject, version: version, updateTime: updateTime) }
    }

    /// A document to write at the next drain.
    struct Address: Hashable, Sendable, Comparable {
        var collection: String
        var key: String

        static func < (lhs: Address, rhs: Address) -> Bool {
            (lhs.collection, lhs.key) < (rhs.collection, rhs.key)
        }
    }

    var trips = RecordMap<JourneyViewTrip>()
    var vehicles = RecordMap<JourneyViewVehicle>()
    private var views = RecordMap<View>()
    /// Vehicle key → keys of the trips it serves; derived from `trips`.
    var served: [String: Set<String>] = [:]
    /// View documents changed since the last drain (rendered when they changed).
    var pending: [Address: JSONValue?] = [:]
    /// Keys of trip and vehicle states changed since the last drain; encoded once, at drain time.
    private var dirtyStates: Set<String> = []
    /// Trip key → its live share links; restored from `shares` documents.
    var shares: [String: JourneyViewShares] = [:]
    /// Trip keys whose `shares` document changed since the last drain.
    var dirtyShares: Set<String> = []
    /// Rider key (`providers/{p}/consumers/{c}`) → ids of the rider's trips; derived from `trips`.
    var riders: [String: Set<String>] = [:]
    /// Rider keys whose `riders` document changed since the last drain.
    var dirtyRiders: Set<String> = []
    /// Provider → its journey style version; restored from `styles` documents.
    var styleVersions: [String: Int64] = [:]

    package init() {}

    package mutating func load(_ documents: [DocumentChange]) {
        trips = RecordMap()
        vehicles = RecordMap()
        views = RecordMap()
        served = [:]
        pending = [:]
        dirtyStates = []
        shares = [:]
        dirtyShares = []
        riders = [:]
        dirtyRiders = []
        styleVersions = [:]
        for change in documents {
            guard let document = change.document else { continue }
            switch change.collection {
            case Self.viewsCollection:
                guard var content = document.objectValue,
                      let version = content.removeValue(forKey: "version")?.int64Value,
                      let stamp = content.removeValue(forKey: "updateTime")?.stringValue,
                      let updateTime = Timestamp(rfc3339: stamp)
                else { continue }
                views[change.key] = View(version: version, updateTime: updateTime, content: JSONValue.object(content).compactBytes(), rendered: false)
            case Self.stateCollection:
                if Self.isTripKey(change.key), let trip = Self.decode(JourneyViewTrip.self, from: document) {
                    trips[change.key] = trip
                } else if Self.isVehicleKey(change.key), let vehicle = Self.decode(JourneyViewVehicle.self, from: document) {
                    vehicles[change.key] = vehicle
                }
            case Self.sharesCollection:
                if let restored = JourneyViewShares(document: document) { shares[change.key] = restored }
            case Self.stylesCollection:
                if let version = document["version"]?.int64Value, change.key.hasPrefix("providers/") {
                    styleVersions[String(change.key.dropFirst("providers/".count))] = version
                }
            default:
                continue
            }
        }
        for (key, trip) in trips {
            if let vehicleKey = trip.servingVehicleKey { served[vehicleKey, default: []].insert(key) }
            if let riderKey = trip.riderKey { riders[riderKey, default: []].insert(trip.trip.tripId) }
        }
    }

    package mutating func apply(_ envelope: EventEnvelope) {
        switch envelope.event {
        case .trip(let provider, let tripId, let event):
            let key = JourneyViewTrip.key(provider: provider, tripId: tripId)
            if case .deleted = event {
                removeTrip(key)
                return
            }
            var trip = trips[key] ?? JourneyViewTrip(provider: provider, tripId: tripId)
            let servedBefore = trip.servingVehicleKey
            let riderBefore = trip.riderKey
            let endedBefore = trip.endedAt
            trip.apply(event, recordedAt: envelope.recordedAt)
            store(trip, key: key)
            let servedAfter = trip.servingVehicleKey
            if servedBefore != servedAfter {
                if let servedBefore { served[servedBefore]?.remove(key) }
                if let servedAfter { served[servedAfter, default: []].insert(key) }
            }
            noteRider(of: tripId, from: riderBefore, to: trip.riderKey)
            if endedBefore != trip.endedAt, shares[key] != nil { dirtyShares.insert(key) }
            refreshView(key, at: envelope.recordedAt)
        case .vehicle(let provider, let vehicleId, let event):
            let key = JourneyViewVehicle.key(provider: provider, vehicleId: vehicleId)
            if case .deleted = event {
                // Its state document goes; a vehicle registered again under the id starts afresh.
                if vehicles.removeValue(forKey: key) != nil { dirtyStates.insert(key) }
            } else {
                var vehicle = vehicles[key] ?? JourneyViewVehicle()
                vehicle.apply(event)
                if vehicles[key] != vehicle {
                    vehicles[key] = vehicle
                    dirtyStates.insert(key)
                }
            }
            for tripKey in (served[key] ?? []).sorted() {
                guard var trip = trips[tripKey] else { continue }
                trip.observe(envelope.recordedAt)
                store(trip, key: tripKey)
                refreshView(tripKey, at: envelope.recordedAt)
            }
        case .share(let provider, let tripId, let event):
            applyShare(provider: provider, tripId: tripId, event)
        case .style(let provider, let event):
            applyStyle(provider: provider, event, at: envelope.recordedAt)
        }
    }

    package mutating func drainChanges() -> [DocumentChange] {
        // Vehicle states are rewritten at every location report: written as bytes, never as value trees.
        var changes: [DocumentChange] = []
        for key in dirtyStates {
            // Keys name their kind, as in `load` (a vehicle let go from memory must not be looked up for a trip).
            if Self.isTripKey(key) {
                let state: JSONValue? = trips[key].map { RecordJSON.generic($0) }
                pending[Address(collection: Self.stateCollection, key: key)] = .some(state)  // nil: the trip's state is deleted
            } else if let vehicle = vehicles[key] {
                changes.append(DocumentChange(collection: Self.stateCollection, key: key, canonical: vehicle.recordBytes))
            } else {
                pending[Address(collection: Self.stateCollection, key: key)] = .some(nil)
            }
        }
        dirtyStates = []
        drainAccess()
        changes += pending.map { DocumentChange(collection: $0.key.collection, key: $0.key.key, document: $0.value) }
        pending = [:]
        return changes.sorted { ($0.collection, $0.key) < ($1.collection, $1.key) }
    }

    /// Whether a state key names a trip (`providers/{p}/trips/{t}`) or a vehicle
    /// (`providers/{p}/vehicles/{v}`): the segment after the provider's, read from the bytes (a
    /// provider id is one path segment, so it holds no `/`). Runs for every state written, where a
    /// substring search on `String` cost about 2% of a runner's time.
    static func isTripKey(_ key: String) -> Bool { kindSegment(of: key, is: "trips/") }
    static func isVehicleKey(_ key: String) -> Bool { kindSegment(of: key, is: "vehicles/") }

    private static func kindSegment(of key: String, is kind: StaticString) -> Bool {
        let bytes = key.utf8
        let prefix = "providers/".utf8
        guard bytes.starts(with: prefix) else { return false }
        let afterPrefix = bytes.index(bytes.startIndex, offsetBy: prefix.count)
        guard let slash = bytes[afterPrefix...].firstIndex(of: UInt8(ascii: "/")) else { return false }
        let rest = bytes[bytes.index(after: slash)...]
        return kind.withUTF8Buffer { rest.starts(with: $0) }
    }

    /// The current view document of a trip, if it has one (for queries and tests).
    package func view(provider: String, tripId: String) -> JSONValue? {
        views[JourneyViewTrip.key(provider: provider, tripId: tripId)]?.document
    }

    /// Forgets a deleted trip and queues the deletion of its view and state documents.
    private mutating func removeTrip(_ key: String) {
        if let vehicleKey = trips[key]?.servingVehicleKey {
            served[vehicleKey]?.remove(key)
            if served[vehicleKey]?.isEmpty == true { served[vehicleKey] = nil }
        }
        if let trip = trips[key] { noteRider(of: trip.trip.tripId, from: trip.riderKey, to: nil) }
        if shares.removeValue(forKey: key) != nil { dirtyShares.insert(key) }
        if trips.removeValue(forKey: key) != nil { dirtyStates.insert(key) }
        if views.removeValue(forKey: key) != nil {
            let deleted: JSONValue? = .none
            pending[Address(collection: Self.viewsCollection, key: key)] = deleted
        }
    }

    /// Keeps a trip's state and queues its document when it changed.
    private mutating func store(_ trip: JourneyViewTrip, key: String) {
        guard trips[key] != trip else { return }
        trips[key] = trip
        dirtyStates.insert(key)
    }

    /// Re-renders a trip's view; a changed view gets the next version, stamped `at`.
    mutating func refreshView(_ key: String, at time: Timestamp) {
        guard let trip = trips[key], trip.trip.exists else { return }
        let vehicle = trip.servingVehicleKey.flatMap { vehicles[$0] }
        let previous = views[key]
        let content = JourneyViewRenderer.content(trip: trip, vehicle: vehicle, previous: { previous?.contentObject },
                                                  styleVersion: styleVersions[trip.provider] ?? 0)
        let bytes = JSONValue.object(content).compactBytes()
        if let previous, previous.hasContent(content, bytes: bytes) { return }
        let version = (previous?.version ?? 0) + 1
        views[key] = View(version: version, updateTime: time, content: bytes, rendered: true)
        pending[Address(collection: Self.viewsCollection, key: key)] = View.document(content, version: version, updateTime: time)
    }

    /// State from its document; nil when the document is not one (it is then ignored).
    private static func decode<T: Decodable>(_ type: T.Type, from document: JSONValue) -> T? {
        do {
            return try JSONValueDecoder().decode(type, from: document)
        } catch {
            return nil
        }
    }
}

extension JourneyViewProjection {
    /// Keys of vehicle states whose hand-built document (`JourneyViewVehicle.recordValue`), or the
    /// canonical bytes written without it (`recordBytes`), differ from the generic encoder's; empty when every one agrees (a check for tests).
    package var recordEncodingMismatches: [String] {
        vehicles.compactMap { key, vehicle in
            let generic = RecordJSON.generic(vehicle)
            return vehicle.recordValue.compactBytes() == generic.compactBytes() && vehicle.recordBytes == generic.canonicalBytes() ? nil : key
        }.sorted()
    }
}
