import JSON
import Postgres
import ReadModels
import ReadSide
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3))) struct RouteAuditReaderTests {
    /// Stores an audit document for each trip key, as the projection would.
    static func store(_ url: String, _ keys: [String]) async throws {
        try await Blocking.run {
            let connection = try Connection(conninfo: url)
            for key in keys {
                try connection.query("INSERT INTO \(RouteAuditReader.table.name) (collection, key, document) VALUES ($1, $2, $3::json)",
                                     [RouteAuditProjection.auditsCollection, key, #"{"key":"\#(key)"}"#])
            }
        }
    }

    @Test func aTripWithoutAnAuditReadsAsNothing() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await Self.store(url, ["providers/acme/trips/t-2"])
            let pool = ConnectionPool(.init(conninfo: url, size: 1))
            #expect(try await RouteAuditReader(pool: pool).audit(provider: "acme", tripId: "t-1") == nil)
            #expect(try await RouteAuditReader(pool: pool).audit(provider: "other", tripId: "t-2") == nil)
            await pool.shutdown()
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                #expect(try RouteAuditReader.audits(ofTrip: "t-1", provider: "acme", on: connection).isEmpty)
                #expect(try RouteAuditReader.audits(ofTrip: "t-1", provider: nil, on: connection).isEmpty)
            }
        }
    }

    @Test func anAuditIsFoundByProviderAndTripOrByTripIdAloneAcrossProviders() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await Self.store(url, ["providers/other/trips/t-1", "providers/acme/trips/t-1", "providers/acme/trips/t-10",
                                       "providers/acme/trips/t-1/x", "providers/acme/vehicles/t-1"])
            let pool = ConnectionPool(.init(conninfo: url, size: 1))
            let audit = try await RouteAuditReader(pool: pool).audit(provider: "acme", tripId: "t-1")
            #expect(audit?["key"]?.stringValue == "providers/acme/trips/t-1")
            await pool.shutdown()
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                let one = try RouteAuditReader.audits(ofTrip: "t-1", provider: "acme", on: connection)
                #expect(one.map(\.key) == ["providers/acme/trips/t-1"])
                #expect(try JSONValue.parse(try #require(one.first).document) == audit)
                let all = try RouteAuditReader.audits(ofTrip: "t-1", provider: nil, on: connection)
                #expect(all.map(\.key) == ["providers/acme/trips/t-1", "providers/other/trips/t-1"])
            }
        }
    }
}
