import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Postgres

/// A `waymark serve` process on a free port against a throwaway test database, for black-box tests.
package final class TestServer: Sendable {
    /// `http://127.0.0.1:PORT`.
    package let baseURL: String
    /// The server's `WAYMARK_JWT_SECRET`.
    package let secret: String
    package let process: Subprocess.Running
    /// The database the server writes to.
    package let databaseURL: String
    /// `127.0.0.1:PORT` of the gRPC server, when the test asked for one (`WAYMARK_GRPC_PORT: "0"`).
    package let grpcAddress: String?
    private let session: URLSession

    init(baseURL: String, secret: String, process: Subprocess.Running, databaseURL: String, grpcAddress: String? = nil) {
        self.baseURL = baseURL
        self.grpcAddress = grpcAddress
        self.databaseURL = databaseURL
        self.secret = secret
        self.process = process
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.httpMaximumConnectionsPerHost = 16
        session = URLSession(configuration: configuration)
    }

    /// The per-token, per-address stream and connection caps lifted, for tests that play thousands
    /// of riders from one address with one token.
    package static let manyClients = ["WAYMARK_STREAMS_PER_TOKEN": "0", "WAYMARK_STREAMS_PER_ADDRESS": "0",
                                      "WAYMARK_HTTP_MAX_CONNECTIONS_PER_ADDRESS": "0"]

    /// Creates a database, starts the server on it, runs `body`, stops the server (SIGTERM) and drops the database.
    package static func with<T: Sendable>(environment: [String: String] = [:], arguments: [String] = [],
                                          _ body: @Sendable (TestServer) async throws -> T) async throws -> T {
        try await TestDatabase.withTestDatabase { url in
            let server = try await start(databaseURL: url, environment: environment, arguments: arguments)
            do {
                let value = try await body(server)
                server.stop()
                return value
            } catch {
                server.stop()
                throw error
            }
        }
    }

    /// Starts `waymark serve --port 0` (with `arguments`, e.g. `--demo`) and waits for its "listening on" line.
    package static func start(databaseURL: String, environment: [String: String] = [:], arguments: [String] = []) async throws -> TestServer {
        let secret = environment["WAYMARK_JWT_SECRET"] ?? "test-secret-\(UUID().uuidString)"
        // Generous read-your-writes wait: the test cluster is shared, and projections read only below
        // the oldest transaction of the whole cluster, so another test's long transaction holds them back.
        var env = ["DATABASE_URL": databaseURL, "WAYMARK_JWT_SECRET": secret, "WAYMARK_HTTP_PORT": "0", "WAYMARK_CONSISTENCY_TIMEOUT_SECONDS": "60",
                   "WAYMARK_GRPC_PORT": "off", "WAYMARK_PARENT_PID": String(getpid())]
        env.merge(environment) { $1 }
        let process = try Subprocess.spawn(WaymarkBinary.path, ["serve"] + arguments, environment: env)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let log = process.stderr
            let wantsGRPC = env["WAYMARK_GRPC_PORT"] != "off"
            if let range = log.range(of: "listening on http://") {
                let rest = log[range.upperBound...]
                let address = rest.prefix { !$0.isWhitespace && $0 != "\"" }
                var grpc: String?
                if let grpcRange = log.range(of: "listening for gRPC on ") {
                    grpc = String(log[grpcRange.upperBound...].prefix { !$0.isWhitespace && $0 != "\"" })
                }
                if !wantsGRPC || grpc != nil {
                    return TestServer(baseURL: "http://" + address, secret: secret, process: process, databaseURL: databaseURL, grpcAddress: grpc)
                }
            }
            if kill(process.pid, 0) != 0 {
                let status = process.stop()
                throw TestSetupError("waymark serve exited with \(status) before listening:\n\(log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.stop(signal: SIGKILL)
        throw TestSetupError("waymark serve did not start listening within 30 s:\n\(process.stderr)")
    }

    /// How many events the database holds (to prove a rejected request wrote nothing).
    package func eventCount() async throws -> Int64 {
        let url = databaseURL
        return try await Blocking.run { try Connection(conninfo: url).query("SELECT count(*) FROM events").first?.int64(0) ?? -1 }
    }

    /// Stops the server with SIGTERM; returns its exit status.
    @discardableResult
    package func stop() -> Int32 {
        let status = process.stop()
        process.cleanUp()
        return status
    }

    /// An HTTP response as the tests see it.
    package struct Response: Sendable {
        package let status: Int
        package let headers: [String: String]
        package let body: [UInt8]
        package var text: String { String(decoding: body, as: UTF8.self) }

        /// A header by name, case-insensitively.
        package func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    /// Sends one request. `body` as text; `contentType` defaults to JSON when there is a body.
    package func request(_ method: String, _ path: String, body: String? = nil, token: String? = nil,
                         contentType: String? = "application/json", headers: [String: String] = [:]) async throws -> Response {
        try await request(method, path, bytes: body.map { Array($0.utf8) }, token: token, contentType: contentType, headers: headers)
    }

    /// Sends one request with a body of raw bytes (which need not be UTF-8).
    package func request(_ method: String, _ path: String, bytes body: [UInt8]?, token: String? = nil,
                         contentType: String? = "application/json", headers: [String: String] = [:]) async throws -> Response {
        guard let url = URL(string: baseURL + path) else { throw TestSetupError("bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body)
            if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw TestSetupError("not an HTTP response") }
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields { fields["\(key)"] = "\(value)" }
        return Response(status: http.statusCode, headers: fields, body: [UInt8](data))
    }
}

extension Subprocess.Running {
    /// Waits until a spawned `waymark serve` logs "listening on http://", exits, or `timeout` passes;
    /// true once it listens.
    package func waitUntilListening(_ timeout: Duration = .seconds(30)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !stderr.contains("listening on http://"), ContinuousClock.now < deadline, kill(pid, 0) == 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
        return stderr.contains("listening on http://")
    }
}
