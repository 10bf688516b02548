import API

/// How long `waymark serve` keeps finished trips (`TripRetention`).
struct RetentionSettings {
    var trips: TripRetention.Settings

    static func load(_ environment: [String: String]) throws -> RetentionSettings {
        let defaults = TripRetention.Settings()
        let seconds = try wholeSetting(environment, "WAYMARK_TRIP_RETENTION_SECONDS", 0...3_153_600_000, default: defaults.seconds, of: "seconds")
        let interval = try wholeSetting(environment, "WAYMARK_RETENTION_SWEEP_SECONDS", 1...86_400,
                                        default: Int(defaults.interval.components.seconds), of: "seconds")
        let page = try wholeSetting(environment, "WAYMARK_RETENTION_PAGE", 1...100_000, default: defaults.page, of: "trips")
        return RetentionSettings(trips: .init(seconds: seconds, interval: .seconds(interval), firstDelay: .seconds(min(60, interval)), page: page))
    }
}
