import Foundation

/// Counters of a simulation run, for the progress line and for tests.
package struct FleetSummary: Sendable, Hashable {
    package var vehiclesOnline = 0
    package var tripsCreated = 0
    package var tripsActive = 0
    package var tripsCompleted = 0
    package var tripsCanceled = 0
    /// Trips whose CreateTrip failed (counted among the canceled ones as well).
    package var tripsFailed = 0
    package var locationReports = 0
    package var reroutes = 0
    package var requests = 0
    /// Answers outside 2xx that the simulator did not expect (by status; 0 = no answer).
    package var errors: [Int: Int] = [:]
    /// Whether the server answered `:planRoute` at all (false after a 404: not offered there).
    package var planRouteAvailable = true
    package var routesPlanned = 0
    package var simulatedSeconds: Double = 0

    package init() {}

    package var errorCount: Int { errors.values.reduce(0, +) }
    package var serverErrors: Int { errors.filter { $0.key >= 500 || $0.key == 0 }.values.reduce(0, +) }

    /// One line: `vehicles online 10 · trips active 4, completed 12, canceled 1 · reports/s 9.5 · errors 0 · sim 00:12:30`.
    package func line(reportsPerSecond: Double) -> String {
        let total = Int(simulatedSeconds)
        let clock = String(format: "%02d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
        let errorText = errors.isEmpty ? "0" : "\(errorCount) (" + errors.keys.sorted().map { "\($0 == 0 ? "no answer" : String($0)): \(errors[$0]!)" }.joined(separator: ", ") + ")"
        return "vehicles online \(vehiclesOnline) · trips active \(tripsActive), completed \(tripsCompleted), canceled \(tripsCanceled) · "
            + "reports/s \(String(format: "%.1f", reportsPerSecond)) · errors \(errorText) · sim \(clock)"
    }
}
