import API
import WaymarkCLI

/// How long `waymark serve` keeps quiet trips and vehicles (`RetentionSweep`).
struct RetentionSettings {
    var sweep: RetentionSweep.Settings

    static func load(_ environment: [String: String]) throws -> RetentionSettings {
        let defaults = RetentionSweep.Settings()
        let trips = try wholeSetting(environment, "WAYMARK_TRIP_RETENTION_SECONDS", 0...3_153_600_000, default: defaults.tripSeconds, of: "seconds")
        let vehicles = try wholeSetting(environment, "WAYMARK_VEHICLE_RETENTION_SECONDS", 0...3_153_600_000, default: defaults.vehicleSeconds, of: "seconds")
        let interval = try wholeSetting(environment, "WAYMARK_RETENTION_SWEEP_SECONDS", 1...86_400,
                                        default: Int(defaults.interval.components.seconds), of: "seconds")
        let page = try wholeSetting(environment, "WAYMARK_RETENTION_PAGE", 1...100_000, default: defaults.page, of: "streams")
        return RetentionSettings(sweep: .init(tripSeconds: trips, vehicleSeconds: vehicles, interval: .seconds(interval),
                                              firstDelay: .seconds(min(60, interval)), page: page))
    }
}
