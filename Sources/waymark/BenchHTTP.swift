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

/// `waymark bench http`: GetTrip and UpdateVehicle (one location) under `wrk` at 64 connections.
///
/// Runs the real server stack in this process (event store, projection runners, REST API, HTTP
/// server on a free loopback port) against a scratch database, seeds vehicles and one assigned
/// trip, then drives each operation with `wrk` (it must be on PATH; `make bench` installs it).
/// Reports wrk's request rate and latency percentiles and the server's own p50/p99, taken from
/// every response the server completed during the measured window.
struct BenchHTTP {
    static let databaseName = "waymark_bench_http"
    let url: String
    let seconds: Int
    let connections: Int
    let vehicles: Int
    let logger: Logger

    struct Result {
        var name: String
        var requests: Int
        var rate: Double
        var wrkP50: String
        var wrkP99: String
        var serverP50: Double
        var serverP99: Double
        var errors: Int
    }

    func run() async throws -> [Result] {
        guard let wrk = Self.which("wrk") else { throw UsageError("bench http needs wrk on PATH (make bench installs it: apt-get install wrk)") }
        let pool = ConnectionPool(.init(conninfo: url, size: 1, name: "bench-http"))
        _ = try await pool.withConnection { try Migrator().migrate($0) }
        await pool.shutdown()
        let store = EventStore(.init(conninfo: url))
        let mirror = WaymarkAPI.fleetMirror()
        let runners = ProjectionCatalog.all.map { entry in
            ProjectionRunner(store: store, conninfo: url, options: .init(mirror: entry.name == FleetResourceProjection.name ? mirror : nil), projector: entry.make)
        }
        for runner in runners { runner.start() }
        let secret = Array("bench-secret".utf8)
        let api = WaymarkAPI(store: store, runners: runners, authenticator: Authenticator(hs256Secret: secret), mirror: mirror)
        let durations = Mutex<[Double]?>(nil)
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 2, errorBody: RESTHandler.serverErrorBody),
                                handler: api.handler,
                                observer: { exchange in durations.withLock { $0?.append(exchange.durationSeconds) } })
        try server.start()
        var results: [Result] = []
        do {
            let base = "http://127.0.0.1:\(server.port)"
            let token = Authenticator.mint(secret: secret, role: .server, provider: "bench", issuedAt: Int64(Date().timeIntervalSince1970), ttl: 3600)
            try await seed(api)
            logger.info("seeded \(vehicles) vehicles and trip t-0 on vehicle v-0; measuring \(seconds) s per case with \(connections) connections")
            let script = NSTemporaryDirectory() + "waymark-bench-\(UUID().uuidString).lua"
            try Self.updateScript(token: token, vehicles: vehicles).write(toFile: script, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: script) }
            let cases: [(String, [String])] = [
                ("GetTrip (SDK view)", ["-H", "Authorization: Bearer \(token)", base + "/v1/providers/bench/trips/t-0"]),
                ("UpdateVehicle (lastLocation)", ["-s", script, base]),
            ]
            for (name, arguments) in cases {
                _ = try await Self.offThread { try Subprocess.run(wrk, ["-t1", "-c\(connections)", "-d2s"] + arguments) }  // warm-up
                durations.withLock { $0 = [] }
                let outcome = try await Self.offThread { [seconds, connections] in
                    try Subprocess.run(wrk, ["-t1", "-c\(connections)", "-d\(seconds)s", "--latency"] + arguments)
                }
                let served = durations.withLock { list -> [Double] in defer { list = nil }; return list ?? [] }.sorted()
                guard outcome.status == 0 else { throw UsageError("wrk failed: \(outcome.output)") }
                results.append(Self.parse(name: name, wrk: outcome.stdout, served: served))
                logger.info("\(name): \(outcome.stdout.split(separator: "\n").first { $0.contains("Requests/sec") } ?? "")")
            }
        } catch {
            await server.shutdown(grace: .seconds(2))
            for runner in runners { await runner.stop() }
            await store.shutdown()
            throw error
        }
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
        return Result(name: name, requests: total, rate: rate, wrkP50: field("50%") ?? "?", wrkP99: field("99%") ?? "?",
                      serverP50: percentile(0.5), serverP99: percentile(0.99), errors: errors)
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
        let header = ["case", "requests", "requests/s", "wrk p50", "wrk p99", "server p50", "server p99", "non-2xx"]
        let rows = results.map { r in
            [r.name, BenchTable.grouped(r.requests), BenchTable.grouped(Int(r.rate.rounded())), r.wrkP50, r.wrkP99,
             String(format: "%.2fms", r.serverP50 * 1000), String(format: "%.2fms", r.serverP99 * 1000), String(r.errors)]
        }
        let note = "wrk -t1 -c\(connections) -d\(seconds)s --latency against the in-process server (2 MHD threads) on 127.0.0.1; "
            + "UpdateVehicle spreads over \(vehicles) vehicles, each request a new location, acknowledged after commit and after the fleet read model applied it; "
            + "server percentiles are over every response completed in the measured window"
        return BenchTable.render(header: header, cells: rows, notes: [note], format: format)
    }
}
