import CLibPQ
import Foundation

/// One statement with its parameters, for `Connection.pipeline`.
///
/// A statement with a `preparedName` is prepared once per session under that name and then runs
/// by name, so the server parses and analyses it once instead of on every execution (and, once its
/// plan cache settles on a generic plan, plans it once too). The name must always go with the same
/// `sql`, and every parameter's type must follow from the SQL (`$1::text[]`).
package struct Statement: Sendable {
    package let sql: String
    package let parameters: [String?]
    package let preparedName: String?

    package init(_ sql: String, _ parameters: [String?] = [], preparedName: String? = nil) {
        self.sql = sql
        self.parameters = parameters
        self.preparedName = preparedName
    }
}

/// A notification received on a LISTEN channel.
package struct PostgresNotification: Sendable, Hashable {
    package let channel: String
    package let payload: String

    package init(channel: String, payload: String) {
        self.channel = channel
        self.payload = payload
    }
}

/// One libpq connection, used by exactly one thread at a time.
///
/// Not `Sendable`: a `Connection` is created, used and closed on the thread that owns it (a pool
/// worker or a listener thread). All parameters are sent out of line (`PQexecParams` and friends);
/// no value is ever spliced into SQL text.
package final class Connection {
    private var handle: OpaquePointer?
    package let conninfo: String
    private let setupStatements: [String]
    /// Names of the `PreparedStatement`s this session has prepared (a new session starts empty).
    private var preparedNames: Set<String> = []

    /// Opens a connection; `conninfo` is a libpq connection string or `postgresql://` URL (empty: libpq's `PG*` variables).
    package init(conninfo: String, setupStatements: [String] = []) throws(PostgresError) {
        self.conninfo = conninfo
        self.setupStatements = setupStatements
        try connect()
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    private func connect() throws(PostgresError) {
        if let handle { PQfinish(handle) }
        handle = nil
        preparedNames = []
        guard let conn = Self.open(conninfo) else {
            throw PostgresError(.connectionFailed, "libpq could not allocate a connection")
        }
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(conn))
            PQfinish(conn)
            throw PostgresError(.connectionFailed, "could not connect to PostgreSQL: \(message)")
        }
        handle = conn
        // Server notices (e.g. "relation already exists, skipping") are not errors; libpq's default
        // processor prints them to stderr. Drop them: nothing here acts on them.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        for sql in setupStatements {
            try execute(sql)
        }
    }

    /// Bounds on waiting for a server that has gone silent, applied under every connection string
    /// that reaches its server over TCP (which may set any of them otherwise). Without them a TCP
    /// connection to a host that vanished without a reset (a failover, a cut network) waits for
    /// the operating system to give up: minutes for a connect, a quarter of an hour for a query,
    /// with the writer's thread held all along. With them, a connect fails after 10 s, an idle or
    /// waiting connection whose peer stops answering keepalives is dropped after about a minute
    /// (30 s idle, then three probes 10 s apart), and data the peer does not acknowledge for 30 s
    /// fails the connection. Unix sockets (the embedded cluster) get none: a local server cannot
    /// vanish that way, and one that is merely slow to accept (hundreds of connections opening at
    /// once) must not be cut off.
    package static let silenceBounds: [(keyword: String, value: String)] = [
        ("connect_timeout", "10"), ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"),
        ("keepalives_count", "3"), ("tcp_user_timeout", "30000"),
    ]

    /// Whether `conninfo` reaches its server over TCP: a `hostaddr`, or a host (from the string, else
    /// `PGHOST`) that is not a socket directory. libpq's default without either is a Unix socket.
    package static func usesTCP(_ conninfo: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        let options = Self.values(PQconninfoParse(conninfo, nil))
        if let hostaddr = options["hostaddr"], !hostaddr.isEmpty { return true }
        let host = options["host"].flatMap { $0.isEmpty ? nil : $0 }
        let hosts = (host ?? environment["PGHOST"] ?? "").split(separator: ",")
        return hosts.contains { !$0.hasPrefix("/") && !$0.hasPrefix("@") }
    }

    /// `PQconnectdbParams` with `silenceBounds` first (over TCP) and the connection string last,
    /// expanded: libpq lets later entries override earlier ones, so whatever `conninfo` sets wins.
    private static func open(_ conninfo: String) -> OpaquePointer? {
        let bounds = usesTCP(conninfo) ? silenceBounds : []
        let keywords = bounds.map(\.keyword) + ["dbname"]
        let values = bounds.map(\.value) + [conninfo]
        let keywordPointers = keywords.map { strdup($0) }
        let valuePointers = values.map { strdup($0) }
        defer { (keywordPointers + valuePointers).forEach { free($0) } }
        let keywordArray: [UnsafePointer<CChar>?] = keywordPointers.map { UnsafePointer($0) } + [nil]
        let valueArray: [UnsafePointer<CChar>?] = valuePointers.map { UnsafePointer($0) } + [nil]
        return PQconnectdbParams(keywordArray, valueArray, 1)
    }

    /// The value libpq uses for a connection parameter of this session (e.g. `connect_timeout`).
    package func parameter(_ keyword: String) -> String? {
        guard let handle else { return nil }
        return Self.values(PQconninfo(handle))[keyword]
    }

    /// The keywords that have a value in a libpq option array (`PQconninfoParse`, `PQconninfo`),
    /// which it frees.
    private static func values(_ options: UnsafeMutablePointer<PQconninfoOption>?) -> [String: String] {
        guard let options else { return [:] }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let name = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: name)] = String(cString: value) }
            option += 1
        }
        return values
    }

    /// Whether the connection is usable as far as libpq knows (a broken socket is noticed on next use).
    package var isHealthy: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Whether a transaction block is open on this connection (idle in it, or failed in it).
    package var inTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Drops the broken connection and opens a new one with the same settings.
    package func reconnect() throws(PostgresError) {
        try connect()
    }

    /// The server's process id for this session (useful to terminate it in tests).
    package var backendPID: Int32 {
        guard let handle else { return 0 }
        return PQbackendPID(handle)
    }

    private func requireHandle() throws(PostgresError) -> OpaquePointer {
        guard let handle else { throw PostgresError(.connectionLost, "connection is closed") }
        return handle
    }

    // MARK: - Statements

    /// Runs one statement with text parameters and returns its rows.
    @discardableResult
    package func query(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> QueryResult {
        try consume(try execParams(sql, parameters), context: "statement")
    }

    /// Runs one statement with text parameters and hands each row to `body` in place, without
    /// copying every value into a `String` first (the feed's hot path: thousands of rows a page).
    ///
    /// The `RawRow` handed to `body` reads libpq's result directly and is valid only during that call.
    package func forEachRow(_ sql: String, _ parameters: [String?] = [], _ body: (RawRow) throws -> Void) throws {
        guard let result = try execParams(sql, parameters) else { throw lostOrFailed("statement returned no result") }
        defer { PQclear(result) }
        try check(result, context: "statement")
        let rowCount = PQntuples(result)
        let columnCount = Int(PQnfields(result))
        for row in 0..<rowCount {
            try body(RawRow(result: result, row: row, columnCount: columnCount))
        }
    }

    /// Runs a prepared statement (preparing it first on this connection if needed) and hands each
    /// row to `body` in place, in `format`.
    ///
    /// With `streaming`, libpq's single-row mode hands each row over as soon as it arrives, so the
    /// caller decodes the first rows while the server is still producing the last ones (on a
    /// page of thousands of rows that overlaps the server's work with ours). If `body` throws,
    /// the rest of the result is read and dropped, so the connection stays usable, and the error
    /// is rethrown. A session that lost the statement (`DEALLOCATE`, `DISCARD ALL`) prepares it again.
    package func forEachRow(_ statement: PreparedStatement, _ parameters: [String?], format: ResultFormat = .text,
                            streaming: Bool = false, _ body: (RawRow) throws -> Void) throws {
        do {
            try runPrepared(statement, parameters, format: format, streaming: streaming, body)
        } catch {
            // The statement did not run at all, so no row reached `body`.
            guard (error as? PostgresError)?.isLostPreparedStatement == true, preparedNames.remove(statement.name) != nil else { throw error }
            try runPrepared(statement, parameters, format: format, streaming: streaming, body)
        }
    }

    private func runPrepared(_ statement: PreparedStatement, _ parameters: [String?], format: ResultFormat,
                             streaming: Bool, _ body: (RawRow) throws -> Void) throws {
        let conn = try requireHandle()
        try prepareOnce(statement.name, statement.sql, parameterCount: statement.parameterCount, on: conn)
        let sent = ParameterBuffer(parameters).withPointers { count, values in
            PQsendQueryPrepared(conn, statement.name, count, values, nil, nil, format == .binary ? 1 : 0)
        }
        guard sent == 1 else { throw lostOrFailed("could not send statement \(statement.name)") }
        if streaming {
            guard PQsetSingleRowMode(conn) == 1 else { throw lostOrFailed("could not enter single-row mode") }
        }
        var failure: (any Error)?
        while let result = PQgetResult(conn) {
            defer { PQclear(result) }
            guard failure == nil else { continue }
            do {
                try check(result, context: "statement \(statement.name)")
                let columnCount = Int(PQnfields(result))
                for row in 0..<PQntuples(result) {
                    try body(RawRow(result: result, row: row, columnCount: columnCount))
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Prepares `sql` as `name` unless this session already has (`PQprepare`, one round trip);
    /// with `parameterCount` 0 the server infers the parameters from the SQL.
    private func prepareOnce(_ name: String, _ sql: String, parameterCount: Int = 0, on conn: OpaquePointer) throws(PostgresError) {
        guard !preparedNames.contains(name) else { return }
        _ = try consume(PQprepare(conn, name, sql, Int32(parameterCount), nil), context: "prepare \(name)")
        preparedNames.insert(name)
    }

    /// Sends one statement with text parameters and waits for its result (nil: none came back).
    private func execParams(_ sql: String, _ parameters: [String?]) throws(PostgresError) -> OpaquePointer? {
        let conn = try requireHandle()
        return ParameterBuffer(parameters).withPointers { count, values in
            PQexecParams(conn, sql, count, nil, values, nil, nil, 0)
        }
    }

    /// Runs one statement without parameters (DDL, `BEGIN`, multi-statement migration text).
    @discardableResult
    package func execute(_ sql: String) throws(PostgresError) -> QueryResult {
        let conn = try requireHandle()
        let result = PQexec(conn, sql)
        return try consume(result, context: "statement")
    }

    /// Runs `body` inside BEGIN/COMMIT; rolls back when it throws.
    package func withTransaction<T>(_ body: (Connection) throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body(self)
            try execute("COMMIT")
            return value
        } catch {
            if isHealthy { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Sends all statements in pipeline mode and reads every result in one round trip.
    ///
    /// The statements run as one implicit transaction that commits at the pipeline's sync point:
    /// if one fails, the ones before it are rolled back and the ones after it are skipped, and the
    /// error of the failing statement is thrown. The results come back only after the commit.
    ///
    /// `hints` are sent after `statements` in the same round trip, typically after a `COMMIT` that
    /// ends `statements`, for something worth trying but not worth failing for (a `NOTIFY` once the
    /// work it announces is committed): their errors are ignored and their results not returned.
    /// A lost connection is still thrown, as nothing says then whether `statements` took effect.
    package func pipeline(_ statements: [Statement], hints: [Statement] = []) throws(PostgresError) -> [QueryResult] {
        let conn = try requireHandle()
        let all = statements + hints
        // Statements this session has not prepared yet are prepared first, one round trip each,
        // once per session (libpq's synchronous calls are not allowed in pipeline mode).
        for statement in all {
            if let name = statement.preparedName { try prepareOnce(name, statement.sql, on: conn) }
        }
        guard PQenterPipelineMode(conn) == 1 else {
            throw PostgresError(.protocolViolation, "could not enter pipeline mode: \(lastError)")
        }
        defer { PQexitPipelineMode(conn) }
        for statement in all {
            let sent = ParameterBuffer(statement.parameters).withPointers { count, values in
                if let name = statement.preparedName {
                    PQsendQueryPrepared(conn, name, count, values, nil, nil, 0)
                } else {
                    PQsendQueryParams(conn, statement.sql, count, nil, values, nil, nil, 0)
                }
            }
            guard sent == 1 else { throw lostOrFailed("could not send pipelined statement") }
        }
        guard PQpipelineSync(conn) == 1 else { throw lostOrFailed("could not send pipeline sync") }

        var results: [QueryResult] = []
        results.reserveCapacity(statements.count)
        var firstError: PostgresError?
        for index in 0..<all.count {
            guard let result = PQgetResult(conn) else { throw lostOrFailed("pipeline ended early") }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_ABORTED {
                PQclear(result)
            } else if index >= statements.count {
                // A hint the session lost is prepared again next time; one that failed otherwise
                // is still prepared and must not be prepared twice.
                if let name = all[index].preparedName, status == PGRES_FATAL_ERROR,
                   Self.sqlState(of: result) == PostgresError.lostPreparedStatementState {
                    preparedNames.remove(name)
                }
                PQclear(result)
            } else {
                do {
                    results.append(try consume(result, context: "pipelined statement"))
                } catch {
                    if firstError == nil { firstError = error }
                }
            }
            // Each command's results end with a NULL.
            while let extra = PQgetResult(conn) { PQclear(extra) }
        }
        guard let sync = PQgetResult(conn) else { throw lostOrFailed("missing pipeline sync result") }
        let syncStatus = PQresultStatus(sync)
        PQclear(sync)
        if let firstError {
            // The session lost its prepared statements: the next call prepares them again.
            if firstError.isLostPreparedStatement {
                for statement in all { if let name = statement.preparedName { preparedNames.remove(name) } }
            }
            throw firstError
        }
        guard syncStatus == PGRES_PIPELINE_SYNC else { throw lostOrFailed("unexpected result at pipeline sync") }
        return results
    }

    // MARK: - COPY

    /// Sends a COPY statement and checks that the server entered the `expected` COPY state; returns the handle to stream on.
    private func startCopy(_ sql: String, _ expected: ExecStatusType, _ direction: String) throws(PostgresError) -> OpaquePointer {
        let conn = try requireHandle()
        let start = PQexec(conn, sql)
        guard let start, PQresultStatus(start) == expected else {
            _ = try consume(start, context: "COPY")
            throw PostgresError(.protocolViolation, "statement did not start COPY \(direction)")
        }
        PQclear(start)
        return conn
    }

    /// Runs `COPY ... FROM STDIN` with `data` already in COPY text format; returns the row count.
    @discardableResult
    package func copyIn(_ sql: String, data: [UInt8]) throws(PostgresError) -> Int {
        let conn = try startCopy(sql, PGRES_COPY_IN, "FROM STDIN")
        let sent = data.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return 1 }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { PQputCopyData(conn, $0, Int32(buffer.count)) }
        }
        guard sent == 1 else { throw lostOrFailed("could not send COPY data") }
        guard PQputCopyEnd(conn, nil) == 1 else { throw lostOrFailed("could not end COPY") }
        let result = try consume(PQgetResult(conn), context: "COPY")
        while let extra = PQgetResult(conn) { PQclear(extra) }
        return result.affectedRows
    }

    /// Runs `COPY ... FROM STDIN`, streaming: `produce` calls its argument with each chunk of COPY
    /// data (any split, rows may span chunks) and returns when done; returns the row count.
    ///
    /// Memory stays bounded by one chunk. When `produce` throws, the COPY is cancelled on the
    /// server (nothing is inserted) and the error is rethrown.
    @discardableResult
    package func copyIn(_ sql: String, streaming produce: (_ send: ([UInt8]) throws -> Void) throws -> Void) throws -> Int {
        let conn = try startCopy(sql, PGRES_COPY_IN, "FROM STDIN")
        do {
            try produce { chunk throws(PostgresError) in
                let sent = chunk.withUnsafeBufferPointer { buffer -> Int32 in
                    guard let base = buffer.baseAddress, buffer.count > 0 else { return 1 }
                    return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { PQputCopyData(conn, $0, Int32(buffer.count)) }
                }
                guard sent == 1 else { throw lostOrFailed("could not send COPY data") }
            }
        } catch {
            _ = PQputCopyEnd(conn, "the client cancelled the COPY")
            if let result = PQgetResult(conn) { PQclear(result) }
            while let extra = PQgetResult(conn) { PQclear(extra) }
            throw error
        }
        guard PQputCopyEnd(conn, nil) == 1 else { throw lostOrFailed("could not end COPY") }
        let result = try consume(PQgetResult(conn), context: "COPY")
        while let extra = PQgetResult(conn) { PQclear(extra) }
        return result.affectedRows
    }

    /// Runs `COPY ... TO STDOUT` and hands each row's bytes (COPY format, newline included) to `body`.
    package func copyOut(_ sql: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        let conn = try startCopy(sql, PGRES_COPY_OUT, "TO STDOUT")
        var rows = 0
        var buffer: UnsafeMutablePointer<CChar>?
        while true {
            let length = PQgetCopyData(conn, &buffer, 0)
            if length > 0, let data = buffer {
                defer { PQfreemem(data) }
                rows += 1
                try body(UnsafeRawBufferPointer(start: data, count: Int(length)))
            } else if length == -1 {
                break
            } else {
                throw lostOrFailed("COPY TO STDOUT failed")
            }
        }
        _ = try consume(PQgetResult(conn), context: "COPY")
        while let extra = PQgetResult(conn) { PQclear(extra) }
        return rows
    }

    // MARK: - LISTEN / NOTIFY

    /// Subscribes this connection to a channel (the name is quoted as an identifier).
    package func listen(_ channel: String) throws(PostgresError) {
        try execute("LISTEN " + Self.quoteIdentifier(channel))
    }

    /// Waits up to `timeout` seconds for notifications and returns those that arrived.
    package func waitForNotifications(timeout: Double) throws(PostgresError) -> [PostgresNotification] {
        let conn = try requireHandle()
        var received = drainNotifications(conn)
        if !received.isEmpty { return received }
        let socket = PQsocket(conn)
        guard socket >= 0 else { throw PostgresError(.connectionLost, "connection has no socket") }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(max(0, timeout * 1000)))
        if ready < 0 && errno != EINTR {
            throw PostgresError(.connectionLost, "poll failed on the listening connection")
        }
        if ready > 0 {
            guard PQconsumeInput(conn) == 1 else { throw lostOrFailed("listening connection broke") }
            received = drainNotifications(conn)
        }
        if PQstatus(conn) != CONNECTION_OK { throw PostgresError(.connectionLost, "listening connection broke") }
        return received
    }

    private func drainNotifications(_ conn: OpaquePointer) -> [PostgresNotification] {
        var received: [PostgresNotification] = []
        while let notice = PQnotifies(conn) {
            let channel = String(cString: notice.pointee.relname)
            let payload = String(cString: notice.pointee.extra)
            received.append(PostgresNotification(channel: channel, payload: payload))
            PQfreemem(notice)
        }
        return received
    }

    // MARK: - Results and errors

    private var lastError: String {
        guard let handle else { return "connection is closed" }
        return Self.trimmed(PQerrorMessage(handle))
    }

    private func lostOrFailed(_ what: String) -> PostgresError {
        if let handle, PQstatus(handle) != CONNECTION_OK {
            return PostgresError(.connectionLost, "\(what): connection to PostgreSQL lost: \(lastError)")
        }
        return PostgresError(.protocolViolation, "\(what): \(lastError)")
    }

    private func consume(_ result: OpaquePointer?, context: String) throws(PostgresError) -> QueryResult {
        guard let result else { throw lostOrFailed("\(context) returned no result") }
        defer { PQclear(result) }
        try check(result, context: context)
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        var columns: [String] = []
        columns.reserveCapacity(columnCount)
        for column in 0..<columnCount {
            columns.append(String(cString: PQfname(result, Int32(column))))
        }
        var rows: [Row] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    let length = Int(PQgetlength(result, Int32(row), Int32(column)))
                    let pointer = PQgetvalue(result, Int32(row), Int32(column))!
                    values.append(pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
                        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                    })
                }
            }
            rows.append(Row(values: values))
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return QueryResult(columns: columns, rows: rows, affectedRows: affected)
    }

    /// The SQLSTATE of a failed result, if the server sent one.
    private static func sqlState(of result: OpaquePointer) -> String? {
        PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
    }

    /// Throws the result's error unless it is a success status.
    private func check(_ result: OpaquePointer, context: String) throws(PostgresError) {
        let status = PQresultStatus(result)
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE, PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_EMPTY_QUERY, PGRES_PIPELINE_SYNC:
            break
        default:
            let message = Self.trimmed(PQresultErrorMessage(result))
            let sqlState = Self.sqlState(of: result)
            if sqlState == nil, let handle, PQstatus(handle) != CONNECTION_OK {
                throw PostgresError(.connectionLost, "\(context) failed: connection to PostgreSQL lost: \(message)")
            }
            throw PostgresError(.serverError, "\(context) failed: \(message)", sqlState: sqlState)
        }
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Quotes an identifier for the few statements that cannot take parameters (LISTEN, CREATE DATABASE).
    package static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// A statement's text parameters as C strings for libpq, without copying them first.
private struct ParameterBuffer {
    private let parameters: [String?]

    init(_ parameters: [String?]) {
        self.parameters = parameters
    }

    /// Calls `body` with the parameters as NUL-terminated C strings. A native Swift string lends
    /// its own UTF-8 storage (`withCString` copies only bridged or non-contiguous strings), so a
    /// batch's megabytes of JSON are not copied once more before libpq copies them into its
    /// output buffer.
    func withPointers<R>(_ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        if parameters.isEmpty { return body(0, nil) }
        var pointers = [UnsafePointer<CChar>?](repeating: nil, count: parameters.count)
        return Self.lend(parameters, from: 0, into: &pointers) { pointers in
            pointers.withUnsafeBufferPointer { body(Int32(parameters.count), $0.baseAddress) }
        }
    }

    /// Fills `pointers[index...]` from nested `withCString` calls, then calls `body` inside them all.
    private static func lend<R>(_ parameters: [String?], from index: Int, into pointers: inout [UnsafePointer<CChar>?],
                                _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        guard index < parameters.count else { return body(pointers) }
        guard let parameter = parameters[index] else { return lend(parameters, from: index + 1, into: &pointers, body) }
        return parameter.withCString { text in
            pointers[index] = text
            return lend(parameters, from: index + 1, into: &pointers, body)
        }
    }
}
