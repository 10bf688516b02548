import API
import Demo
import Dispatch
import EventStore
import Foundation
import GRPC
import HTTP
import Postgres
import Projections
import ReadModels
import ReadSide
import Signing
import Simulator
import Synchronization
import WaymarkCLI

/// `waymark serve`: the server process.
///
/// A `ServiceGroup` starts, in order: the database (embedded or `DATABASE_URL`) and migrations, the
/// replica's pool, the event store with group commit, the projection runners (one owner per
/// projection across nodes), the root writer, the status reporter, the HTTP listeners (public, then
/// metrics), gRPC, the API's background work, the simulator. On SIGINT/SIGTERM, or when a part
/// fails to start, it stops what started in reverse: the simulator, the API (long polls answer 304,
/// streams get their shutdown event), the listeners draining (10 s; 1 s after a failed start), and
/// so on down to the store (committing what is queued) and the embedded cluster if this process
/// started it.
enum ServeCommand {
    /// The flags of `serve`; most settings are environment variables only (docs/configuration.md).
    static let spec = CommandSpec(
        name: "serve", synopsis: "[--host H] [--port P] [--grpc-port G] [--demo [--seed S] [--simulate ...]] [options]",
        summary: """
            Runs the server: the database (DATABASE_URL, or the embedded cluster under --data-dir, created
            and started when needed) and its migrations, the event store, the projection runners, then the
            HTTP API and gRPC. Needs WAYMARK_JWT_SECRET or WAYMARK_JWT_SECRET_FILE (or RS256 keys in
            WAYMARK_JWT_PUBLIC_KEYS) unless --demo. Every other setting is an environment variable:
            docs/configuration.md. SIGINT or SIGTERM stops it cleanly.
            """,
        flags: [
            .value("host", "H", "IPv4 address to listen on (WAYMARK_HTTP_HOST, 127.0.0.1)"),
            .value("port", "P", "HTTP port (WAYMARK_HTTP_PORT, 8080; 0 picks a free one)"),
            .value("grpc-port", "G", "gRPC port (WAYMARK_GRPC_PORT, 8081; 0 picks a free one, off disables gRPC)"),
            .value("read-database-url", "URL", "a streaming replica for read-model reads (WAYMARK_READ_DATABASE_URL)"),
            .value("db-role", "ROLE", "the append-only role to act as when the login may (WAYMARK_DB_ROLE, waymark_app)"),
            .switch("demo", "serve /demo and mint riders' tokens for provider demo"),
            .switch("simulate", "with --demo: run the simulator in-process, with the fleet flags below"),
        ] + CommandSpec.Flag.database + SimulateCommand.fleetFlags)

    static func run(_ arguments: [String], environment: [String: String]) async throws {
        let flags = try Flags(arguments, for: spec)
        let termination = TerminationSignal(parent: environment["WAYMARK_PARENT_PID"].flatMap { pid_t($0) })
        let demo = flags.switches.contains("demo")
        guard demo || !flags.switches.contains("simulate") else { throw UsageError("--simulate needs --demo") }
        let simulation = flags.switches.contains("simulate") ? try SimulateCommand.options(flags) : nil
        let settings = try Settings.load(environment, flags: flags)
        let http = try HTTPSettings.load(environment, flags: flags)
        let audit = try AuditSettings.load(environment)
        let webhookSettings = try WebhookSettings.load(environment)
        let retention = try RetentionSettings.load(environment)
        let grpcSettings = try GRPCSettings.load(environment, flags: flags)
        let streamLimits = try StreamLimits.load(environment)
        let memory = try MemorySettings.load(environment)
        MemorySettings.limitMallocArenas(environment)
        memory.startHeapTrimming()
        let replicaSettings = try ReplicaSettings.load(environment, flags: flags)
        let scaleOut = try ScaleOutSettings.load(environment)
        let projections = try ProjectionSettings.load(environment)
        let logger = Logger(label: "waymark.serve", minimum: settings.logLevel)
        let openFiles = StreamLimits.raiseOpenFileLimit()
        if openFiles.failed {
            logger.warning("could not raise the open-file limit (now \(openFiles.limit)); each stream and connection needs a descriptor")
        } else if openFiles.raised {
            logger.debug("open-file limit raised to \(openFiles.limit)")
        }
        // HS256 needs a secret of the operator's; an RS256-only server (WAYMARK_JWT_PUBLIC_KEYS) may go without.
        let secret: [UInt8]?
        if let configured = try JWTSecret.configured(environment) {
            secret = configured
        } else if demo {
            // The demo keeps its secret beside the embedded cluster, so `waymark simulate` can mint tokens and a second run accepts them.
            secret = try DemoSecret.readOrCreate(dataDirectory: settings.dataDirectory) { Digest.hex(Digest.randomBytes(32)) }
            logger.info("WAYMARK_JWT_SECRET is not set: the demo signs tokens with the secret in \(DemoSecret.path(dataDirectory: settings.dataDirectory))")
        } else if !http.publicKeys.isEmpty {
            secret = nil
            logger.info("no WAYMARK_JWT_SECRET: only RS256 tokens signed by WAYMARK_JWT_PUBLIC_KEYS are accepted")
        } else {
            throw UsageError("""
                WAYMARK_JWT_SECRET (or WAYMARK_JWT_SECRET_FILE) must be set: the server verifies tokens with it. \
                Use at least \(JWTSecret.minimumBytes) random bytes, e.g. WAYMARK_JWT_SECRET=$(openssl rand -hex 32); \
                `waymark serve --demo` keeps one of its own
                """)
        }
        let demoSecret = secret ?? []  // --demo always has one: its page and simulator mint tokens with it
        try await ServiceGroup.run { services in
            let database = try await services.start { try Database.open(settings, logger: logger) } stop: { database, _ in
                database.close(logger: logger)
            }
            try database.migrate(logger: logger)
            let setup = try database.sessionSetup(role: settings.databaseRole, logger: logger)
            let replica = try await services.start { try replicaSettings.open(setupStatements: setup, logger: logger) } stop: { replica, _ in
                await replica?.pool.shutdown()
            }
            let store = await services.start {
                EventStore(.init(conninfo: database.url, setupStatements: setup, feedCacheEvents: projections.feedCacheEvents))
            } stop: { store, _ in
                await store.shutdown()
            }
            logger.info("event store ready", [LogKey.databaseURL: database.startedEmbedded != nil || settings.databaseURL == nil ? database.url : "DATABASE_URL"])

            let mirror = WaymarkAPI.fleetMirror(documentLimit: projections.fleetMirrorLimit)
            let journeyMirror = WaymarkAPI.journeyMirror()
            let runners = projections.runners(store: store, conninfo: database.url, setupStatements: setup,
                                              mirrors: [FleetResourceProjection.name: mirror, JourneyViewProjection.name: journeyMirror],
                                              notifyCollections: WaymarkAPI.notifiedCollections)
            var arrivals = webhookSettings.arrivals
            arrivals.cachedVehicles = projections.recordLimit
            let authenticator = Authenticator(hs256Secret: secret, rs256Keys: http.publicKeys)
            // Built before the runners start, so the journey hub observes the mirror from its first load.
            let api = WaymarkAPI(store: store, runners: runners, authenticator: authenticator, mirror: mirror, journeyMirror: journeyMirror,
                                 consistencyTimeout: .seconds(http.consistencyTimeoutSeconds), publicURL: http.publicURL, log: { logger.error($0) },
                                 horizonWarningSeconds: Double(http.horizonWarningSeconds),
                                 webhooks: webhookSettings.dispatcher, arrivals: arrivals, replica: replica,
                                 journeyPollInterval: scaleOut.journeyPollInterval, aggregateCache: memory.aggregateCache, retention: retention.sweep,
                                 ingestBacklog: http.ingestBacklog, streamLimits: streamLimits.quota,
                                 timeTravelMaxEvents: audit.timeTravelMaxEvents, cors: http.cors)
            await services.start { for runner in runners { runner.start() } } stop: { _, _ in
                for runner in runners { await runner.stop() }
            }
            let rootWriter = audit.writer(store: store, logger: logger)
            await services.start { rootWriter?.start() } stop: { _, _ in await rootWriter?.stop() }
            // Stopped once the listeners have drained, so started before them.
            await services.start {
                Task {
                    // Give the runners a moment to take ownership, then log whenever progress or ownership changes.
                    try? await Task.sleep(for: .milliseconds(500))
                    var last: [String: (Int64, Bool)] = [:]
                    while !Task.isCancelled {
                        for runner in runners {
                            let status = runner.status
                            if let seen = last[runner.name], seen == (status.eventsApplied, status.isOwner) { continue }
                            last[runner.name] = (status.eventsApplied, status.isOwner)
                            let role = status.isOwner ? "owner" : "standby"
                            logger.info("projection \(runner.name) (\(role)): \(status.eventsApplied) events applied, lag \(String(format: "%.3f", status.lagSeconds)) s",
                                        [LogKey.feedPosition: status.checkpoint.description])
                            if let error = status.lastError { logger.warning("projection \(runner.name): \(error)") }
                            if status.skippedEvents > 0 {
                                logger.warning("projection \(runner.name): \(status.skippedEvents) events could not be decoded and were not applied")
                            }
                        }
                        try? await Task.sleep(for: .seconds(5))
                    }
                }
            } stop: { reporter, _ in
                reporter.cancel()
            }
            let accessLogger = logger
            let server = HTTPServer(
                configuration: .init(host: http.host, port: http.port, threads: http.threads, maxBodyBytes: http.maxBodyBytes,
                                     connectionsPerAddress: streamLimits.connectionsPerAddress, streamBufferBytes: streamLimits.streamBufferBytes,
                                     connectionMemoryBytes: memory.connectionMemoryBytes, errorBody: RESTHandler.serverErrorBody, diagnostics: { accessLogger.debug("libmicrohttpd: \($0)") }),
                handler: api.handler(groups: [DemoRoutes(api: api, secret: demoSecret, citySeed: simulation?.seed ?? DemoCity.seed(flags), demo: demo)]),
                observer: { exchange in
                    accessLogger.debug("\(exchange.method) \(exchange.path) \(exchange.status)", [
                        LogKey.requestId: exchange.requestId, LogKey.durationMs: String(format: "%.3f", exchange.durationSeconds * 1000),
                    ])
                })
            api.reportServerGauges { (server.inFlightRequests, server.openStreams) }
            api.reportDroppedStreams { server.droppedStreams }
            // The HTTP listeners, one part: the public one, then /metrics on its own listener before the
            // public one is announced (so nobody scrapes the wrong port); the public one drains first.
            try await services.start { () async throws -> HTTPServer? in
                try server.start()
                logger.info("memory allocator: \(ProcessAllocator.description)")
                guard let address = http.metricsAddress else { return nil }
                let metrics = HTTPServer(configuration: .init(host: address.host, port: address.port, threads: 1, maxBodyBytes: 1024,
                                                              errorBody: RESTHandler.serverErrorBody), handler: MetricsHandler(api: api))
                do {
                    try metrics.start()
                } catch {
                    await server.shutdown(grace: .seconds(1))
                    throw error
                }
                api.serveMetricsElsewhere()
                logger.info("metrics on http://\(address.host):\(metrics.port)/metrics (not on the public listener)")
                return metrics
            } stop: { metrics, reason in
                await server.shutdown(grace: .seconds(reason == .signal ? 10 : 1))
                await metrics?.shutdown(grace: .seconds(1))
            }
            logger.info("listening on http://\(http.host):\(server.port)")
            // gRPC (maps.fleetengine.v1 Trip and Vehicle services) on its own port, after HTTP.
            if let port = grpcSettings.port {
                let grpc = try await services.start {
                    let grpc = GRPCServer(configuration: .init(host: http.host, port: port, idleTimeout: .seconds(grpcSettings.idleTimeoutSeconds)),
                                          handler: FleetEngineGRPCHandler(api: api))
                    try grpc.start()
                    return grpc
                } stop: { grpc, reason in
                    await grpc.shutdown(grace: .seconds(reason == .signal ? 10 : 1))
                }
                logger.info("listening for gRPC on \(http.host):\(grpc.port)")
            }
            // The API's background work (webhooks, arrivals, retention) starts once the listeners are
            // up; it stops before they drain: long polls answer 304 and streams get their shutdown event.
            await services.start {
                api.webhooks.dispatcher.start()
                api.arrivals.start()
                api.retention.start()
            } stop: { _, _ in
                await api.shutdown()
            }
            let local = "http://\(http.host == "0.0.0.0" ? "127.0.0.1" : http.host):\(server.port)"
            if demo { logger.info("demo page: \(local)/demo") }
            if let simulation {
                // The simulator ends first: it cancels its open trips and takes its vehicles offline through this server.
                let simulationStop = StopFlag()
                await services.start {
                    Task { [logger] in
                        await SimulateCommand.run(options: simulation, baseURL: local, secret: demoSecret, shouldStop: { simulationStop.isSet }) { trip in
                            let token = Authenticator.mint(secret: demoSecret, role: .consumer, provider: simulation.provider, tripId: trip,
                                                           issuedAt: Int64(Date().timeIntervalSince1970), ttl: 3600)
                            logger.info("a rider's view: \(local)/demo?trip=\(trip)")
                            logger.info("the same with the rider's own consumer token (an hour): \(local)/demo/rider?provider=\(simulation.provider)&trip=\(trip)#access_token=\(token)")
                        }
                    }
                } stop: { simulator, _ in
                    simulationStop.set()
                    _ = await simulator.value
                }
            }
            let signal = await termination.wait()
            logger.info("received signal \(signal), shutting down")
        }
    }
}

/// SIGINT and SIGTERM, caught from the moment it is created.
///
/// Created first thing in `serve`, so a signal that arrives while the server is still starting
/// (right after it logs "listening on") is kept and handled as a clean shutdown instead of
/// killing the process with the default action.
final class TerminationSignal: Sendable {
    private let stream: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation

    /// With `parent` (a process id), this process no longer being that process's child counts as
    /// SIGTERM too (checked at once and every second): a server that a test harness or supervisor
    /// started stops when its starter exits, instead of living on as an orphan.
    init(parent: pid_t? = nil) {
        (stream, continuation) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingOldest(1))
        let continuation = self.continuation
        if let parent {
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now(), repeating: 1)
            timer.setEventHandler {
                if getppid() != parent { continuation.yield(SIGTERM) }
            }
            timer.resume()
            _ = Unmanaged.passRetained(timer as AnyObject)
        }
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            // Signal sources live for the rest of the process: retain this one on purpose.
            _ = Unmanaged.passRetained(source as AnyObject)
        }
    }

    /// The first termination signal received (possibly before this was called).
    func wait() async -> Int32 {
        for await number in stream { return number }
        return SIGTERM
    }
}
