import Geo
import Journey

/// The state machine behind `DomainWorkload`: a discrete-event simulation of the fleet.
///
/// Each step runs the next due action (a trip request, a vehicle's next move, a planned
/// cancellation or a dispatch timeout) at the simulated clock, and queues the commands it
/// caused. Collections are arrays walked by index, never dictionaries walked in hash order,
/// so the run does not depend on per-process hash seeds.
package struct DomainWorkloadSimulation: IteratorProtocol {
    enum Phase { case idle, driving, dwelling, offline }

    /// A path a vehicle drives toward one waypoint.
    struct Leg {
        var target: TripWaypoint
        var path: Path
        var traveled: Double = 0
        /// Meters per second.
        var speed: Double
        var lastMove: Timestamp
        var reports = 0
    }

    struct Car {
        let id: String
        let stream: String
        var state = Vehicle.State()
        var position: LatLng
        var phase = Phase.idle
        var leg: Leg?
        var nextActionAt: Timestamp
        /// Off-route reports still to send in the current detour.
        var detour = 0
        var detourOffset = 150.0
    }

    struct Ride {
        let id: String
        let stream: String
        var state = Trip.State()
        /// Set while the trip waits for a vehicle.
        var waitingSince: Timestamp?
        /// When the rider (or provider) cancels, if they will.
        var cancelAt: Timestamp?
        var planCount = 0
    }

    let provider: String
    let tripTotal: Int
    var rng: SeededRandom
    var recorder: DomainWorkloadRecorder
    var clock: Timestamp
    var cars: [Car] = []
    var carIndex: [String: Int] = [:]
    var rides: [Ride] = []
    var rideIndex: [String: Int] = [:]
    /// Indices of trips that are not terminal, in creation order.
    var active: [Int] = []
    var nextTripAt: Timestamp
    var tripInterval: Double
    let reportInterval: ClosedRange<Double>
    var started = false
    var finished = false
    var output: [WorkloadCommand] = []
    var outputHead = 0

    /// The area trips and vehicles live in (central Berlin).
    static let area = (latitude: 52.47...52.56, longitude: 13.30...13.48)
    /// Seconds a trip waits for a vehicle before it is canceled.
    static let dispatchTimeout = 900.0

    init(_ workload: DomainWorkload) {
        provider = workload.provider
        tripTotal = workload.trips
        reportInterval = workload.reportInterval
        rng = SeededRandom(seed: workload.seed)
        recorder = DomainWorkloadRecorder(seed: workload.seed)
        clock = workload.start
        nextTripAt = workload.start.adding(seconds: 20)
        // About one trip per vehicle every 15 simulated minutes keeps the fleet busy, not swamped.
        tripInterval = 900.0 / Double(workload.vehicles)
        for n in 0..<workload.vehicles {
            let id = DomainWorkload.vehicleId(n)
            carIndex[id] = n
            cars.append(Car(id: id, stream: DomainWorkload.vehicleStream(provider: provider, vehicleId: id),
                            position: LatLng(uncheckedLatitude: 0, longitude: 0), nextActionAt: workload.start))
        }
    }

    package mutating func next() -> WorkloadCommand? {
        while outputHead == output.count {
            output.removeAll(keepingCapacity: true)
            outputHead = 0
            guard !finished else { return nil }
            step()
        }
        defer { outputHead += 1 }
        return output[outputHead]
    }

    // MARK: - Scheduling

    private mutating func step() {
        guard started else {
            registerFleet()
            started = true
            return
        }
        // The earliest due action: trip request, cancellation, dispatch timeout or vehicle move.
        var due = Timestamp(microsecondsSinceEpoch: .max)
        enum Action { case none, request, cancel(Int), timeout(Int), car(Int) }
        var action = Action.none
        if rides.count < tripTotal { due = nextTripAt; action = .request }
        for r in active {
            if let at = rides[r].cancelAt, at < due { due = at; action = .cancel(r) }
            if let since = rides[r].waitingSince {
                let at = since.adding(seconds: Self.dispatchTimeout)
                if at < due { due = at; action = .timeout(r) }
            }
        }
        let fleetBusy = rides.count < tripTotal || !active.isEmpty
        if fleetBusy {
            for c in cars.indices where cars[c].nextActionAt < due { due = cars[c].nextActionAt; action = .car(c) }
        }
        if case .none = action {} else if due > clock { clock = due }
        switch action {
        case .none:
            finish()
        case .request:
            requestTrip()
            nextTripAt = clock.adding(seconds: tripInterval * rng.between(0.3...1.7))
        case .cancel(let r):
            cancel(r)
        case .timeout(let r):
            cancel(r)
        case .car(let c):
            act(c)
        }
    }

    /// Advances the clock a little between commands, so every command has its own time.
    mutating func tick() {
        clock = clock.adding(microseconds: Int64(rng.between(1_000...250_000)))
    }

    /// After the last trip: some vehicles go offline for the night, then the back office tidies up.
    private mutating func finish() {
        for c in cars.indices where cars[c].state.vehicleState == .online && rng.chance(50) {
            runVehicle(c, .setVehicleState(.offline, at: clock), "Vehicle.setVehicleState")
        }
        tidyUp()
        finished = true
    }

    // MARK: - Emitting

    /// Runs a trip command that may be refused; on success appends its events and the vehicle
    /// syncs it causes. Returns whether it was accepted.
    @discardableResult
    mutating func attemptTrip(_ r: Int, _ command: Trip.Command, _ name: String) -> Bool {
        let before = rides[r].state
        let events: [Trip.Event]
        do {
            events = try Trip.decide(command, state: before)
        } catch {
            return false
        }
        var after = before
        for event in events { after = Trip.evolve(after, with: event) }
        rides[r].state = after
        var appends: [WorkloadAppend] = []
        if let append = recorder.append(rides[r].stream, trip: events) { appends.append(append) }
        var synced: [String] = []
        for vehicleId in [before.vehicleId, after.vehicleId].compactMap({ $0 }) where !synced.contains(vehicleId) {
            synced.append(vehicleId)
            guard let c = carIndex[vehicleId] else { continue }
            let syncEvents = decideVehicle(c, .syncTrip(after, at: clock), "Vehicle.syncTrip")
            if let append = recorder.append(cars[c].stream, vehicle: syncEvents) { appends.append(append) }
        }
        if !appends.isEmpty { output.append(WorkloadCommand(name: name, appends: appends)) }
        if after.status.isTerminal, !before.status.isTerminal { active.removeAll { $0 == r } }
        tick()
        return true
    }

    /// Runs a trip command the simulation knows to be legal.
    mutating func runTrip(_ r: Int, _ command: Trip.Command, _ name: String) {
        guard attemptTrip(r, command, name) else {
            var reason = "unknown"
            do { _ = try Trip.decide(command, state: rides[r].state) } catch { reason = "\(error.code): \(error.message)" }
            preconditionFailure("the workload generator issued an illegal \(name) for trip \(rides[r].id): \(reason)")
        }
    }

    /// Decides and applies a vehicle command the simulation knows to be legal; returns its events.
    private mutating func decideVehicle(_ c: Int, _ command: Vehicle.Command, _ name: String) -> [Vehicle.Event] {
        let events: [Vehicle.Event]
        do {
            events = try Vehicle.decide(command, state: cars[c].state)
        } catch {
            preconditionFailure("the workload generator issued an illegal \(name) for vehicle \(cars[c].id): \(error.code): \(error.message)")
        }
        for event in events { cars[c].state = Vehicle.evolve(cars[c].state, with: event) }
        return events
    }

    /// Runs a vehicle command the simulation knows to be legal.
    mutating func runVehicle(_ c: Int, _ command: Vehicle.Command, _ name: String) {
        let events = decideVehicle(c, command, name)
        if let append = recorder.append(cars[c].stream, vehicle: events) {
            output.append(WorkloadCommand(name: name, appends: [append]))
        }
        tick()
    }

    /// Runs a vehicle command that may be refused (e.g. a reorder); returns whether it was accepted.
    mutating func attemptVehicle(_ c: Int, _ command: Vehicle.Command, _ name: String) -> Bool {
        do {
            _ = try Vehicle.decide(command, state: cars[c].state)
        } catch {
            return false
        }
        runVehicle(c, command, name)
        return true
    }

    // MARK: - Geometry

    mutating func randomPoint() -> LatLng {
        Self.rounded(LatLng(uncheckedLatitude: rng.between(Self.area.latitude), longitude: rng.between(Self.area.longitude)))
    }

    /// A point about `meters` from `origin` in a random direction, kept inside the area.
    mutating func point(near origin: LatLng, meters: ClosedRange<Double>) -> LatLng {
        let p = Distance.destination(from: origin, bearing: rng.between(0.0...359.0), meters: rng.between(meters))
        return Self.rounded(LatLng(uncheckedLatitude: min(max(p.latitude, Self.area.latitude.lowerBound), Self.area.latitude.upperBound),
                                   longitude: min(max(p.longitude, Self.area.longitude.lowerBound), Self.area.longitude.upperBound)))
    }

    /// Rounds to 1e-5 degrees, the precision of encoded polylines, so paths survive encoding unchanged.
    static func rounded(_ p: LatLng) -> LatLng {
        LatLng(uncheckedLatitude: (p.latitude * 1e5).rounded() / 1e5, longitude: (p.longitude * 1e5).rounded() / 1e5)
    }

    /// A plausible road from `a` to `b`: the straight line bent a little every ~400 m.
    mutating func road(from a: LatLng, to b: LatLng) -> [LatLng] {
        let d = Distance.meters(a, b)
        let segments = max(2, Int(d / 400))
        let bearing = Distance.initialBearing(from: a, to: b)
        var points = [Self.rounded(a)]
        for i in 1..<segments {
            let onLine = Distance.interpolate(from: a, to: b, fraction: Double(i) / Double(segments))
            let side = rng.chance(50) ? 90.0 : 270.0
            points.append(Self.rounded(Distance.destination(from: onLine, bearing: (bearing + side).truncatingRemainder(dividingBy: 360),
                                                            meters: rng.between(0.0...30.0))))
        }
        points.append(Self.rounded(b))
        return points
    }

    /// Up to three traffic stretches over a path of `count` points.
    mutating func traffic(points count: Int) -> [TrafficSpeedInterval] {
        var result: [TrafficSpeedInterval] = []
        var start = 0
        while start < count - 1, result.count < 3 {
            let end = min(count - 1, start + 1 + rng.below(max(1, (count - 1) / 2)))
            result.append(TrafficSpeedInterval(startIndex: start, endIndex: end, speed: rng.pick(TrafficSpeedInterval.Speed.allCases)))
            start = end + rng.below(2)
        }
        return result
    }
}
