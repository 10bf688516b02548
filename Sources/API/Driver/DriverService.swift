import EventStore
import Foundation
import JSON
import Journey
import ReadModels

/// Route plans, turn-by-turn guidance and trip offers: the logic behind `:planRoute`,
/// `:selectRoute`, `:reportRouteTokenExecution`, `:continueToNextDestination`, `:offerTrip`,
/// `:acceptOffer`, `:declineOffer` and the driver feed (GET and SSE), independent of HTTP.
///
/// Trip commands go through `TripService`'s write path (decide, append with the expected version,
/// sync the vehicle). When a trip's plan or progress changes and its vehicle is driving to it,
/// the vehicle follows the plan's active leg (`Vehicle.followRoute`), so off-route detection
/// compares locations with the plan in force. Time is the server clock, read once per request
/// and passed into the commands (an offer's expiry is checked against it).
package final class DriverService: Sendable {
    let trips: TripService
    let repository: AggregateRepository
    let feeds: DriverFeedReadModel
    let clock: @Sendable () -> Timestamp
    /// How often an open feed stream looks for a changed feed.
    static let streamPollInterval = Duration.milliseconds(200)
    /// How long an idle feed stream waits before sending an SSE comment (keeps proxies from closing it).
    static let keepAliveInterval = Duration.seconds(15)

    init(trips: TripService, repository: AggregateRepository, feeds: DriverFeedReadModel, clock: @escaping @Sendable () -> Timestamp) {
        self.trips = trips
        self.repository = repository
        self.feeds = feeds
        self.clock = clock
    }

    // MARK: - Route plans

    /// `:planRoute` (server): attaches the plan to the trip's stops still ahead; answers the trip.
    package func planRoute(provider: String, tripId: String, body: JSONValue, context: CommandContext) async throws(APIError) -> JSONValue {
        try context.caller.requireProvider(provider)
        try context.caller.require([.server], to: "plan routes")
        var mark = try await trips.mutate(provider: provider, tripId: tripId, context: context, assigning: nil, waypoints: nil) { state, _, now throws(APIError) in
            guard state.exists else { throw .notFound("trip \(tripId) not found (provider \(provider))") }
            var ahead = state.remainingWaypoints
            if state.status.isArrival, !ahead.isEmpty { ahead.removeFirst() }  // standing at it: the route starts there
            return [.planRoute(try RoutePlanJSON.plan(body, destinations: ahead.map(\.location.point)), at: now)]
        }
        try await follow(provider: provider, tripId: tripId, context: context, mark: &mark)
        return try await trips.written(provider, tripId, mark)
    }

    /// `:selectRoute` (server, or the driver of the trip's vehicle): picks a route of the plan before guidance starts.
    package func selectRoute(provider: String, tripId: String, routeIndex: Int, context: CommandContext) async throws(APIError) -> JSONValue {
        try context.caller.requireProvider(provider)
        try context.caller.require([.server, .driver], to: "select routes")
        var mark = try await trips.mutate(provider: provider, tripId: tripId, context: context, assigning: nil, waypoints: nil) { state, _, now throws(APIError) in
            guard state.exists else { throw .notFound("trip \(tripId) not found (provider \(provider))") }
            if context.caller.role == .driver, state.vehicleId == nil || state.vehicleId != context.caller.vehicleId {
                throw .permissionDenied("a driver token may select routes only of trips assigned to its vehicle (trip \(tripId))")
            }
            return [.selectRoute(index: routeIndex, at: now)]
        }
        try await follow(provider: provider, tripId: tripId, context: context, mark: &mark)
        return try await trips.written(provider, tripId, mark)
    }

    /// `:reportRouteTokenExecution` (driver, own vehicle): records how navigation applied the
    /// current trip's route token; answers the trip.
    package func reportRouteTokenExecution(provider: String, vehicleId: String, body: JSONValue, context: CommandContext) async throws(APIError) -> JSONValue {
        try requireOwnVehicle(provider: provider, vehicleId: vehicleId, context.caller, to: "report route token executions")
        let report = try RoutePlanJSON.tokenReport(body)
        let vehicle = try await loadVehicle(provider: provider, vehicleId: vehicleId)
        let tripId = try Self.currentTrip(of: vehicle, requested: report.tripId)
        let mark = try await trips.mutate(provider: provider, tripId: tripId, context: context, assigning: nil, waypoints: nil) { state, _, now throws(APIError) in
            guard state.exists else { throw .notFound("trip \(tripId) not found (provider \(provider))") }
            return [.reportRouteTokenExecution(report.status, resolved: report.resolved, routeStatus: report.routeStatus, at: now)]
        }
        return try await trips.written(provider, tripId, mark)
    }

    /// `:continueToNextDestination` (driver, own vehicle): after arriving at the current trip's
    /// stop, heads for the next one; FAILED_PRECONDITION before arrival. Answers the trip.
    package func continueToNextDestination(provider: String, vehicleId: String, context: CommandContext) async throws(APIError) -> JSONValue {
        try requireOwnVehicle(provider: provider, vehicleId: vehicleId, context.caller, to: "continue to the next destination")
        let vehicle = try await loadVehicle(provider: provider, vehicleId: vehicleId)
        let tripId = try Self.currentTrip(of: vehicle, requested: nil)
        // "Arrived there": the vehicle says ARRIVED_AT_DESTINATION while its next waypoint is this trip's.
        let arrived = vehicle.navigationStatus == .arrivedAtDestination && vehicle.waypoints.first?.tripId == tripId
        var mark = try await trips.mutate(provider: provider, tripId: tripId, context: context, assigning: nil, waypoints: nil) { state, _, now throws(APIError) in
            guard state.exists else { throw .notFound("trip \(tripId) not found (provider \(provider))") }
            return [.continueToNextDestination(vehicleArrived: arrived, at: now)]
        }
        try await mutateVehicle(provider: provider, vehicleId: vehicleId, context: context, mark: &mark) { state, now in
            // Navigation is under way again: an ARRIVED_AT_DESTINATION left standing would let the next call skip a stop.
            state.navigationStatus == .arrivedAtDestination ? [.setNavigationStatus(.enrouteToDestination, at: now)] : []
        }
        try await follow(provider: provider, tripId: tripId, context: context, mark: &mark)
        return try await trips.written(provider, tripId, mark)
    }

    // MARK: - Offers

    /// `:offerTrip` (server): offers an unassigned trip to the vehicle's driver until `expireTime`
    /// (or for `ttlSeconds`); answers the offer.
    package func offerTrip(provider: String, vehicleId: String, body: JSONValue, context: CommandContext) async throws(APIError) -> JSONValue {
        try context.caller.requireProvider(provider)
        try context.caller.require([.server], to: "offer trips")
        var object = try ProtoObject(body, at: "")
        guard let tripValue = try object.take("tripId") else { throw .invalidArgument("tripId is required") }
        let tripId = try ProtoValue.string(tripValue, at: "tripId")
        let expireTime = try object.take("expireTime").map { v throws(APIError) in try ProtoValue.timestamp(v, at: "expireTime") }
        let ttl = try object.take("ttlSeconds").map { v throws(APIError) in try ProtoValue.int32(v, at: "ttlSeconds") }
        try object.finish()
        guard (expireTime == nil) != (ttl == nil) else { throw .invalidArgument("exactly one of expireTime and ttlSeconds is required") }
        if let ttl, ttl <= 0 { throw .invalidArgument("ttlSeconds must be positive (got \(ttl))") }
        try RESTHandler.validateId(tripId, field: "tripId")
        let trip = try await repository.loadTrip(provider: provider, tripId: tripId).state
        var mark = WriteMark()
        var offered: Vehicle.TripOffer?
        try await mutateVehicle(provider: provider, vehicleId: vehicleId, context: context, mark: &mark) { _, now in
            let expiry = expireTime ?? now.adding(seconds: Double(ttl ?? 0))
            offered = Vehicle.TripOffer(tripId: tripId, expiresAt: expiry, offeredAt: now)
            return [.offerTrip(tripId: tripId, trip: trip.exists ? trip : nil, expiresAt: expiry, at: now)]
        }
        guard let offered else { throw APIError(.internal, "offer was not recorded") }
        return .object(JSONObject([
            ("vehicle", .string(FleetResourceProjection.vehicleKey(provider: provider, vehicleId: vehicleId))), ("tripId", .string(tripId)),
            ("expireTime", .string(offered.expiresAt.rfc3339)), ("offerTime", .string(offered.offeredAt.rfc3339)),
        ]))
    }

    /// `:acceptOffer` / `:declineOffer` (driver, own vehicle). Accepting assigns the trip with the
    /// rules of an assignment, then records the answer; an expired offer cannot be accepted.
    /// Accepting answers the trip, declining `{}`.
    package func answerOffer(provider: String, vehicleId: String, body: JSONValue, accept: Bool, context: CommandContext) async throws(APIError) -> JSONValue {
        try requireOwnVehicle(provider: provider, vehicleId: vehicleId, context.caller, to: accept ? "accept offers" : "decline offers")
        var object = try ProtoObject(body, at: "")
        guard let tripValue = try object.take("tripId") else { throw .invalidArgument("tripId is required") }
        let tripId = try ProtoValue.string(tripValue, at: "tripId")
        try object.finish()
        let now = clock()
        let vehicle = try await loadVehicle(provider: provider, vehicleId: vehicleId)
        do { _ = try Vehicle.decide(.answerOffer(tripId: tripId, accept: accept, at: now), state: vehicle) } catch { throw APIError(error) }
        var mark = WriteMark()
        if accept {
            mark = try await trips.mutate(provider: provider, tripId: tripId, context: context, assigning: vehicleId, waypoints: nil) { state, vehicles, _ throws(APIError) in
                guard state.exists else { throw .notFound("trip \(tripId) not found (provider \(provider))") }
                return [.assignVehicle(vehicleId: vehicleId, vehicle: try vehicles(vehicleId)?.state, at: now)]
            }
        }
        try await mutateVehicle(provider: provider, vehicleId: vehicleId, context: context, mark: &mark) { _, _ in
            [.answerOffer(tripId: tripId, accept: accept, at: now)]
        }
        if accept { return try await trips.written(provider, tripId, mark) }
        return .object(JSONObject())
    }

    // MARK: - Feed

    /// The vehicle's feed (driver of the vehicle, or server), with expired offers left out.
    package func feed(provider: String, vehicleId: String, caller: Principal) async throws(APIError) -> JSONValue {
        try authorizeFeed(provider: provider, vehicleId: vehicleId, caller)
        if let position = repository.latestWrite, !(await feeds.waitUntilApplied(position)) {
            throw APIError(.unavailable, "the driver feed has not caught up within \(feeds.consistencyTimeout); read it again shortly")
        }
        guard let document = try await feeds.feed(FleetResourceProjection.vehicleKey(provider: provider, vehicleId: vehicleId)) else {
            throw .notFound("vehicle \(vehicleId) has no driver feed (provider \(provider))")
        }
        return Self.withoutExpiredOffers(document, now: clock())
    }

    /// The feed as Server-Sent Events: the feed now, then each change (`id` = version, `event: feed`).
    /// It ends with `event: end` (`TOKEN_EXPIRED`) when the caller's token expires at `expires` (unix seconds).
    /// `open` makes the sink, given the frame to send if the server shuts down while it is open.
    package func stream<Sink: EventSink>(provider: String, vehicleId: String, caller: Principal, expires: Int64?, lastEventId: Int64?,
                                         opening open: ([UInt8]) -> Sink) async throws(APIError) -> Sink {
        let first = try await feed(provider: provider, vehicleId: vehicleId, caller: caller)
        let key = FleetResourceProjection.vehicleKey(provider: provider, vehicleId: vehicleId)
        let stream = open(Array("event: shutdown\ndata: {}\n\n".utf8))
        let feeds = self.feeds
        let clock = self.clock
        Task {
            var last: JSONValue? = lastEventId.flatMap { $0 == first["version"]?.int64Value ? first : nil }
            var current: JSONValue? = first
            var idle = ContinuousClock.now
            while !stream.isClosed {
                if let expires, clock().microsecondsSinceEpoch / 1_000_000 >= expires {
                    stream.finish(JourneySnapshot.endFrame("TOKEN_EXPIRED"))
                    return
                }
                if let document = current, document != last {
                    let version = document["version"]?.int64Value ?? 0
                    guard stream.write(Array("id: \(version)\nevent: feed\ndata: ".utf8) + document.compactBytes() + Array("\n\n".utf8)) else { return }
                    last = document
                    idle = ContinuousClock.now
                } else if ContinuousClock.now - idle > Self.keepAliveInterval {
                    guard stream.write(Array(": keep-alive\n\n".utf8)) else { return }
                    idle = ContinuousClock.now
                }
                try? await Task.sleep(for: Self.streamPollInterval)
                if stream.isClosed { return }
                if let document = try? await feeds.feed(key) {
                    current = Self.withoutExpiredOffers(document, now: clock())
                } else {
                    stream.finish(Array("event: gone\ndata: {}\n\n".utf8))  // the vehicle was deleted
                    return
                }
            }
        }
        return stream
    }

    static func withoutExpiredOffers(_ document: JSONValue, now: Timestamp) -> JSONValue {
        guard case .object(var object) = document, case .array(let offers)? = object["offers"] else { return document }
        object["offers"] = .array(offers.filter { offer in
            guard let text = offer["expireTime"]?.stringValue, let expiry = Timestamp(rfc3339: text) else { return false }
            return now < expiry
        })
        return .object(object)
    }

    // MARK: - Helpers

    private func authorizeFeed(provider: String, vehicleId: String, _ caller: Principal) throws(APIError) {
        try caller.requireProvider(provider)
        switch caller.role {
        case .server: return
        case .driver:
            guard caller.vehicleId == vehicleId else {
                throw .permissionDenied("a driver token may read only its own vehicle's feed (token vehicle \(caller.vehicleId ?? ""), requested \(vehicleId))")
            }
        case .consumer, .auditor:
            throw .permissionDenied("a \(caller.role.rawValue) token may not read driver feeds")
        }
    }

    private func requireOwnVehicle(provider: String, vehicleId: String, _ caller: Principal, to action: String) throws(APIError) {
        try caller.requireProvider(provider)
        try caller.require([.driver], to: action)
        guard caller.vehicleId == vehicleId else {
            throw .permissionDenied("a driver token may act only for its own vehicle (token vehicle \(caller.vehicleId ?? ""), requested \(vehicleId))")
        }
    }

    private func loadVehicle(provider: String, vehicleId: String) async throws(APIError) -> Vehicle.State {
        let state = try await repository.loadVehicle(provider: provider, vehicleId: vehicleId).state
        guard state.exists else { throw .notFound("vehicle \(vehicleId) not found (provider \(provider))") }
        return state
    }

    /// The trip the vehicle serves now: `requested` if it is one of its current trips, else the
    /// trip of its next waypoint, else its first current trip.
    static func currentTrip(of vehicle: Vehicle.State, requested: String?) throws(APIError) -> String {
        if let requested {
            guard vehicle.currentTripIds.contains(requested) else {
                throw APIError(.failedPrecondition, "trip \(requested) is not a current trip of vehicle \(vehicle.vehicleId) (currentTrips \(vehicle.currentTripIds))")
            }
            return requested
        }
        if let first = vehicle.waypoints.first?.tripId, vehicle.currentTripIds.contains(first) { return first }
        guard let first = vehicle.currentTripIds.first else {
            throw APIError(.failedPrecondition, "vehicle \(vehicle.vehicleId) has no current trip")
        }
        return first
    }

    /// Has the trip's vehicle follow the plan's active leg, when the vehicle is driving to this trip.
    private func follow(provider: String, tripId: String, context: CommandContext, mark: inout WriteMark) async throws(APIError) {
        let trip = try await repository.loadTrip(provider: provider, tripId: tripId).state
        guard let vehicleId = trip.vehicleId, let plan = trip.routePlan, plan.legs.indices.contains(trip.activeDestinationIndex),
              !trip.status.isTerminal else { return }
        let path = plan.legs[trip.activeDestinationIndex].encodedPolyline
        try await mutateVehicle(provider: provider, vehicleId: vehicleId, context: context, mark: &mark) { state, now in
            guard state.exists, (try? Self.currentTrip(of: state, requested: nil)) == tripId,
                  state.followedRoute != Vehicle.FollowedRoute(tripId: tripId, encodedPath: path) else { return [] }
            return [.followRoute(tripId: tripId, encodedPath: path, at: now)]
        }
    }

    /// Decides `plan`'s commands on the vehicle's latest state and appends them (retrying conflicts);
    /// NOT_FOUND when the vehicle does not exist.
    private func mutateVehicle(provider: String, vehicleId: String, context: CommandContext, mark: inout WriteMark,
                               plan: (Vehicle.State, Timestamp) throws(APIError) -> [Vehicle.Command]) async throws(APIError) {
        try await trips.mutateVehicle(provider: provider, vehicleId: vehicleId, context: context, mark: &mark,
                                      doing: "append to vehicle \(vehicleId)") { state, now throws(APIError) in
            guard state.exists else { throw .notFound("vehicle \(vehicleId) not found (provider \(provider))") }
            return try plan(state, now)
        }
    }
}
