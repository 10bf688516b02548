import WaymarkCLI

/// How a `waymark serve` node that does not own the journey projection keeps riders current.
struct ScaleOutSettings {
    /// `WAYMARK_JOURNEY_POLL_MS`: how often such a node re-reads every subscribed trip from the
    /// table, as a fallback to the owner's NOTIFY (default 1000; tests lengthen it to prove NOTIFY).
    var journeyPollInterval: Duration

    static func load(_ environment: [String: String]) throws -> ScaleOutSettings {
        let milliseconds = try wholeSetting(environment, "WAYMARK_JOURNEY_POLL_MS", 250...3_600_000, default: 1000, of: "milliseconds")
        return ScaleOutSettings(journeyPollInterval: .milliseconds(milliseconds))
    }
}
