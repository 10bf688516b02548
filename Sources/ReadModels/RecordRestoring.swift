import JSON
import Journey

// Which records each projection may let go from memory, and which a batch reads back (see
// `RecordMap`). Trip records always stay: a fleet has far fewer live trips than vehicles, and the
// maps derived from them (which vehicle serves which trip) must be whole. Vehicle records go only
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

/// Decodes the stored records among `found` that are in `collection`, by key.
private func storedRecords<Record: Decodable>(_ type: Record.Type, in collection: String, _ found: [DocumentChange],
                                              key: (String) -> String? = { $0 }) -> [String: Record] {
    let decoder = JSONValueDecoder()
    var records: [String: Record] = [:]
    for change in found where change.collection == collection {
        guard let document = change.document, let recordKey = key(change.key) else { continue }
        // An undecodable document is skipped, as `load` skips it.
        if let record = try? decoder.decode(Record.self, from: document) { records[recordKey] = record }
    }
    return records
}

extension FleetResourceProjection {
    package func documentsNeeded(by envelopes: [EventEnvelope]) -> [DocumentAddress] {
        guard vehicles.isPartial else { return [] }
        let keys = vehiclesRead(by: envelopes, vehicleKey: { Self.vehicleKey(provider: $0, vehicleId: $1) },
                                vehicleOfTrip: { trips[Self.tripKey(provider: $0, tripId: $1)]?.state.vehicleId })
        return keys.filter(vehicles.needsRestoring).sorted().map { DocumentAddress(collection: Self.vehicleStatesCollection, key: $0) }
    }

    package mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange]) {
        let stored = storedRecords(VehicleRecord.self, in: Self.vehicleStatesCollection, found)
        for address in requested where address.collection == Self.vehicleStatesCollection {
            vehicles.restore(address.key, stored[address.key])
        }
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
        return keys.filter(vehicles.needsRestoring).sorted().map { DocumentAddress(collection: Self.stateCollection, key: $0) }
    }

    package mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange]) {
        let stored = storedRecords(JourneyViewVehicle.self, in: Self.stateCollection, found)
        for address in requested where address.collection == Self.stateCollection {
            vehicles.restore(address.key, stored[address.key])
        }
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
        return keys.filter(vehicles.needsRestoring).sorted().map { DocumentAddress(collection: Self.statesCollection, key: Self.storedPrefix + $0) }
    }

    package mutating func restore(_ requested: [DocumentAddress], found: [DocumentChange]) {
        let stored = storedRecords(VehicleRecord.self, in: Self.statesCollection, found) { key in
            key.hasPrefix(Self.storedPrefix) ? String(key.dropFirst(Self.storedPrefix.count)) : nil
        }
        for address in requested where address.collection == Self.statesCollection && address.key.hasPrefix(Self.storedPrefix) {
            let key = String(address.key.dropFirst(Self.storedPrefix.count))
            vehicles.restore(key, stored[key])
        }
    }

    /// Lets go of vehicles with no current trip.
    package mutating func letGo(keeping limit: Int) -> Int {
        vehicles.letGo(keeping: limit) { _, record in record.currentTripIds.isEmpty }
    }

    package func takeUnrestoredReads() -> [String] { vehicles.takeUnrestoredReads() }
}
