import EventStore
import Foundation
import JSON
import Journey
import ReadModels

/// Fleet Engine's TripService: the logic behind CreateTrip, GetTrip, UpdateTrip, DeleteTrip and
/// SearchTrips, independent of JSON and HTTP (the REST routes and, later, gRPC call it).
///
/// Writes become domain commands: the trip's events are decided on its latest state and appended
/// with its version as the expected version (a conflict reloads and decides again); then every
/// vehicle the trip touched is brought in line with `Vehicle.syncTrip`, retried the same way.
/// The trip is appended first, so a vehicle never lists a trip change that was not committed;
/// a crash between the two leaves the vehicle behind until the next command on the trip, which
/// always re-syncs. Answers come from the fleet read model once it has applied the writes.
package final class TripService: Sendable {
    let repository: AggregateRepository
    let readModel: FleetReadModel
    let clock: @Sendable () -> Timestamp
    static let attempts = 8

    init(repository: AggregateRepository, readModel: FleetReadModel, clock: @escaping @Sendable () -> Timestamp) {
        self.repository = repository
        self.readModel = readModel
        self.clock = clock
    }

    static func key(_ provider: String, _ tripId: String) -> String {
        FleetResourceProjection.tripKey(provider: provider, tripId: tripId)
    }

    // MARK: - Operations

    package func create(_ request: CreateRequest, context: CommandContext) async throws(APIError) -> JSONValue {
        try context.caller.requireProvider(request.provider)
        try context.caller.require([.server], to: "create trips")
        let vehicleId = request.vehicleId.flatMap { $0.isEmpty ? nil : $0 }
        let mark = try await mutate(provider: request.provider, tripId: request.create.tripId, context: context,
                                    assigning: vehicleId, waypoints: request.vehicleWaypoints) { _, vehicles, now throws(APIError) in
            var commands: [Trip.Command] = [.createTrip(request.create, at: now)]
            if let vehicleId {
                commands.append(.assignVehicle(vehicleId: vehicleId, vehicle: try vehicles(vehicleId)?.state, at: now))
            }
            return commands
        }
        return try await written(request.provider, request.create.tripId, mark)
    }

    package func get(_ request: GetRequest, caller: Principal) async throws(APIError) -> JSONValue {
        try caller.requireProvider(request.provider)
        if caller.role == .consumer {
            guard request.view == .journeySharing else {
                throw .permissionDenied("a consumer token may read trips only in the JOURNEY_SHARING_V1S view")
            }
            if let tripId = caller.tripId, caller.consumerId == nil, tripId != request.tripId {
                throw .permissionDenied("the token is for another trip (token trip \(tripId), requested \(request.tripId))")
            }
        }
        guard let document = try await readModel.document(FleetResourceProjection.tripsCollection, Self.key(request.provider, request.tripId)) else {
            throw .notFound("trip \(request.tripId) not found (provider \(request.provider))")
        }
        try authorizeRead(document, tripId: request.tripId, caller: caller)
        switch request.view {
        case .sdk: return FleetResourceViews.sdkTrip(document, since: request.versions, now: clock())
        case .journeySharing: return FleetResourceViews.journeySharingTrip(document)
        }
    }

    package func update(_ request: UpdateRequest, context: CommandContext) async throws(APIError) -> JSONValue {
        try context.caller.requireProvider(request.provider)
        try context.caller.require([.server, .driver], to: "update trips")
        guard !request.changes.isEmpty else { throw .invalidArgument("updateMask must name at least one field") }
        if context.caller.role == .driver, request.changes.contains(where: { if case .vehicleId = $0 { true } else { false } }) {
            throw .permissionDenied("a driver token may not change a trip's vehicleId")
        }
        if context.caller.role == .driver, request.changes.contains(where: { if case .consumerId = $0 { true } else { false } }) {
            throw .permissionDenied("a driver token may not change a trip's consumerId")
        }
        var waypoints: [TripWaypoint]?
        var assigning: String?
        for change in request.changes {
            if case .vehicleWaypoints(let list) = change { waypoints = list }
            if case .vehicleId(let id?) = change, !id.isEmpty { assigning = id }
        }
        let mark = try await mutate(provider: request.provider, tripId: request.tripId, context: context, assigning: assigning, waypoints: waypoints) { state, vehicles, now throws(APIError) in
            guard state.exists else { throw .notFound("trip \(request.tripId) not found (provider \(request.provider))") }
            if context.caller.role == .driver {
                guard state.vehicleId == context.caller.vehicleId else {
                    throw .permissionDenied("a driver token may update only trips assigned to its vehicle (trip \(request.tripId))")
                }
                // Attributes replace the whole list: whatever it says of `consumerId` must be what the trip has.
                for case .attributes(let list) in request.changes
                where TripJSON.consumerId(in: list) != TripJSON.consumerId(in: state.attributes) {
                    throw .permissionDenied("a driver token may not change who a trip's rider is (the consumerId attribute of trip \(request.tripId))")
                }
            }
            return try Self.commands(for: request.changes, state: state, vehicles: vehicles, at: now)
        }
        return try await written(request.provider, request.tripId, mark)
    }

    package func delete(provider: String, tripId: String, context: CommandContext) async throws(APIError) {
        try context.caller.requireProvider(provider)
        try context.caller.require([.server], to: "delete trips")
        let mark = try await mutate(provider: provider, tripId: tripId, context: context, assigning: nil, waypoints: nil) { state, _, now throws(APIError) in
            guard state.exists else { throw .notFound("trip \(tripId) not found (provider \(provider))") }
            return [.deleteTrip(at: now)]
        }
        try await readModel.settle(mark)
    }

    package func search(_ request: SearchRequest, caller: Principal) async throws(APIError) -> (trips: [JSONValue], nextPageToken: String) {
        try caller.requireProvider(request.provider)
        switch caller.role {
        case .server, .auditor: break
        case .driver:
            guard let vehicleId = request.vehicleId, vehicleId == caller.vehicleId else {
                throw .permissionDenied("a driver token may search only its own vehicle's trips (vehicleId \(caller.vehicleId ?? ""))")
            }
        case .consumer:
            throw .permissionDenied("a consumer token may not search trips")
        }
        guard (0...1000).contains(request.pageSize) else {
            throw .invalidArgument("pageSize must be within 0..1000 (got \(request.pageSize))")
        }
        let pageSize = request.pageSize == 0 ? 100 : request.pageSize
        let after = try request.pageToken.map { token throws(APIError) in try PageToken.decode(token, scope: "trips:\(request.provider)") }
        let prefix = "providers/\(request.provider)/trips/"
        let now = clock()
        var found: [JSONValue] = []
        var scanned = after ?? ""
        var lastReturned = ""
        var next = ""
        scan: while true {
            let batch = try await readModel.documents(FleetResourceProjection.tripsCollection, prefix: prefix, after: scanned, limit: 500)
            for (key, document) in batch {
                scanned = key
                guard Self.matches(document, request, now: now) else { continue }
                if found.count == pageSize {
                    next = PageToken.encode(lastReturned, scope: "trips:\(request.provider)")
                    break scan
                }
                found.append(document)
                lastReturned = key
            }
            if batch.count < 500 { break }
        }
        let trips = found.map { document -> JSONValue in
            let view = FleetResourceViews.sdkTrip(document, now: now)
            return request.vehicleId == nil ? Self.withoutVehicleRoute(view) : view
        }
        return (trips, next)
    }

    // MARK: - Writing

    typealias VehicleLookup = (String) throws(APIError) -> Loaded<Vehicle.State>?

    /// Decides on the trip's latest state, appends, syncs vehicles; returns the feed mark of the writes.
    ///
    /// `assigning` names the vehicle an assignment will look at: it is loaded before `plan` runs,
    /// so the plan (synchronous, like `decide`) gets its state by lookup.
    func mutate(
        provider: String, tripId: String, context: CommandContext, assigning: String?, waypoints: [TripWaypoint]?,
        plan: (Trip.State, VehicleLookup, Timestamp) throws(APIError) -> [Trip.Command]
    ) async throws(APIError) -> WriteMark {
        var mark = WriteMark()
        var after: Trip.State?
        var touched: [String] = []
        for attempt in 1...Self.attempts {
            let loaded = try await repository.loadTrip(provider: provider, tripId: tripId)
            var vehicles: [String: Loaded<Vehicle.State>] = [:]
            if let assigning {
                vehicles[assigning] = try await repository.loadVehicle(provider: provider, vehicleId: assigning)
            }
            let now = clock()
            let lookup: VehicleLookup = { id throws(APIError) in vehicles[id] }
            let commands = try plan(loaded.state, lookup, now)
            var state = loaded.state
            var events: [Trip.Event] = []
            for command in commands {
                let decided: [Trip.Event]
                do { decided = try Trip.decide(command, state: state) } catch { throw APIError(error) }
                for event in decided { state = Trip.evolve(state, with: event) }
                events += decided
            }
            touched = [loaded.state.vehicleId, state.vehicleId].compactMap { $0 }
            after = state
            guard !events.isEmpty else { break }
            let pending = repository.pendingTrip(provider: provider, tripId: tripId, before: loaded, events: events)
            guard let result = try await repository.commit(pending, metadata: context.metadata, retry: attempt < Self.attempts,
                                                          doing: "append to trip \(tripId)") else { continue }
            mark.include(result)
            break
        }
        guard let after else { return mark }
        var seen = Set<String>()
        for vehicleId in touched where seen.insert(vehicleId).inserted {
            let reorder = vehicleId == after.vehicleId ? waypoints : nil
            try await sync(provider: provider, vehicleId: vehicleId, trip: after, reorder: reorder, context: context, mark: &mark)
        }
        return mark
    }

    /// Brings one vehicle in line with the trip (and applies a requested waypoint order).
    private func sync(provider: String, vehicleId: String, trip: Trip.State, reorder: [TripWaypoint]?, context: CommandContext, mark: inout WriteMark) async throws(APIError) {
        try await mutateVehicle(provider: provider, vehicleId: vehicleId, context: context, mark: &mark,
                                doing: "sync vehicle \(vehicleId) with its trip") { state, now in
            guard state.exists else { return [] }
            return [.syncTrip(trip, at: now)] + (reorder.map { [.reorderWaypoints($0, at: now)] } ?? [])
        }
    }

    /// Decides `plan`'s commands in order on the vehicle's latest state and appends their events
    /// (reloading and deciding again on a version conflict), adding the append to `mark`. Nothing
    /// is written when the plan decides no events.
    func mutateVehicle(provider: String, vehicleId: String, context: CommandContext, mark: inout WriteMark, doing: @autoclosure () -> String,
                       plan: (Vehicle.State, Timestamp) throws(APIError) -> [Vehicle.Command]) async throws(APIError) {
        for attempt in 1...Self.attempts {
            let loaded = try await repository.loadVehicle(provider: provider, vehicleId: vehicleId)
            let now = clock()
            var state = loaded.state
            var events: [Vehicle.Event] = []
            for command in try plan(loaded.state, now) {
                let decided: [Vehicle.Event]
                do { decided = try Vehicle.decide(command, state: state) } catch { throw APIError(error) }
                for event in decided { state = Vehicle.evolve(state, with: event) }
                events += decided
            }
            guard !events.isEmpty else { return }
            let pending = repository.pendingVehicle(provider: provider, vehicleId: vehicleId, before: loaded, events: events)
            if let result = try await repository.commit(pending, metadata: context.metadata, retry: attempt < Self.attempts, doing: doing()) {
                mark.include(result)
                return
            }
        }
    }

    /// The commands for UpdateTrip's masked fields, in the order that makes combined updates work:
    /// stops and attributes first, then the assignment, then the status.
    static func commands(for requested: [Change], state: Trip.State, vehicles: VehicleLookup, at now: Timestamp) throws(APIError) -> [Trip.Command] {
        // `consumerId` is the attribute of that name: merged into the masked attributes, or into the current ones.
        var changes = requested
        if let index = changes.firstIndex(where: { if case .consumerId = $0 { true } else { false } }), case .consumerId(let consumerId) = changes[index] {
            changes.remove(at: index)
            if let at = changes.firstIndex(where: { if case .attributes = $0 { true } else { false } }), case .attributes(let list) = changes[at] {
                changes[at] = .attributes(TripJSON.withConsumer(consumerId, in: list))
            } else {
                changes.append(.attributes(TripJSON.withConsumer(consumerId, in: state.attributes)))
            }
        }
        var early: [Trip.Command] = []
        var assignment: [Trip.Command] = []
        var status: [Trip.Command] = []
        for change in changes {
            switch change {
            case .intermediateDestinations(let stops):
                early.append(.setIntermediateDestinations(stops, at: now))
            case .pickupPoint(let point):
                guard let point else { throw .invalidArgument("pickupPoint cannot be cleared") }
                early.append(.setPickupPoint(point, at: now))
            case .dropoffPoint(let point):
                guard let point else { throw .invalidArgument("dropoffPoint cannot be cleared once set (mask names dropoffPoint, body has none)") }
                early.append(.setDropoffPoint(point, at: now))
            case .actualLocation(let stop, let index, let location):
                early.append(.recordActualLocation(stop, intermediateDestinationIndex: index, location, at: now))
            case .attributes(let attributes):
                early.append(.setAttributes(attributes, at: now))
            case .vehicleId(let id):
                if let id, !id.isEmpty {
                    assignment.append(.assignVehicle(vehicleId: id, vehicle: try vehicles(id)?.state, at: now))
                } else if state.vehicleId != nil {
                    assignment.append(.unassignVehicle(at: now))
                }
            case .tripStatus(let to, let index, let version):
                if to == .canceled {
                    status.append(.cancelTrip(at: now))
                } else {
                    status.append(.updateTripStatus(to, intermediateDestinationIndex: index, intermediateDestinationsVersion: version, at: now))
                }
            case .vehicleWaypoints:
                continue  // applied to the vehicle after the sync
            case .consumerId:
                continue  // merged into the attributes above
            }
        }
        return early + assignment + status
    }

    // MARK: - Reading

    /// The trip as Create/UpdateTrip answer: the SDK view plus `vehicleWaypoints` (echoed only here).
    func written(_ provider: String, _ tripId: String, _ mark: WriteMark) async throws(APIError) -> JSONValue {
        try await readModel.settle(mark)
        guard let document = try await readModel.document(FleetResourceProjection.tripsCollection, Self.key(provider, tripId)) else {
            throw .notFound("trip \(tripId) not found (provider \(provider))")
        }
        let view = FleetResourceViews.sdkTrip(document, now: clock())
        guard case .object(var object) = view, let waypoints = document["vehicleWaypoints"] else { return view }
        object["vehicleWaypoints"] = waypoints
        return .object(object)
    }

    private func authorizeRead(_ document: JSONValue, tripId: String, caller: Principal) throws(APIError) {
        switch caller.role {
        case .server, .auditor:
            return
        case .driver:
            guard document["vehicleId"]?.stringValue == caller.vehicleId else {
                throw .permissionDenied("a driver token may read only trips assigned to its vehicle (trip \(tripId))")
            }
        case .consumer:
            if let consumerId = caller.consumerId {
                guard Self.consumerId(of: document) == consumerId || caller.tripId == tripId else {
                    throw .permissionDenied("the trip does not belong to the token's consumer (trip \(tripId))")
                }
            } else if caller.tripId != tripId {
                throw .permissionDenied("the token is for another trip (requested \(tripId))")
            }
        }
    }

    /// The rider a trip names through its `consumerId` attribute.
    static func consumerId(of document: JSONValue) -> String? {
        guard case .array(let attributes)? = document["attributes"] else { return nil }
        for attribute in attributes where attribute["key"]?.stringValue == "consumerId" {
            return attribute["stringValue"]?.stringValue
        }
        return nil
    }

    private static func matches(_ document: JSONValue, _ request: SearchRequest, now: Timestamp) -> Bool {
        if let vehicleId = request.vehicleId, document["vehicleId"]?.stringValue != vehicleId { return false }
        if request.activeTripsOnly, let status = document["tripStatus"]?.stringValue, status == "COMPLETE" || status == "CANCELED" { return false }
        if let staleness = request.minimumStalenessMicros {
            // The newest version stamp on the document is when it last changed.
            let stamps = ["intermediateDestinationsVersion", "remainingWaypointsVersion", "remainingWaypointsRouteVersion", "currentRouteSegmentVersion"]
                .compactMap { document[$0]?.stringValue.flatMap(Timestamp.init(rfc3339:)) }
            if let last = stamps.max(), now.microsecondsSinceEpoch - last.microsecondsSinceEpoch < staleness { return false }
        }
        return true
    }

    /// Without a `vehicleId`, SearchTrips leaves out the vehicle-derived route fields (reference §1.1).
    private static func withoutVehicleRoute(_ trip: JSONValue) -> JSONValue {
        guard case .object(var object) = trip else { return trip }
        for key in ["currentRouteSegment", "remainingWaypoints", "remainingDistanceMeters", "etaToFirstWaypoint", "remainingTimeToFirstWaypoint"] {
            object.removeValue(forKey: key)
        }
        return .object(object)
    }
}
