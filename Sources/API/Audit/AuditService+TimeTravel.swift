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
/// change this trip's view or resource. The cost grows with those vehicles' histories, so it is
/// counted before they are read and bounded (`timeTravelMaxEvents`), and who may look is decided
/// before any of it is read.
extension AuditService {
    /// What a time-travel fold produced for one trip.
    struct PastTrip {
        var journey: JourneyViewProjection
        var fleet: FleetResourceProjection
    }

    /// Reads the events that decide trip `tripId`'s view and resource as of `asOf` and folds them,
    /// once `caller` is known to be allowed and the read is known to be within the bound.
    ///
    /// The order is the point: a consumer token naming another trip (and no rider) is refused
    /// before anything is read; a token naming a rider is judged from the trip's own stream (read
    /// first, and small), before any vehicle's; then the events the rest would read are counted
    /// (`EventStore.eventCount`, index probes) and more than `timeTravelMaxEvents` is refused with
    /// INVALID_ARGUMENT, so neither a stranger nor a long-lived vehicle makes the server read and
    /// fold millions of events.
    func replay(provider: String, tripId: String, asOf: Timestamp, caller: Principal) async throws(APIError) -> PastTrip {
        // A consumer token naming neither this trip nor a rider: nothing to read to refuse it.
        if caller.role == .consumer, caller.tripId != tripId, caller.consumerId == nil { throw Self.notTheirTrip(tripId) }
        guard asOf <= clock() else {
            throw .invalidArgument("asOf must not be in the future (got \(asOf.rfc3339)): only what was recorded can be replayed")
        }
        let until = StreamFilter(recordedThrough: asOf.microsecondsSinceEpoch)
        let bound = timeTravelMaxEvents
        func read(_ stream: String) async throws(APIError) -> [RecordedEvent] {
            do { return try await store.readWholeStream(stream, filter: until) } catch { throw APIError(error, doing: "read \(stream)") }
        }
        func count(_ stream: String) async throws(APIError) -> Int {
            do {
                return Int(try await store.eventCount(stream, recordedThrough: asOf.microsecondsSinceEpoch))
            } catch {
                throw APIError(error, doing: "count \(stream)")
            }
        }
        func requireWithinBound(_ total: Int) throws(APIError) {
            guard total > bound else { return }
            throw .invalidArgument("""
                asOf would replay at least \(total) events (trip \(tripId), the whole history of every vehicle assigned to it and the trips \
                those vehicles served), more than the \(bound) one time-travel read may fold (the server's \
                WAYMARK_TIME_TRAVEL_MAX_EVENTS): read the trip's history with include=vehicle, its route audit, or export its \
                streams with `waymark export` instead
                """)
        }

        let tripStream = "trip:\(provider)/\(tripId)"
        var events: [RecordedEvent]
        do {
            events = try await store.readStream(tripStream, after: 0, filter: until, limit: bound < Int.max ? bound + 1 : bound)
        } catch {
            throw APIError(error, doing: "read \(tripStream)")
        }
        try requireWithinBound(events.count)
        // A rider's token: decided now, from the trip's own events, before any vehicle's.
        try Self.requireRider(caller, of: tripId, provider: provider, tripEvents: events)

        var vehicles: Set<String> = []
        for event in events {
            if case .some(.success(let envelope)) = EnvelopeDecoder.decode(event), case .trip(_, _, .vehicleAssigned(let assigned)) = envelope.event {
                vehicles.insert(assigned.vehicleId)
            }
        }
        let styleStream = "style:\(provider)/journey"
        var total = events.count + (try await count(styleStream))
        for vehicle in vehicles.sorted() { total += try await count("vehicle:\(provider)/\(vehicle)") }
        try requireWithinBound(total)

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
        // The other trips are known only now; they are counted before they are read, too.
        for other in otherTrips.sorted() { total += try await count("trip:\(provider)/\(other)") }
        try requireWithinBound(total)
        for other in otherTrips.sorted() { events += try await read("trip:\(provider)/\(other)") }
        events += try await read(styleStream)
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
        let past = try await replay(provider: provider, tripId: tripId, asOf: asOf, caller: principal)
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
        let past = try await replay(provider: request.provider, tripId: request.tripId, asOf: asOf, caller: caller)
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
    ///
    /// Decided from the trip's own events up to the instant (`tripEvents`): the rider a trip names
    /// is its `consumerId` attribute, which only its own events set, so folding them alone through
    /// `JourneyViewProjection` answers `isRider` as the whole replay would, without any vehicle's.
    static func requireRider(_ caller: Principal, of tripId: String, provider: String, tripEvents: [RecordedEvent]) throws(APIError) {
        guard caller.role == .consumer, caller.tripId != tripId else { return }
        if let consumerId = caller.consumerId {
            var journey = ReadModelProjector<JourneyViewProjection>()
            for event in tripEvents { journey.apply(event) }
            if journey.model.isRider(consumerId, of: tripId, provider: provider) { return }
        }
        throw notTheirTrip(tripId)
    }

    static func notTheirTrip(_ tripId: String) -> APIError {
        .permissionDenied("a consumer token may read only its own trip as of a past time (trip \(tripId))")
    }
}
