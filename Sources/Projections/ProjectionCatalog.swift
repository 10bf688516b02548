import ReadModels

/// Every projection the server runs, by name.
package enum ProjectionCatalog {
    /// Name and factory of each projection, in a stable order.
    package static let all: [(name: String, make: @Sendable () -> any Projector)] = [
        (JourneyViewProjection.name, { ReadModelProjector<JourneyViewProjection>() }),
        (FleetResourceProjection.name, { ReadModelProjector<FleetResourceProjection>() }),
        (RouteAuditProjection.name, { ReadModelProjector<RouteAuditProjection>() }),
        (DriverFeedProjection.name, { ReadModelProjector<DriverFeedProjection>() }),
    ]

    /// The settle of background projections unless configured (`WAYMARK_PROJECTION_SETTLE_MS`).
    package static let defaultBackgroundSettle = Duration.milliseconds(200)

    /// How long a caught-up runner of each projection lets events gather before its next batch
    /// (`ProjectionRunner.Options.settle`): none for the journey views riders watch live,
    /// `background` for the fleet, route-audit and driver-feed models (readers that wait for a
    /// write still get it at once: they cut the wait short).
    package static func settle(_ name: String, background: Duration = defaultBackgroundSettle) -> Duration {
        name == JourneyViewProjection.name ? .zero : background
    }

    /// The factory for `name`, or an error listing the known names.
    package static func named(_ name: String) throws(ProjectionError) -> @Sendable () -> any Projector {
        guard let entry = all.first(where: { $0.name == name }) else {
            throw ProjectionError(.unknownProjection, "no projection named \(name.debugDescription); known: \(all.map(\.name).joined(separator: ", "))")
        }
        return entry.make
    }
}
