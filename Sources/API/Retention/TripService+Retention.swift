import Journey

extension TripService {
    /// Deletes a finished trip for retention (`TripRetention`), only if its stream still stands at
    /// `version` (the version the sweep selected it at) and its last change is before `before`:
    /// a trip that took an event since, or is not COMPLETE or CANCELED, is left alone.
    ///
    /// Returns whether it appended `TripDeleted`. A concurrent writer wins: a version conflict
    /// leaves the trip as it is, for a later sweep to see again once it is quiet.
    func expire(provider: String, tripId: String, version: Int64, before: Timestamp, context: CommandContext) async throws(APIError) -> Bool {
        let stream = AggregateRepository.tripStream(provider: provider, tripId: tripId)
        var loaded = try await repository.loadTrip(provider: provider, tripId: tripId)
        if loaded.version < version {
            // The cached state is behind the table (another node wrote): read the stream again.
            repository.forget(stream)
            loaded = try await repository.loadTrip(provider: provider, tripId: tripId)
        }
        let state = loaded.state
        guard loaded.version == version, state.exists, state.status.isTerminal,
              let last = state.lastUpdatedAt ?? state.createdAt, last < before else { return false }
        let events: [Trip.Event]
        do { events = try Trip.decide(.deleteTrip(at: clock()), state: state) } catch { throw APIError(error) }
        let pending = repository.pendingTrip(provider: provider, tripId: tripId, before: loaded, events: events)
        return try await repository.commit(pending, metadata: context.metadata, retry: true, doing: "delete trip \(tripId) for retention") != nil
    }
}
