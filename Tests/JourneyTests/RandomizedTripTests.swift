import Geo
import Journey
import Testing
import Simulator

/// Drives generated trips and vehicles through legal command sequences and checks invariants
/// after every event.
@Suite("Randomized trips")
struct RandomizedTripTests {
    /// Position of a status in the lifecycle; never decreases.
    static func rank(_ state: Trip.State) -> Int {
        switch state.status {
        case .unknown, .new: 0
        case .enrouteToPickup: 1
        case .arrivedAtPickup: 2
        case .enrouteToIntermediateDestination: 3 + 2 * state.intermediateDestinationIndex
        case .arrivedAtIntermediateDestination: 4 + 2 * state.intermediateDestinationIndex
        case .enrouteToDropoff: 1_000
        case .complete, .canceled: 2_000
        }
    }

    /// The world under test: trips, vehicles, a clock and the generator.
    struct World {
        var rng: SeededRandom
        var clock = Fixtures.t0
        var trips: [String: Trip.State] = [:]
        var vehicles: [String: Vehicle.State] = [:]
        var vehicleIds: [String] = []
        var eventsApplied = 0
        var stats: [String: Int] = [:]

        init(seed: UInt64) { rng = SeededRandom(seed: seed) }

        mutating func tick() -> Timestamp {
            clock = clock.adding(seconds: Double(1 + rng.below(10)))
            return clock
        }

        mutating func randomPoint() -> LatLng {
            Fixtures.point(52.4 + Double(rng.below(2_000)) / 10_000, 13.3 + Double(rng.below(2_000)) / 10_000)
        }

        // MARK: vehicles

        mutating func register(_ id: String, types: [TripType], capacity: Int, backToBack: Bool) throws {
            let events = try Vehicle.decide(.registerVehicle(.init(
                vehicleId: id, vehicleState: .online, supportedTripTypes: types, maximumCapacity: capacity,
                vehicleType: VehicleType(category: .taxi), backToBackEnabled: backToBack), at: tick()), state: Vehicle.State())
            try applyVehicle(id, events)
            vehicleIds.append(id)
        }

        mutating func applyVehicle(_ id: String, _ events: [Vehicle.Event]) throws {
            for event in events {
                vehicles[id] = Vehicle.evolve(vehicles[id] ?? Vehicle.State(), with: event)
                eventsApplied += 1
                stats[event.type, default: 0] += 1
                #expect(try Vehicle.Event.decode(type: event.type, data: try event.encodePayload()) == event)
            }
        }

        mutating func sync(vehicle id: String, trip: Trip.State) throws {
            guard let vehicle = vehicles[id] else { return }
            try applyVehicle(id, try Vehicle.decide(.syncTrip(trip, at: clock), state: vehicle))
            checkVehicle(id)
        }

        /// The vehicle's current trips are exactly the trips assigned to it and not terminal,
        /// and its waypoints are exactly those trips' remaining waypoints, each in trip order.
        func checkVehicle(_ id: String) {
            guard let vehicle = vehicles[id] else { return }
            let expected = Set(trips.values.filter { $0.vehicleId == id && !$0.status.isTerminal }.map(\.tripId))
            #expect(Set(vehicle.currentTripIds) == expected, "vehicle \(id)")
            #expect(vehicle.currentTripIds.count == expected.count, "vehicle \(id) lists a trip twice")
            for tripId in expected {
                let trip = trips[tripId]!
                #expect(vehicle.waypoints.filter { $0.tripId == tripId } == trip.remainingWaypoints, "vehicle \(id) trip \(tripId)")
            }
            #expect(vehicle.waypoints.allSatisfy { expected.contains($0.tripId) }, "vehicle \(id) keeps stops of released trips")
        }

        mutating func reportLocation(_ id: String) throws {
            guard let vehicle = vehicles[id] else { return }
            let now = tick()
            let device = rng.chance(10) ? now.adding(seconds: -120) : now
            var location = VehicleLocation(location: randomPoint(), updateTime: device, heading: Double(rng.below(360)), speed: Double(rng.below(30)), locationSensor: .gps)
            if rng.chance(20) { location.latlngAccuracy = Double(rng.below(50)) }
            let past = rng.chance(10) ? [VehicleLocation(location: randomPoint(), updateTime: now.adding(seconds: -300))] : []
            let events = try Vehicle.decide(.reportLocation(location, pastLocations: past, at: now), state: vehicle)
            let lastBefore = vehicle.lastLocation?.updateTime
            try applyVehicle(id, events)
            if let lastBefore, let lastAfter = vehicles[id]?.lastLocation?.updateTime {
                #expect(lastAfter >= lastBefore, "a stale report moved vehicle \(id) back")
            }
        }

        // MARK: trips

        mutating func applyTrip(_ id: String, _ events: [Trip.Event]) throws {
            for event in events {
                let before = trips[id] ?? Trip.State()
                let after = Trip.evolve(before, with: event)
                trips[id] = after
                eventsApplied += 1
                stats[event.type, default: 0] += 1
                #expect(try Trip.Event.decode(type: event.type, data: try event.encodePayload()) == event)
                guard before.exists else { continue }
                // A deletion ends the lifecycle: nothing of it is left to compare.
                if case .deleted = event {
                    #expect(!after.exists && after.remainingWaypoints.isEmpty, "trip \(id) survived its deletion")
                    continue
                }
                // Status never goes backward, and a status event always moves it forward.
                #expect(RandomizedTripTests.rank(after) >= RandomizedTripTests.rank(before), "trip \(id): \(before.status) -> \(after.status)")
                switch event {
                case .statusChanged, .completed, .canceled:
                    #expect(RandomizedTripTests.rank(after) > RandomizedTripTests.rank(before), "trip \(id) status did not advance")
                default: break
                }
                // Remaining waypoints shrink monotonically (only editing the stops may change them).
                switch event {
                case .dropoffPointSet, .intermediateDestinationsChanged, .pickupPointSet:
                    break
                default:
                    #expect(before.remainingWaypoints.ends(with: after.remainingWaypoints), "trip \(id) remaining waypoints grew")
                }
                if after.status.isTerminal { #expect(after.remainingWaypoints.isEmpty) }
            }
        }

        /// Runs a trip command that the generator knows is legal; it must succeed.
        mutating func run(_ id: String, _ command: Trip.Command) throws {
            let before = trips[id]!
            let events = try Trip.decide(command, state: before)
            try applyTrip(id, events)
            let after = trips[id]!
            for vehicleId in Set([before.vehicleId, after.vehicleId].compactMap { $0 }) {
                try sync(vehicle: vehicleId, trip: after)
            }
        }

        mutating func createTrip(_ id: String) throws {
            let exclusive = rng.chance(60)
            let intermediates = exclusive ? (0..<rng.below(4)).map { _ in TerminalLocation(point: randomPoint()) } : []
            let withDropoff = rng.chance(80)
            let command = Trip.Command.createTrip(.init(
                tripId: id, tripType: exclusive ? .exclusive : .shared, pickup: TerminalLocation(point: randomPoint()),
                dropoff: withDropoff ? TerminalLocation(point: randomPoint()) : nil, intermediateDestinations: intermediates,
                numberOfPassengers: 1 + rng.below(3)), at: tick())
            try applyTrip(id, try Trip.decide(command, state: Trip.State()))
            if !withDropoff { try run(id, .setDropoffPoint(TerminalLocation(point: randomPoint()), at: tick())) }
        }

        /// Tries vehicles in random order; assignment rules may refuse some, with FAILED_PRECONDITION only.
        mutating func tryAssign(_ id: String) throws -> Bool {
            var candidates = vehicleIds
            candidates.shuffle(using: &rng)
            for vehicleId in candidates {
                do throws(JourneyError) {
                    let events = try Trip.decide(.assignVehicle(vehicleId: vehicleId, vehicle: vehicles[vehicleId], at: tick()), state: trips[id]!)
                    try? applyTrip(id, events)
                    try? sync(vehicle: vehicleId, trip: trips[id]!)
                    if let trip = trips[id], trip.vehicleId == vehicleId {
                        stats[events.contains { if case .vehicleAssigned(let a) = $0 { a.backToBack } else { false } } ? "assign.shared-or-b2b" : "assign.solo", default: 0] += 1
                        return true
                    }
                } catch {
                    #expect(error.code == .failedPrecondition, "assignment refused with \(error.code): \(error.message)")
                }
            }
            return false
        }

        mutating func planRoute(_ id: String) throws {
            let trip = trips[id]!
            let stops = trip.remainingWaypoints.map(\.location.point)
            guard !stops.isEmpty else { return }
            var from = randomPoint()
            var legs: [RoutePlan.Leg] = []
            for stop in stops {
                legs.append(RoutePlan.Leg(encodedPolyline: Polyline.encode([from, stop])))
                from = stop
            }
            let plan = RoutePlan(destinations: stops.map { RoutePlan.Destination(point: $0) }, legs: legs, routeToken: "token-\(id)",
                                 travelMode: rng.chance(50) ? .drive : .twoWheeler)
            try run(id, .planRoute(plan, at: tick()))
            if let vehicleId = trips[id]!.vehicleId, let vehicle = vehicles[vehicleId] {
                try applyVehicle(vehicleId, try Vehicle.decide(.followRoute(tripId: id, encodedPath: legs[0].encodedPolyline, at: clock), state: vehicle))
            }
            let status = RouteTokenExecutionStatus.allCases.filter { $0 != .unknown }.randomElement(using: &rng)!
            try run(id, .reportRouteTokenExecution(status, resolved: nil, at: tick()))
        }

        /// One legal step for trip `id`.
        mutating func step(_ id: String) throws {
            let trip = trips[id]!
            if rng.chance(3) {
                try run(id, rng.chance(50) ? .cancelTrip(at: tick()) : .updateTripStatus(.canceled, at: tick()))
                return
            }
            guard trip.vehicleId != nil else {
                if try !tryAssign(id), rng.chance(10) { try run(id, .cancelTrip(at: tick())) }
                return
            }
            if rng.chance(4), trip.status == .new || trip.status == .enrouteToPickup {
                try run(id, .unassignVehicle(at: tick()))
                return
            }
            if rng.chance(5), trip.status.isBeforePickup {
                try run(id, .setPickupPoint(TerminalLocation(point: randomPoint()), at: tick()))
                return
            }
            if rng.chance(8), trip.routePlan == nil {
                try planRoute(id)
                return
            }
            if rng.chance(15), let vehicleId = trip.vehicleId {
                try reportLocation(vehicleId)
                return
            }
            let n = trip.intermediateDestinations.count
            switch trip.status {
            case .new:
                try run(id, .updateTripStatus(rng.chance(80) ? .enrouteToPickup : .arrivedAtPickup, at: tick()))
            case .enrouteToPickup:
                try run(id, .updateTripStatus(.arrivedAtPickup, at: tick()))
            case .arrivedAtPickup, .arrivedAtIntermediateDestination:
                if rng.chance(50) {
                    try run(id, .continueToNextDestination(at: tick()))
                } else {
                    let next = trip.status == .arrivedAtPickup ? 0 : trip.intermediateDestinationIndex + 1
                    if next < n {
                        try run(id, .updateTripStatus(.enrouteToIntermediateDestination, intermediateDestinationIndex: next,
                                                      intermediateDestinationsVersion: trip.intermediateDestinationsVersion, at: tick()))
                    } else {
                        try run(id, .updateTripStatus(.enrouteToDropoff, at: tick()))
                    }
                }
            case .enrouteToIntermediateDestination:
                try run(id, .updateTripStatus(.arrivedAtIntermediateDestination, intermediateDestinationIndex: trip.intermediateDestinationIndex, at: tick()))
            case .enrouteToDropoff:
                try run(id, .updateTripStatus(.complete, at: tick()))
            case .unknown, .complete, .canceled:
                Issue.record("stepping trip \(id) in status \(trip.status)")
            }
        }

        /// Occasionally flips a vehicle ONLINE/OFFLINE (OFFLINE vehicles keep their trips).
        mutating func toggleVehicle() throws {
            let id = vehicleIds.randomElement(using: &rng)!
            let vehicle = vehicles[id]!
            try applyVehicle(id, try Vehicle.decide(.setVehicleState(vehicle.vehicleState == .online ? .offline : .online, at: tick()), state: vehicle))
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aThousandGeneratedTripsKeepEveryInvariant() throws {
        var world = World(seed: 0x5EED_2026)
        for i in 0..<8 {
            let types: [TripType] = i % 3 == 0 ? [.shared] : i % 3 == 1 ? [.exclusive] : [.exclusive, .shared]
            try world.register("v-\(i)", types: types, capacity: 2 + i % 3, backToBack: i % 2 == 0)
        }
        var created = 0
        var active: [String] = []
        var steps = 0
        while created < 1_000 || !active.isEmpty {
            steps += 1
            try #require(steps < 200_000, "the generator stopped making progress")
            if created < 1_000, active.count < 12, active.isEmpty || world.rng.chance(25) {
                let id = "trip-\(created)"
                try world.createTrip(id)
                created += 1
                active.append(id)
                continue
            }
            if world.rng.chance(2) { try world.toggleVehicle() }
            let id = active[world.rng.below(active.count)]
            try world.step(id)
            if world.trips[id]!.status.isTerminal {
                active.removeAll { $0 == id }
            }
        }
        for id in world.vehicleIds { world.checkVehicle(id) }
        #expect(world.trips.count == 1_000)
        #expect(world.trips.values.allSatisfy { $0.status.isTerminal })
        // Deleting finished trips changes no vehicle.
        let vehiclesBefore = world.vehicles
        for id in world.trips.keys.sorted() where world.rng.chance(30) {
            try world.run(id, .deleteTrip(at: world.tick()))
            #expect(world.trips[id]?.exists == false)
        }
        #expect(world.vehicles == vehiclesBefore)
        #expect(world.stats[Trip.Event.tripDeleted, default: 0] > 200)
        #expect(world.stats[Trip.Event.tripPickupPointSet, default: 0] > 0)
        #expect(world.vehicles.values.allSatisfy { $0.currentTrips.isEmpty && $0.waypoints.isEmpty })
        // The generator really exercised the interesting paths.
        let completed = world.trips.values.filter { $0.status == .complete }.count
        #expect(completed > 300)
        #expect(world.stats[Trip.Event.tripRouteDestinationAdvanced, default: 0] > 0)
        #expect(world.stats["assign.shared-or-b2b", default: 0] > 0)
        #expect(world.stats[Vehicle.Event.vehicleStaleLocationRecorded, default: 0] > 0)
        #expect(world.stats[Vehicle.Event.vehicleTripWaypointsUpdated, default: 0] > 0)
        #expect(world.stats[Trip.Event.tripVehicleUnassigned, default: 0] > 0)
    }
}

extension Array where Element: Equatable {
    /// Whether `suffix` is a suffix of this array.
    func ends(with suffix: [Element]) -> Bool {
        suffix.count <= count && Array(self[(count - suffix.count)...]) == suffix
    }
}
