extension Vehicle {
    /// Tunables of location handling, passed with each location report.
    package struct Policy: Sendable, Hashable, Codable {
        /// Distance from the followed route beyond which a report counts as off route (meters).
        package var offRouteThresholdMeters: Double
        /// Consecutive off-route reports that make the vehicle off route.
        package var offRouteConsecutiveReports: Int
        /// How far a device time may run ahead of the server clock (seconds).
        package var maximumFutureDeviceTimeSeconds: Double

        package init(offRouteThresholdMeters: Double = 50, offRouteConsecutiveReports: Int = 3, maximumFutureDeviceTimeSeconds: Double = 300) {
            self.offRouteThresholdMeters = offRouteThresholdMeters
            self.offRouteConsecutiveReports = offRouteConsecutiveReports
            self.maximumFutureDeviceTimeSeconds = maximumFutureDeviceTimeSeconds
        }

        /// 50 m, 3 reports, 5 minutes.
        package static let `default` = Policy()
    }
}
