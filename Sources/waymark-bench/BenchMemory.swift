import API
import Foundation
import HTTP
import JSON
import Postgres
import Synchronization
import WaymarkCLI

/// `waymark bench memory`: the resident memory of a `waymark serve` process holding a city's
/// fleet and a crowd of riders' streams.
///
/// Starts `waymark serve` as a child process (so the figures are the server's alone, read from
/// `/proc/<pid>/status`: `VmRSS` now, `VmHWM` the peak so far) against a scratch database, then
/// over plain HTTP: registers `vehicles` vehicles and `trips` trips (trip t-N on vehicle v-N), and
/// sends `rounds` batches of positions (`vehicles:reportLocations`, 500 reports a request) for the
/// trip vehicles so every journey view exists; opens `streams` SSE journey streams with consumer
/// tokens (riders of t-0...), and for `seconds` seconds drives location reports of the trip
/// vehicles so the streams carry events. The target: the server stays below 300 MB.
struct BenchMemory {
    static let databaseName = "waymark_bench_memory"
    static let targetBytes = 300 * 1_000_000
    static let reportsPerRequest = 500
    static let seedConnections = 16

    /// What the command line asked for, checked before anything starts.
    struct Options: Equatable {
        var vehicles = 50_000
        var trips = 10_000
        var streams = 2_000
        var seconds = 10
        /// Location reports per second while the streams are open.
        var reportRate = 2_500
        /// `MALLOC_ARENA_MAX` for the server process, when given.
        var mallocArenaMax: Int?

        init() {}

        init(_ flags: Flags) throws {
            vehicles = try flags.int("vehicles", default: vehicles)
            trips = try flags.int("trips", default: trips)
            streams = try flags.int("streams", default: streams)
            seconds = try flags.int("seconds", default: seconds)
            reportRate = try flags.int("report-rate", default: reportRate)
            if flags.value("malloc-arena-max") != nil { mallocArenaMax = try flags.int("malloc-arena-max", default: 1) }
            guard trips <= vehicles else { throw UsageError("--trips (\(trips)) must not exceed --vehicles (\(vehicles)): each trip has a vehicle of its own") }
            guard streams <= trips else { throw UsageError("--streams (\(streams)) must not exceed --trips (\(trips)): each stream follows a trip of its own") }
        }
    }

    let url: String
    let options: Options
    let logger: Logger
    /// Server settings passed on from the bench's own environment (`WAYMARK_AGGREGATE_CACHE`,
    /// `WAYMARK_PROJECTION_SETTLE_MS`, ...), so their effect on memory can be measured.
    var passedOn: [String: String] = [:]

    /// The settings variables `passedOn` takes from an environment: the server's memory and
    /// projection settings (the rest of the server's environment the bench sets itself).
    static let passedOnNames = ["WAYMARK_AGGREGATE_CACHE", "WAYMARK_CONNECTION_MEMORY_BYTES", "WAYMARK_MALLOC_TRIM_SECONDS",
                                "WAYMARK_PROJECTION_SETTLE_MS", "WAYMARK_FEED_CACHE_EVENTS", "WAYMARK_PROJECTION_RECORDS", "WAYMARK_PROJECTION_BATCH", "WAYMARK_PROJECTION_WRITE_BEHIND_MS", "WAYMARK_PROJECTION_SNAPSHOT_MS", "WAYMARK_PROJECTION_SNAPSHOT_MB", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_CONF"]

    /// One reading of the server's memory.
    struct Reading {
        var stage: String
        var rssBytes: Int
        var peakBytes: Int
        var detail: String
    }

    func run(format: BenchTable.Format) async throws -> String {
        let client = StreamLimits.raiseOpenFileLimit()
        guard client.limit >= UInt64(options.streams + 64) else {
            throw UsageError("bench memory needs \(options.streams + 64) open files for \(options.streams) streams; the limit is \(client.limit) (ulimit -n)")
        }
        let executable = try SiblingExecutable.path("waymark")
        let secret = "bench-memory-\(UUID().uuidString)"
        var environment = ["DATABASE_URL": url, "WAYMARK_JWT_SECRET": secret, "WAYMARK_HTTP_PORT": "0", "WAYMARK_GRPC_PORT": "off",
                           "WAYMARK_CONSISTENCY_TIMEOUT_SECONDS": "60", "WAYMARK_LOG_LEVEL": "info",
                           // Thousands of riders from this one address with one token: the per-token and per-address caps off.
                           "WAYMARK_STREAMS_PER_TOKEN": "0", "WAYMARK_STREAMS_PER_ADDRESS": "0", "WAYMARK_HTTP_MAX_CONNECTIONS_PER_ADDRESS": "0"]
        if let arenas = options.mallocArenaMax { environment["MALLOC_ARENA_MAX"] = String(arenas) }
        environment.merge(passedOn) { _, passed in passed }
        let server = try Subprocess.spawn(executable, ["serve"], environment: environment)
        defer { server.cleanUp() }
        do {
            let port = try await Self.waitForPort(server)
            let readings = try await measure(pid: server.pid, port: port, secret: Array(secret.utf8))
            _ = server.stop(signal: SIGTERM)
            return render(readings, format: format)
        } catch {
            _ = server.stop(signal: SIGTERM)
            logger.error("server log (last lines): \(server.stderr.split(separator: "\n").suffix(10).joined(separator: "\n"))")
            throw error
        }
    }

    private static func waitForPort(_ server: Subprocess.Running) async throws -> UInt16 {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let log = server.stderr
            if let range = log.range(of: "listening on http://") {
                let address = log[range.upperBound...].prefix { !$0.isWhitespace && $0 != "\"" }
                if let port = address.split(separator: ":").last.flatMap({ UInt16($0) }) { return port }
            }
            guard kill(server.pid, 0) == 0 else { throw BenchFailure("waymark serve exited before listening:\n\(log)") }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchFailure("waymark serve did not start listening within 60 s")
    }

    private func measure(pid: pid_t, port: UInt16, secret: [UInt8]) async throws -> [Reading] {
        let token = Authenticator.mint(secret: secret, role: .server, provider: "bench", issuedAt: Int64(Date().timeIntervalSince1970), ttl: 3600)
        var readings: [Reading] = []
        func record(_ stage: String, _ detail: String) throws {
            let memory = try Self.memory(pid: pid)
            readings.append(Reading(stage: stage, rssBytes: memory.rss, peakBytes: memory.peak, detail: detail))
            logger.info("\(stage): VmRSS \(Self.megabytes(memory.rss)), VmHWM \(Self.megabytes(memory.peak))")
        }
        try await Task.sleep(for: .seconds(1))
        try record("started, empty database", "-")

        let options = self.options
        var started = ContinuousClock.now
        try await Self.parallel(count: options.vehicles, port: port) { connection, n in
            let body = #"{"vehicleState":"ONLINE","supportedTripTypes":["EXCLUSIVE"],"maximumCapacity":4,"vehicleType":{"category":"AUTO"},"lastLocation":{"location":{"latitude":\#(Self.latitude(n, 0)),"longitude":\#(Self.longitude(n))}}}"#
            try connection.expect(200, "POST", "/v1/providers/bench/vehicles?vehicleId=v-\(n)", token: token, body: body)
        }
        let vehicleSeconds = BenchJourney.seconds(started, .now)
        started = ContinuousClock.now
        try await Self.parallel(count: options.trips, port: port) { connection, n in
            let body = #"{"tripType":"EXCLUSIVE","vehicleId":"v-\#(n)","pickupPoint":{"point":{"latitude":52.51,"longitude":13.41}},"dropoffPoint":{"point":{"latitude":52.53,"longitude":13.38}}}"#
            try connection.expect(200, "POST", "/v1/providers/bench/trips?tripId=t-\(n)", token: token, body: body)
        }
        let tripSeconds = BenchJourney.seconds(started, .now)
        started = ContinuousClock.now
        let rounds = 3
        let seedReporter = try BenchConnection(port: port)
        for round in 1...rounds {
            for first in stride(from: 0, to: options.trips, by: Self.reportsPerRequest) {
                try seedReporter.reportLocations(Array(first..<min(options.trips, first + Self.reportsPerRequest)), round: round, token: token)
            }
        }
        // Ingest does not wait for the read models: wait until the last trip's view shows the last round.
        try Self.waitForView(port: port, trip: options.trips - 1, latitude: Self.latitude(options.trips - 1, rounds), token: token)
        let reportSeconds = BenchJourney.seconds(started, .now)
        logger.info(String(format: "seeded %d vehicles in %.1f s, %d trips in %.1f s, %d rounds of positions in %.1f s",
                           options.vehicles, vehicleSeconds, options.trips, tripSeconds, rounds, reportSeconds))
        try await Task.sleep(for: .seconds(2))
        try record("\(BenchTable.grouped(options.vehicles)) vehicles, \(BenchTable.grouped(options.trips)) trips with positions",
                 String(format: "seeded over HTTP: CreateVehicle %.0f/s, CreateTrip %.0f/s (%d connections); %d rounds of reportLocations",
                        Double(options.vehicles) / vehicleSeconds, Double(options.trips) / tripSeconds, Self.seedConnections, rounds))

        let crowd = try StreamCrowd(port: port, count: options.streams) { n in
            let rider = Authenticator.mint(secret: secret, role: .consumer, provider: "bench", tripId: "t-\(n)",
                                           issuedAt: Int64(Date().timeIntervalSince1970), ttl: 3600)
            return "GET /v1/providers/bench/trips/t-\(n)/journey:stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(rider)\r\nAccept: text/event-stream\r\n\r\n"
        }
        defer { crowd.stop() }
        crowd.start()
        try await Task.sleep(for: .seconds(2))
        let opened = crowd.snapshot()
        guard opened.ok == options.streams else {
            throw BenchFailure("\(opened.ok) of \(options.streams) streams were answered 200 (\(opened.failed) other answers, \(opened.closed) closed)")
        }
        try record("+ \(BenchTable.grouped(options.streams)) SSE journey streams open, idle", "\(BenchTable.grouped(opened.events)) events received so far")

        // Drive positions of the streamed trips' vehicles first, then of the other trip vehicles.
        let driver = try BenchConnection(port: port)
        let requestsPerSecond = max(1, options.reportRate / Self.reportsPerRequest)
        let end = ContinuousClock.now + .seconds(options.seconds)
        var next = ContinuousClock.now
        var sent = 0, cursor = 0, round = rounds
        var peakSample = 0
        while ContinuousClock.now < end {
            if cursor >= options.trips { cursor = 0 }
            if cursor == 0 { round += 1 }
            let batch = Array(cursor..<min(options.trips, cursor + Self.reportsPerRequest))
            cursor += batch.count
            try driver.reportLocations(batch, round: round, token: token)
            sent += batch.count
            peakSample = max(peakSample, (try? Self.memory(pid: pid).rss) ?? 0)
            next = next + .milliseconds(1000 / requestsPerSecond)
            let wait = next - ContinuousClock.now
            if wait > .zero { try await Task.sleep(for: wait) }
        }
        try await Task.sleep(for: .seconds(2))  // the last views on their way
        let driven = crowd.snapshot()
        try record("+ location reports while the streams are open",
                 "\(BenchTable.grouped(sent)) reports in \(options.seconds) s; \(BenchTable.grouped(driven.events - opened.events)) events reached the streams; \(driven.ok - driven.closed) streams still open; highest VmRSS sampled \(Self.megabytes(peakSample))")
        return readings
    }

    /// Runs `body` for 0..<count over `seedConnections` keep-alive connections, each on a thread of its own.
    private static func parallel(count: Int, port: UInt16, _ body: @escaping @Sendable (BenchConnection, Int) throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<seedConnections {
                group.addTask {
                    try await BenchHTTP.offThread {
                        let connection = try BenchConnection(port: port)
                        for n in stride(from: lane, to: count, by: seedConnections) { try body(connection, n) }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    private static func waitForView(port: UInt16, trip: Int, latitude: Double, token: String) throws {
        let connection = try BenchConnection(port: port)
        let deadline = ContinuousClock.now + .seconds(300)
        while ContinuousClock.now < deadline {
            let (status, body) = try connection.request("GET", "/v1/providers/bench/trips/t-\(trip)/journey", token: token, body: nil)
            if status == 200, let view = try? JSONValue.parse(body),
               view["markers"]?.arrayValue?.first(where: { $0["type"]?.stringValue == "TRIP_VEHICLE" })?["position"]?["latitude"]?.doubleValue == latitude {
                return
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw BenchFailure("the journey view of t-\(trip) did not show the seeded position within 300 s")
    }

    /// A position of vehicle `n` in round `round` (each round moves it north a little).
    static func latitude(_ n: Int, _ round: Int) -> Double {
        ((52.4 + Double(n % 1000) * 0.0002 + Double(round) * 0.00001) * 1e7).rounded() / 1e7
    }

    static func longitude(_ n: Int) -> Double {
        ((13.2 + Double(n / 1000) * 0.002) * 1e7).rounded() / 1e7
    }

    /// `VmRSS` and `VmHWM` of a process, in bytes.
    static func memory(pid: pid_t) throws -> (rss: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
            throw BenchFailure("cannot read /proc/\(pid)/status (did the server exit?)")
        }
        return (field("VmRSS:", in: status), field("VmHWM:", in: status))
    }

    /// A `kB` field of `/proc/<pid>/status`, in bytes (0 when absent).
    static func field(_ name: String, in status: String) -> Int {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return 0 }
        let number = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) } ?? 0
        return number * 1024
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }

    func render(_ readings: [Reading], format: BenchTable.Format) -> String {
        let target = Self.targetBytes
        let cells = readings.map { r in
            [r.stage, Self.megabytes(r.rssBytes), Self.megabytes(r.peakBytes), r.detail]
        }
        let peak = readings.map(\.peakBytes).max() ?? 0
        let last = readings.last?.rssBytes ?? 0
        let met = peak < target
        let notes = [
            "target: the server below \(Self.megabytes(target)) with \(BenchTable.grouped(options.vehicles)) vehicles, \(BenchTable.grouped(options.trips)) active trips and \(BenchTable.grouped(options.streams)) streams: "
                + "\(met ? "met" : "NOT met") (peak VmHWM \(Self.megabytes(peak)), VmRSS at the end \(Self.megabytes(last)))",
            "server: `waymark serve` as a child process (2 MHD threads, projection runners with the fleet and journey mirrors), figures from /proc/<pid>/status (VmRSS: resident now; VmHWM: the highest resident so far)"
                + "; allocator: \(ProcessAllocator.description) (this binary's, so the server's too)"
                + (options.mallocArenaMax.map { "; MALLOC_ARENA_MAX=\($0) (read by glibc's malloc only)" } ?? "")
                + (passedOn.isEmpty ? "" : "; " + passedOn.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")),
            "load: vehicles and trips created one request each over \(Self.seedConnections) keep-alive connections; positions by vehicles:reportLocations, \(Self.reportsPerRequest) reports a request, paced at \(BenchTable.grouped(options.reportRate)) reports/s while the streams are open; each stream a rider (consumer token) of its own trip",
        ]
        return BenchTable.render(header: ["stage", "VmRSS", "VmHWM (peak)", "detail"], cells: cells, notes: notes, format: format)
    }
}

extension BenchConnection {
    /// Sends one request and reads its answer (Content-Length framed).
    func request(_ method: String, _ path: String, token: String, body: String?) throws -> (status: Int, body: [UInt8]) {
        let payload = body ?? ""
        try send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                 + (body == nil ? "" : "Content-Type: application/json\r\nContent-Length: \(payload.utf8.count)\r\n") + "\r\n" + payload)
        return try readResponseWithBody()
    }

    func expect(_ status: Int, _ method: String, _ path: String, token: String, body: String?) throws {
        let answer = try request(method, path, token: token, body: body)
        guard answer.status == status else {
            throw BenchFailure("\(method) \(path): \(answer.status) \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
        }
    }

    /// One `vehicles:reportLocations` request with a position for each vehicle `v-N` of `vehicles`; all must be accepted.
    func reportLocations(_ vehicles: [Int], round: Int, token: String) throws {
        let reports = vehicles.map { n in
            #"{"vehicleId":"v-\#(n)","location":{"location":{"latitude":\#(BenchMemory.latitude(n, round)),"longitude":\#(BenchMemory.longitude(n))},"heading":90}}"#
        }
        let answer = try request("POST", "/v1/providers/bench/vehicles:reportLocations", token: token, body: #"{"reports":["# + reports.joined(separator: ",") + "]}")
        let text = String(decoding: answer.body, as: UTF8.self)
        let accepted = text.components(separatedBy: "\"ACCEPTED\"").count - 1
        guard answer.status == 200, accepted == vehicles.count else {
            throw BenchFailure("reportLocations: \(answer.status), \(accepted) of \(vehicles.count) accepted: \(text.prefix(300))")
        }
    }
}

/// Many SSE connections read by one thread with `poll`: counts answers and events, keeps nothing.
///
/// `@unchecked Sendable`: the sockets are written only by `init`; the counters are behind `state`.
final class StreamCrowd: @unchecked Sendable {
    struct Counts {
        var ok = 0
        var failed = 0
        var closed = 0
        var events = 0
    }

    private let sockets: [BenchConnection]
    private let state = Mutex(Counts())
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(port: UInt16, count: Int, request: (Int) -> String) throws {
        var sockets: [BenchConnection] = []
        sockets.reserveCapacity(count)
        for n in 0..<count {
            let connection = try BenchConnection(port: port)
            try connection.send(request(n))
            sockets.append(connection)
        }
        self.sockets = sockets
    }

    func start() {
        Thread { [self] in
            var fds = sockets.map { pollfd(fd: $0.socket, events: Int16(POLLIN), revents: 0) }
            var headerSeen = [Bool](repeating: false, count: fds.count)
            var tails = [[UInt8]](repeating: [], count: fds.count)
            var chunk = [UInt8](repeating: 0, count: 65536)
            let marker = Array("data:".utf8)
            while !stopping.load(ordering: .relaxed) {
                let ready = poll(&fds, nfds_t(fds.count), 100)
                guard ready > 0 else { continue }
                for index in fds.indices where fds[index].revents != 0 && fds[index].fd >= 0 {
                    fds[index].revents = 0
                    let count = recv(fds[index].fd, &chunk, chunk.count, 0)
                    guard count > 0 else {
                        fds[index].fd = -1
                        state.withLock { $0.closed += 1 }
                        continue
                    }
                    var bytes = tails[index] + chunk[..<count]
                    if !headerSeen[index] {
                        headerSeen[index] = true
                        let ok = bytes.starts(with: Array("HTTP/1.1 200".utf8))
                        state.withLock { if ok { $0.ok += 1 } else { $0.failed += 1 } }
                    }
                    var events = 0
                    var at = 0
                    while let found = BenchConnection.find(marker, in: Array(bytes[at...])) {
                        events += 1
                        at += found + marker.count
                    }
                    bytes = Array(bytes.suffix(marker.count - 1))
                    tails[index] = bytes
                    if events > 0 { state.withLock { $0.events += events } }
                }
            }
            done.signal()
        }.start()
    }

    func snapshot() -> Counts { state.withLock { $0 } }

    func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        _ = done.wait(timeout: .now() + 2)
        for connection in sockets { shutdown(connection.socket, SocketConstants.shutReadWrite) }
    }
}
