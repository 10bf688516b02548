import Journey

extension TripService {
    /// What the sweep did to one trip.
    struct Expiry: Sendable, Hashable {
        var deleted = false
        /// It was in progress and was canceled first.
        var canceled = false
    }

    /// Deletes a trip for retention (`RetentionSweep`), only if its stream still stands at `version`
    /// (the version the sweep selected it at) and its last change is before `before`.
    ///
    /// A COMPLETE or CANCELED trip, or one in progress that no vehicle serves, is deleted. One in
    /// progress on a vehicle is canceled and then deleted only if the vehicle reported no location
    /// since `before` either (or no longer exists); otherwise it is being driven and stays. Its
    /// location, not its last event: assigning the trip syncs the vehicle just after the trip's own
    /// events, so a sweep whose cutoff fell between the two took a silent car for a driven one. A
    /// concurrent writer wins: a version conflict leaves the trip as it is, for a later sweep to see again.
    func expire(provider: String, tripId: String, version: Int64, before: Timestamp, context: CommandContext) async throws(APIError) -> Expiry {
        let loaded = try await repository.loaded(AggregateRepository.tripStream(provider: provider, tripId: tripId), atLeast: version) { () async throws(APIError) in
            try await repository.loadTrip(provider: provider, tripId: tripId)
        }
        let state = loaded.state
        guard loaded.version == version, state.exists, Self.quiet(state, before: before) else { return Expiry() }
        guard let vehicleId = state.vehicleId, !state.status.isTerminal else {
            return Expiry(deleted: try await delete(loaded, provider: provider, tripId: tripId, context: context))
        }
        let vehicle = try await repository.loadVehicle(provider: provider, vehicleId: vehicleId).state
        let reportedAt = vehicle.lastLocation.flatMap { $0.serverTime ?? $0.updateTime }
        if vehicle.exists, !(reportedAt.map { $0 < before } ?? true) { return Expiry() }  // being driven
        let retired = try await retire(provider: provider, tripId: tripId, before: before, context: context)
        return Expiry(deleted: retired, canceled: retired)
    }

    /// Cancels a quiet trip in progress (which brings its vehicle in line, as any cancel does) and
    /// deletes it; whether it did. A trip that is finished, or took an event since `before`, is
    /// left alone.
    func retire(provider: String, tripId: String, before: Timestamp, context: CommandContext) async throws(APIError) -> Bool {
        var canceled = false
        _ = try await mutate(provider: provider, tripId: tripId, context: context, assigning: nil, waypoints: nil) { state, _, now in
            guard state.exists, !state.status.isTerminal, Self.quiet(state, before: before) else { return [] }
            canceled = true
            return [.cancelTrip(at: now)]
        }
        guard canceled else { return false }
        let loaded = try await repository.loadTrip(provider: provider, tripId: tripId)
        guard loaded.state.exists, loaded.state.status == .canceled else { return false }  // another writer came first
        return try await delete(loaded, provider: provider, tripId: tripId, context: context)
    }

    private static func quiet(_ state: Trip.State, before: Timestamp) -> Bool {
        guard let last = state.lastUpdatedAt ?? state.createdAt else { return false }
        return last < before
    }

    /// Appends `TripDeleted` under `loaded`'s version; false when another writer moved the stream.
    private func delete(_ loaded: Loaded<Trip.State>, provider: String, tripId: String, context: CommandContext) async throws(APIError) -> Bool {
        let events: [Trip.Event]
        do { events = try Trip.decide(.deleteTrip(at: clock()), state: loaded.state) } catch { throw APIError(error) }
        let pending = repository.pendingTrip(provider: provider, tripId: tripId, before: loaded, events: events)
        return try await repository.commit(pending, metadata: context.metadata, retry: true, doing: "delete trip \(tripId) for retention") != nil
    }
}

extension VehicleService {
    /// Deletes a vehicle for retention (`RetentionSweep`), only if its stream still stands at
    /// `version` and its last change is before `before`. Each current trip is first offered to
    /// `retireTrip` (which cancels and deletes it if it is quiet too); a vehicle left with a
    /// current trip stays. Whether it appended `VehicleDeleted`.
    func expire(provider: String, vehicleId: String, version: Int64, before: Timestamp, context: CommandContext,
                retireTrip: (String) async throws(APIError) -> Bool) async throws(APIError) -> Bool {
        var loaded = try await repository.loaded(AggregateRepository.vehicleStream(provider: provider, vehicleId: vehicleId), atLeast: version) { () async throws(APIError) in
            try await repository.loadVehicle(provider: provider, vehicleId: vehicleId)
        }
        guard loaded.version == version, loaded.state.exists, let last = loaded.state.lastUpdatedAt, last < before else { return false }
        if !loaded.state.currentTrips.isEmpty {
            for trip in loaded.state.currentTrips {
                guard try await retireTrip(trip.tripId) else { return false }
            }
            // The cancels took the trips off the vehicle (events of the sweep's own): anything
            // else written since the vehicle was selected keeps it.
            let after = try await repository.loadVehicle(provider: provider, vehicleId: vehicleId)
            guard after.state.currentTrips.isEmpty, after.state.lastLocation == loaded.state.lastLocation,
                  after.state.vehicleState == loaded.state.vehicleState else { return false }
            loaded = after
        }
        let events: [Vehicle.Event]
        do { events = try Vehicle.decide(.deleteVehicle(at: clock()), state: loaded.state) } catch { throw APIError(error) }
        let pending = repository.pendingVehicle(provider: provider, vehicleId: vehicleId, before: loaded, events: events)
        return try await repository.commit(pending, metadata: context.metadata, retry: true,
                                           doing: "delete vehicle \(vehicleId) for retention") != nil
    }
}

extension AggregateRepository {
    /// `load`'s state, read again from the stream when the cached one is older than `version` (a
    /// version the sweep saw in `streams`: another node wrote since this one cached it).
    func loaded<State: Sendable>(_ stream: String, atLeast version: Int64,
                       _ load: () async throws(APIError) -> Loaded<State>) async throws(APIError) -> Loaded<State> {
        let cached = try await load()
        guard cached.version < version else { return cached }
        forget(stream)
        return try await load()
    }
}
