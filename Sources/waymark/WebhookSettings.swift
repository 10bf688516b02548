import API
import Journey
import WaymarkCLI

/// Webhook and arrival-detection configuration, read from the environment once.
struct WebhookSettings {
    var dispatcher = WebhookDispatcher.Options()
    var arrivals = ArrivalDetector.Settings()

    static func load(_ environment: [String: String]) throws -> WebhookSettings {
        var settings = WebhookSettings()
        func whole(_ name: String, _ range: ClosedRange<Int>, default value: Int) throws -> Int {
            guard let text = environment[name], !text.isEmpty else { return value }
            guard let number = Int(text), range.contains(number) else {
                throw UsageError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(text.debugDescription)")
            }
            return number
        }
        func flag(_ name: String) throws -> Bool {
            switch environment[name]?.lowercased() ?? "" {
            case "", "false", "0", "no": return false
            case "true", "1", "yes": return true
            default: throw UsageError("\(name) must be true or false, got \(environment[name]!.debugDescription)")
            }
        }
        settings.dispatcher.allowPrivate = try flag("WAYMARK_WEBHOOKS_ALLOW_PRIVATE")
        settings.dispatcher.maxFailures = try whole("WAYMARK_WEBHOOKS_MAX_FAILURES", 1...1000, default: 10)
        settings.dispatcher.retryBase = .milliseconds(try whole("WAYMARK_WEBHOOKS_RETRY_BASE_MS", 1...600_000, default: 500))
        settings.dispatcher.retryMax = .milliseconds(try whole("WAYMARK_WEBHOOKS_RETRY_MAX_MS", 1...86_400_000, default: 300_000))
        settings.dispatcher.timeout = .milliseconds(try whole("WAYMARK_WEBHOOKS_TIMEOUT_MS", 100...600_000, default: 10_000))
        settings.dispatcher.maxInFlight = try whole("WAYMARK_WEBHOOKS_MAX_IN_FLIGHT", 1...64, default: 4)

        settings.arrivals.enabled = !(try turnedOff("WAYMARK_ARRIVALS", environment))
        settings.arrivals.defaults = StopArrival.Options(radiusMeters: Double(try whole("WAYMARK_ARRIVAL_RADIUS_METERS", 5...5000, default: 50)),
                                                         dwellSeconds: Double(try whole("WAYMARK_ARRIVAL_DWELL_SECONDS", 0...3600, default: 20)))
        // Per provider: "acme=30/15,other=80/30" (radius in metres / dwell in seconds).
        for entry in (environment["WAYMARK_ARRIVAL_PROVIDERS"] ?? "").split(separator: ",") where !entry.isEmpty {
            let parts = entry.split(separator: "=")
            let values = parts.count == 2 ? parts[1].split(separator: "/").compactMap { Int($0) } : []
            guard parts.count == 2, values.count == 2, (5...5000).contains(values[0]), (0...3600).contains(values[1]) else {
                throw UsageError("WAYMARK_ARRIVAL_PROVIDERS must look like acme=30/15,other=80/30 (provider=radius metres/dwell seconds), got \(String(entry).debugDescription)")
            }
            settings.arrivals.perProvider[String(parts[0])] = StopArrival.Options(radiusMeters: Double(values[0]), dwellSeconds: Double(values[1]))
        }
        settings.arrivals.advanceTripStatus = try flag("WAYMARK_ARRIVALS_ADVANCE_TRIP_STATUS")
        return settings
    }

    /// Whether the variable turns a feature that is on by default off ("off", "false", "0", "no").
    private static func turnedOff(_ name: String, _ environment: [String: String]) throws -> Bool {
        switch environment[name]?.lowercased() ?? "" {
        case "", "true", "1", "on", "yes": return false
        case "false", "0", "off", "no": return true
        default: throw UsageError("\(name) must be on or off, got \(environment[name]!.debugDescription)")
        }
    }
}
