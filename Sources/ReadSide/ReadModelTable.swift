import ReadModels

/// The table that holds one projection's documents: the one place read-model tables are named.
///
/// The projections' writer (`ReadModelStore`) and every reader of this module take a projection's
/// table from here, so the writer and its readers cannot disagree about where the documents are.
/// A table is `rm_` and the projection's name, as the migrations in `sql/` create them.
package struct ReadModelTable: Sendable, Hashable, CustomStringConvertible {
    /// The table's name, unquoted: a projection's name is lowercase letters, digits and underscores.
    package let name: String

    /// Collections whose documents are stored in the `record` column of another collection's row
    /// with the same key (record collection → row collection), instead of in rows of their own.
    ///
    /// A projection that rewrites a document and the record it renders it from at every event
    /// (the fleet: a Vehicle resource and its record at each location report) then writes one row
    /// per event, not two; PostgreSQL's upsert is most of a live runner's cost. The projection
    /// still sees two documents: only the table and its readers know where they are stored.
    package let companions: [String: String]

    package init(projection: String) {
        name = "rm_" + projection
        companions = projection == FleetResourceProjection.name
            ? [FleetResourceProjection.vehicleStatesCollection: FleetResourceProjection.vehiclesCollection,
               FleetResourceProjection.tripStatesCollection: FleetResourceProjection.tripsCollection]
            : [:]
    }

    /// Where a document of `collection` is stored: the row's collection, and whether it is that
    /// row's `record` (else its `document`).
    package func storage(of collection: String) -> (row: String, isRecord: Bool) {
        if let row = companions[collection] { return (row, true) }
        return (collection, false)
    }

    /// The collection of the record stored in rows of `collection`, if any.
    package func recordCollection(ofRow collection: String) -> String? {
        companions.first { $0.value == collection }?.key
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
