import JSON
import Postgres
@testable import Projections
import ReadModels
import ReadSide
import Schema
import Testing
import TestSupport

/// The fleet's records ride in the row of their resource (`ReadModelTable.companions`): one row
/// per vehicle or trip, and the projection still sees two documents.
@Suite struct CompanionRowTests {
    static let vehicle = "providers/acme/vehicles/v-1"
    static let trip = "providers/acme/trips/t-1"

    static func change(_ collection: String, _ key: String, _ document: JSONValue?) -> DocumentChange {
        DocumentChange(collection: collection, key: key, document: document)
    }

    /// Writes one batch as a runner does (without the checkpoint), then reads every document back as `load` does.
    static func write(_ changes: [DocumentChange], _ store: ReadModelStore, _ url: String) async throws -> (documents: Set<DocumentChange>, rows: [String]) {
        try await Blocking.run {
            let connection = try Connection(conninfo: url)
            try connection.withTransaction { connection in _ = try connection.pipeline(store.writeStatements(changes)) }
            let rows = try connection.query("""
                SELECT collection || ' ' || key || ' ' || (document IS NOT NULL)::text || ' ' || (record IS NOT NULL)::text FROM rm_fleet ORDER BY 1
                """).rows.map { try $0.string(0) }
            return (Set(try store.readDocuments(connection, table: store.quotedTable)), rows)
        }
    }

    @Test func aResourceAndItsRecordShareOneRowThroughChangesDeletionsAndLoad() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = try ReadModelStore(name: FleetResourceProjection.name)
            let (vehicles, vehicleStates) = (FleetResourceProjection.vehiclesCollection, FleetResourceProjection.vehicleStatesCollection)
            let (trips, tripStates) = (FleetResourceProjection.tripsCollection, FleetResourceProjection.tripStatesCollection)
            let first = [Self.change(vehicles, Self.vehicle, ["name": "v-1"]), Self.change(vehicleStates, Self.vehicle, ["state": 1]),
                         Self.change(trips, Self.trip, ["name": "t-1"]), Self.change(tripStates, Self.trip, ["state": 1])]
            var written = try await Self.write(first, store, url)
            #expect(written.documents == Set(first))
            #expect(written.rows == ["trips \(Self.trip) true true", "vehicles \(Self.vehicle) true true"])

            // Only the record changes: the resource stays as it was.
            written = try await Self.write([Self.change(vehicleStates, Self.vehicle, ["state": 2])], store, url)
            #expect(written.documents == [first[0], Self.change(vehicleStates, Self.vehicle, ["state": 2]), first[2], first[3]])

            // The resource goes, its record stays: the readers find the record and no resource.
            written = try await Self.write([Self.change(vehicles, Self.vehicle, nil)], store, url)
            #expect(written.rows == ["trips \(Self.trip) true true", "vehicles \(Self.vehicle) false true"])
            #expect(written.documents == [Self.change(vehicleStates, Self.vehicle, ["state": 2]), first[2], first[3]])
            let reader = FleetReader(pool: ConnectionPool(.init(conninfo: url, size: 1)))
            #expect(try await reader.document(vehicles, Self.vehicle) == nil)
            #expect(try await reader.document(vehicleStates, Self.vehicle) == ["state": 2])
            #expect(try await reader.documents(vehicles, prefix: "providers/acme/vehicles/", after: nil, limit: 10).isEmpty)
            #expect(try await reader.documents(vehicleStates, prefix: "providers/acme/vehicles/", after: nil, limit: 10).map(\.key) == [Self.vehicle])
            await reader.pool.shutdown()

            // A record read back for a batch comes alone, not with its resource.
            let restored = try await Blocking.run {
                try store.readDocuments([DocumentAddress(collection: tripStates, key: Self.trip)], try Connection(conninfo: url))
            }
            #expect(restored == [first[3]])

            // Both go: so does the row, and the other row is untouched.
            written = try await Self.write([Self.change(vehicleStates, Self.vehicle, nil), Self.change(trips, Self.trip, ["name": "t-1b"])], store, url)
            #expect(written.rows == ["trips \(Self.trip) true true"])
            #expect(written.documents == [Self.change(trips, Self.trip, ["name": "t-1b"]), first[3]])
        }
    }

    @Test func theMigrationMovesEachStoredRecordIntoItsResourcesRow() async throws {
        try await TestDatabase.withTestDatabase { url in
            let migration = try #require(Migrations.all.first { $0.name == "fleet_record_column" })
            let textMigration = try #require(Migrations.all.first { $0.name == "read_model_text" })
            let rows = try await Blocking.run {
                let connection = try Connection(conninfo: url)
                // The table as it was before: a row per document, records in collections of their own,
                // documents as json (migration 13 made them text).
                try connection.execute("ALTER TABLE rm_fleet DROP COLUMN record")
                try connection.execute("ALTER TABLE rm_fleet ALTER COLUMN document SET NOT NULL")
                try connection.execute("ALTER TABLE rm_fleet ALTER COLUMN document TYPE json USING document::json")
                try connection.execute("""
                    INSERT INTO rm_fleet (collection, key, document) VALUES
                    ('vehicles', 'providers/a/vehicles/v-1', '{"v":1}'), ('vehicle_states', 'providers/a/vehicles/v-1', '{"s":1}'),
                    ('trips', 'providers/a/trips/t-1', '{"t":1}'), ('trip_states', 'providers/a/trips/t-1', '{"s":2}'),
                    ('vehicle_states', 'providers/a/vehicles/v-2', '{"s":3}')
                    """)
                let read = {
                    try connection.query("SELECT collection, key, coalesce(document::text, '-'), coalesce(record::text, '-') FROM rm_fleet ORDER BY 1, 2")
                        .rows.map { try [$0.string(0), $0.string(1), $0.string(2), $0.string(3)].joined(separator: " ") }
                }
                try connection.execute(migration.sql)
                let moved = try read()
                // Migration 13 then keeps every document's text as it was.
                try connection.execute(textMigration.sql)
                return (moved, try read())
            }
            #expect(rows.0 == [
                #"trips providers/a/trips/t-1 {"t":1} {"s":2}"#,
                #"vehicles providers/a/vehicles/v-1 {"v":1} {"s":1}"#,
                #"vehicles providers/a/vehicles/v-2 - {"s":3}"#,
            ])
            #expect(rows.1 == rows.0)
        }
    }
}
