import Projections

/// How `waymark serve` runs its projections.
struct ProjectionSettings {
    /// `WAYMARK_PROJECTION_SETTLE_MS`: how long the fleet, route-audit and driver-feed runners,
    /// once caught up, let events gather before their next batch (default 200; 0 reads at once).
    /// The journey views riders watch never wait; readers that wait for a write cut it short.
    var backgroundSettle: Duration
    /// `WAYMARK_FEED_CACHE_EVENTS`: how many of the latest feed events read are kept for the node's
    /// other feed readers (the projection runners, arrivals, webhooks; default 4096, 0 for none).
    var feedCacheEvents: Int

    static func load(_ environment: [String: String]) throws -> ProjectionSettings {
        let milliseconds = try wholeSetting(environment, "WAYMARK_PROJECTION_SETTLE_MS", 0...10_000, default: 200, of: "milliseconds")
        let events = try wholeSetting(environment, "WAYMARK_FEED_CACHE_EVENTS", 0...1_000_000, default: 4096, of: "events")
        return ProjectionSettings(backgroundSettle: .milliseconds(milliseconds), feedCacheEvents: events)
    }

    /// The settle of the projection called `name`.
    func settle(_ name: String) -> Duration {
        ProjectionCatalog.settle(name, background: backgroundSettle)
    }
}
