import Postgres
import Projections
import ReadModels
import ReadSide
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3))) struct ReadModelTableTests {
    /// Each reader's table, by the projection it reads.
    static let readers: [(projection: String, table: ReadModelTable)] = [
        (FleetResourceProjection.name, FleetReader.table),
        (JourneyViewProjection.name, JourneyViewReader.table),
        (DriverFeedProjection.name, DriverFeedReader.table),
        (RouteAuditProjection.name, RouteAuditReader.table),
    ]

    @Test func everyProjectionHasAReaderOfTheTableItsWriterWrites() throws {
        for (projection, table) in Self.readers {
            #expect(try ReadModelStore(name: projection).table == table.name, "\(projection)")
        }
        #expect(Set(Self.readers.map(\.projection)) == Set(ProjectionCatalog.all.map(\.name)))
    }

    @Test func theMigrationsCreateEveryReadersTable() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                for (_, table) in Self.readers {
                    let found = try connection.query("SELECT to_regclass($1)::text", [table.name]).first?.values.first ?? nil
                    #expect(found == table.name)
                }
            }
        }
    }
}
