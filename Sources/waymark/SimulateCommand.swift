import Foundation
import JSON
import Simulator
import Synchronization
import WaymarkCLI

/// `waymark simulate`: drives a synthetic fleet through a server's public HTTP API.
///
/// Tokens are minted with the server's HS256 secret (`WAYMARK_JWT_SECRET`, or the demo secret
/// file `waymark serve --demo` keeps beside the embedded cluster), as a fleet's backend would.
/// A progress line on the terminal; at the end one JSON line on stdout with the counters. Exit
/// status 1 when any request failed.
enum SimulateCommand {
    static let spec = CommandSpec(
        name: "simulate", synopsis: "[--vehicles N] [--trips-per-minute M] [--speedup X] [--seed S] [--url URL] [--provider P] [--minutes K]",
        summary: """
            Drives a synthetic fleet through a server's HTTP API, as a fleet's backend and its drivers'
            apps would. Tokens are signed with WAYMARK_JWT_SECRET, or the secret file `serve --demo` keeps
            beside the embedded cluster. Prints one JSON line of counters at the end; exit status 1 when
            any request failed.
            """,
        flags: fleetFlags + [
            .value("url", "URL", "the server (http://127.0.0.1:$WAYMARK_HTTP_PORT, port 8080 by default)"),
            .value("data-dir", "DIR", "where `serve --demo` keeps its secret file, beside the embedded cluster (WAYMARK_DATA_DIR, .waymark/pg)"),
        ])

    /// The flags of the simulated fleet (`options(_:)`), shared with `serve --demo --simulate`.
    static let fleetFlags: [CommandSpec.Flag] = [
        .value("vehicles", "N", "vehicles in the fleet (10, at most 5000)"),
        .value("trips-per-minute", "M", "new trips per simulated minute (4)"),
        .value("speedup", "X", "simulated seconds per real second (1)"),
        .value("seed", "S", "the seed of the synthetic city and its trips (1)"),
        .value("provider", "P", "the fleet's provider (demo)"),
        .value("minutes", "K", "stop creating trips after K simulated minutes, finish those under way, and end (default: run until stopped)"),
    ]

    static func run(_ arguments: [String], environment: [String: String]) async throws {
        let flags = try Flags(arguments, for: spec)
        let termination = TerminationSignal()
        let options = try options(flags)
        let settings = try Settings.load(environment, flags: flags)
        let url = flags.value("url") ?? "http://127.0.0.1:\(environment["WAYMARK_HTTP_PORT"] ?? "8080")"
        guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https", parsed.host != nil else {
            throw UsageError("--url must be an absolute http(s) URL such as http://127.0.0.1:8080, got \(url.debugDescription)")
        }
        guard let secret = try JWTSecret.configured(environment) ?? DemoSecret.read(dataDirectory: settings.dataDirectory) else {
            throw UsageError("WAYMARK_JWT_SECRET must be set to the server's signing secret (or run the server with `waymark serve --demo`, which keeps one in \(DemoSecret.path(dataDirectory: settings.dataDirectory)))")
        }
        let stop = StopFlag()
        let signals = Task {
            _ = await termination.wait()
            stop.set()
        }
        let summary = await run(options: options, baseURL: url, secret: secret, shouldStop: { stop.isSet })
        signals.cancel()
        printOut(String(decoding: summaryJSON(summary).compactBytes(), as: UTF8.self))
        if summary.errorCount > 0 { exit(1) }
    }

    /// The simulation options from the command line (shared by `serve --simulate`).
    static func options(_ flags: Flags) throws -> FleetOptions {
        var options = FleetOptions()
        options.vehicles = try flags.int("vehicles", default: 10)
        options.tripsPerMinute = try positiveDouble(flags, "trips-per-minute", default: 4)
        options.speedup = try positiveDouble(flags, "speedup", default: 1)
        guard options.vehicles <= 5000 else { throw UsageError("--vehicles must be at most 5000 (one batch report per tick), got \(options.vehicles)") }
        if let seed = flags.value("seed") {
            guard let value = UInt64(seed) else { throw UsageError("--seed must be a whole number ≥ 0, got \(seed.debugDescription)") }
            options.seed = value
        }
        options.provider = flags.value("provider") ?? "demo"
        if flags.value("minutes") != nil { options.minutes = try positiveDouble(flags, "minutes", default: 1) }
        options.runTag = String(Int(Date().timeIntervalSince1970), radix: 36)
        return options
    }

    static func positiveDouble(_ flags: Flags, _ name: String, default fallback: Double) throws -> Double {
        guard let text = flags.value(name) else { return fallback }
        guard let value = Double(text), value > 0, value.isFinite else { throw UsageError("--\(name) must be a positive number, got \(text.debugDescription)") }
        return value
    }

    /// Runs a simulation with a progress line on stderr (rewritten in place on a terminal, every 10 s otherwise).
    static func run(options: FleetOptions, baseURL: String, secret: [UInt8], shouldStop: @escaping @Sendable () -> Bool,
                    onFirstTrip: (@Sendable (String) -> Void)? = nil) async -> FleetSummary {
        let terminal = isatty(STDERR_FILENO) == 1
        let transport = HTTPFleetTransport(baseURL: baseURL, provider: options.provider, secret: secret)
        let simulator = FleetSimulator(options: options, transport: transport) { message in
            FileHandle.standardError.write(Data(((terminal ? "\r\u{1B}[K" : "") + "simulate: \(message)\n").utf8))
        }
        let started = ContinuousClock.now
        let last = Mutex<(at: ContinuousClock.Instant, reports: Int, printed: ContinuousClock.Instant, announced: Bool)>((started, 0, started, false))
        let summary = await simulator.run(shouldStop: shouldStop) { summary in
            let now = ContinuousClock.now
            let line: String? = last.withLock { state in
                let elapsed = now - state.at
                guard elapsed >= .seconds(1) || summary.tripsActive == 0 && summary.vehiclesOnline == 0 else { return nil }
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                let rate = Double(summary.locationReports - state.reports) / max(seconds, 0.001)
                state.at = now
                state.reports = summary.locationReports
                if !terminal {
                    guard now - state.printed >= .seconds(10) else { return nil }
                    state.printed = now
                }
                return summary.line(reportsPerSecond: rate)
            }
            if let line { FileHandle.standardError.write(Data((terminal ? "\r\u{1B}[K\(line)" : "\(line)\n").utf8)) }
            if summary.tripsCreated > 0, let onFirstTrip, last.withLock({ state in defer { state.announced = true }; return !state.announced }) {
                Task { if let id = await simulator.firstTripId { onFirstTrip(id) } }
            }
        }
        if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
        return summary
    }

    static func summaryJSON(_ summary: FleetSummary) -> JSONValue {
        func n(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }
        return [
            "tripsCreated": n(summary.tripsCreated), "tripsCompleted": n(summary.tripsCompleted), "tripsCanceled": n(summary.tripsCanceled), "tripsFailed": n(summary.tripsFailed),
            "tripsOpen": n(summary.tripsCreated - summary.tripsCompleted - summary.tripsCanceled),
            "locationReports": n(summary.locationReports), "reroutes": n(summary.reroutes), "requests": n(summary.requests),
            "errors": n(summary.errorCount), "serverErrors": n(summary.serverErrors),
            "planRouteAvailable": .bool(summary.planRouteAvailable), "routesPlanned": n(summary.routesPlanned),
            "simulatedSeconds": n(Int(summary.simulatedSeconds)),
        ]
    }
}

/// The HS256 secret `waymark serve --demo` and `waymark simulate` share when `WAYMARK_JWT_SECRET`
/// is not set: a file beside the embedded cluster's data directory (`.waymark/jwt-secret`, mode 0600),
/// made on the demo server's first start and kept, so a second `make run` accepts the same tokens.
enum DemoSecret {
    static func path(dataDirectory: String) -> String {
        URL(fileURLWithPath: dataDirectory).deletingLastPathComponent().appendingPathComponent("jwt-secret").path
    }

    /// The file's contents, or nil when there is none.
    static func read(dataDirectory: String) -> [UInt8]? {
        guard let text = try? String(contentsOfFile: path(dataDirectory: dataDirectory), encoding: .utf8) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : Array(trimmed.utf8)
    }

    /// The file's secret, created (random, 0600) when missing.
    static func readOrCreate(dataDirectory: String, generate: () -> String) throws -> [UInt8] {
        if let existing = read(dataDirectory: dataDirectory) { return existing }
        let file = path(dataDirectory: dataDirectory)
        try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: file).deletingLastPathComponent().path, withIntermediateDirectories: true)
        let secret = generate()
        guard FileManager.default.createFile(atPath: file, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw UsageError("cannot write the demo secret file \(file)")
        }
        return Array(secret.utf8)
    }
}

/// The synthetic city the demo page draws: `--seed` (default 1), the same default as `waymark simulate`.
enum DemoCity {
    static func seed(_ flags: Flags) -> UInt64 { flags.value("seed").flatMap(UInt64.init) ?? 1 }
}

/// A flag one task sets and others read (the simulation's "stop now").
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
