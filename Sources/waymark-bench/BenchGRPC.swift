import API
import EventStore
import Foundation
import Geo
import GRPC
import HTTP
import Journey
import JSON
import Postgres
import Projections
import Protobuf
import ReadModels
import Schema
import Synchronization
import WaymarkCLI

/// `waymark bench grpc`: GetTrip over gRPC beside the same GetTrip over REST (wrk), and
/// UpdateVehicle (one location) over gRPC with many concurrent streams.
///
/// Runs the real stack in this process (event store, projection runners, REST on libmicrohttpd,
/// gRPC on libnghttp2, both on free loopback ports) against a scratch database. The gRPC load
/// comes from `GRPCClient` (nghttp2 as well): `connections` HTTP/2 connections, each with
/// `streams` calls in flight at all times. The REST rows use wrk with `connections × streams`
/// HTTP/1.1 connections, so both sides keep the same number of requests outstanding.
struct BenchGRPC {
    static let databaseName = "waymark_bench_grpc"
    let url: String
    let seconds: Int
    let connections: Int
    let streams: Int
    let vehicles: Int
    let logger: Logger

    struct Row {
        var name: String
        var calls: Int
        var rate: Double
        var p50: Double
        var p99: Double
        var errors: Int
        var responseBytes: Int
    }

    func run() async throws -> String {
        let pool = ConnectionPool(.init(conninfo: url, size: 1, name: "bench-grpc"))
        _ = try await pool.withConnection { try Migrator().migrate($0) }
        await pool.shutdown()
        let store = EventStore(.init(conninfo: url))
        let settings = try ProjectionSettings.load(ProcessInfo.processInfo.environment)  // as `serve` has them
        let mirror = WaymarkAPI.fleetMirror(documentLimit: settings.fleetMirrorLimit)
        let runners = settings.runners(store: store, conninfo: url, mirrors: [FleetResourceProjection.name: mirror])
        let secret = Array("bench-secret-0123456789abcdef0123".utf8)
        let api = WaymarkAPI(store: store, runners: runners, authenticator: Authenticator(hs256Secret: secret), mirror: mirror)
        for runner in runners { runner.start() }
        let http = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 2, errorBody: RESTHandler.serverErrorBody), handler: api.handler)
        let grpc = GRPCServer(configuration: .init(port: 0), handler: FleetEngineGRPCHandler(api: api))
        var rows: [Row] = []
        do {
            try http.start()
            try grpc.start()
            try await seed(api)
            try await Task.sleep(for: .seconds(1))
            let token = Authenticator.mint(secret: secret, role: .server, provider: "bench", issuedAt: Int64(Date().timeIntervalSince1970), ttl: 3600)
            let metadata = [("authorization", "Bearer \(token)")]
            let clients = try (0..<connections).map { _ in try GRPCClient(host: "127.0.0.1", port: grpc.port) }
            defer { clients.forEach { $0.close() } }
            logger.info("seeded \(vehicles) vehicles and trip t-0; \(seconds) s per case, \(connections) gRPC connections × \(streams) streams")

            let getTrip = try FleetEngineSchema.schema.encode(["name": "providers/bench/trips/t-0"], as: "maps.fleetengine.v1.GetTripRequest")
            let probe = await clients[0].call("/maps.fleetengine.v1.TripService/GetTrip", message: getTrip, metadata: metadata)
            guard probe.status.code == 0, let tripBytes = probe.message else { throw UsageError("GetTrip over gRPC failed: \(probe.status)") }
            _ = try await drive(clients, seconds: 2, metadata: metadata) { _ in ("/maps.fleetengine.v1.TripService/GetTrip", getTrip) }  // warm-up
            var row = try await drive(clients, seconds: seconds, metadata: metadata) { _ in ("/maps.fleetengine.v1.TripService/GetTrip", getTrip) }
            row.name = "GetTrip (SDK view), gRPC"
            row.responseBytes = tripBytes.count
            rows.append(row)

            if let h2load = BenchHTTP.which("h2load") {
                // The same gRPC call from a separate C load generator (nghttp2's h2load), as wrk is for REST.
                let body = NSTemporaryDirectory() + "waymark-bench-grpc-\(UUID().uuidString).bin"
                let length = UInt32(getTrip.count)
                let framed = [0, UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)] + getTrip
                try Data(framed).write(to: URL(fileURLWithPath: body))
                defer { try? FileManager.default.removeItem(atPath: body) }
                let arguments = ["-t1", "-c\(connections)", "-m\(streams)", "-D\(seconds)", "--warm-up-time=2", "-d", body,
                                 "-H", "content-type: application/grpc", "-H", "te: trailers", "-H", "authorization: Bearer \(token)",
                                 "http://127.0.0.1:\(grpc.port)/maps.fleetengine.v1.TripService/GetTrip"]
                let outcome = try await BenchHTTP.offThread { try Subprocess.run(h2load, arguments) }
                guard outcome.status == 0 else { throw UsageError("h2load failed: \(outcome.output)") }
                rows.append(Self.parseH2load(outcome.stdout, name: "GetTrip (SDK view), gRPC (h2load, \(connections) conns × \(streams) streams; mean / max)",
                                             responseBytes: tripBytes.count))
            } else {
                logger.warning("h2load is not on PATH: no separate-process gRPC row (apt-get install nghttp2-client)")
            }

            if let wrk = BenchHTTP.which("wrk") {
                let path = "http://127.0.0.1:\(http.port)/v1/providers/bench/trips/t-0"
                let json = try await BenchHTTP.fetch(path, token: token)
                let arguments = ["-t1", "-c\(connections * streams)", "--latency", "-H", "Authorization: Bearer \(token)", path]
                _ = try await BenchHTTP.offThread { try Subprocess.run(wrk, arguments + ["-d2s"]) }
                let outcome = try await BenchHTTP.offThread { [seconds] in try Subprocess.run(wrk, arguments + ["-d\(seconds)s"]) }
                guard outcome.status == 0 else { throw UsageError("wrk failed: \(outcome.output)") }
                let parsed = BenchHTTP.parse(name: "", wrk: outcome.stdout, served: [])
                rows.append(Row(name: "GetTrip (SDK view), REST (wrk, \(connections * streams) connections)", calls: parsed.requests, rate: parsed.rate,
                                p50: Self.milliseconds(parsed.wrkP50), p99: Self.milliseconds(parsed.wrkP99), errors: parsed.errors, responseBytes: json.count))
            } else {
                logger.warning("wrk is not on PATH: no REST row (make bench installs it)")
            }

            let updates: [[UInt8]] = try (0..<vehicles).map { n in
                try FleetEngineSchema.schema.encode([
                    "name": .string("providers/bench/vehicles/v-\(n)"),
                    "vehicle": ["lastLocation": ["location": ["latitude": 52.52, "longitude": 13.405], "heading": 90, "speed": 8.5]],
                    "updateMask": "last_location",
                ], as: "maps.fleetengine.v1.UpdateVehicleRequest")
            }
            _ = try await drive(clients, seconds: 2, metadata: metadata) { n in ("/maps.fleetengine.v1.VehicleService/UpdateVehicle", updates[n % updates.count]) }
            row = try await drive(clients, seconds: seconds, metadata: metadata) { n in ("/maps.fleetengine.v1.VehicleService/UpdateVehicle", updates[n % updates.count]) }
            row.name = "UpdateVehicle (last_location), gRPC"
            rows.append(row)
            if let wrk = BenchHTTP.which("wrk") {
                let script = NSTemporaryDirectory() + "waymark-bench-grpc-\(UUID().uuidString).lua"
                try BenchHTTP.updateScript(token: token, vehicles: vehicles).write(toFile: script, atomically: true, encoding: .utf8)
                defer { try? FileManager.default.removeItem(atPath: script) }
                let arguments = ["-t1", "-c\(connections * streams)", "--latency", "-s", script, "http://127.0.0.1:\(http.port)"]
                let outcome = try await BenchHTTP.offThread { [seconds] in try Subprocess.run(wrk, arguments + ["-d\(seconds)s"]) }
                guard outcome.status == 0 else { throw UsageError("wrk failed: \(outcome.output)") }
                let parsed = BenchHTTP.parse(name: "", wrk: outcome.stdout, served: [])
                rows.append(Row(name: "UpdateVehicle (lastLocation), REST (wrk, \(connections * streams) connections)", calls: parsed.requests, rate: parsed.rate,
                                p50: Self.milliseconds(parsed.wrkP50), p99: Self.milliseconds(parsed.wrkP99), errors: parsed.errors, responseBytes: 0))
            }
        } catch {
            await grpc.shutdown(grace: .seconds(2))
            await http.shutdown(grace: .seconds(2))
            await api.shutdown()
            for runner in runners { await runner.stop() }
            await store.shutdown()
            throw error
        }
        await grpc.shutdown(grace: .seconds(2))
        await http.shutdown(grace: .seconds(2))
        await api.shutdown()
        for runner in runners { await runner.stop() }
        await store.shutdown()
        var lines = ["| case | calls | calls/s | p50 ms | p99 ms | errors | response bytes |", "|---|---:|---:|---:|---:|---:|---:|"]
        for row in rows {
            lines.append("| \(row.name) | \(row.calls) | \(String(format: "%.0f", row.rate)) | \(String(format: "%.2f", row.p50)) | \(String(format: "%.2f", row.p99)) | \(row.errors) | \(row.responseBytes > 0 ? String(row.responseBytes) : "-") |")
        }
        return lines.joined(separator: "\n")
    }

    /// Keeps `streams` calls in flight on every client for `seconds`; the n-th call sends `request(n)`.
    private func drive(_ clients: [GRPCClient], seconds: Int, metadata: [(String, String)],
                       request: @escaping @Sendable (Int) -> (String, [UInt8])) async throws -> Row {
        let counter = CallCounter()
        let streams = streams
        let deadline = ContinuousClock.now + .seconds(seconds)
        let started = ContinuousClock.now
        let results = await withTaskGroup(of: ([Double], Int).self) { group in
            for client in clients {
                for _ in 0..<streams {
                    group.addTask {
                        var latencies: [Double] = []
                        var errors = 0
                        while ContinuousClock.now < deadline {
                            let n = counter.next()
                            let (path, message) = request(n)
                            let begin = ContinuousClock.now
                            let reply = await client.call(path, message: message, metadata: metadata)
                            let elapsed = ContinuousClock.now - begin
                            latencies.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
                            if reply.status.code != 0 { errors += 1 }
                        }
                        return (latencies, errors)
                    }
                }
            }
            var all: [([Double], Int)] = []
            for await result in group { all.append(result) }
            return all
        }
        let elapsed = ContinuousClock.now - started
        let total = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let latencies = results.flatMap(\.0).sorted()
        func percentile(_ p: Double) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        return Row(name: "", calls: latencies.count, rate: Double(latencies.count) / total, p50: percentile(0.5), p99: percentile(0.99),
                   errors: results.map(\.1).reduce(0, +), responseBytes: 0)
    }

    /// h2load's summary: rate from "finished in", calls and failures from "requests:", mean and max
    /// from "time for request:" (h2load reports no percentiles). h2load sees HTTP status only, so
    /// the gRPC status of the calls is checked by the probe before the run.
    static func parseH2load(_ output: String, name: String, responseBytes: Int) -> Row {
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        func words(_ prefix: String) -> [String] {
            (lines.first { $0.hasPrefix(prefix) } ?? "").dropFirst(prefix.count).split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        }
        let finished = words("finished in")
        let rate = finished.firstIndex(of: "req/s").flatMap { $0 > 0 ? Double(finished[$0 - 1]) : nil } ?? 0
        let requests = words("requests:")
        func count(_ label: String) -> Int { requests.firstIndex(of: label).flatMap { $0 > 0 ? Int(requests[$0 - 1]) : nil } ?? 0 }
        let times = words("time for request:")
        return Row(name: name, calls: count("succeeded"), rate: rate, p50: times.count > 2 ? milliseconds(times[2]) : 0,
                   p99: times.count > 1 ? milliseconds(times[1]) : 0, errors: count("failed") + count("errored") + count("timeout"), responseBytes: responseBytes)
    }

    /// wrk's latency text (`1.23ms`, `850.00us`, `1.02s`) in milliseconds.
    static func milliseconds(_ text: String) -> Double {
        if text.hasSuffix("ms") { return Double(text.dropLast(2)) ?? 0 }
        if text.hasSuffix("us") { return (Double(text.dropLast(2)) ?? 0) / 1000 }
        if text.hasSuffix("s") { return (Double(text.dropLast(1)) ?? 0) * 1000 }
        return 0
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
}

/// The number of the next call, shared by the load tasks.
private final class CallCounter: Sendable {
    private let value = Atomic<Int>(0)

    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
}
