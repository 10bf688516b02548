import EventStore
import JSON
import Journey
import Projections
import ReadModels

/// Time travel: a trip's journey view and Trip resource as they were at a past recorded instant.
///
/// Not a second implementation: the events recorded up to the instant are folded, in feed order,
/// through the same projections the live read models run (`JourneyViewProjection`,
/// `FleetResourceProjection`), in memory. Which events: the trip's stream; the whole stream of
/// every vehicle ever assigned to it (a vehicle's state is built from all its past); the streams
/// of the other trips those vehicles were given (a shared vehicle's waypoints and a trip's
/// `*Version`s depend on them); and the provider's journey style. Events of anything else never
/// change this trip's view or resource. The cost grows with those vehicles' histories.
extension AuditService {
    /// What a time-travel fold produced for one trip.
    struct PastTrip {
        var journey: JourneyViewProjection
        var fleet: FleetResourceProjection
    }

    /// Reads the events that decide trip `tripId`'s view and resource as of `asOf` and folds them.
    func replay(provider: String, tripId: String, asOf: Timestamp) async throws(APIError) -> PastTrip {
        guard asOf <= clock() else {
            throw .invalidArgument("asOf must not be in the future (got \(asOf.rfc3339)): only what was recorded can be replayed")
        }
        let until = StreamFilter(recordedThrough: asOf.microsecondsSinceEpoch)
        func read(_ stream: String) async throws(APIError) -> [RecordedEvent] {
            do { return try await store.readWholeStream(stream, filter: until) } catch { throw APIError(error, doing: "read \(stream)") }
        }
        let tripStream = "trip:\(provider)/\(tripId)"
        var events = try await read(tripStream)
        var vehicles: Set<String> = []
        for event in events {
            if case .some(.success(let envelope)) = EnvelopeDecoder.decode(event), case .trip(_, _, .vehicleAssigned(let assigned)) = envelope.event {
                vehicles.insert(assigned.vehicleId)
            }
        }
        var otherTrips: Set<String> = []
        for vehicle in vehicles.sorted() {
            let vehicleEvents = try await read("vehicle:\(provider)/\(vehicle)")
            for event in vehicleEvents {
                if case .some(.success(let envelope)) = EnvelopeDecoder.decode(event), case .vehicle(_, _, .tripAssigned(let assigned)) = envelope.event,
                   assigned.tripId != tripId {
                    otherTrips.insert(assigned.tripId)
                }
            }
            events += vehicleEvents
        }
        for other in otherTrips.sorted() { events += try await read("trip:\(provider)/\(other)") }
        events += try await read("style:\(provider)/journey")
        events.sort { $0.feedPosition < $1.feedPosition }

        var journey = ReadModelProjector<JourneyViewProjection>()
        var fleet = ReadModelProjector<FleetResourceProjection>()
        for event in events {
            journey.apply(event)
            fleet.apply(event)
        }
        return PastTrip(journey: journey.model, fleet: fleet.model)
    }

    /// The journey view of the trip as it was at `asOf` (recorded, i.e. server, time).
    ///
    /// Server and auditor tokens of the provider; a consumer token naming the trip, or naming the
    /// rider the trip belonged to at that instant. NOT_FOUND when the trip had no view then.
    func journey(provider: String, tripId: String, asOf: Timestamp, reader: JourneyReader) async throws(APIError) -> JSONValue {
        let principal = try reader.requirePrincipal(to: "read a past journey")
        try Self.requireTimeTraveller(principal, provider: provider)
        let past = try await replay(provider: provider, tripId: tripId, asOf: asOf)
        try Self.requireRider(principal, of: tripId, provider: provider, past: past)
        guard let view = past.journey.view(provider: provider, tripId: tripId) else {
            throw .notFound("trip \(tripId) had no journey view at \(asOf.rfc3339) (provider \(provider))")
        }
        return view
    }

    /// GetTrip as it would have answered at `asOf`: the stored resource then, rendered in the
    /// requested view with `asOf` as the current time (for `remainingTimeToFirstWaypoint`).
    func trip(_ request: TripService.GetRequest, asOf: Timestamp, caller: Principal) async throws(APIError) -> JSONValue {
        try Self.requireTimeTraveller(caller, provider: request.provider)
        if caller.role == .consumer, request.view != .journeySharing {
            throw .permissionDenied("a consumer token may read trips only in the JOURNEY_SHARING_V1S view")
        }
        let past = try await replay(provider: request.provider, tripId: request.tripId, asOf: asOf)
        try Self.requireRider(caller, of: request.tripId, provider: request.provider, past: past)
        guard let document = past.fleet.tripResource(provider: request.provider, tripId: request.tripId) else {
            throw .notFound("trip \(request.tripId) did not exist at \(asOf.rfc3339) (provider \(request.provider))")
        }
        switch request.view {
        case .sdk: return FleetResourceViews.sdkTrip(document, since: request.versions, now: asOf)
        case .journeySharing: return FleetResourceViews.journeySharingTrip(document)
        }
    }

    /// Server, auditor and consumer tokens of the provider may travel in time; drivers may not.
    static func requireTimeTraveller(_ caller: Principal, provider: String) throws(APIError) {
        try caller.requireProvider(provider)
        try caller.require([.server, .auditor, .consumer], to: "read a trip as of a past time (asOf)")
    }

    /// A consumer token must name the trip, or the rider whose trip it was at the instant.
    static func requireRider(_ caller: Principal, of tripId: String, provider: String, past: PastTrip) throws(APIError) {
        guard caller.role == .consumer else { return }
        if caller.tripId == tripId { return }
        if let consumerId = caller.consumerId, past.journey.isRider(consumerId, of: tripId, provider: provider) { return }
        throw .permissionDenied("a consumer token may read only its own trip as of a past time (trip \(tripId))")
    }
}
