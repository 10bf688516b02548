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

/// `waymark bench ingest`: the write path under load, each case beside its raw PostgreSQL reference.
///
/// In one run against one scratch database: the raw COPY ceiling of `bench append` and the raw
/// rate of 8 clients each inserting one row per transaction (pgbench's case (b) of limits.md);
/// then the real server stack in this process (event store, all projection runners, REST API,
/// HTTP server on a free loopback port) with `vehicles` registered vehicles, driven by `wrk`:
/// - `reportLocations` with `reportsPerRequest` reports a request, each for another vehicle and with
///   an `eventId` of its own, from `ingestConnections` connections (16 by default, as a gateway
///   with many connections sends; with 4 the server waited for commits with part of the CPU idle,
///   and requests for the same vehicles never met) — reported as events/s against the COPY
///   ceiling (target ≥ 0.40);
/// - UpdateVehicle with one `lastLocation` from `updateConnections` connections, each request for
///   another vehicle — reported as requests/s against the 8-client INSERT rate (target ≥ 1.5).
///
/// Then the same two with fewer runners, as on a node of a cluster where other nodes own the rest:
/// UpdateVehicle with only the fleet runner (its answer reads the fleet's mirror), and
/// reportLocations with none. They show what the projections on the same two cores cost each case.
///
/// Every case checks its outcome: after wrk stops and the server has answered what was in flight,
/// the event table must have grown by what the server acknowledged (500 events per 200 answer of
/// reportLocations, one per UpdateVehicle), plus at most one request per connection that was
/// carried out while wrk was closing it, or the run fails without figures.
struct BenchIngest {
    static let databaseName = "waymark_bench_ingest"
    let url: String
    let seconds: Int
    let vehicles: Int
    let reportsPerRequest: Int
    let ingestConnections: Int
    let updateConnections: Int
    let insertClients = 8
    /// The server's `WAYMARK_INGEST_MAX_BACKLOG` (`--max-backlog`).
    var maximumBacklog = IngestPacer.defaultMaximumBacklog
    /// Which cases to run (`Self.cases`); all when empty.
    var only: Set<String> = []
    /// The cases in the order they run: each one that stops runners comes after those that need them.
    static let cases = ["update", "ingest", "sustained", "update-fleet", "ingest-alone"]
    /// The sustained case's offered rates (`--offered-rates`) and seconds per rate (`--rate-seconds`).
    var offeredRates = BenchIngest.defaultOfferedRates
    var rateSeconds = 30
    let logger: Logger

    /// One wrk run as the server saw it.
    struct Measured {
        var name: String
        var requests: Int
        var rate: Double
        var events: Int
        /// The share of the reports sent that were appended (all but the REJECTED ones).
        var accepted: Double = 1
        var elapsedSeconds: Double
        var wrkP50: String
        var wrkP99: String
        var serverP50: Double
        var serverP99: Double
    }

    /// One case: what wrk runs and how the result is judged.
    struct Case {
        var key: String
        var name: String
        var ingest: Bool
        var connections: Int
        /// The projection runners that stay live for this case, all when nil; the others stop before
        /// it (as on a node where another node owns them) and stay stopped for the cases after it.
        var liveRunners: Set<String>? = nil
    }

    func run(format: BenchTable.Format) async throws -> String {
        // The sustained case posts at a fixed pace itself; the others are driven by wrk.
        let wrk = BenchHTTP.which("wrk") ?? ""
        guard !wrk.isEmpty || only == ["sustained"] else { throw UsageError("bench ingest needs wrk on PATH (make bench installs it: apt-get install wrk); --cases sustained does not") }
        let pool = ConnectionPool(.init(conninfo: url, size: 1, name: "bench-ingest"))
        do {
            let output = try await run(format: format, wrk: wrk, pool: pool)
            await pool.shutdown()
            return output
        } catch {
            await pool.shutdown()
            throw error
        }
    }

    private func run(format: BenchTable.Format, wrk: String, pool: ConnectionPool) async throws -> String {
        let version = try await pool.withConnection { connection in
            _ = try Migrator().migrate(connection)
            return try connection.query("SHOW server_version").first?.string(0) ?? "?"
        }
        let raw = BenchAppend(events: 200_000, seconds: 5, pool: pool, logger: logger)
        try await raw.createCeilingTable()
        let ceiling = try await raw.ceiling()
        logger.info("\(ceiling.name): \(BenchTable.grouped(Int(ceiling.rate.rounded()))) events/s")
        let inserts = try await raw.inserts(url: url, clients: insertClients)
        logger.info("\(inserts.name): \(BenchTable.grouped(Int(inserts.rate.rounded()))) rows/s")

        let store = EventStore(.init(conninfo: url))
        let settings = try ProjectionSettings.load(ProcessInfo.processInfo.environment)  // as `serve` has them
        // Both mirrors and the notifications, as `serve` has them: riders' journeys are answered and pushed from the journey mirror.
        let mirror = WaymarkAPI.fleetMirror(documentLimit: settings.fleetMirrorLimit)
        let journeyMirror = WaymarkAPI.journeyMirror()
        let runners = settings.runners(store: store, conninfo: url, mirrors: [FleetResourceProjection.name: mirror, JourneyViewProjection.name: journeyMirror],
                                       notifyCollections: WaymarkAPI.notifiedCollections)
        let secret = Array("bench-secret-0123456789abcdef0123".utf8)
        let api = WaymarkAPI(store: store, runners: runners, authenticator: Authenticator(hs256Secret: secret), mirror: mirror, journeyMirror: journeyMirror,
                             ingestBacklog: maximumBacklog)
        for runner in runners { runner.start() }
        let served = Mutex<[Double]?>(nil)
        let acknowledged = Atomic<Int>(0)
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 2, errorBody: RESTHandler.serverErrorBody),
                                handler: api.handler,
                                observer: { exchange in
                                    guard exchange.status == 200, exchange.completed else { return }
                                    acknowledged.add(1, ordering: .relaxed)
                                    served.withLock { $0?.append(exchange.durationSeconds) }
                                })
        try server.start()
        var live = runners
        /// Stops every live runner not named in `keep` (all of them when `keep` is empty).
        func stopRunners(except keep: Set<String> = []) async {
            for runner in live where !keep.contains(runner.name) { await runner.stop() }
            live = live.filter { keep.contains($0.name) }
        }
        var measured: [(Case, Measured)] = []
        var notes: [String] = []
        var sustainedRows: [[String]] = [], sustainedVerdicts: [String] = []
        do {
            let base = "http://127.0.0.1:\(server.port)"
            let token = Authenticator.mint(secret: secret, role: .server, provider: "bench", issuedAt: Int64(Date().timeIntervalSince1970), ttl: 3600)
            try await seed(api)
            logger.info("seeded \(vehicles) vehicles; measuring \(seconds) s per case")
            let directory = NSTemporaryDirectory() + "waymark-bench-ingest-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let ingestScript = directory + "/ingest.lua", updateScript = directory + "/update.lua"
            try BenchHTTP.updateScript(token: token, vehicles: vehicles).write(toFile: updateScript, atomically: true, encoding: .utf8)
            let reports = "reportLocations (\(reportsPerRequest) reports/request), \(ingestConnections) connections"
            let updates = "UpdateVehicle (lastLocation), \(updateConnections) connections"
            let cases = Self.cases.filter { only.isEmpty || only.contains($0) }.map { key in
                switch key {
                case "update": Case(key: key, name: updates, ingest: false, connections: updateConnections)
                case "ingest": Case(key: key, name: reports, ingest: true, connections: ingestConnections)
                case "sustained": Case(key: key, name: "sustained " + reports, ingest: true, connections: ingestConnections)
                // The fleet runner is the one an UpdateVehicle answer reads (the node's mirror of the
                // Vehicle resources); without it every update would wait for a projection nobody applies.
                case "update-fleet": Case(key: key, name: updates + ", only the fleet runner live", ingest: false, connections: updateConnections,
                                          liveRunners: [FleetResourceProjection.name])
                case "ingest-alone": Case(key: key, name: reports + ", projection runners stopped", ingest: true, connections: ingestConnections, liveRunners: [])
                default: preconditionFailure("bench ingest has no case \(key) (BenchCommand checks --cases against Self.cases)")
                }
            }
            var run = 0
            for item in cases {
                if item.key == "sustained" {
                    let result = try await sustained(port: UInt16(server.port), token: token, runners: live, store: store, pool: pool, ceiling: ceiling.rate)
                    sustainedRows += result.rows
                    sustainedVerdicts += result.verdicts
                    notes += result.notes
                    continue
                }
                if let keep = item.liveRunners {
                    await stopRunners(except: keep)
                    // The pacer follows the journey and fleet projections: with either stopped, nothing
                    // it waits for moves.
                    api.ingest.pacer?.suspend(true)
                }
                // Warm-up (caches, partitions, connections), then the measured run.
                for warmUp in [true, false] {
                    // Every run's reports get event ids no other run used.
                    run += 1
                    try Self.ingestScript(token: token, vehicles: vehicles, perRequest: reportsPerRequest, run: run)
                        .write(toFile: ingestScript, atomically: true, encoding: .utf8)
                    if !live.isEmpty { _ = try await catchUp(live, store: store) }
                    let before = try await raw.count("events")
                    let statistics = store.appendStatistics
                    await raw.checkpoint()
                    acknowledged.store(0, ordering: .relaxed)
                    served.withLock { $0 = [] }
                    let duration = warmUp ? 2 : seconds
                    let cpuBefore = BenchCPU.now()
                    let costBefore = BenchProjectionCost.now(live)
                    let pacedBefore = api.ingest.pacer?.counts
                    let wallBefore = ContinuousClock.now
                    let arguments = ["-t1", "-c\(item.connections)", "-d\(duration)s", "--latency", "--timeout", "30s", "-s", item.ingest ? ingestScript : updateScript, base]
                    let outcome = try await BenchHTTP.offThread { try Subprocess.run(wrk, arguments) }
                    guard outcome.status == 0 else { throw UsageError("wrk failed: \(outcome.output)") }
                    // Let the server answer what was in flight when wrk stopped.
                    let quiet = ContinuousClock.now + .seconds(30)
                    while server.inFlightRequests > 0 && ContinuousClock.now < quiet { try await Task.sleep(for: .milliseconds(20)) }
                    try await Task.sleep(for: .milliseconds(100))
                    let cpuAfter = BenchCPU.now()
                    let pacedAfter = api.ingest.pacer?.counts
                    let wall = ContinuousClock.now - wallBefore
                    let durations = served.withLock { list -> [Double] in defer { list = nil }; return list ?? [] }.sorted()
                    let acked = acknowledged.load(ordering: .relaxed)
                    let eventsPerRequest = item.ingest ? reportsPerRequest : 1
                    let grown = try await raw.count("events") - before
                    // Reports answered REJECTED are not appended (STALE ones are, as every stale
                    // report is); wrk counts both in the answers it read.
                    let (stale, rejected) = item.ingest ? Self.staleAndRejected(outcome.stdout) : (0, 0)
                    let expected = acked * eventsPerRequest - rejected
                    // Requests in flight when wrk stopped were still carried out, but their answers
                    // found the connection closed: at most one per connection goes unacknowledged.
                    guard grown >= expected, grown <= (acked + item.connections) * eventsPerRequest,
                          rejected > 0 || grown % eventsPerRequest == 0 else {
                        throw BenchFailure("\(item.name): the server acknowledged \(acked) requests (\(expected) events to append; \(stale) stale, \(rejected) rejected) but events grew by \(grown)")
                    }
                    let result = BenchHTTP.parse(name: item.name, wrk: outcome.stdout, served: durations)
                    guard result.errors == 0 else { throw BenchFailure("\(item.name): \(result.errors) responses were not 2xx; \(Self.describe(live))") }
                    guard result.requests > 0 else {
                        throw BenchFailure("\(item.name): wrk completed no request (\(server.inFlightRequests) still in flight); \(Self.describe(live))")
                    }
                    logger.info("\(item.name)\(warmUp ? " (warm-up)" : ""): \(String(format: "%.0f", result.rate)) requests/s, \(grown) events appended"
                        + (item.ingest ? ", \(stale) reports answered STALE, \(rejected) REJECTED" : ""))
                    guard !warmUp else { continue }
                    let after = store.appendStatistics
                    let transactions = after.fastPathGroups + after.lockingGroups - statistics.fastPathGroups - statistics.lockingGroups
                    let events = after.events - statistics.events
                    if let pacedBefore, let pacedAfter, pacedAfter.waits > pacedBefore.waits {
                        notes.append("\(item.name): \(pacedAfter.waits - pacedBefore.waits) requests waited for the journey and fleet projections (more than "
                            + "\(BenchTable.grouped(maximumBacklog)) events behind), \(String(format: "%.1f", pacedAfter.waitedSeconds - pacedBefore.waitedSeconds)) s in all")
                    }
                    if stale + rejected > 0 {
                        notes.append("\(item.name): \(BenchTable.grouped(stale)) reports answered STALE (appended) and \(BenchTable.grouped(rejected)) REJECTED (not appended, not counted in events/s)")
                    }
                    let runnersWork = if live.isEmpty { "" }
                        else if live.count == runners.count { ", the projection runners' work during the case included" }
                        else { ", the work of the live runner\(live.count == 1 ? "" : "s") (\(live.map(\.name).joined(separator: ", "))) during the case included" }
                    notes.append("\(item.name): CPU \(BenchCPU.perEvent(from: cpuBefore, to: cpuAfter, events: events, seconds: wall.seconds))" + runnersWork)
                    let costs = BenchProjectionCost.now(live).perEvent(since: costBefore)
                    if !costs.isEmpty { notes.append("\(item.name): live projection cost per event applied: " + costs.map(\.summary).joined(separator: "; ")) }
                    notes.append("\(item.name): \(BenchTable.grouped(events)) events committed in \(BenchTable.grouped(transactions)) transactions (\(String(format: "%.1f", Double(events) / Double(max(1, transactions)))) per transaction), \(after.retries - statistics.retries) retried groups")
                    let offered = result.requests * eventsPerRequest
                    measured.append((item, Measured(name: item.name, requests: result.requests, rate: result.rate, events: offered,
                                                    accepted: offered == 0 ? 1 : Double(max(0, offered - rejected)) / Double(offered),
                                                    elapsedSeconds: Double(duration), wrkP50: result.wrkP50, wrkP99: result.wrkP99,
                                                    serverP50: result.serverP50, serverP99: result.serverP99)))
                    if !live.isEmpty, let caughtUp = try await catchUp(live, store: store) {
                        notes.append("after \(item.name): the projections needed \(caughtUp) more to apply what was left")
                    }
                }
            }
        } catch {
            await server.shutdown(grace: .seconds(2))
            await stopRunners()
            await store.shutdown()
            throw error
        }
        await server.shutdown(grace: .seconds(2))
        await stopRunners()
        await store.shutdown()
        return render(ceiling: ceiling, inserts: inserts, measured: measured, version: version, notes: notes, format: format,
                      extraRows: sustainedRows, extraVerdicts: sustainedVerdicts)
    }

    /// Waits until every runner has applied every event written so far, so that a case starts with
    /// no projection behind; says how long that took and how many events each applied meanwhile.
    func catchUp(_ runners: [ProjectionRunner], store: EventStore) async throws -> String? {
        let head = try await store.head()
        guard head != .start else { return nil }
        let started = ContinuousClock.now
        let behind = runners.map { ($0.name, $0.status.eventsApplied) }
        for runner in runners {
            guard await runner.waitUntilApplied(head, timeout: .seconds(600)) else {
                throw BenchFailure("projection \(runner.name) did not catch up within 600 s")
            }
        }
        let waited = ContinuousClock.now - started
        let seconds = waited.seconds
        let applied = zip(behind, runners).map { "\($0.0) \(BenchTable.grouped(Int($1.status.eventsApplied - $0.1)))" }.joined(separator: ", ")
        let text = "\(String(format: "%.1f", seconds)) s (events applied meanwhile: \(applied))"
        logger.info("projections caught up in \(text)")
        return text
    }

    /// The live runners' states, for a failure's message: whether each owns its projection, its
    /// checkpoint and events applied, and its last error.
    static func describe(_ runners: [ProjectionRunner]) -> String {
        guard !runners.isEmpty else { return "no projection runner live" }
        return runners.map { runner in
            let status = runner.status
            return "\(runner.name): \(status.isOwner ? "owner" : "not owner"), checkpoint \(status.checkpoint), \(status.eventsApplied) events applied"
                + (status.lastError.map { ", last error: \($0)" } ?? "")
        }.joined(separator: "; ")
    }

    /// Registers `vehicles` vehicles (64 at a time), each with a first location.
    private func seed(_ api: WaymarkAPI) async throws {
        let context = CommandContext(caller: Principal(role: .server, provider: "bench"), requestId: "bench-seed")
        let total = vehicles
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<64 {
                group.addTask {
                    for n in stride(from: lane, to: total, by: 64) {
                        let register = Vehicle.RegisterVehicle(vehicleId: "v-\(n)", vehicleState: .online, supportedTripTypes: [.exclusive],
                                                               maximumCapacity: 4, vehicleType: VehicleType(category: .auto))
                        let location = VehicleLocation(location: .init(uncheckedLatitude: 52.5 + Double(n % 100) * 0.001, longitude: 13.4 + Double(n / 100) * 0.001))
                        _ = try await api.vehicles.create(.init(provider: "bench", register: register, lastLocation: location), context: context)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// A wrk script: POST `perRequest` reports, each for another vehicle (the request's group of
    /// vehicles changes with each request) and with a fresh eventId built from `run`, the request
    /// counter and the report's place in the request.
    static func ingestScript(token: String, vehicles: Int, perRequest: Int, run: Int) -> String {
        """
        local n = 0
        local groups = \(max(1, vehicles / perRequest))
        local per = \(perRequest)
        local path = "/v1/providers/bench/vehicles:reportLocations"
        local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer \(token)" }
        local heads, tails = {}, {}
        for g = 0, groups - 1 do
          heads[g], tails[g] = {}, {}
          for j = 1, per do
            local v = g * per + j - 1
            heads[g][j] = '{"vehicleId":"v-' .. v .. '","eventId":"'
            tails[g][j] = string.format('-\(String(format: "%04x", run % 65536))-4000-8000-%012x","location":{"location":{"latitude":%.7f,"longitude":%.7f},"heading":%d,"speed":%.1f,"latlngAccuracy":4.2}}',
              j, 52.3 + (v % 1000) * 0.0003, 13.1 + (v % 977) * 0.0006, v % 360, (v % 300) / 10)
          end
        end
        request = function()
          local g = n % groups
          local id = string.format("%08x", n)
          n = n + 1
          local parts = {}
          local h, t = heads[g], tails[g]
          for j = 1, per do parts[j] = h[j] .. id .. t[j] end
          return wrk.format("POST", path, headers, '{"reports":[' .. table.concat(parts, ",") .. ']}')
        end
        -- Reports answered STALE (appended) and REJECTED (not appended): counted per thread, summed in done.
        stale, rejected = 0, 0
        local threads = {}
        function setup(thread) table.insert(threads, thread) end
        response = function(status, headers, body)
          if status ~= 200 then return end
          local _, s = string.gsub(body, '"status":"STALE"', '')
          local _, r = string.gsub(body, '"status":"REJECTED"', '')
          stale, rejected = stale + s, rejected + r
        end
        done = function(summary, latency, requests)
          local s, r = 0, 0
          for _, thread in ipairs(threads) do s, r = s + thread:get("stale"), r + thread:get("rejected") end
          io.write(string.format("reports answered: %d stale, %d rejected\\n", s, r))
        end
        """
    }

    /// The counts of reports answered STALE and REJECTED, from the line the ingest script's `done` writes.
    static func staleAndRejected(_ wrkOutput: String) -> (stale: Int, rejected: Int) {
        let prefix = "reports answered: "
        guard let line = wrkOutput.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return (0, 0) }
        let numbers = line.dropFirst(prefix.count).split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : (0, 0)
    }

    func render(ceiling: BenchTable.Row, inserts: BenchTable.Row, measured: [(Case, Measured)], version: String, notes extra: [String], format: BenchTable.Format,
                extraRows: [[String]] = [], extraVerdicts: [String] = []) -> String {
        let header = ["case", "requests/s", "events/s", "reference", "ratio", "target", "wrk p50", "wrk p99", "server p50", "server p99"]
        func ms(_ seconds: Double) -> String { String(format: "%.2fms", seconds * 1000) }
        var rows = [
            [ceiling.name, "-", BenchTable.grouped(Int(ceiling.rate.rounded())), "-", "1 (reference)", "-", "-", "-", "-", "-"],
            [inserts.name, "-", BenchTable.grouped(Int(inserts.rate.rounded())), "-", "1 (reference)", "-", "-", "-", "-", "-"],
        ]
        var verdicts: [String] = []
        for (item, m) in measured {
            let rate = item.ingest ? m.rate * Double(reportsPerRequest) * m.accepted : m.rate
            let reference = item.ingest ? ceiling.rate : inserts.rate
            let ratio = reference > 0 ? rate / reference : 0
            let target = item.ingest ? 0.40 : 1.5
            rows.append([m.name, BenchTable.grouped(Int(m.rate.rounded())), BenchTable.grouped(Int(rate.rounded())),
                         item.ingest ? "COPY ceiling" : "INSERT × \(insertClients)", String(format: "%.3f", ratio), String(format: "≥ %.2f", target),
                         m.wrkP50, m.wrkP99, ms(m.serverP50), ms(m.serverP99)])
            verdicts.append("target \(m.name): ≥ \(target) × \(item.ingest ? "the COPY ceiling" : "\(insertClients) INSERT clients"): \(ratio >= target ? "met" : "NOT met") (\(String(format: "%.3f", ratio)))")
        }
        // The sustained case's rows where it ran: after the cases before it in `Self.cases`.
        let casesBefore = Self.cases.prefix { $0 != "sustained" }
        rows.insert(contentsOf: extraRows, at: 2 + measured.filter { casesBefore.contains($0.0.key) }.count)
        let notes = verdicts + extraVerdicts + [
            "PostgreSQL \(version); ceiling: COPY of 200,000 rows in 5,000-row transactions; INSERT: \(insertClients) threads with a connection each, one row per autocommit INSERT, for 5 s",
            "server in process: 2 MHD threads, event store with 2 committers, the \(ProjectionCatalog.all.count) projection runners live unless said otherwise; \(BenchTable.grouped(vehicles)) vehicles; wrk -t1 -d\(seconds)s after a 2 s warm-up, each case starting with every projection caught up; each reportLocations request carries \(reportsPerRequest) reports for \(reportsPerRequest) different vehicles, each report with an eventId of its own; each UpdateVehicle request is for another vehicle; "
                + (maximumBacklog > 0 ? "reportLocations waits while the journey or fleet projection is more than \(BenchTable.grouped(maximumBacklog)) events behind (WAYMARK_INGEST_MAX_BACKLOG; not while the runners are stopped)" : "no ingest pacing (--max-backlog 0)"),
        ] + extra
        return BenchTable.render(header: header, cells: rows, notes: notes, format: format)
    }
}
