import EventStore
import Foundation
import HTTP
import Journey
import Projections
import ReadModels
import ReadSide
import Synchronization

/// The API's composition root: services, auth, metrics and readiness over one event store.
///
/// `waymark serve` builds one, hands `handler` to the HTTP server, and tells it how to read the
/// server's own gauges. The services are the same ones the gRPC front door will call.
package final class WaymarkAPI: Sendable {
    package let trips: TripService
    package let vehicles: VehicleService
    /// Journeys, riders' trips, share links and journey styles.
    package let riders: RiderService
    /// Route plans, turn-by-turn guidance, trip offers and the driver feed.
    package let drivers: DriverService
    /// Batch location ingest (`vehicles:reportLocations`).
    package let ingest: LocationIngestService
    /// History, time travel and the route audit.
    package let audit: AuditService
    /// Webhook subscriptions and their dispatcher (`waymark serve` starts it).
    package let webhooks: WebhookService
    /// The arrival detector (`waymark serve` starts it).
    package let arrivals: ArrivalDetector
    /// The sweep that deletes trips and vehicles quiet for their retention period (`waymark serve` starts it).
    package let retention: RetentionSweep
    package let metrics = Metrics()
    /// Open streams per token and per client address (`StreamQuota`).
    package let streamQuota: StreamQuota
    /// Which other origins may call the rider routes.
    package let cors: CORSPolicy
    package let authenticator: Authenticator
    let readiness: Readiness
    let runners: [ProjectionRunner]
    let store: EventStore
    /// Where read-model reads go: the primary, or a read replica (`WAYMARK_READ_DATABASE_URL`).
    package let reads: ReadRouter
    let log: (@Sendable (String) -> Void)?
    private let serverGauges = Mutex<(@Sendable () -> (inFlight: Int, openStreams: Int))?>(nil)
    private let droppedStreams = Mutex<(@Sendable () -> Int)?>(nil)
    private let metricsElsewhere = Atomic<Bool>(false)

    /// - Parameters:
    ///   - runners: this node's projection runners (read-your-writes asks the fleet runner when it owns the projection).
    ///   - log: where internal errors are reported (with the request id).
    ///   - consistencyTimeout: how long a write waits for the fleet projection to apply it (read-your-writes) before answering 503.
    ///   - mirror: the fleet runner's `DocumentMirror` (see `fleetMirror()`), to answer reads from memory while this node owns the projection.
    ///   - journeyMirror: the journey runner's `DocumentMirror` (see `journeyMirror()`): journeys are served and pushed from it.
    ///   - publicURL: the base of share-link URLs (`WAYMARK_PUBLIC_URL`); nil: `http://` and the request's Host.
    ///   - replica: a streaming replica for read-model reads (see `ReadRouter`); nil: everything on the primary.
    ///   - horizonWarningSeconds: how old the feed's horizon (the oldest open transaction) may get before `/readyz` warns.
    ///   - journeyPollInterval: how often riders' trips are re-read while another node owns the journey projection
    ///     (a fallback: that node's NOTIFY brings changes at once; see `JourneyHub`).
    ///   - aggregateCache: Trip and Vehicle states the command side keeps per kind (least recently used evicted).
    ///   - retention: how long trips and vehicles stay after their last event, and how often that is swept (`RetentionSweep`).
    ///   - ingestBacklog: how many events of this node's batch ingest the journey and fleet projections may be behind
    ///     before `reportLocations` waits for them (`IngestPacer`; 0: never).
    ///   - streamLimits: how many streams one token and one client address may hold open.
    ///   - cors: which other origins' browser apps may call the rider routes (`WAYMARK_CORS_ORIGINS`).
    ///   - timeTravelMaxEvents: the most events one `asOf` read may replay; past it the read is refused (400) before
    ///     the vehicles' histories are read.
    package init(store: EventStore, runners: [ProjectionRunner], authenticator: Authenticator, mirror: DocumentMirror? = nil,
                 journeyMirror: DocumentMirror? = nil, consistencyTimeout: Duration = .seconds(5),
                 clock: @escaping @Sendable () -> Timestamp = { Timestamp(Date()) }, publicURL: String? = nil, log: (@Sendable (String) -> Void)? = nil,
                 horizonWarningSeconds: Double = 30,
                 webhooks webhookOptions: WebhookDispatcher.Options = .init(), arrivals arrivalSettings: ArrivalDetector.Settings = .init(),
                 replica: ReadRouter.Replica? = nil, journeyPollInterval: Duration = .seconds(1),
                 aggregateCache: Int = WaymarkAPI.defaultAggregateCache, retention retentionSettings: RetentionSweep.Settings = .init(),
                 ingestBacklog: Int = IngestPacer.defaultMaximumBacklog, streamLimits: StreamQuota.Limits = .init(),
                 timeTravelMaxEvents: Int = AuditService.defaultTimeTravelMaxEvents, cors: CORSPolicy = .off) {
        streamQuota = StreamQuota(streamLimits)
        self.cors = cors
        self.store = store
        reads = ReadRouter(primary: store.pool, replica: replica)
        self.runners = runners
        self.authenticator = authenticator
        self.log = log
        let repository = AggregateRepository(store: store, capacity: aggregateCache)
        func runner(_ name: String) -> ProjectionRunner? { runners.first { $0.name == name } }
        func waiter(_ name: String) -> ProjectionWaiter { ProjectionWaiter(name: name, pool: store.pool, runner: runner(name)) }
        var readModel = FleetReadModel(reader: FleetReader(pool: store.pool, router: reads), waiter: waiter(FleetResourceProjection.name),
                                       runner: runner(FleetResourceProjection.name))
        readModel.consistencyTimeout = consistencyTimeout
        readModel.mirror = mirror
        trips = TripService(repository: repository, readModel: readModel, clock: clock)
        vehicles = VehicleService(repository: repository, readModel: readModel, clock: clock)
        var journeys = JourneyReadModel(reader: JourneyViewReader(pool: store.pool, router: reads), waiter: waiter(JourneyViewProjection.name), mirror: journeyMirror)
        journeys.consistencyTimeout = consistencyTimeout
        let hub = JourneyHub(readModel: journeys, clock: clock, pollInterval: journeyPollInterval,
                             listenConninfo: store.configuration.listen ? store.configuration.conninfo : nil)
        hub.start()
        riders = RiderService(hub: hub, readModel: journeys, fleet: readModel, repository: repository, authenticator: authenticator,
                              clock: clock, publicURL: publicURL)
        let pacer = IngestPacer(maximumBacklog: ingestBacklog, timeout: consistencyTimeout, waiters: [JourneyViewProjection.name, FleetResourceProjection.name].map { name in
            // On a node that does not own the projection, every waiting batch reads the checkpoint:
            // 100 ms apart, so sixteen paced connections cost 160 small reads a second, not 3,200.
            // Where this node owns the projection and holds snapshots, folded into its mirror is enough:
            // the pacer bounds how far riders' maps fall behind, and must not make it write at every batch.
            var waiter = ProjectionWaiter(name: name, pool: store.pool, runner: runner(name), pollInterval: .milliseconds(100))
            waiter.written = false
            return waiter
        })
        ingest = LocationIngestService(repository: repository, clock: clock, pacer: pacer)
        audit = AuditService(store: store, routeAudits: RouteAuditReader(pool: store.pool), clock: clock, timeTravelMaxEvents: timeTravelMaxEvents)
        let feeds = DriverFeedReadModel(reader: DriverFeedReader(pool: store.pool), waiter: waiter(DriverFeedProjection.name), consistencyTimeout: consistencyTimeout)
        drivers = DriverService(trips: trips, repository: repository, feeds: feeds, clock: clock)
        webhooks = WebhookService(store: store, options: webhookOptions)
        let tripService = trips
        arrivals = ArrivalDetector(store: store, settings: arrivalSettings) { provider, arrival in
            // To ARRIVED_AT_PICKUP from NEW or ENROUTE_TO_PICKUP; the trip's state machine refuses it
            // once the trip is past that (arrived, picked up, canceled), which is the answer then.
            let context = CommandContext(caller: Principal(role: .server, provider: provider, subject: "arrival-detector"),
                                         requestId: "arrival-\(arrival.tripId)-\(arrival.visit)")
            let request = TripService.UpdateRequest(provider: provider, tripId: arrival.tripId,
                                                    changes: [.tripStatus(.arrivedAtPickup, intermediateDestinationIndex: nil, intermediateDestinationsVersion: nil)])
            _ = try? await tripService.update(request, context: context)
        }
        retention = RetentionSweep(store: store, trips: trips, vehicles: vehicles, settings: retentionSettings, log: log)
        readiness = Readiness(pool: store.pool, projections: ProjectionCatalog.all.map(\.name), horizonWarningSeconds: horizonWarningSeconds)
    }

    /// A mirror for the fleet projection's runner holding what GetTrip and GetVehicle read: at most
    /// `documentLimit` of them, the most recently written (nil: all).
    package static func fleetMirror(documentLimit: Int? = nil) -> DocumentMirror {
        DocumentMirror(collections: [FleetResourceProjection.tripsCollection, FleetResourceProjection.vehiclesCollection], documentLimit: documentLimit)
    }

    /// A mirror for the journey projection's runner holding what the rider endpoints read
    /// (views, share links, riders' trips, styles; not the projection's internal state).
    package static func journeyMirror() -> DocumentMirror {
        DocumentMirror(collections: JourneyReadModel.mirroredCollections)
    }

    /// Before the HTTP server stops: stops webhook deliveries, the arrival detector and the retention sweep, answers every long poll now (304) and stops the journey hub's ticker.
    package func shutdown() async {
        await webhooks.dispatcher.stop()
        await arrivals.stop()
        await retention.stop()
        await riders.hub.stop()
    }

    /// Open journey streams (SSE) this node serves.
    package var journeyStreams: Int { riders.hub.streamCount }

    /// The REST handler to serve.
    package var handler: RESTHandler { RESTHandler(api: self) }

    /// The REST handler to serve, with route groups (such as the demo pages) beside the API.
    package func handler(groups: [any RouteGroup]) -> RESTHandler { RESTHandler(api: self, groups: groups) }

    /// Moves `/metrics` off the public listener: from now on only `MetricsHandler` serves it.
    package func serveMetricsElsewhere() { metricsElsewhere.store(true, ordering: .relaxed) }

    var metricsServedElsewhere: Bool { metricsElsewhere.load(ordering: .relaxed) }

    /// The Prometheus text of this node's metrics.
    func metricsResponse() async -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                     body: .bytes(Array(renderMetrics(horizon: try? await readiness.horizon()).utf8)))
    }

    /// The OpenAPI document served at `/openapi.json` (the file checked in under `api/`).
    package var openAPIDocument: [UInt8] { PackageResources.openapi_json }

    /// Lets `/metrics` report the HTTP server's in-flight requests and open streams.
    package func reportServerGauges(_ read: @escaping @Sendable () -> (inFlight: Int, openStreams: Int)) {
        serverGauges.withLock { $0 = read }
    }

    /// Lets `/metrics` report the streams the HTTP server dropped for not reading (buffer overflow).
    package func reportDroppedStreams(_ read: @escaping @Sendable () -> Int) {
        droppedStreams.withLock { $0 = read }
    }

    /// `horizon`: the feed horizon's age when the database answered (nil: it did not).
    func renderMetrics(horizon: Readiness.Horizon? = nil) -> String {
        var extra: [String] = []
        if let horizon {
            extra += ["# HELP waymark_feed_horizon_age_seconds Age of the oldest open transaction holding back the event feed every projection reads.",
                      "# TYPE waymark_feed_horizon_age_seconds gauge", "waymark_feed_horizon_age_seconds \(Metrics.format(horizon.ageSeconds))"]
        }
        if let read = serverGauges.withLock({ $0 }) {
            let gauges = read()
            extra += ["# TYPE waymark_http_in_flight_requests gauge", "waymark_http_in_flight_requests \(gauges.inFlight)",
                      "# TYPE waymark_http_open_streams gauge", "waymark_http_open_streams \(gauges.openStreams)"]
        }
        if let read = droppedStreams.withLock({ $0 }) {
            extra += ["# HELP waymark_http_streams_dropped_total Streams closed because their client did not read and their buffer limit was passed.",
                      "# TYPE waymark_http_streams_dropped_total counter", "waymark_http_streams_dropped_total \(read())"]
        }
        let append = store.appendStatistics
        extra += ["# HELP waymark_events_appended_total Events committed by this node's event store.",
                  "# TYPE waymark_events_appended_total counter", "waymark_events_appended_total \(append.events)",
                  "# HELP waymark_append_transactions_total Transactions the committers committed (group commit: many appends each).",
                  "# TYPE waymark_append_transactions_total counter", "waymark_append_transactions_total \(append.fastPathGroups + append.lockingGroups)",
                  "# HELP waymark_feed_cache_hits_total Feed reads of this node answered (in part) from its cache of recent events instead of the database.",
                  "# TYPE waymark_feed_cache_hits_total counter", "waymark_feed_cache_hits_total \(store.feedCacheHits)",
                  "# HELP waymark_feed_reads_joined_total Feed reads of this node that waited for another reader's database read of the same events instead of making their own.",
                  "# TYPE waymark_feed_reads_joined_total counter", "waymark_feed_reads_joined_total \(store.feedReadsJoined)"]
        // One line per projection for each metric, from one reading of each runner's status.
        let statuses = runners.map { (name: $0.name, status: $0.status) }
        func perProjection(_ metric: String, _ type: String, help: String? = nil, _ value: (ProjectionRunner.Status) -> String) {
            extra += (help.map { ["# HELP \(metric) \($0)"] } ?? []) + ["# TYPE \(metric) \(type)"]
            extra += statuses.map { "\(metric){projection=\"\($0.name)\"} \(value($0.status))" }
        }
        perProjection("waymark_projection_lag_seconds", "gauge", help: "Seconds from an event's recording to its projection, for the last batch.") {
            Metrics.format($0.lagSeconds)
        }
        perProjection("waymark_projection_events_applied_total", "counter") { "\($0.eventsApplied)" }
        perProjection("waymark_projection_owner", "gauge") { $0.isOwner ? "1" : "0" }
        perProjection("waymark_projection_skipped_events", "gauge") { "\($0.skippedEvents)" }
        perProjection("waymark_projection_records_let_go_total", "counter",
                      help: "Records a projection let go from memory (WAYMARK_PROJECTION_RECORDS).") { "\($0.recordsLetGo)" }
        perProjection("waymark_projection_records_read_back_total", "counter",
                      help: "Records a projection read back from its table before a batch that needed them.") { "\($0.recordsRestored)" }
        extra += reads.metricLines()
        extra += webhooks.dispatcher.metricLines()
        if arrivals.settings.enabled { extra += arrivals.metricLines() }
        if retention.settings.enabled { extra += retention.metricLines() }
        extra += ingest.pacer?.metricLines() ?? []
        return metrics.render(extra: extra)
    }
}
