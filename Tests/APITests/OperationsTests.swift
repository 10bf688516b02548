import API
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSON
import Postgres
import Synchronization
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct OperationsTests {
    @Test func aServerGivenItsParentsPidShutsDownOnceThatParentHasExited() async throws {
        try await TestDatabase.withTestDatabase { url in
            // A shell starts the server in the background, naming itself its parent, prints its pid and exits after 10 s.
            let environment = ["DATABASE_URL": url, "WAYMARK_JWT_SECRET": "test-secret-\(UUID().uuidString)", "WAYMARK_HTTP_PORT": "0",
                               "WAYMARK_GRPC_PORT": "off", "WAYMARK_BIN": WaymarkBinary.path]
            let shell = try Subprocess.spawn("/bin/sh", ["-c", #"WAYMARK_PARENT_PID=$$ "$WAYMARK_BIN" serve & echo $!; sleep 10"#], environment: environment)
            defer {
                // Reaped whatever happens. A zombie child of the test process stalls every exit test
                // after it: Swift Testing's exit-test monitor waits for any child without reaping it
                // and spins until that child is reaped (seen: one run hung for minutes on this shell).
                kill(shell.pid, SIGKILL)
                _ = shell.wait()
                shell.cleanUp()
            }
            var pid: pid_t?
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline, pid == nil || !shell.stderr.contains("listening on http://") {
                pid = pid_t(shell.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
                try await Task.sleep(for: .milliseconds(50))
            }
            let server = try #require(pid, "no pid from the shell: \(shell.stderr)")
            #expect(shell.stderr.contains("listening on http://"), "\(shell.stderr)")
            // Orphaned, the server notices within about a second and shuts down as on SIGTERM.
            func running() -> Bool {
                guard let status = try? String(contentsOfFile: "/proc/\(server)/status", encoding: .utf8) else { return false }
                return !status.contains("State:\tZ")
            }
            let gone = Date().addingTimeInterval(15)
            while running(), Date() < gone { try await Task.sleep(for: .milliseconds(100)) }
            let stillRunning = running()
            if stillRunning { kill(server, SIGKILL) }
            #expect(!stillRunning, "the orphaned server still runs 15 s after its parent exited")
            #expect(shell.stderr.contains("shutting down"), "\(shell.stderr)")
        }
    }

    /// The server's startup log line naming its allocator, with `extra` in its environment.
    private func allocatorLine(_ extra: [String: String] = [:]) async throws -> (line: String, maps: String) {
        try await TestDatabase.withTestDatabase { url in
            let environment = ["DATABASE_URL": url, "WAYMARK_JWT_SECRET": "allocator-test-secret-0123456789abcdef", "WAYMARK_HTTP_PORT": "0", "WAYMARK_GRPC_PORT": "off"]
                .merging(extra) { $1 }
            let process = try Subprocess.spawn(WaymarkBinary.path, ["serve"], environment: environment)
            defer {
                _ = process.stop()
                process.cleanUp()
            }
            try #require(try await process.waitUntilListening(), "\(process.stderr)")
            // Read to its end: /proc files report no size, and a one-shot read may stop early.
            let file = try #require(FileHandle(forReadingAtPath: "/proc/\(process.pid)/maps"))
            let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
            let line = try #require(process.stderr.split(separator: "\n").first { $0.contains("memory allocator:") }, "\(process.stderr)")
            return (String(line), maps)
        }
    }

    @Test func theServerAllocatesWithJemallocFromOneArena() async throws {
        let (line, maps) = try await allocatorLine()
        #expect(line.contains("memory allocator: jemalloc 5."), "\(line)")
        #expect(line.contains(#", 1 arena""#), "\(line)")
        #expect(maps.contains("libjemalloc"))
    }

    @Test func mallocConfInTheEnvironmentOverridesTheAllocatorsDefaults() async throws {
        let (line, _) = try await allocatorLine(["MALLOC_CONF": "narenas:3"])
        #expect(line.contains(", 3 arenas"), "\(line)")
    }

    @Test func healthReadinessMetricsAndTheOpenAPIDocumentAreServedWithoutAToken() async throws {
        try await TestServer.with { server in
            let health = try await server.request("GET", "/healthz")
            #expect(health.status == 200 && health.text == #"{"status":"ok"}"#)
            var ready = try await server.request("GET", "/readyz")
            for _ in 0..<50 where ready.status != 200 {
                try await Task.sleep(for: .milliseconds(100))
                ready = try await server.request("GET", "/readyz")
            }
            #expect(ready.status == 200, "\(ready.text)")
            try await server.createVehicle("v-1")
            let metrics = try await server.request("GET", "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains(#"waymark_http_requests_total{route="CreateVehicle",method="POST",status="200"} 1"#), "\(metrics.text)")
            #expect(metrics.text.contains(#"waymark_http_request_duration_seconds_bucket{route="CreateVehicle",le="+Inf"} 1"#))
            #expect(metrics.text.contains(#"waymark_projection_lag_seconds{projection="fleet"}"#))
            #expect(metrics.text.contains("waymark_http_open_streams"))
            let openAPI = try await server.request("GET", "/openapi.json")
            let checkedIn = try [UInt8](Data(contentsOf: URL(fileURLWithPath: WaymarkBinary.packageRoot + "/api/openapi.json")))
            #expect(openAPI.status == 200 && openAPI.body == checkedIn)
        }
    }

    @Test func withAMetricsAddressMetricsLeaveThePublicListenerForTheirOwn() async throws {
        try await TestServer.with(environment: ["WAYMARK_METRICS_ADDRESS": "127.0.0.1:0"]) { server in
            let log = server.process.stderr
            let announced = try #require(log.range(of: "metrics on http://127.0.0.1:"), "\(log)")
            let port = String(log[announced.upperBound...].prefix { $0.isNumber })
            try await server.createVehicle("v-1")
            expectError(try await server.json("GET", "/metrics"), 404, "NOT_FOUND", containing: "WAYMARK_METRICS_ADDRESS")
            let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/metrics")))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self).contains(#"waymark_http_requests_total{route="CreateVehicle",method="POST",status="200"} 1"#))
            let (_, other) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/v1/providers/acme/vehicles/v-1")))
            #expect((other as? HTTPURLResponse)?.statusCode == 404, "the metrics listener serves nothing else")
        }
        let bad = try await WaymarkBinary.run(["serve"], environment: ["WAYMARK_METRICS_ADDRESS": "localhost", "WAYMARK_JWT_SECRET": String(repeating: "k", count: 32)])
        #expect(bad.status == 2 && bad.stderr.contains("WAYMARK_METRICS_ADDRESS must be an IPv4 address and port"), "\(bad.output)")
    }

    /// One transaction left open holds every projection back (the feed is read below it); the
    /// lag check cannot see that, so its age is a metric and a warning of its own.
    @Test func aTransactionLeftOpenShowsAsTheFeedHorizonsAgeInMetricsAndAsAReadinessWarning() async throws {
        try await TestServer.with(environment: ["WAYMARK_HORIZON_WARNING_SECONDS": "1"]) { server in
            // An xid (pg_current_xact_id): now it bounds the horizon.
            let held = try await HeldTransaction.open(server.databaseURL, ["SET application_name = 'forgotten-psql'", "BEGIN", "SELECT pg_current_xact_id()"])
            // The horizon ages with real time: read both until it is past the 1 s warning and 2 s old.
            var ready = "", line: Substring?, age: Double?
            let aged = await waitFor(.seconds(60)) {
                ready = try await server.request("GET", "/readyz").text
                let metrics = try await server.request("GET", "/metrics").text
                line = metrics.split(separator: "\n").first { $0.hasPrefix("waymark_feed_horizon_age_seconds ") }
                age = line.flatMap { Double($0.split(separator: " ")[1]) }
                return ready.contains("held back") && (age ?? 0) >= 2
            }
            try await held.release()
            #expect(aged, "the held transaction never showed as a warning and a horizon age of 2 s")
            // The warning names the oldest open transaction: ours, unless a test beside this one
            // on the shared cluster holds an older one.
            #expect(ready.contains("held back") && ready.contains("application "), "\(ready)")
            #expect((age ?? 0) >= 2, "\(line ?? "no horizon metric")")
        }
    }

    /// Lag is shared by every node: it must not take them all out of the load balancer at once.
    @Test func aLaggingProjectionIsAReadinessWarningAndFailsOnlyTheProjectionsCheck() async throws {
        try await TestServer.with(environment: ["WAYMARK_CONSISTENCY_TIMEOUT_SECONDS": "1"]) { server in
            expectError(try await server.json("GET", "/readyz?projections=maybe"), 400, "INVALID_ARGUMENT", containing: "projections")
            // The journey runner's next write blocks on the lock (a table lock takes no transaction id).
            let lock = try await HeldTransaction.open(server.databaseURL, ["BEGIN", "LOCK TABLE rm_journey IN EXCLUSIVE MODE"])
            try await server.createVehicle("v-1", keptIsEnough: true)
            var plain = try await server.request("GET", "/readyz")
            let lagging = await waitFor(.seconds(30)) {
                plain = try await server.request("GET", "/readyz")
                return plain.text.contains("projections behind")
            }
            let strict = try await server.request("GET", "/readyz?projections=true")
            try await lock.release()
            #expect(lagging, "the held journey projection never showed as lagging: \(plain.text)")
            #expect(plain.status == 200 && plain.text.contains(#""status":"ready""#) && plain.text.contains("journey"), "\(plain.text)")
            #expect(strict.status == 503 && strict.text.contains("journey"), "\(strict.text)")
            #expect(await waitFor(.seconds(30)) { try await server.request("GET", "/readyz?projections=true").status == 200 })
        }
    }

    @Test func migratedDatabasesEndTransactionsLeftIdleAfterAMinute() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                #expect(try connection.query("SHOW idle_in_transaction_session_timeout").rows.first?[0] == "1min")
            }
        }
    }

    @Test func everyResponseCarriesARequestIdAndUnknownRoutesGetFleetEngineErrors() async throws {
        try await TestServer.with { server in
            let echoed = try await server.request("GET", "/healthz", headers: ["x-request-id": "trace-42"])
            #expect(echoed.header("x-request-id") == "trace-42")
            let generated = try await server.request("GET", "/v1/providers/acme/nothing", token: server.server)
            #expect(generated.header("x-request-id")?.isEmpty == false)
            #expect(generated.status == 404 && generated.text.contains("NOT_FOUND"))
            let wrongMethod = try await server.request("PATCH", "/v1/providers/acme/trips/t-1", body: "{}", token: server.server)
            #expect(wrongMethod.status == 405 && wrongMethod.text.contains("UNIMPLEMENTED"), "\(wrongMethod.text)")
        }
    }

    @Test func aBodyOverTheLimitIsRejectedWith413AndNothingIsWritten() async throws {
        try await TestServer.with(environment: ["WAYMARK_MAX_BODY_BYTES": "4096"]) { server in
            let before = try await server.eventCount()
            let padding = String(repeating: "x", count: 8000)
            let response = try await server.request("POST", "/v1/providers/acme/trips?tripId=t-big",
                                                    body: #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52,"longitude":13}},"name":"\#(padding)"}"#,
                                                    token: server.server)
            #expect(response.status == 413, "\(response.text)")
            #expect(response.text.contains("\"code\":413"))
            #expect(response.header("x-request-id") != nil)
            #expect(try await server.eventCount() == before)
        }
    }

    /// A listener that cannot bind ends `serve` with exit 1 naming the address, after stopping what
    /// had started (for gRPC, the last to start: the public and metrics listeners before it).
    @Test func aPortInUseEndsServeWithExitOneNamingTheAddress() async throws {
        try await TestServer.with(environment: ["WAYMARK_GRPC_PORT": "0"]) { first in
            let httpPort = String(first.baseURL.split(separator: ":").last ?? "")
            let grpcPort = String(try #require(first.grpcAddress).split(separator: ":").last ?? "")
            let base = ["DATABASE_URL": first.databaseURL, "WAYMARK_JWT_SECRET": first.secret]
            let http = try await WaymarkBinary.run(["serve", "--port", httpPort, "--grpc-port", "off"], environment: base)
            #expect(http.status == 1, "\(http.stderr)")
            #expect(http.stderr.contains("cannot bind 127.0.0.1:\(httpPort)") && !http.stderr.contains("listening on"), "\(http.stderr)")
            let grpc = try await WaymarkBinary.run(["serve", "--port", "0", "--grpc-port", grpcPort],
                                                  environment: base.merging(["WAYMARK_METRICS_ADDRESS": "127.0.0.1:0"]) { $1 })
            #expect(grpc.status == 1, "\(grpc.stderr)")
            #expect(grpc.stderr.contains("metrics on http://") && grpc.stderr.contains("listening on http://"), "\(grpc.stderr)")
            #expect(grpc.stderr.contains("cannot listen on 127.0.0.1:\(grpcPort)"), "\(grpc.stderr)")
            #expect(try await first.request("GET", "/healthz").status == 200, "the first server still serves")
        }
    }

    @Test func serveStopsCleanlyOnSigterm() async throws {
        try await TestDatabase.withTestDatabase { url in
            let server = try await TestServer.start(databaseURL: url)
            _ = try await server.request("GET", "/healthz")
            let status = server.stop()
            #expect(status == 0, "exit status \(status)")
        }
    }
}
