/// What `waymark simulate` was asked for.
package struct FleetOptions: Sendable {
    package var vehicles: Int = 10
    /// New trips per simulated minute.
    package var tripsPerMinute: Double = 4
    /// Simulated seconds per real second.
    package var speedup: Double = 1
    package var seed: UInt64 = 1
    package var provider: String = "demo"
    /// Stop creating trips after this many simulated minutes, finish the ones under way, and end; nil: run until stopped.
    package var minutes: Double?
    /// Simulated seconds between a vehicle's location reports.
    package var reportIntervalSeconds: Double = 5
    /// Prefix of the ids of this run's trips (vehicles keep stable ids so a second run reuses them).
    package var runTag: String = "run"

    package init() {}

    /// Real seconds between ticks: one location report per vehicle per tick.
    package var tickSeconds: Double { min(2.0, max(0.1, reportIntervalSeconds / speedup)) }
    /// Simulated seconds a tick covers.
    package var simulatedSecondsPerTick: Double { tickSeconds * speedup }
}
