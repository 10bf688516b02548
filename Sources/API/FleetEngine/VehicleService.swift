import EventStore
import Foundation
import Geo
import JSON
import Journey
import ReadModels

/// Fleet Engine's VehicleService: CreateVehicle, GetVehicle, UpdateVehicle,
/// UpdateVehicleAttributes, ListVehicles, SearchVehicles and DeleteVehicle, independent of JSON
/// and HTTP.
///
/// Writes decide on the vehicle's latest state and append with its version as the expected
/// version, retrying after a conflict (concurrent location reports for one vehicle serialize this
/// way). Every command of one request lands in one append, so a request is all or nothing.
/// Answers come from the fleet read model after it has applied the writes.
package final class VehicleService: Sendable {
    let repository: AggregateRepository
    let readModel: FleetReadModel
    let clock: @Sendable () -> Timestamp
    static let attempts = 8

    init(repository: AggregateRepository, readModel: FleetReadModel, clock: @escaping @Sendable () -> Timestamp) {
        self.repository = repository
        self.readModel = readModel
        self.clock = clock
    }

    static func key(_ provider: String, _ vehicleId: String) -> String {
        FleetResourceProjection.vehicleKey(provider: provider, vehicleId: vehicleId)
    }

    // MARK: - Operations

    package func create(_ request: CreateRequest, context: CommandContext) async throws(APIError) -> JSONValue {
        try context.caller.requireProvider(request.provider)
        try context.caller.require([.server], to: "create vehicles")
        let mark = try await mutate(provider: request.provider, vehicleId: request.register.vehicleId, context: context) { _, now in
            var commands: [Vehicle.Command] = [.registerVehicle(request.register, at: now)]
            if let location = request.lastLocation { commands.append(.reportLocation(location, at: now)) }
            return commands
        }
        return try await written(request.provider, request.register.vehicleId, mark.mark)
    }

    package func get(provider: String, vehicleId: String, versions: FleetResourceViews.VehicleVersions, caller: Principal) async throws(APIError) -> JSONValue {
        try caller.requireProvider(provider)
        try authorizeVehicle(vehicleId, caller: caller, writing: false)
        try await awaitOwnWrites(provider: provider, vehicleId: vehicleId)
        guard let document = try await readModel.document(FleetResourceProjection.vehiclesCollection, Self.key(provider, vehicleId)) else {
            throw .notFound("vehicle \(vehicleId) not found (provider \(provider))")
        }
        return FleetResourceViews.vehicle(document, since: versions)
    }

    package func update(_ request: UpdateRequest, context: CommandContext) async throws(APIError) -> JSONValue {
        try context.caller.requireProvider(request.provider)
        try authorizeVehicle(request.vehicleId, caller: context.caller, writing: true)
        guard !request.changes.isEmpty else { throw .invalidArgument("updateMask must name at least one field") }
        let write = try await mutate(provider: request.provider, vehicleId: request.vehicleId, context: context) { state, now throws(APIError) in
            guard state.exists else { throw .notFound("vehicle \(request.vehicleId) not found (provider \(request.provider))") }
            return request.changes.map { Self.command(for: $0, at: now) }
        }
        if let answer = try await locationAnswer(request.provider, request.vehicleId, write) { return answer }
        return try await written(request.provider, request.vehicleId, write.mark)
    }

    package func updateAttributes(provider: String, vehicleId: String, attributes: [Attribute], context: CommandContext) async throws(APIError) -> JSONValue {
        try context.caller.requireProvider(provider)
        try authorizeVehicle(vehicleId, caller: context.caller, writing: true)
        guard !attributes.isEmpty else { throw .invalidArgument("attributes is required (got an empty list)") }
        let mark = try await mutate(provider: provider, vehicleId: vehicleId, context: context) { state, now throws(APIError) in
            guard state.exists else { throw .notFound("vehicle \(vehicleId) not found (provider \(provider))") }
            return [.mergeAttributes(attributes, at: now)]
        }
        let vehicle = try await written(provider, vehicleId, mark.mark)
        return vehicle["attributes"] ?? .array([])
    }

    package func delete(provider: String, vehicleId: String, context: CommandContext) async throws(APIError) {
        try context.caller.requireProvider(provider)
        try context.caller.require([.server], to: "delete vehicles")
        let mark = try await mutate(provider: provider, vehicleId: vehicleId, context: context) { state, now throws(APIError) in
            guard state.exists else { throw .notFound("vehicle \(vehicleId) not found (provider \(provider))") }
            return [.deleteVehicle(at: now)]
        }
        try await readModel.settle(mark.mark)
    }

    // MARK: - Writing

    /// What `mutate` wrote: its feed mark, and the vehicle before and after (nil when nothing was written).
    struct Write {
        var mark = WriteMark()
        var before: Loaded<Vehicle.State>?
        var events: [Vehicle.Event] = []
        var after: Vehicle.State?
    }

    /// Decides and appends `plan` on the vehicle's state, again on a newer state while other writers
    /// of other nodes move the stream. Writers of this node take turns on the vehicle (its stream
    /// lease, shared with batch ingest): many updates of one vehicle at once are applied one after
    /// the other, none aborted by the others.
    private func mutate(provider: String, vehicleId: String, context: CommandContext,
                        plan: (Vehicle.State, Timestamp) throws(APIError) -> [Vehicle.Command]) async throws(APIError) -> Write {
        try await repository.leases.holding([AggregateRepository.vehicleStream(provider: provider, vehicleId: vehicleId)]) { () async throws(APIError) in
            try await decideAndAppend(provider: provider, vehicleId: vehicleId, context: context, plan: plan)
        }
    }

    private func decideAndAppend(provider: String, vehicleId: String, context: CommandContext,
                                 plan: (Vehicle.State, Timestamp) throws(APIError) -> [Vehicle.Command]) async throws(APIError) -> Write {
        var write = Write()
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
            guard !events.isEmpty else { return write }
            let pending = repository.pendingVehicle(provider: provider, vehicleId: vehicleId, before: loaded, events: events)
            if let result = try await repository.commit(pending, metadata: context.metadata, retry: attempt < Self.attempts,
                                                        doing: "append to vehicle \(vehicleId)") {
                write.mark.include(result)
                write.before = loaded
                write.events = events
                write.after = pending.after
                return write
            }
        }
        return write
    }

    static func command(for change: Change, at now: Timestamp) -> Vehicle.Command {
        switch change {
        case .vehicleState(let state): .setVehicleState(state, at: now)
        case .location(let location, let past): .reportLocation(location, pastLocations: past, at: now)
        case .routeSegment(let path, let traffic, let endPoint): .updateRouteSegment(encodedPath: path, traffic: traffic, endPoint: endPoint, at: now)
        case .remainingRoute(let distance, let eta, let remaining):
            .reportRemainingRoute(remainingDistanceMeters: distance, etaToFirstWaypoint: eta, remainingTimeSeconds: remaining, at: now)
        case .navigationStatus(let status): .setNavigationStatus(status, at: now)
        case .waypoints(let waypoints): .reorderWaypoints(waypoints, at: now)
        case .attributes(let attributes): .setAttributes(attributes, at: now)
        case .backToBackEnabled(let enabled): .setBackToBackEnabled(enabled, at: now)
        case .capabilities(let capacity, let types, let type):
            .updateCapabilities(maximumCapacity: capacity, supportedTripTypes: types, vehicleType: type, at: now)
        case .licensePlate(let plate): .setLicensePlate(plate, at: now)
        }
    }

    /// How far the fleet projection may be behind a location write that is answered without waiting
    /// for it (events, by global position). Past that, location writes wait like every other write,
    /// so a sustained overload slows writers down instead of letting the read models fall behind
    /// without bound (bursts pass; a few thousand events are well under a second of projection work).
    static let maximumUnappliedLocations: Int64 = 5000

    /// The answer to an UpdateVehicle that reported locations only, without waiting for the fleet
    /// projection to apply it; nil when the answer must come the usual way (`written`).
    ///
    /// Location events change the Vehicle resource in `lastLocation` only. So once the projection
    /// has applied the vehicle's latest event that is not a location event (normally long done),
    /// the mirrored resource differs from the one after this write at most in `lastLocation`, and
    /// the answer is that resource with the new location put in, exactly as the projection will
    /// render it. Taken only while this node owns the fleet projection (its mirror is current), the
    /// projection is at most `maximumUnappliedLocations` events behind, and the vehicle already has
    /// a location in the resource. The write stays in the node's unseen writes, so a GetVehicle
    /// that follows waits until the projection has applied it.
    private func locationAnswer(_ provider: String, _ vehicleId: String, _ write: Write) async throws(APIError) -> JSONValue? {
        guard let position = write.mark.position, let structural = write.before?.structuralPosition, let after = write.after,
              !write.events.isEmpty, write.events.allSatisfy(VehicleAggregate.changesOnlyLocation), readModel.mirrorIsCurrent,
              let behind = readModel.eventsBehind(position), behind <= Self.maximumUnappliedLocations
        else { return nil }
        try await readModel.settle(WriteMark(position: structural))
        guard case .object(let document)? = readModel.mirrored(FleetResourceProjection.vehiclesCollection, Self.key(provider, vehicleId)) else { return nil }
        // The location as of this write, even when later reports are applied already.
        if let location = after.lastLocation, document["lastLocation"] != nil {
            let updated = document.map { member in (member.key, member.key == "lastLocation" ? FleetResourceJSON.vehicleLocation(location) : member.value) }
            return FleetResourceViews.vehicle(.object(JSONObject(updated)))
        }
        guard readModel.hasApplied(position) else { return Optional<JSONValue>.none }  // (`nil` alone could read as JSON null)
        return FleetResourceViews.vehicle(.object(document))
    }

    /// Read-your-writes for writes that did not wait for the read model (batch ingest): waits until
    /// the fleet projection has applied this node's latest append to the vehicle, if it has not yet.
    private func awaitOwnWrites(provider: String, vehicleId: String) async throws(APIError) {
        let stream = AggregateRepository.vehicleStream(provider: provider, vehicleId: vehicleId)
        guard let position = repository.unseenWrite(stream) else { return }
        try await readModel.settle(WriteMark(position: position))
        repository.sawApplied(stream, position)
    }

    /// Read-your-writes for queries over many vehicles: waits until the fleet projection has applied
    /// this node's latest append (UpdateVehicle of locations and batch ingest answer before that).
    func awaitAllOwnWrites() async throws(APIError) {
        guard let position = repository.latestWrite, !readModel.hasApplied(position) else { return }
        try await readModel.settle(WriteMark(position: position))
    }

    private func written(_ provider: String, _ vehicleId: String, _ mark: WriteMark) async throws(APIError) -> JSONValue {
        try await readModel.settle(mark)
        if let position = mark.position { repository.sawApplied(AggregateRepository.vehicleStream(provider: provider, vehicleId: vehicleId), position) }
        guard let document = try await readModel.document(FleetResourceProjection.vehiclesCollection, Self.key(provider, vehicleId)) else {
            throw .notFound("vehicle \(vehicleId) not found (provider \(provider))")
        }
        return FleetResourceViews.vehicle(document)
    }

    private func authorizeVehicle(_ vehicleId: String, caller: Principal, writing: Bool) throws(APIError) {
        switch caller.role {
        case .server:
            return
        case .auditor:
            if writing { throw .permissionDenied("an auditor token may not change vehicles") }
        case .driver:
            guard caller.vehicleId == vehicleId else {
                throw .permissionDenied("a driver token may act only on its own vehicle (token vehicle \(caller.vehicleId ?? ""), requested \(vehicleId))")
            }
        case .consumer:
            throw .permissionDenied("a consumer token may not \(writing ? "change" : "read") vehicles")
        }
    }
}
