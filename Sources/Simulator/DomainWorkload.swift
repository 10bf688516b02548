import Geo
import Journey

/// A seeded, deterministic fleet played through the real domain, as appendable events.
///
/// Vehicles register and come online; trips are created (EXCLUSIVE ones with intermediate
/// stops, SHARED ones pooled, some back-to-back), dispatched, route-planned with encoded
/// polylines, driven with location reports every few simulated seconds (GPS noise, stale
/// reports, offline backlogs, detours that go off route and reroute or rejoin), route segments
/// with traffic and remaining distance/ETA, and moved through every status to COMPLETE; some are
/// canceled, unassigned and reassigned. After the last trip the back office updates vehicles
/// (attributes, plates, back-to-back, capabilities), deletes some finished trips (re-booking a
/// few ids) and deletes and re-registers a vehicle. Every command goes through `decide` and every event
/// through `evolve`, so the output is exactly what the server would store for those commands,
/// and `Vehicle.syncTrip` follows every trip command as the server does.
///
/// Pure: time comes from a simulated clock starting at `start`, randomness from `seed`, so the
/// same arguments always give the same commands, events, payloads and event ids. Iterating is
/// lazy; a workload of any length needs memory only for the fleet and its active trips.
package struct DomainWorkload: Sequence, Sendable {
    package let seed: UInt64
    package let provider: String
    package let vehicles: Int
    package let trips: Int
    package let start: Timestamp
    /// Simulated seconds between two location reports of a moving vehicle (drawn per report).
    package let reportInterval: ClosedRange<Double>

    /// A workload of `trips` trips served by `vehicles` vehicles (at least one); a moving
    /// vehicle reports its location every `reportInterval` simulated seconds.
    package init(seed: UInt64, provider: String, vehicles: Int, trips: Int, start: Timestamp, reportInterval: ClosedRange<Double> = 4...12) {
        precondition(vehicles >= 1, "a workload needs at least one vehicle (got \(vehicles))")
        precondition(trips >= 0, "a workload cannot have a negative number of trips (got \(trips))")
        precondition(reportInterval.lowerBound > 0, "reportInterval must be positive (got \(reportInterval))")
        self.reportInterval = reportInterval
        self.seed = seed
        self.provider = provider
        self.vehicles = vehicles
        self.trips = trips
        self.start = start
    }

    package func makeIterator() -> DomainWorkloadSimulation { DomainWorkloadSimulation(self) }

    /// Every command of the workload, in order (in memory; for large workloads iterate instead).
    package func commands() -> [WorkloadCommand] { Array(self) }

    /// `trip:{provider}/{tripId}`.
    package static func tripStream(provider: String, tripId: String) -> String { "trip:\(provider)/\(tripId)" }

    /// `vehicle:{provider}/{vehicleId}`.
    package static func vehicleStream(provider: String, vehicleId: String) -> String { "vehicle:\(provider)/\(vehicleId)" }

    /// The id of trip number `n` (`trip-0007`).
    package static func tripId(_ n: Int) -> String { "trip-" + zeroPadded(n) }

    /// The id of vehicle number `n` (`vehicle-0007`).
    package static func vehicleId(_ n: Int) -> String { "vehicle-" + zeroPadded(n) }

    private static func zeroPadded(_ n: Int) -> String {
        let digits = String(n)
        return String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
    }
}
