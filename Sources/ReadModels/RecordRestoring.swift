import JSON
import Journey

// Which records each projection may let go from memory, and which a batch reads back (see
// `RecordMap`). Trip records of the fleet, journey and driver-feed projections always stay: a fleet
// has far fewer live trips than vehicles, and the maps derived from them (which vehicle serves
// which trip) must be whole; they leave memory when the trip is deleted (`DeleteTrip`, or the
// retention sweep). The route audit keeps deleted trips' audits, so it lets finished audits go and
// reads an audit back for any event that names its trip. Vehicle records go only
// while no trip is linked to the vehicle, so rendering a trip never reads one that is let go; a
// batch reads back each vehicle it has an event for, and for each trip event the trip's vehicle
// and the vehicle it is assigned to.

/// The vehicles whose records the batch's events read: each vehicle event's own, and for each
/// trip event its trip's current vehicle (`vehicleOfTrip`) and the one it is assigned to.
private func vehiclesRead(by envelopes: [EventEnvelope], vehicleKey: (String, String) -> String,
                          vehicleOfTrip: (String, String) -> String?) -> Set<String> {
    var keys: Set<String> = []
    for envelope in envelopes {
        switch envelope.event {
        case .vehicle(let provider, let vehicleId, _):
            keys.insert(vehicleKey(provider, vehicleId))
        case .trip(let provider, let tripId, let event):
            if let current = vehicleOfTrip(provider, tripId) { keys.insert(vehicleKey(provider, current)) }
            if case .vehicleAssigned(let assigned) = event { keys.insert(vehicleKey(provider, assigned.vehicleId)) }
        case .share, .style:
            continue
        }
    }
    return keys
}

extension RecordMap where Record: Decodable {
    /// The stored addresses of those of `keys` that were let go: records keyed `K` are stored in
    /// `collection` under `prefix` + `K`.
    func addressesToRestore(_ keys: Set<String>, collection: String, prefix: String = "") -> [DocumentAddress] {
        keys.filter(needsRestoring).sorted().map { DocumentAddress(collection: collection, key: prefix + $0) }
    }

    /// Puts back the records at the `requested` addresses of `collection` (made by
    /// `addressesToRestore` with the same `prefix`): decoded from `found`, or absent when not stored.
    mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange], collection: String, prefix: String = "") {
        let decoder = JSONValueDecoder()
        var stored: [String: Record] = [:]
        for change in found where change.collection == collection {
            // An undecodable document is skipped, as `load` skips it.
            if let document = change.document, let record = try? decoder.decode(Record.self, from: document) { stored[change.key] = record }
        }
        for address in requested where address.collection == collection && address.key.hasPrefix(prefix) {
            restore(String(address.key.dropFirst(prefix.count)), stored[address.key])
        }
    }
}

extension FleetResourceProjection {
    package func documentsNeeded(by envelopes: [EventEnvelope]) -> [DocumentAddress] {
        guard vehicles.isPartial else { return [] }
        let keys = vehiclesRead(by: envelopes, vehicleKey: { Self.vehicleKey(provider: $0, vehicleId: $1) },
                                vehicleOfTrip: { trips[Self.tripKey(provider: $0, tripId: $1)]?.state.vehicleId })
        return vehicles.addressesToRestore(keys, collection: Self.vehicleStatesCollection)
    }

    package mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange]) {
        vehicles.restore(requested, found: found, collection: Self.vehicleStatesCollection)
    }

    /// Lets go of vehicles no trip names (`claims`) and that list no trip.
    package mutating func letGo(keeping limit: Int) -> Int {
        let claims = self.claims
        return vehicles.letGo(keeping: limit) { key, record in claims[key] == nil && record.state.currentTrips.isEmpty }
    }

    package func takeUnrestoredReads() -> [String] { vehicles.takeUnrestoredReads() }
}

extension JourneyViewProjection {
    package func documentsNeeded(by envelopes: [EventEnvelope]) -> [DocumentAddress] {
        guard vehicles.isPartial else { return [] }
        let keys = vehiclesRead(by: envelopes, vehicleKey: { JourneyViewVehicle.key(provider: $0, vehicleId: $1) },
                                vehicleOfTrip: { trips[JourneyViewTrip.key(provider: $0, tripId: $1)]?.trip.vehicleId })
        return vehicles.addressesToRestore(keys, collection: Self.stateCollection)
    }

    package mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange]) {
        vehicles.restore(requested, found: found, collection: Self.stateCollection)
    }

    /// Lets go of vehicles that serve no trip.
    package mutating func letGo(keeping limit: Int) -> Int {
        let served = self.served
        return vehicles.letGo(keeping: limit) { key, _ in served[key]?.isEmpty ?? true }
    }

    package func takeUnrestoredReads() -> [String] { vehicles.takeUnrestoredReads() }
}

extension DriverFeedProjection {
    /// Vehicle records are keyed `providers/P/vehicles/V` and stored as `vehicles/` + key.
    private static let storedPrefix = "vehicles/"

    package func documentsNeeded(by envelopes: [EventEnvelope]) -> [DocumentAddress] {
        guard vehicles.isPartial else { return [] }
        let keys = vehiclesRead(by: envelopes, vehicleKey: { FleetResourceProjection.vehicleKey(provider: $0, vehicleId: $1) },
                                vehicleOfTrip: { trips[FleetResourceProjection.tripKey(provider: $0, tripId: $1)]?.vehicleId })
        return vehicles.addressesToRestore(keys, collection: Self.statesCollection, prefix: Self.storedPrefix)
    }

    package mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange]) {
        vehicles.restore(requested, found: found, collection: Self.statesCollection, prefix: Self.storedPrefix)
    }

    /// Lets go of vehicles with no current trip.
    package mutating func letGo(keeping limit: Int) -> Int {
        vehicles.letGo(keeping: limit) { _, record in record.currentTripIds.isEmpty }
    }

    package func takeUnrestoredReads() -> [String] { vehicles.takeUnrestoredReads() }
}

extension RouteAuditProjection {
    /// The audits the batch's events read: each trip event's own, and the trips each vehicle
    /// event names (a location report's `currentTripIds`, an off-route episode's trip).
    package func documentsNeeded(by envelopes: [EventEnvelope]) -> [DocumentAddress] {
        guard audits.isPartial else { return [] }
        var keys: Set<String> = []
        for envelope in envelopes {
            switch envelope.event {
            case .trip(let provider, let tripId, _):
                keys.insert(FleetResourceProjection.tripKey(provider: provider, tripId: tripId))
            case .vehicle(let provider, _, let event):
                for tripId in Self.tripsRead(by: event) { keys.insert(FleetResourceProjection.tripKey(provider: provider, tripId: tripId)) }
            case .share, .style:
                continue
            }
        }
        return audits.addressesToRestore(keys, collection: Self.auditStatesCollection)
    }

    package mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange]) {
        audits.restore(requested, found: found, collection: Self.auditStatesCollection)
    }

    /// Lets go of finished audits: trips COMPLETE or CANCELED, deleted ones, and earlier
    /// lifecycles. An audit in progress always stays.
    package mutating func letGo(keeping limit: Int) -> Int {
        audits.letGo(keeping: limit) { _, record in record.deletedAt != nil || record.status.isTerminal }
    }

    package func takeUnrestoredReads() -> [String] { audits.takeUnrestoredReads() }
}
