import ReadModels

/// The table that holds one projection's documents: the one place read-model tables are named.
///
/// The projections' writer (`ReadModelStore`) and every reader of this module take a projection's
/// table from here, so the writer and its readers cannot disagree about where the documents are.
/// A table is `rm_` and the projection's name, as the migrations in `sql/` create them.
package struct ReadModelTable: Sendable, Hashable, CustomStringConvertible {
    /// The table's name, unquoted: a projection's name is lowercase letters, digits and underscores.
    package let name: String

    package init(projection: String) {
        name = "rm_" + projection
    }

    package var description: String { name }

    /// The journey projection's table (riders' views, share links, riders' trips, styles).
    package static let journey = ReadModelTable(projection: JourneyViewProjection.name)
    /// The fleet projection's table (Trip and Vehicle resources).
    package static let fleet = ReadModelTable(projection: FleetResourceProjection.name)
    /// The route audit projection's table.
    package static let routeAudit = ReadModelTable(projection: RouteAuditProjection.name)
    /// The driver feed projection's table.
    package static let driverFeed = ReadModelTable(projection: DriverFeedProjection.name)
}
