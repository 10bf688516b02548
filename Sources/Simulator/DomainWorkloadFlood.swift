import Geo
import Journey

/// A cheap, deterministic stream of exactly `events` legal vehicle events, for volume benchmarks.
///
/// Registers `vehicles` ONLINE vehicles, then lets them roam and report locations round-robin
/// every few simulated seconds (a remaining-route report now and then, a stale report rarely).
/// Still decided and evolved through the domain, but with no trips, routes or dispatch, so it
/// generates hundreds of thousands of events per second: the shape of the high-volume part of a
/// real feed (location reports dominate it), not of its variety. Use `DomainWorkload` for that.
package struct DomainWorkloadFlood: Sequence, Sendable {
    package let seed: UInt64
    package let provider: String
    package let vehicles: Int
    package let events: Int
    package let start: Timestamp

    package init(seed: UInt64, provider: String, vehicles: Int, events: Int, start: Timestamp) {
        precondition(vehicles >= 1, "a flood needs at least one vehicle (got \(vehicles))")
        self.seed = seed
        self.provider = provider
        self.vehicles = vehicles
        self.events = events
        self.start = start
    }

    package func makeIterator() -> Iterator { Iterator(self) }

    /// Produces the flood one command (one event) at a time.
    package struct Iterator: IteratorProtocol {
        private struct Rover {
            let stream: String
            var state = Vehicle.State()
            var position: LatLng
            var heading: Double
            var speed: Double
        }

        private let total: Int
        private var rng: SeededRandom
        private var recorder: DomainWorkloadRecorder
        private var clock: Timestamp
        private var rovers: [Rover] = []
        private var turn = 0
        private var reports = 0

        init(_ flood: DomainWorkloadFlood) {
            total = flood.events
            rng = SeededRandom(seed: flood.seed)
            recorder = DomainWorkloadRecorder(seed: flood.seed)
            clock = flood.start
            for n in 0..<flood.vehicles {
                let position = LatLng(uncheckedLatitude: rng.between(52.45...52.58), longitude: rng.between(13.28...13.50))
                rovers.append(Rover(stream: DomainWorkload.vehicleStream(provider: flood.provider, vehicleId: DomainWorkload.vehicleId(n)),
                                    position: position, heading: rng.between(0.0...359.0), speed: rng.between(5.0...15.0)))
            }
        }

        package mutating func next() -> WorkloadCommand? {
            guard recorder.eventCount < total else { return nil }
            let v = turn % rovers.count
            turn += 1
            // Every vehicle acts once per round; a round takes about five simulated seconds.
            clock = clock.adding(microseconds: Swift.max(1, 5_000_000 / Int64(rovers.count)))
            let command: Vehicle.Command
            if !rovers[v].state.exists {
                command = .registerVehicle(.init(
                    vehicleId: String(rovers[v].stream.split(separator: "/").last!), vehicleState: .online,
                    supportedTripTypes: [.exclusive, .shared], maximumCapacity: 4, vehicleType: VehicleType(category: .taxi)), at: clock)
            } else if reports % 10 == 9 {
                reports += 1
                command = .reportRemainingRoute(remainingDistanceMeters: rng.between(100...5_000), etaToFirstWaypoint: nil,
                                                remainingTimeSeconds: rng.between(10...600), at: clock)
            } else {
                reports += 1
                move(v)
                let stale = rng.chance(1)
                var location = VehicleLocation(location: rovers[v].position, updateTime: stale ? clock.adding(seconds: -60) : clock,
                                               heading: rovers[v].heading, speed: rovers[v].speed, locationSensor: .gps)
                location.latlngAccuracy = Double(rng.between(3...20))
                command = .reportLocation(location, at: clock)
            }
            let events: [Vehicle.Event]
            do {
                events = try Vehicle.decide(command, state: rovers[v].state)
            } catch {
                preconditionFailure("the flood generator issued an illegal command for \(rovers[v].stream): \(error.code): \(error.message)")
            }
            for event in events { rovers[v].state = Vehicle.evolve(rovers[v].state, with: event) }
            guard let append = recorder.append(rovers[v].stream, vehicle: events) else { return next() }
            return WorkloadCommand(name: "Vehicle", appends: [append])
        }

        /// About five seconds of driving, turning now and then, bouncing off the area's edge.
        private mutating func move(_ v: Int) {
            if rng.chance(10) { rovers[v].heading = (rovers[v].heading + rng.between(-90.0...90.0) + 360).truncatingRemainder(dividingBy: 360) }
            var p = Distance.destination(from: rovers[v].position, bearing: rovers[v].heading, meters: rovers[v].speed * 5)
            if !(52.45...52.58).contains(p.latitude) || !(13.28...13.50).contains(p.longitude) {
                rovers[v].heading = (rovers[v].heading + 180).truncatingRemainder(dividingBy: 360)
                p = rovers[v].position
            }
            rovers[v].position = LatLng(uncheckedLatitude: (p.latitude * 1e6).rounded() / 1e6, longitude: (p.longitude * 1e6).rounded() / 1e6)
        }
    }
}
