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
        let text = environment["WAYMARK_PROJECTION_SETTLE_MS"] ?? "200"
        guard let milliseconds = Int(text), (0...10_000).contains(milliseconds) else {
            throw UsageError("WAYMARK_PROJECTION_SETTLE_MS must be a whole number of milliseconds from 0 to 10000, got \(text.debugDescription)")
        }
        let cacheText = environment["WAYMARK_FEED_CACHE_EVENTS"] ?? "4096"
        guard let events = Int(cacheText), (0...1_000_000).contains(events) else {
            throw UsageError("WAYMARK_FEED_CACHE_EVENTS must be a whole number of events from 0 to 1000000, got \(cacheText.debugDescription)")
        }
        return ProjectionSettings(backgroundSettle: .milliseconds(milliseconds), feedCacheEvents: events)
    }

    /// The settle of the projection called `name`.
    func settle(_ name: String) -> Duration {
        ProjectionCatalog.settle(name, background: backgroundSettle)
    }
}
