/// How a `waymark serve` node that does not own the journey projection keeps riders current.
struct ScaleOutSettings {
    /// `WAYMARK_JOURNEY_POLL_MS`: how often such a node re-reads every subscribed trip from the
    /// table, as a fallback to the owner's NOTIFY (default 1000; tests lengthen it to prove NOTIFY).
    var journeyPollInterval: Duration

    static func load(_ environment: [String: String]) throws -> ScaleOutSettings {
        let text = environment["WAYMARK_JOURNEY_POLL_MS"] ?? "1000"
        guard let milliseconds = Int(text), (250...3_600_000).contains(milliseconds) else {
            throw UsageError("WAYMARK_JOURNEY_POLL_MS must be a whole number of milliseconds from 250 to 3600000, got \(text.debugDescription)")
        }
        return ScaleOutSettings(journeyPollInterval: .milliseconds(milliseconds))
    }
}
