import API
import EventStore
import Foundation
import Geo
import HTTP
import Journey
import Postgres
import Projections
import ReadModels
import Schema
import Synchronization
import WaymarkCLI

/// `waymark bench http`: GetTrip, GetJourney and UpdateVehicle (one location) under `wrk` at 64
/// connections, each read beside nginx serving the same bytes; then journey propagation.
///
/// Runs the real server stack in this process (event store, projection runners, REST API, HTTP
/// server on a free loopback port) against a scratch database, seeds vehicles and assigned
/// trips, then drives each operation with `wrk` (it must be on PATH; `make bench` installs it).
/// Reports wrk's request rate and latency percentiles and the server's own p50/p99, taken from
/// every response the server completed during the measured window. Last, `BenchJourney` measures
/// how long a location report takes to reach riders' SSE streams under a paced report load.
struct BenchHTTP {
    static let databaseName = "waymark_bench_http"
    let url: String
    let seconds: Int
    let connections: Int
    let vehicles: Int
    /// Location reports per second the propagation case aims for.
    var propagationRate = 5_000
    /// Reports per `vehicles:reportLocations` request when batches drive the propagation case
    /// (`--propagation batch`); nil: UpdateVehicle under wrk drives it.
    var propagationBatch: Int?
    /// Run the wrk request-rate cases (GetTrip, GetJourney, UpdateVehicle)?
    var runReads = true
    /// Run the propagation case?
    var runPropagation = true
    let logger: Logger

    struct Result {
        var name: String
        /// Requests/s of this case over the reference's (nginx serving the same bytes), when measured.
        var ratio: Double?
        var requests: Int
        var rate: Double
        var wrkP50: String
        var wrkP99: String
        var serverP50: Double
        var serverP99: Double
        var errors: Int
        /// Responses the Waymark server completed in the window (0 for the nginx reference).
        var served: Int
        /// The propagation measurement (a row of its own table), when this result is one.
        var propagation: BenchJourney.Propagation? = nil
        /// True for an nginx reference row.
        var isReference = false
    }

    /// The `bench http` options that shape a run, checked before anything starts.
    struct Options: Equatable {
        var seconds = 10
        var connections = 64
        var vehicles = 200
        var reportRate = 5_000
        var propagationBatch: Int?
        var runReads = true
        var runPropagation = true

        init(_ flags: Flags) throws {
            seconds = try flags.int("seconds", default: seconds)
            connections = try flags.int("connections", default: connections)
            reportRate = try flags.int("report-rate", default: reportRate)
            let mode = flags.value("propagation") ?? "update"
            switch mode {
            case "update":
                guard flags.value("batch-reports") == nil else { throw UsageError("--batch-reports needs --propagation batch") }
            case "batch":
                let batch = try flags.int("batch-reports", default: 100)
                guard batch >= 3, batch <= 5_000 else { throw UsageError("--batch-reports must be from 3 to 5000 (a reportLocations request's limit), got \(batch)") }
                propagationBatch = batch
            default:
                throw UsageError("--propagation must be update or batch, got \(mode.debugDescription)")
            }
            let needed = propagationBatch.map { BenchJourney.vehiclesNeeded(reportsPerRequest: $0) } ?? 1
            vehicles = try flags.int("vehicles", default: max(200, needed))
            guard vehicles >= needed else {
                throw UsageError("--propagation batch with --batch-reports \(propagationBatch ?? 0) needs --vehicles ≥ \(needed) (10 probe vehicles, then \(BenchJourney.batchLanes) lanes of vehicles of their own), got \(vehicles)")
            }
            if let cases = flags.value("cases") {
                let chosen = Set(cases.split(separator: ",").map(String.init))
                let unknown = chosen.subtracting(["reads", "propagation"])
                guard unknown.isEmpty, !chosen.isEmpty else { throw UsageError("--cases takes reads and propagation, comma-separated (got \(cases.debugDescription))") }
                runReads = chosen.contains("reads")
                runPropagation = chosen.contains("propagation")
            }
        }
    }

    init(url: String, options: Options, logger: Logger) {
        self.url = url
        seconds = options.seconds
        connections = options.connections
        vehicles = options.vehicles
        propagationRate = options.reportRate
        propagationBatch = options.propagationBatch
        runReads = options.runReads
        runPropagation = options.runPropagation
        self.logger = logger
    }

    func run() async throws -> [Result] {
        guard let wrk = Self.which("wrk") else { throw UsageError("bench http needs wrk on PATH (make bench installs it: apt-get install wrk)") }
        let pool = ConnectionPool(.init(conninfo: url, size: 1, name: "bench-http"))
        _ = try await pool.withConnection { try Migrator().migrate($0) }
        await pool.shutdown()
        let store = EventStore(.init(conninfo: url))
        let settings = try ProjectionSettings.load(ProcessInfo.processInfo.environment)  // as `serve` has them
        let mirror = WaymarkAPI.fleetMirror(documentLimit: settings.fleetMirrorLimit)
        let journeyMirror = WaymarkAPI.journeyMirror()
        let mirrors = [FleetResourceProjection.name: mirror, JourneyViewProjection.name: journeyMirror]
        let runners = settings.runners(store: store, conninfo: url, mirrors: mirrors)
        let secret = Array("bench-secret-0123456789abcdef0123".utf8)
        let api = WaymarkAPI(store: store, runners: runners, authenticator: Authenticator(hs256Secret: secret), mirror: mirror, journeyMirror: journeyMirror)
        for runner in runners { runner.start() }
        let durations = Mutex<[Double]?>(nil)
        let diagnostics = logger
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 2, errorBody: RESTHandler.serverErrorBody,
                                                     diagnostics: { diagnostics.debug("libmicrohttpd: \($0)") }),
                                handler: api.handler,
                                observer: { exchange in durations.withLock { $0?.append(exchange.durationSeconds) } })
        try server.start()
        var results: [Result] = []
        do {
            let base = "http://127.0.0.1:\(server.port)"
            let token = Authenticator.mint(secret: secret, role: .server, provider: "bench", issuedAt: Int64(Date().timeIntervalSince1970), ttl: 3600)
            try await seed(api)
            let journeys = BenchJourney(port: server.port, token: token, vehicles: vehicles, seconds: seconds, connections: connections,
                                        targetRate: propagationRate, logger: logger, runners: runners, store: store)
            try await journeys.seed(api)
            try await Task.sleep(for: .seconds(1))  // the journey projection catches up with the seed
            logger.info("seeded \(vehicles) vehicles and trips t-0... on v-0...; measuring \(seconds) s per case with \(connections) connections")
            let script = NSTemporaryDirectory() + "waymark-bench-\(UUID().uuidString).lua"
            try Self.updateScript(token: token, vehicles: vehicles).write(toFile: script, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: script) }
            let tripPath = "/v1/providers/bench/trips/t-0", journeyPath = "/v1/providers/bench/trips/t-0/journey"
            // (name, wrk arguments, index of the nginx reference row it is compared with)
            var cases: [(String, [String], Int?)] = [
                ("GetTrip (SDK view)", ["-H", "Authorization: Bearer \(token)", base + tripPath], nil),
                ("GetJourney", ["-H", "Authorization: Bearer \(token)", base + journeyPath], nil),
                ("UpdateVehicle (lastLocation)", ["-s", script, base], nil),
            ]
            // The references: nginx serving the bytes of the same GetTrip and GetJourney responses as static files.
            var nginx: Nginx?
            if runReads, let binary = Self.which("nginx") ?? ["/usr/sbin/nginx"].first(where: FileManager.default.isExecutableFile(atPath:)) {
                let files = ["trip.json": try await Self.fetch(base + tripPath, token: token), "journey.json": try await Self.fetch(base + journeyPath, token: token)]
                let started = try Nginx.start(binary: binary, files: files)
                nginx = started
                cases = [
                    ("nginx: the same GetTrip bytes (static file)", ["-H", "Authorization: Bearer \(token)", started.url("trip.json")], nil),
                    ("GetTrip (SDK view)", cases[0].1, 0),
                    ("nginx: the same GetJourney bytes (static file)", ["-H", "Authorization: Bearer \(token)", started.url("journey.json")], nil),
                    ("GetJourney", cases[1].1, 2),
                    cases[2],
                ]
            } else if runReads {
                logger.warning("nginx is not on PATH: no reference rows (make bench installs nginx-light)")
            }
            defer { nginx?.stop() }
            for (name, arguments, reference) in cases where runReads {
                _ = try await Self.offThread { try Subprocess.run(wrk, ["-t1", "-c\(connections)", "-d2s"] + arguments) }  // warm-up
                durations.withLock { $0 = [] }
                let outcome = try await Self.offThread { [seconds, connections] in
                    try Subprocess.run(wrk, ["-t1", "-c\(connections)", "-d\(seconds)s", "--latency"] + arguments)
                }
                let served = durations.withLock { list -> [Double] in defer { list = nil }; return list ?? [] }.sorted()
                guard outcome.status == 0 else { throw UsageError("wrk failed: \(outcome.output)") }
                var result = Self.parse(name: name, wrk: outcome.stdout, served: served)
                result.isReference = name.hasPrefix("nginx")
                if let reference, results[reference].rate > 0 { result.ratio = result.rate / results[reference].rate }
                results.append(result)
                logger.info("\(name): \(outcome.stdout.split(separator: "\n").first { $0.contains("Requests/sec") } ?? "")")
            }
            if runPropagation {
                let propagation = if let batch = propagationBatch { try await journeys.batchPropagation(reportsPerRequest: batch) } else { try await journeys.propagation(wrk: wrk) }
                results.append(Result(name: "propagation", ratio: nil, requests: propagation.probeReports, rate: propagation.achievedRate, wrkP50: "-", wrkP99: "-",
                                      serverP50: propagation.p50, serverP99: propagation.p99, errors: propagation.loadErrors, served: propagation.matched,
                                      propagation: propagation))
            }
        } catch {
            await api.shutdown()
            await server.shutdown(grace: .seconds(2))
            for runner in runners { await runner.stop() }
            await store.shutdown()
            throw error
        }
        await api.shutdown()
        await server.shutdown(grace: .seconds(2))
        for runner in runners { await runner.stop() }
        await store.shutdown()
        return results
    }

    private func seed(_ api: WaymarkAPI) async throws {
        let context = CommandContext(caller: Principal(role: .server, provider: "bench"), requestId: "bench-seed")
        for n in 0..<vehicles {
            let register = Vehicle.RegisterVehicle(vehicleId: "v-\(n)", vehicleState: .online, supportedTripTypes: [.exclusive],
                                                   maximumCapacity: 4, vehicleType: VehicleType(category: .auto))
            let location = VehicleLocation(location: .init(uncheckedLatitude: 52.5 + Double(n % 100) * 0.001, longitude: 13.4 + Double(n / 100) * 0.001))
            _ = try await api.vehicles.create(.init(provider: "bench", register: register, lastLocation: location), context: context)
        }
        let trip = Trip.CreateTrip(tripId: "t-0", tripType: .exclusive, pickup: TerminalLocation(point: .init(uncheckedLatitude: 52.51, longitude: 13.41)),
                                   dropoff: TerminalLocation(point: .init(uncheckedLatitude: 52.53, longitude: 13.38)))
        _ = try await api.trips.create(.init(provider: "bench", create: trip, vehicleId: "v-0"), context: context)
    }

    /// A wrk script: PUT one location to a different vehicle on each request.
    static func updateScript(token: String, vehicles: Int) -> String {
        """
        local n = 0
        wrk.method = "PUT"
        wrk.headers["Content-Type"] = "application/json"
        wrk.headers["Authorization"] = "Bearer \(token)"
        wrk.body = '{"lastLocation":{"location":{"latitude":52.52,"longitude":13.405},"heading":90,"speed":8.5}}'
        request = function()
          n = n + 1
          return wrk.format(nil, "/v1/providers/bench/vehicles/v-" .. (n % \(vehicles)) .. "?updateMask=lastLocation")
        end
        """
    }

    static func parse(name: String, wrk output: String, served: [Double]) -> Result {
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        func field(_ prefix: String) -> String? {
            lines.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) }
        }
        let rate = Double(field("Requests/sec:") ?? "") ?? 0
        let total = lines.first { $0.contains("requests in") }.flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
        let errors = Int(field("Non-2xx or 3xx responses:") ?? "0") ?? 0
        func percentile(_ p: Double) -> Double {
            guard !served.isEmpty else { return 0 }
            return served[min(served.count - 1, Int((p * Double(served.count)).rounded(.up)) - 1)]
        }
        return Result(name: name, ratio: nil, requests: total, rate: rate, wrkP50: field("50%") ?? "?", wrkP99: field("99%") ?? "?",
                      serverP50: percentile(0.5), serverP99: percentile(0.99), errors: errors, served: served.count)
    }

    /// One GET's body, fetched with curl (the reference serves exactly these bytes).
    static func fetch(_ url: String, token: String) async throws -> [UInt8] {
        let outcome = try await offThread { try Subprocess.run("/usr/bin/env", ["curl", "-sf", "-H", "Authorization: Bearer \(token)", url]) }
        guard outcome.status == 0 else { throw UsageError("bench http: could not fetch \(url) for the nginx reference (curl: \(outcome.output))") }
        return Array(outcome.stdout.utf8)
    }

    /// Runs blocking work (a subprocess) on a thread of its own, off the cooperative pool.
    static func offThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
            }.start()
        }
    }

    static func which(_ program: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    static func render(_ results: [Result], format: BenchTable.Format, seconds: Int, connections: Int, vehicles: Int) -> String {
        let header = ["case", "requests", "requests/s", "ratio to nginx", "wrk p50", "wrk p99", "server p50", "server p99", "non-2xx"]
        let rows = results.filter { $0.propagation == nil }.map { r in
            [r.name, BenchTable.grouped(r.requests), BenchTable.grouped(Int(r.rate.rounded())),
             r.isReference ? "1 (reference)" : r.ratio.map { String(format: "%.3f", $0) } ?? "-", r.wrkP50, r.wrkP99,
             r.served == 0 ? "-" : String(format: "%.2fms", r.serverP50 * 1000), r.served == 0 ? "-" : String(format: "%.2fms", r.serverP99 * 1000),
             String(r.errors)]
        }
        let note = "wrk -t1 -c\(connections) -d\(seconds)s --latency against the in-process server (2 MHD threads) on 127.0.0.1, and against nginx (1 worker, keep-alive, access log off) serving the GetTrip and GetJourney responses as files; "
            + "each ratio is to the nginx row serving the same bytes; "
            + "UpdateVehicle spreads over \(vehicles) vehicles, each request a new location, acknowledged after commit and after the fleet read model applied it; "
            + "server percentiles are over every response completed in the measured window"
        var text = rows.isEmpty ? "" : BenchTable.render(header: header, cells: rows, notes: [note], format: format)
        for p in results.compactMap(\.propagation) {
            let cells = [[String(p.targetRate), BenchTable.grouped(Int(p.achievedRate.rounded())), "\(p.matched) of \(p.probeReports)" + (p.superseded > 0 ? " (\(p.superseded) by a later view)" : ""),
                          String(format: "%.1fms", p.p50 * 1000), String(format: "%.1fms", p.p99 * 1000), String(format: "%.1fms", p.max * 1000),
                          String(p.beforeAck), String(p.loadErrors)]]
            var note: String
            if let batch = p.reportsPerRequest {
                note = "propagation under batch ingest: time from a batch's acknowledgement (vehicles:reportLocations answered, \(batch) reports a request, "
                note += "\(BenchTable.grouped(p.requests)) requests) to the SSE event with a probe position reaching a subscribed rider; "
                note += "\(BenchJourney.probeTrips) riders each stream one trip; \(BenchJourney.batchLanes) connections post batches paced to \(p.targetRate) reports/s in all, "
                note += "every batch with new positions of 2 probe vehicles and of vehicles of its own lane (no vehicle twice in a batch or in two lanes), 90 of those serving trips; "
                note += "events that arrived before the acknowledgement count as 0 ms; a position whose view was superseded before it was pushed (two reports of the vehicle "
                note += "in one projection batch) counts when the later view arrives; after the load the run waits up to 10 s for the last positions; "
                note += "non-2xx counts reports not ACCEPTED; target p99 < 100 ms"
            } else {
                note = "propagation: time from a location report's acknowledgement (UpdateVehicle answered) to the SSE event with that position reaching a subscribed rider; "
                note += "\(BenchJourney.probeTrips) riders each stream one trip; a probe reports one of their vehicles every 20 ms while wrk (\(connections) connections, paced) reports locations of the other vehicles, "
                note += "most of them serving trips; events that arrived before the acknowledgement count as 0 ms; target p99 < 100 ms"
            }
            text += (text.isEmpty ? "" : "\n") + BenchTable.render(header: ["target reports/s", "achieved reports/s", "probe reports seen", "p50", "p99", "max", "before ack", "load non-2xx"],
                                              cells: cells, notes: [note], format: format)
        }
        return text
    }
}

/// An nginx serving one file, for the reference row of `bench http`.
struct Nginx {
    let directory: String
    let process: Subprocess.Running
    let url: String

    /// The URL of one of the served files.
    func url(_ file: String) -> String {
        String(url.dropLast("trip.json".count)) + file
    }

    static func start(binary: String, files: [String: [UInt8]]) throws -> Nginx {
        let directory = NSTemporaryDirectory() + "waymark-nginx-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory + "/html", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/tmp", withIntermediateDirectories: true)
        for (name, body) in files {
            try Data(body).write(to: URL(fileURLWithPath: directory + "/html/" + name))
            chmod(directory + "/html/" + name, 0o644)
        }
        // Let the unprivileged worker read them when we run as root.
        for path in [directory, directory + "/html", directory + "/tmp"] { chmod(path, 0o755) }
        let port = try freePort()
        let config = """
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log;
            events { worker_connections 1024; }
            http {
              access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000;
              types { application/json json; }
              client_body_temp_path \(directory)/tmp; proxy_temp_path \(directory)/tmp; fastcgi_temp_path \(directory)/tmp;
              uwsgi_temp_path \(directory)/tmp; scgi_temp_path \(directory)/tmp;
              server { listen 127.0.0.1:\(port); root \(directory)/html; }
            }
            """
        try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        let process = try Subprocess.spawn(binary, ["-c", directory + "/nginx.conf", "-p", directory, "-g", "daemon off;"])
        let nginx = Nginx(directory: directory, process: process, url: "http://127.0.0.1:\(port)/trip.json")
        for _ in 0..<100 {
            if (try? Subprocess.run("/usr/bin/env", ["curl", "-sf", "-o", "/dev/null", nginx.url]))?.status == 0 { return nginx }
            usleep(20_000)
        }
        nginx.stop()
        throw UsageError("bench http: nginx did not start (\(process.stderr))")
    }

    func stop() {
        process.stop(signal: SIGQUIT)
        process.cleanUp()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A port nobody listens on right now (bind to port 0, read it, close).
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, SocketConstants.stream, 0)
        guard fd >= 0 else { throw UsageError("bench http: no socket for a free port") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw UsageError("bench http: could not find a free port") }
        return UInt16(bigEndian: address.sin_port)
    }
}
