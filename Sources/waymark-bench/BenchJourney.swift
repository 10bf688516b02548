import API
import EventStore
import Foundation
import Geo
import HTTP
import Journey
import JSON
import Postgres
import Projections
import Synchronization
import WaymarkCLI

/// The rider side of `waymark bench http`: how long a location report takes to reach riders.
///
/// Propagation: `probeTrips` riders hold SSE streams on their trips (each on its own vehicle)
/// while `wrk` drives UpdateVehicle location reports at `targetRate` over the other vehicles
/// (most of them serving trips too, so their views re-render). A probe thread reports a new
/// position of one probe vehicle every 20 ms, round robin, on one keep-alive connection, and notes
/// when each report is acknowledged; a reader thread per stream notes when the view carrying that
/// position arrives. Propagation is arrival minus acknowledgement (an event that arrives before
/// the acknowledgement counts as 0 and is counted as such).
struct BenchJourney {
    let port: UInt16
    let token: String
    let vehicles: Int
    let seconds: Int
    let connections: Int
    let targetRate: Int
    let logger: Logger
    /// The server's projection runners, whose stage timings are logged for the propagation case.
    var runners: [ProjectionRunner] = []
    /// The server's event store, whose slow append groups are logged with the slowest probes.
    var store: EventStore? = nil

    static let probeTrips = 10
    /// Trips seeded beyond the probe ones (one per vehicle), so the load re-renders views too.
    static let loadTrips = 90

    /// What a propagation run measured.
    struct Propagation: Sendable {
        var targetRate: Int
        /// Reports per second acknowledged during the run (wrk's load plus the probe's).
        var achievedRate: Double
        var probeReports: Int
        var matched: Int
        var beforeAck: Int
        var p50: Double
        var p99: Double
        var max: Double
        var loadErrors: Int
        /// Probe reports seen only through a later position's view (see `ProbeLatencies`).
        var superseded = 0
        /// Reports per `vehicles:reportLocations` request when batches drove the run; nil when UpdateVehicle did.
        var reportsPerRequest: Int? = nil
        /// Batch requests posted (batch-driven runs).
        var requests = 0
    }

    /// Trips t-1... on v-1... (t-0 on v-0 is seeded by `BenchHTTP`).
    func seed(_ api: WaymarkAPI) async throws {
        let context = CommandContext(caller: Principal(role: .server, provider: "bench"), requestId: "bench-seed-journeys")
        let count = min(vehicles, Self.probeTrips + Self.loadTrips)
        for n in 1..<count {
            let trip = Trip.CreateTrip(tripId: "t-\(n)", tripType: .exclusive,
                                       pickup: TerminalLocation(point: .init(uncheckedLatitude: 52.51, longitude: 13.41)),
                                       dropoff: TerminalLocation(point: .init(uncheckedLatitude: 52.53, longitude: 13.38)))
            _ = try await api.trips.create(.init(provider: "bench", create: trip, vehicleId: "v-\(n)"), context: context)
        }
    }

    func propagation(wrk: String) async throws -> Propagation {
        let streams = try (0..<Self.probeTrips).map { n in try EventTap(port: port, path: "/v1/providers/bench/trips/t-\(n)/journey:stream", token: token) }
        defer { for stream in streams { stream.stop() } }
        for stream in streams { stream.start() }
        let script = NSTemporaryDirectory() + "waymark-bench-load-\(UUID().uuidString).lua"
        try Self.loadScript(token: token, firstVehicle: Self.probeTrips, vehicles: vehicles, connections: connections, rate: targetRate)
            .write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let loadSeconds = seconds + 2
        let url = "http://127.0.0.1:\(port)"
        let connections = self.connections
        let stagesBefore = stageTimings()
        async let load = BenchHTTP.offThread { try Subprocess.run(wrk, ["-t1", "-c\(connections)", "-d\(loadSeconds)s", "-s", script, url]) }
        try await Task.sleep(for: .seconds(1))
        let probe = try await BenchHTTP.offThread { [port, token, seconds] in try Probe(port: port, token: token).run(seconds: seconds, vehicles: Self.probeTrips) }
        let outcome = try await load
        guard outcome.status == 0 else { throw UsageError("wrk (load) failed: \(outcome.output)") }
        try await Task.sleep(for: .seconds(1))  // the last events on their way
        let loadRate = BenchHTTP.parse(name: "load", wrk: outcome.stdout, served: []).rate
        let loadErrors = BenchHTTP.parse(name: "load", wrk: outcome.stdout, served: []).errors

        let seen = ProbeLatencies(probe.reports, streams: streams)
        logStages(since: stagesBefore)
        let probeRate = Double(probe.reports.count) / Double(seconds)
        logger.info("propagation: \(seen.sorted.count) of \(probe.reports.count) probe reports seen on the streams (\(seen.superseded) through a later view); load \(String(format: "%.0f", loadRate)) reports/s")
        return Propagation(targetRate: targetRate, achievedRate: loadRate + probeRate, probeReports: probe.reports.count, matched: seen.sorted.count,
                           beforeAck: seen.beforeAck, p50: seen.percentile(0.5), p99: seen.percentile(0.99), max: seen.sorted.last ?? 0, loadErrors: loadErrors,
                           superseded: seen.superseded)
    }

    /// Every runner's stage timings, to diff against after a case (`logStages`).
    func stageTimings() -> [String: ProjectionRunner.Stages] {
        Dictionary(uniqueKeysWithValues: runners.map { ($0.name, $0.status.stages) })
    }

    /// Logs the slowest probe report with what was slow around it: the runners' slow batches and
    /// the event store's slow append groups that ended in `[acknowledged - 1 s, arrival + 0.1 s]`.
    /// `wallAt` turns a monotonic instant into wall-clock microseconds.
    func logSlowest(_ seen: ProbeLatencies, wallAt: (ContinuousClock.Instant) -> Int64) {
        func ms(_ micros: Int64) -> String { String(format: "%.1f", Double(micros) / 1000) }
        if let (report, seconds) = seen.slowest {
            let acknowledged = wallAt(report.acknowledged)
            let arrived = acknowledged + Int64(seconds * 1_000_000)
            let window = (acknowledged - 1_000_000)...(arrived + 100_000)
            var lines = ["probe v-\(report.vehicle): \(String(format: "%.1f", seconds * 1000)) ms from its acknowledgement to its view "
                         + "(acknowledged at \(Self.wallText(acknowledged)))"]
            for runner in runners {
                // The settling runners are slow by design; only their long transactions hold the feed back.
                for batch in runner.status.slowBatches where window.contains(batch.committedAtMicros)
                    && (runner.name == "journey" || batch.applyMicros + batch.commitMicros >= 50_000) {
                    lines.append("  \(runner.name) batch committed at \(Self.wallText(batch.committedAtMicros)) "
                                 + "(\(ms(batch.committedAtMicros - acknowledged)) ms after the acknowledgement): \(batch.summary)")
                }
            }
            for group in store?.slowAppendGroups ?? [] where window.contains(group.endedAtMicros) {
                lines.append("  append group of \(group.events) events took \(ms(group.endedAtMicros - group.startedAtMicros)) ms, "
                             + "ended at \(Self.wallText(group.endedAtMicros)) (\(ms(group.endedAtMicros - acknowledged)) ms after the acknowledgement)")
            }
            logger.info(lines.joined(separator: "\n"))
        }
    }

    /// Wall-clock microseconds as `HH:MM:SS.mmm` UTC.
    static func wallText(_ micros: Int64) -> String {
        let seconds = micros / 1_000_000
        return String(format: "%02d:%02d:%02d.%03d", (seconds / 3600) % 24, (seconds / 60) % 60, seconds % 60, (micros / 1000) % 1000)
    }

    /// Logs where each runner's time went since `before`.
    func logStages(since before: [String: ProjectionRunner.Stages]) {
        for runner in runners {
            let stages = runner.status.stages.since(before[runner.name] ?? .init())
            logger.info("projection \(runner.name) during the case: \(stages.summary)")
        }
    }

    static func seconds(_ from: ContinuousClock.Instant, _ to: ContinuousClock.Instant) -> Double {
        let elapsed = to - from
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// A wrk script: location reports over vehicles `firstVehicle`..<`vehicles`, paced to about `rate`
    /// per second over all connections (each connection waits `connections / rate` between requests).
    static func loadScript(token: String, firstVehicle: Int, vehicles: Int, connections: Int, rate: Int) -> String {
        let spread = max(1, vehicles - firstVehicle)
        let pause = max(0, Int((Double(connections) * 1000 / Double(max(1, rate))).rounded()))
        return """
            local n = 0
            wrk.method = "PUT"
            wrk.headers["Content-Type"] = "application/json"
            wrk.headers["Authorization"] = "Bearer \(token)"
            request = function()
              n = n + 1
              local body = '{"lastLocation":{"location":{"latitude":' .. string.format("%.6f", 52.5 + (n % 997) * 0.00001) .. ',"longitude":13.4},"heading":90}}'
              return wrk.format(nil, "/v1/providers/bench/vehicles/v-" .. (\(firstVehicle) + n % \(spread)) .. "?updateMask=lastLocation", nil, body)
            end
            delay = function()
              return \(pause)
            end
            """
    }
}

/// One blocking HTTP/1.1 connection to the server under test (bench only).
///
/// `@unchecked Sendable`: used by one thread at a time (created on one, then handed to its reader thread).
final class BenchConnection: @unchecked Sendable {
    let socket: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16) throws {
        socket = Glibc.socket(AF_INET, SocketConstants.stream, 0)
        guard socket >= 0 else { throw UsageError("bench http: no socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw UsageError("bench http: cannot connect to 127.0.0.1:\(port)")
        }
        var one: Int32 = 1
        _ = setsockopt(socket, SocketConstants.tcp, TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { Glibc.close(socket) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, SocketConstants.noSignal) }
            guard sent > 0 else { throw UsageError("bench http: send failed (errno \(errno))") }
            offset += sent
        }
    }

    /// More bytes into the buffer; false at end of stream or on error.
    func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(socket, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer += chunk[..<count]
        return true
    }

    /// Bytes up to (not including) `separator`, consumed with it; nil at end of stream.
    func read(until separator: [UInt8]) -> [UInt8]? {
        while true {
            if let end = Self.find(separator, in: buffer) {
                let head = Array(buffer[..<end])
                buffer.removeFirst(end + separator.count)
                return head
            }
            guard fill() else { return nil }
        }
    }

    func read(count: Int) -> [UInt8]? {
        while buffer.count < count { guard fill() else { return nil } }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// One whole response with a Content-Length body: its status.
    func readResponse() throws -> Int {
        try readResponseWithBody().status
    }

    /// One whole response with a Content-Length body: its status and body.
    func readResponseWithBody() throws -> (status: Int, body: [UInt8]) {
        guard let head = read(until: Array("\r\n\r\n".utf8)) else { throw UsageError("bench http: the server closed the connection") }
        let text = String(decoding: head, as: UTF8.self)
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        let length = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        guard let body = read(count: length) else { throw UsageError("bench http: short response body") }
        return (status, body)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = 0
        let first = needle[0]
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// An SSE stream read by a thread of its own, noting when each vehicle position arrives.
final class EventTap: Sendable {
    private let connection: BenchConnection
    private let arrivals = Mutex<[Double: ContinuousClock.Instant]>([:])
    private let done = DispatchSemaphore(value: 0)

    init(port: UInt16, path: String, token: String) throws {
        connection = try BenchConnection(port: port)
        try connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nAccept: text/event-stream\r\n\r\n")
        guard let head = connection.read(until: Array("\r\n\r\n".utf8)), String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 200") else {
            throw UsageError("bench http: could not open \(path)")
        }
    }

    func start() {
        let connection = self.connection
        Thread { [self] in
            // Chunked framing: a size line, the chunk, CRLF; events may span chunks.
            var body: [UInt8] = []
            while let sizeLine = connection.read(until: [13, 10]) {
                guard let size = Int(String(decoding: sizeLine, as: UTF8.self), radix: 16), size > 0,
                      let chunk = connection.read(count: size + 2) else { break }
                body += chunk.dropLast(2)
                while let end = BenchConnection.find([10, 10], in: body) {
                    let event = Array(body[..<end])
                    body.removeFirst(end + 2)
                    note(event)
                }
            }
            done.signal()
        }.start()
    }

    /// Records the vehicle marker's latitude of a view event with its arrival time.
    private func note(_ event: [UInt8]) {
        let now = ContinuousClock.now
        guard let dataStart = BenchConnection.find(Array("data: ".utf8), in: event),
              let view = try? JSONValue.parse(Array(event[(dataStart + 6)...])),
              let latitude = view["markers"]?.arrayValue?.first(where: { $0["type"]?.stringValue == "TRIP_VEHICLE" })?["position"]?["latitude"]?.doubleValue
        else { return }
        arrivals.withLock { arrivals in
            if arrivals[latitude] == nil { arrivals[latitude] = now }
        }
    }

    func arrival(ofLatitude latitude: Double) -> ContinuousClock.Instant? {
        arrivals.withLock { $0[(latitude * 1e7).rounded() / 1e7] }
    }

    /// A lookup of the earliest arrival of a view with a latitude at or above the one asked for
    /// (nil when none arrived), over what has arrived so far.
    func firstArrivalAtOrAbove() -> (Double) -> ContinuousClock.Instant? {
        let byLatitude = arrivals.withLock { $0 }.sorted { $0.key < $1.key }
        // earliest[i]: the earliest arrival among byLatitude[i...].
        var earliest = byLatitude.map(\.value)
        if earliest.count > 1 {
            for i in stride(from: earliest.count - 2, through: 0, by: -1) { earliest[i] = min(earliest[i], earliest[i + 1]) }
        }
        return { latitude in
            // The first index whose latitude is at or above `latitude` (within half a 1e-7 step).
            var low = 0, high = byLatitude.count
            while low < high {
                let middle = (low + high) / 2
                if byLatitude[middle].key < latitude - 0.5e-7 { low = middle + 1 } else { high = middle }
            }
            return low < earliest.count ? earliest[low] : nil
        }
    }

    func stop() {
        shutdown(connection.socket, SocketConstants.shutReadWrite)
        _ = done.wait(timeout: .now() + 2)
    }
}

/// Reports probe positions and notes when each is acknowledged.
struct Probe {
    struct Report {
        var vehicle: Int
        var latitude: Double
        var acknowledged: ContinuousClock.Instant
    }

    let port: UInt16
    let token: String

    /// Every 20 ms a new position of vehicle `n % vehicles`, for `seconds`.
    func run(seconds: Int, vehicles: Int) throws -> (reports: [Report], failures: Int) {
        let connection = try BenchConnection(port: port)
        var reports: [Report] = []
        var failures = 0
        let end = ContinuousClock.now + .seconds(seconds)
        var next = ContinuousClock.now
        var n = 0
        while ContinuousClock.now < end {
            let vehicle = n % vehicles
            let latitude = ((52.52 + Double(n + 1) * 0.000001) * 1e7).rounded() / 1e7
            let body = #"{"lastLocation":{"location":{"latitude":\#(String(format: "%.7f", latitude)),"longitude":13.405},"heading":90}}"#
            try connection.send("PUT /v1/providers/bench/vehicles/v-\(vehicle)?updateMask=lastLocation HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                + "Authorization: Bearer \(token)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let status = try connection.readResponse()
            let acknowledged = ContinuousClock.now
            if status == 200 {
                reports.append(Report(vehicle: vehicle, latitude: latitude, acknowledged: acknowledged))
            } else {
                failures += 1
            }
            n += 1
            next = next + .milliseconds(20)
            let wait = next - ContinuousClock.now
            if wait > .zero { Thread.sleep(forTimeInterval: BenchJourney.seconds(.now, .now + wait)) }
        }
        return (reports, failures)
    }
}

/// Acknowledgement-to-arrival times of probe reports on the riders' streams (0 for an event that
/// arrived first), for both propagation cases.
///
/// A probe vehicle's positions only move north (each report's latitude is above the last), so a
/// view with a later position also shows the rider everything the earlier one would have: when
/// the journey projection applies two reports of a vehicle in one batch, only the later view is
/// pushed, and the earlier report counts as seen when that view arrives ("superseded"). A report
/// with neither its own view nor a later one on the stream is not seen (lost, or still on its way
/// at the end of the run).
struct ProbeLatencies {
    /// Seconds, ascending; reports never seen on a stream are left out.
    let sorted: [Double]
    /// Reports whose event reached the stream before their acknowledgement.
    let beforeAck: Int
    /// Reports seen only through a later position's view.
    let superseded: Int
    /// The slowest report seen, with its seconds.
    let slowest: (Probe.Report, Double)?

    init(_ reports: [Probe.Report], streams: [EventTap]) {
        var latencies: [Double] = []
        var beforeAck = 0
        var superseded = 0
        var slowest: (Probe.Report, Double)?
        let firstAtOrAbove = streams.map { $0.firstArrivalAtOrAbove() }
        for report in reports {
            let latitude = (report.latitude * 1e7).rounded() / 1e7
            let own = streams[report.vehicle].arrival(ofLatitude: latitude)
            guard let arrived = own ?? firstAtOrAbove[report.vehicle](latitude) else { continue }
            if own == nil { superseded += 1 }
            let seconds = BenchJourney.seconds(report.acknowledged, arrived)
            if seconds < 0 { beforeAck += 1 }
            latencies.append(max(0, seconds))
            if seconds > slowest?.1 ?? -.infinity { slowest = (report, seconds) }
        }
        self.slowest = slowest
        sorted = latencies.sorted()
        self.beforeAck = beforeAck
        self.superseded = superseded
    }

    /// The nearest-rank percentile `p` (0...1); 0 when nothing was seen.
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
    }
}
