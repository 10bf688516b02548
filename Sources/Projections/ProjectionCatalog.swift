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

    /// The factory for `name`, or an error listing the known names.
    package static func named(_ name: String) throws(ProjectionError) -> @Sendable () -> any Projector {
        guard let entry = all.first(where: { $0.name == name }) else {
            throw ProjectionError(.unknownProjection, "no projection named \(name.debugDescription); known: \(all.map(\.name).joined(separator: ", "))")
        }
        return entry.make
    }
}
