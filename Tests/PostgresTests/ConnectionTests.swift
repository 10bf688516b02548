import Foundation
import Postgres
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct ConnectionTests {
    @Test func parametersSurviveQuotesBackslashesAndUnicodeUnchanged() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                let tricky = "it's a \"quote\" \\ back\\slash; DROP TABLE x; -- ü 🚗 \t tab"
                let row = try connection.query("SELECT $1::text, $2::text IS NULL", [tricky, nil]).first!
                #expect(try row.string(0) == tricky)
                #expect(try row.bool(1))
            }
        }
    }

    @Test func onlyConnectionsOverTCPGetTheBoundsOnASilentServer() {
        let none: [String: String] = [:]
        #expect(Connection.usesTCP("host=db.example.com dbname=waymark", environment: none))
        #expect(Connection.usesTCP("postgresql://waymark@10.0.0.5:5432/waymark", environment: none))
        #expect(Connection.usesTCP("hostaddr=10.0.0.5 dbname=waymark", environment: none))
        #expect(Connection.usesTCP("host=/var/run/postgresql,db.example.com", environment: none), "any TCP host of a list")
        #expect(!Connection.usesTCP("postgresql:///waymark?host=/tmp/waymark/pg&port=5432", environment: none))
        #expect(!Connection.usesTCP("host=/var/run/postgresql dbname=waymark", environment: none))
        #expect(!Connection.usesTCP("dbname=waymark", environment: none), "libpq's default is a Unix socket")
        #expect(Connection.usesTCP("dbname=waymark", environment: ["PGHOST": "db.example.com"]))
        #expect(!Connection.usesTCP("", environment: ["PGHOST": "/tmp"]))
    }

    @Test func unixSocketConnectionsKeepLibpqsDefaults() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                #expect((connection.parameter("connect_timeout") ?? "").isEmpty, "\(connection.parameter("connect_timeout") ?? "")")
                #expect(try connection.query("SELECT 1").first?.int64(0) == 1)
            }
        }
    }

    /// A TCP listener that takes connections and never answers: what a host gone away behind a
    /// load balancer looks like to a client.
    static func silentServer() -> (socket: Int32, port: UInt16) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        _ = listen(listener, 8)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        return (listener, UInt16(bigEndian: address.sin_port))
    }

    /// How long connecting with `conninfo` took to fail, and how.
    static func failedConnect(_ conninfo: String) async throws -> (Duration, PostgresError?) {
        let started = ContinuousClock.now
        let error: PostgresError? = try await Blocking.run {
            do throws(PostgresError) {
                _ = try Connection(conninfo: conninfo)
                return nil
            } catch {
                return error
            }
        }
        return (ContinuousClock.now - started, error)
    }

    /// Over TCP, a server that never answers fails the connect after 10 s (not after the operating
    /// system's minutes), and a `connect_timeout` in the connection string wins.
    @Test func aServerThatNeverAnswersOverTCPFailsTheConnectAfterItsTimeout() async throws {
        let (listener, port) = Self.silentServer()
        #expect(port > 0)
        defer { close(listener) }
        async let bounded = Self.failedConnect("host=127.0.0.1 port=\(port) user=nobody dbname=nothing")
        async let own = Self.failedConnect("postgresql://nobody@127.0.0.1:\(port)/nothing?connect_timeout=2")
        let (waited, error) = try await bounded
        #expect(error?.code == .connectionFailed, "\(String(describing: error))")
        #expect(waited >= .seconds(9) && waited < .seconds(30), "\(waited)")
        let (ownWaited, ownError) = try await own
        #expect(ownError?.code == .connectionFailed, "\(String(describing: ownError))")
        #expect(ownWaited >= .milliseconds(1_500) && ownWaited < .seconds(9), "\(ownWaited)")
    }

    @Test func arrayLiteralRoundTripsArbitraryStrings() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                let values: [String?] = ["plain", "with,comma", "with \"quotes\"", "back\\slash", "{braces}", "", nil, "NULL"]
                let rows = try connection.query("SELECT x FROM unnest($1::text[]) WITH ORDINALITY AS u(x, n) ORDER BY n",
                                                [PostgresText.arrayLiteral(values)]).rows
                #expect(rows.map { $0[0] } == values)
            }
        }
    }

    @Test func byteaHexRoundTrips() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                let bytes: [UInt8] = [0, 1, 127, 128, 255, 16, 32]
                let row = try connection.query("SELECT $1::bytea", [PostgresText.hexBytea(bytes)]).first!
                #expect(try row.bytes(0) == bytes)
            }
        }
    }

    @Test func timestampTextIsWhatPostgreSQLReadsBackToTheMicrosecond() async throws {
        let samples: [Int64] = [0, 1, 999_999, 1_000_000, -1, -1_000_001, 951_782_400_123_456 /* 2000-02-29 */,
                                1_796_083_199_999_999 /* 2026-12-31 23:59:59.999999 */, 253_402_300_799_999_999 /* 9999-12-31 */,
                                -62_135_596_800_000_000 /* 0001-01-01 */]
        // Every digit of every field, against the formatter it replaced.
        for micros in samples {
            let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            let formatted = String(format: "%04d-%02d-%02d %02d:%02d:%02d.%06d+00", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                                   Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(micros - seconds * 1_000_000))
            #expect(PostgresText.timestamp(microseconds: micros) == formatted)
        }
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                for micros in samples {
                    let row = try connection.query("SELECT (extract(epoch FROM $1::timestamptz) * 1000000)::bigint",
                                                   [PostgresText.timestamp(microseconds: micros)]).first!
                    #expect(try row.int64(0) == micros, "\(PostgresText.timestamp(microseconds: micros))")
                }
            }
        }
    }

    @Test func serverErrorCarriesSQLStateAndIsNotRetriable() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                try connection.execute("CREATE TABLE t (id int PRIMARY KEY)")
                try connection.query("INSERT INTO t VALUES ($1)", ["1"])
                do {
                    try connection.query("INSERT INTO t VALUES ($1)", ["1"])
                    Issue.record("a duplicate key must fail")
                } catch let error as PostgresError {
                    #expect(error.code == .serverError)
                    #expect(error.isUniqueViolation)
                    #expect(!error.isRetriable)
                }
            }
        }
    }

    @Test func failedPipelineStatementRollsBackTheWholePipeline() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                try connection.execute("CREATE TABLE t (id int PRIMARY KEY)")
                do {
                    _ = try connection.pipeline([
                        Statement("INSERT INTO t VALUES ($1)", ["1"]),
                        Statement("INSERT INTO t VALUES ($1)", ["1"]),
                        Statement("INSERT INTO t VALUES ($1)", ["2"]),
                    ])
                    Issue.record("the pipeline must fail")
                } catch let error as PostgresError {
                    #expect(error.isUniqueViolation)
                }
                #expect(try connection.query("SELECT count(*) FROM t").first!.int64(0) == 0)
                // The connection is usable afterwards.
                let results = try connection.pipeline([Statement("INSERT INTO t VALUES ($1)", ["3"]), Statement("SELECT count(*) FROM t")])
                #expect(try results[1].first!.int64(0) == 1)
            }
        }
    }

    @Test func aFailingHintAfterTheCommitNeitherFailsNorUndoesThePipeline() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                try connection.execute("CREATE TABLE t (id int PRIMARY KEY)")
                let tooLong = String(repeating: "c", count: 70)  // PostgreSQL refuses channel names over 63 bytes
                let results = try connection.pipeline([Statement("BEGIN"), Statement("INSERT INTO t VALUES (1) RETURNING id"), Statement("COMMIT")],
                                                      hints: [Statement("SELECT pg_notify($1, '')", [tooLong])])
                #expect(results.count == 3)
                #expect(try results[1].first!.int64(0) == 1)
                #expect(!connection.inTransaction)
                #expect(try connection.query("SELECT count(*) FROM t").first!.int64(0) == 1)
                // A failing statement is still an error when it is not a hint.
                #expect(throws: PostgresError.self) {
                    _ = try connection.pipeline([Statement("SELECT pg_notify($1, '')", [tooLong])])
                }
            }
        }
    }

    @Test func copyInThenCopyOutReturnsTheSameRows() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                try connection.execute("CREATE TABLE t (id int, body text)")
                var data: [UInt8] = []
                let bodies = ["tab\there", "new\nline", "back\\slash", "{\"json\": \"value\"}"]
                for (index, body) in bodies.enumerated() {
                    data.append(contentsOf: "\(index)\t".utf8)
                    PostgresText.appendCopyField(body, into: &data)
                    data.append(UInt8(ascii: "\n"))
                }
                #expect(try connection.copyIn("COPY t (id, body) FROM STDIN", data: data) == bodies.count)
                let stored = try connection.query("SELECT body FROM t ORDER BY id").rows.map { $0[0] }
                #expect(stored == bodies)
                var out: [UInt8] = []
                let rows = try connection.copyOut("COPY t (id, body) TO STDOUT") { out.append(contentsOf: $0) }
                #expect(rows == bodies.count)
                #expect(out == data)
            }
        }
    }

    @Test func notificationListenerDeliversNotifies() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            let received = Received()
            let listener = NotificationListener(conninfo: url, channels: ["wm_test"]) { received.add($0) }
            try await waitUntil { received.contains(.connected) }
            try await Blocking.run { _ = try Connection(conninfo: url).query("SELECT pg_notify('wm_test', $1)", ["hello"]) }
            try await waitUntil { received.contains(.notification(PostgresNotification(channel: "wm_test", payload: "hello"))) }
            await listener.stop()
        }
    }

    @Test func poolRecoversAfterItsConnectionIsKilled() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            let pool = ConnectionPool(.init(conninfo: url, size: 1))
            let pid = try await pool.withConnection { $0.backendPID }
            try await Blocking.run { _ = try Connection(conninfo: url).query("SELECT pg_terminate_backend($1)", [String(pid)]) }
            do {
                _ = try await pool.query("SELECT 1")
                Issue.record("the in-flight statement on a killed connection must fail")
            } catch let error as PostgresError {
                #expect(error.isRetriable, "got \(error)")
            }
            let value = try await pool.query("SELECT 41 + 1").first!.int64(0)
            #expect(value == 42)
            let newPID = try await pool.withConnection { $0.backendPID }
            #expect(newPID != pid)
            await pool.shutdown()
        }
    }

    @Test func shutDownPoolRejectsWorkAsUnavailable() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            let pool = ConnectionPool(.init(conninfo: url, size: 1))
            await pool.shutdown()
            await #expect(throws: PostgresError.self) { _ = try await pool.query("SELECT 1") }
        }
    }

    /// Stands for what a job captures (a projection batch's statements); only its lifetime matters.
    private final class Captured: Sendable {}

    @Test func aFinishedPoolJobNoLongerHoldsWhatItCaptured() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            let pool = ConnectionPool(.init(conninfo: url, size: 1))
            weak var released: Captured?
            do {
                let captured = Captured()
                released = captured
                let answer = try await pool.withConnection { connection in
                    withExtendedLifetime(captured) {}
                    return try connection.query("SELECT 1").first!.int64(0)
                }
                #expect(answer == 1)
            }
            // The worker drops the job right after running it; the pool must not keep it (it used to
            // keep the last 1,024 finished jobs, and with them every batch's document text).
            for _ in 0..<2000 where released != nil { try await Task.sleep(for: .milliseconds(10)) }  // up to 20 s
            #expect(released == nil, "the pool still holds a finished job's captures")
            await pool.shutdown()
        }
    }

    @Test func connectingToAMissingServerFailsRetriably() async throws {
        do {
            _ = try Connection(conninfo: "postgresql:///postgres?host=/nonexistent-waymark&port=1")
            Issue.record("connecting must fail")
        } catch {
            #expect(error.code == .connectionFailed)
            #expect(error.isRetriable)
        }
    }
}

/// Collects listener signals from another thread.
final class Received: Sendable {
    private let signals = Mutex<[ListenerSignal]>([])
    func add(_ signal: ListenerSignal) { signals.withLock { $0.append(signal) } }
    func contains(_ signal: ListenerSignal) -> Bool { signals.withLock { $0.contains(signal) } }
}

/// Polls `condition` every 10 ms for up to `seconds`.
func waitUntil(seconds: Double = 10, _ condition: @Sendable () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { throw TestSetupError("condition not met within \(seconds) s") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

import Synchronization

@Suite struct PostgresTextTests {
    @Test func uuidParsingAcceptsTheCanonicalFormInEitherCaseAndRejectsTheRest() {
        let id = UUID()
        #expect(PostgresText.parseUUID(id.uuidString.lowercased()) == id)
        #expect(PostgresText.parseUUID(id.uuidString) == id)
        for bad in ["", "not-a-uuid", String(id.uuidString.dropLast()), id.uuidString.replacingOccurrences(of: "-", with: ""),
                    id.uuidString.replacingOccurrences(of: "-", with: "x"), "g" + id.uuidString.dropFirst()] {
            #expect(PostgresText.parseUUID(bad) == nil, "\(bad)")
        }
    }
}

@Suite struct InPlaceParsingTests {
    private func bytes<T>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        var text = text
        return text.withUTF8(body)
    }

    @Test func integersParseInPlaceAcrossTheWholeRangeAndRejectEverythingElse() {
        for value: Int64 in [0, 7, -7, 1_234_567_890, Int64.max, Int64.min] {
            #expect(bytes(String(value), PostgresText.parseInt64) == value)
        }
        for bad in ["", "-", "+1", "1.5", "12a", " 1", "9223372036854775808", "-9223372036854775809", "99999999999999999999"] {
            #expect(bytes(bad, PostgresText.parseInt64) == nil, "\(bad)")
        }
        #expect(bytes(String(UInt64.max), PostgresText.parseUInt64) == UInt64.max)
        for bad in ["", "-1", "18446744073709551616", "1e3"] {
            #expect(bytes(bad, PostgresText.parseUInt64) == nil, "\(bad)")
        }
    }

    @Test func hexByteaAndUUIDsParseInPlaceLikeTheirStringForms() {
        #expect(bytes("\\x00ff10Ab", { PostgresText.decodeHexBytea($0) }) == [0x00, 0xFF, 0x10, 0xAB])
        #expect(bytes("\\x", { PostgresText.decodeHexBytea($0) }) == [])
        for bad in ["", "x00", "\\x0", "\\x0g", "\\y00"] {
            #expect(bytes(bad, { PostgresText.decodeHexBytea($0) }) == nil, "\(bad)")
        }
        let id = UUID()
        #expect(bytes(id.uuidString.lowercased(), { PostgresText.parseUUID($0) }) == id)
        #expect(bytes("x" + id.uuidString.dropFirst(), { PostgresText.parseUUID($0) }) == nil)
    }

    @Test func rowsDecodedInPlaceMatchTheTextRowsAndNullsAreErrors() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                let sql = """
                    SELECT n::bigint, (n * 1000)::text::xid8, 'ü-' || n, gen_random_uuid(), decode(md5(n::text), 'hex'), '{"n":' || n || '}', NULL::text
                    FROM generate_series(-2, 2) n
                    """
                let text = try connection.query(sql).rows
                struct Decoded: Equatable { let n: Int64; let x: UInt64; let s: String; let b: [UInt8]; let json: String }
                var raw: [Decoded] = []
                try connection.forEachRow(sql, []) { row in
                    #expect(row.isNull(6))
                    #expect(throws: PostgresError.self) { try row.string(6) }
                    #expect(throws: PostgresError.self) { try row.int64(2) }
                    _ = try row.uuid(3)
                    raw.append(Decoded(n: try row.int64(0), x: try row.uint64(1), s: try row.string(2), b: try row.bytes(4),
                                       json: try row.withBytes(5) { String(decoding: $0, as: UTF8.self) }))
                }
                let expected = try text.map {
                    Decoded(n: try $0.int64(0), x: try $0.uint64(1), s: try $0.string(2), b: try $0.bytes(4), json: try $0.string(5))
                }
                #expect(raw == expected)
                #expect(raw.count == 5)
                #expect(throws: PostgresError.self) { try connection.forEachRow("SELECT 1/0", []) { row in _ = try row.int64(0) } }
            }
        }
    }
}
