import Projections

/// How `waymark serve` runs its projections.
struct ProjectionSettings {
    /// `WAYMARK_PROJECTION_SETTLE_MS`: how long the fleet, route-audit and driver-feed runners,
    /// once caught up, let events gather before their next batch (default 200; 0 reads at once).
    /// The journey views riders watch never wait; readers that wait for a write cut it short.
    var backgroundSettle: Duration

    static func load(_ environment: [String: String]) throws -> ProjectionSettings {
        let text = environment["WAYMARK_PROJECTION_SETTLE_MS"] ?? "200"
        guard let milliseconds = Int(text), (0...10_000).contains(milliseconds) else {
            throw UsageError("WAYMARK_PROJECTION_SETTLE_MS must be a whole number of milliseconds from 0 to 10000, got \(text.debugDescription)")
        }
        return ProjectionSettings(backgroundSettle: .milliseconds(milliseconds))
    }

    /// The settle of the projection called `name`.
    func settle(_ name: String) -> Duration {
        ProjectionCatalog.settle(name, background: backgroundSettle)
    }
}
