import Foundation
import Postgres
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct PreparedStatementTests {
    /// Text form and binary form of the same values, side by side in one row.
    static let both = PreparedStatement(name: "test_both_formats", sql: """
        SELECT n::bigint, (n + 4000000000)::text::xid8, ('{"n":' || n || ',"s":"ü"}')::jsonb, u, t,
               decode(md5(n::text), 'hex'), 'ü-' || n
        FROM generate_series(-2, $1::int) n,
             LATERAL (SELECT md5(n::text)::uuid AS u, timestamptz '2026-05-20 12:34:56.789012+00' + n * interval '1 day' AS t) x
        ORDER BY n
        """, parameterCount: 1)

    struct Decoded: Equatable {
        let n: Int64, x: UInt64, json: String, id: UUID, micros: Int64, bytes: [UInt8], text: String
    }

    @Test func binaryColumnsDecodeToTheSameValuesAsTheirTextForms() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                var text: [Decoded] = [], binary: [Decoded] = []
                let sql = Self.both.sql.replacingOccurrences(of: "SELECT n::bigint, ", with: "SELECT n::bigint, (extract(epoch FROM t) * 1000000)::bigint, ")
                try connection.forEachRow(sql, ["3"]) { row in
                    text.append(Decoded(n: try row.int64(0), x: try row.uint64(2), json: try row.string(3), id: try row.uuid(4),
                                        micros: try row.int64(1), bytes: try row.bytes(6), text: try row.string(7)))
                }
                try connection.forEachRow(Self.both, ["3"], format: .binary) { row in
                    binary.append(Decoded(n: try row.binaryInt64(0), x: UInt64(bitPattern: try row.binaryInt64(1)),
                                          json: try row.withBinaryJSONB(2) { String(decoding: $0, as: UTF8.self) },
                                          id: try row.binaryUUID(3), micros: try row.binaryMicros(4), bytes: try row.binaryBytes(5),
                                          text: try row.string(6)))
                    #expect(throws: PostgresError.self) { try row.binaryUUID(0) }
                    #expect(throws: PostgresError.self) { try row.withBinaryJSONB(0) { _ in 0 } }
                }
                #expect(binary.count == 6)
                #expect(binary == text)
                let first = try #require(binary.first)
                #expect(first.micros == Int64(1_779_280_496_789_012 - 2 * 86_400_000_000), "2026-05-18 12:34:56.789012 UTC")
            }
        }
    }

    @Test func streamedRowsAreTheRowsOfOneResultAndAThrowingBodyLeavesTheConnectionUsable() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                var whole: [Int64] = [], streamed: [Int64] = []
                try connection.forEachRow(Self.both, ["20000"], format: .binary) { row in whole.append(try row.binaryInt64(0)) }
                try connection.forEachRow(Self.both, ["20000"], format: .binary, streaming: true) { row in streamed.append(try row.binaryInt64(0)) }
                #expect(whole.count == 20_003)
                #expect(streamed == whole)

                struct Stop: Error {}
                var seen = 0
                #expect(throws: Stop.self) {
                    try connection.forEachRow(Self.both, ["20000"], format: .binary, streaming: true) { _ in
                        seen += 1
                        if seen == 10 { throw Stop() }
                    }
                }
                #expect(seen == 10, "no row reaches the body after it threw")
                #expect(try connection.query("SELECT 41 + 1").first?.int64(0) == 42)
                #expect(throws: PostgresError.self) {
                    try connection.forEachRow(PreparedStatement(name: "test_fails", sql: "SELECT 1 / $1::int", parameterCount: 1), ["0"], streaming: true) { _ in }
                }
                #expect(try connection.query("SELECT 41 + 1").first?.int64(0) == 42)
            }
        }
    }

    @Test func aStatementIsPreparedOncePerSessionAndAgainAfterTheSessionDroppedIt() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                func count() throws -> Int64 {
                    try connection.query("SELECT count(*) FROM pg_prepared_statements WHERE name = $1", [Self.both.name]).first!.int64(0)
                }
                func rows() throws -> Int {
                    var n = 0
                    try connection.forEachRow(Self.both, ["0"]) { _ in n += 1 }
                    return n
                }
                #expect(try count() == 0)
                #expect(try rows() == 3)
                #expect(try rows() == 3)
                #expect(try count() == 1)
                try connection.execute("DEALLOCATE ALL")
                #expect(try rows() == 3, "the dropped statement is prepared again, transparently")
                #expect(try count() == 1)
                try connection.reconnect()
                #expect(try count() == 0)
                #expect(try rows() == 3, "a new session prepares it again")
            }
        }
    }

    @Test func aPipelinedStatementWithANameIsPreparedOncePerSessionAndAgainAfterTheSessionDroppedIt() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                try connection.execute("CREATE TABLE t (n bigint)")
                let name = "test_pipelined_insert"
                func insert(_ n: Int, channel: String = "test_channel") throws -> Int64 {
                    let results = try connection.pipeline([
                        Statement("BEGIN"),
                        Statement("INSERT INTO t VALUES ($1::bigint) RETURNING n * 2", [String(n)], preparedName: name),
                        Statement("COMMIT"),
                    ], hints: [Statement("SELECT pg_notify($1::text, '')", [channel], preparedName: "test_pipelined_hint")])
                    return try results[1].first!.int64(0)
                }
                func prepared() throws -> [String] {
                    try connection.query("SELECT name FROM pg_prepared_statements ORDER BY name").rows.map { try $0.string(0) }
                }
                #expect(try prepared().isEmpty)
                #expect(try insert(1) == 2)
                #expect(try insert(2) == 4)
                #expect(try prepared() == [name, "test_pipelined_hint"].sorted(), "each name is prepared once, the hint's too")

                try connection.execute("DEALLOCATE ALL")
                do {
                    _ = try insert(3)
                    Issue.record("a statement the session dropped must fail the pipeline once")
                } catch {
                    #expect((error as? PostgresError)?.sqlState == "26000")
                }
                #expect(connection.inTransaction, "the failure leaves the pipeline's transaction aborted, for the caller to roll back")
                try connection.execute("ROLLBACK")
                #expect(try insert(4) == 8, "the next pipeline prepares it again")
                #expect(try prepared() == [name, "test_pipelined_hint"].sorted())
                #expect(try connection.query("SELECT array_agg(n ORDER BY n)::text FROM t").first?.string(0) == "{1,2,4}",
                        "the failed pipeline's transaction wrote nothing")
                try connection.execute("DEALLOCATE test_pipelined_hint")
                #expect(try insert(5) == 10, "a failing hint fails nothing")
                #expect(try prepared() == [name])
                #expect(try insert(6) == 12)
                #expect(try prepared() == [name, "test_pipelined_hint"].sorted(), "a hint the session lost is prepared again")
                let tooLong = String(repeating: "c", count: 70)  // longer than a channel name may be: pg_notify fails
                #expect(try insert(60, channel: tooLong) == 120)
                #expect(try insert(61, channel: tooLong) == 122, "a hint that fails while still prepared is not prepared twice")
                try connection.reconnect()
                #expect(try prepared().isEmpty)
                #expect(try insert(7) == 14, "a new session prepares it again")
            }
        }
    }
}
