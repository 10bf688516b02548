import EventStore
import Foundation
import JSON
import Journey

/// Batch location ingest (`vehicles:reportLocations`): many vehicles' location reports, decided
/// on each vehicle's state and made durable in one `appendBatch`, each report answered on its own.
///
/// Reports of one vehicle are decided in request order on its cached aggregate state (exactly as
/// UpdateVehicle's `lastLocation`/`pastLocations` are) and appended together with the state's
/// version as the expected version; a vehicle whose stream moved meanwhile is reloaded and decided
/// again, without holding up the others. A report that cannot be read, names an unknown vehicle,
/// is not the caller's to send, or that the domain refuses is REJECTED alone.
///
/// Idempotency: a report's location event is stored under the report's `eventId` (see
/// `ReportEventIds`), so a retried report meets its stored event in the event store's event-id
/// check when it is appended again: the same event is an idempotent append, a different one (the
/// report now decided STALE) a duplicate id, and either way the report is answered from the stored
/// event and nothing is appended twice. So a retried batch gets the same answer, and so do two
/// copies of one batch racing each other. Ids are looked up beforehand only for reports that are
/// refused before any append (a vehicle deleted since the first try): the common case, a batch of
/// new reports, costs no look-up.
///
/// The answer is given once the append has committed (durable). It does not wait for the
/// projections: statuses are known at commit, and waiting for three read models to catch up would
/// bound ingest by the slowest of them. Reads that follow on this node still see the reports:
/// `VehicleService` waits for what this node wrote to a vehicle before it answers GetVehicle.
/// Only sustained overload is slowed: `IngestPacer` holds a request back while the journey or
/// fleet projection is more than its bound behind this node's ingest.
package final class LocationIngestService: Sendable {
    /// The most reports one request may carry.
    package static let maximumReports = 5000
    /// Rounds of deciding and appending before a vehicle whose stream keeps moving is given up.
    static let attempts = 8

    let repository: AggregateRepository
    let clock: @Sendable () -> Timestamp
    /// Bounds how far the projections fall behind; nil: no pacing.
    package let pacer: IngestPacer?

    init(repository: AggregateRepository, clock: @escaping @Sendable () -> Timestamp, pacer: IngestPacer? = nil) {
        self.repository = repository
        self.clock = clock
        self.pacer = pacer
    }

    /// Decides and appends every readable report; one outcome per entry, in order.
    ///
    /// Throws only for what concerns the whole request: the caller's provider or role, too many
    /// reports, or a database that could not be reached (nothing of the failed append is durable,
    /// and a retry with the same event ids is safe).
    package func reportLocations(provider: String, entries: [Entry], context: CommandContext) async throws(APIError) -> [Outcome] {
        let caller = context.caller
        try caller.requireProvider(provider)
        try caller.require([.server, .driver], to: "report vehicle locations")
        guard entries.count <= Self.maximumReports else {
            throw .invalidArgument("reports may hold at most \(Self.maximumReports) reports per request (got \(entries.count))")
        }
        // Before anything is decided: a batch that waits holds no vehicle.
        await pacer?.pace()
        var batch = Batch(provider: provider, count: entries.count)
        for (index, entry) in entries.enumerated() { batch.admit(entry, at: index, caller: caller) }
        // From the decisions to the commit, no other batch of this process writes these vehicles.
        return try await repository.leases.holding(batch.order.map { AggregateRepository.vehicleStream(provider: provider, vehicleId: $0) }) { () async throws(APIError) in
            try await settle(&batch, provider: provider, metadata: context.metadata)
        }
    }

    /// Tells the pacer what one commit appended: its new events, and the latest feed position among them.
    private func notePacer(_ results: [Result<AppendResult, EventStoreError>]) {
        guard let pacer else { return }
        var events = 0
        var latest: FeedPosition?
        for case .success(let appended) in results {
            guard let position = appended.feedPosition else { continue }  // deduplicated: nothing new
            events += appended.positions.count
            latest = max(latest ?? position, position)
        }
        if let latest { pacer.appended(events, through: latest) }
    }

    /// Decides and appends the admitted reports of `batch`, in rounds until each is settled.
    private func settle(_ batch: inout Batch, provider: String, metadata: JSONValue) async throws(APIError) -> [Outcome] {
        for attempt in 1...Self.attempts {
            guard batch.hasWork else { break }
            let now = clock()
            var planned: [Planned] = []
            var appends: [StreamAppend] = []
            for vehicleId in batch.order {
                guard let indices = batch.work[vehicleId], !indices.isEmpty else { continue }
                let loaded = try await repository.loadVehicle(provider: provider, vehicleId: vehicleId)
                guard let plan = try batch.decide(vehicleId, indices, on: loaded, at: now, repository: repository) else { continue }
                appends.append(try repository.append(plan.pending, metadata: metadata, ids: plan.eventIds))
                planned.append(plan)
            }
            guard !appends.isEmpty else { break }
            let results = await repository.commit(appends)
            notePacer(results)
            var duplicates: [Planned] = []
            var committed: [(pending: AggregateRepository.Pending<VehicleAggregate>, result: AppendResult)] = []
            committed.reserveCapacity(planned.count)
            defer { repository.committed(committed) }
            for (plan, result) in zip(planned, results) {
                switch result {
                case .success(let appended):
                    committed.append((plan.pending, appended))
                    batch.settle(plan)
                case .failure(let error):
                    switch error.code {
                    case .wrongExpectedVersion:
                        repository.forget(plan.pending.stream)
                        batch.work[plan.vehicleId] = plan.decided.map(\.index)
                        if attempt == Self.attempts {
                            batch.reject(plan, APIError(.aborted, "the vehicle's stream kept changing while the report was decided (vehicle \(plan.vehicleId)); retry"))
                        }
                    case .duplicateEventId:
                        // Another copy of this batch stored some of these reports first.
                        repository.forget(plan.pending.stream)
                        batch.work[plan.vehicleId] = plan.decided.map(\.index)
                        duplicates.append(plan)
                    case .unavailable:
                        throw APIError(error, doing: "append location reports")
                    default:
                        batch.reject(plan, APIError(error, doing: "append location reports of vehicle \(plan.vehicleId)"))
                    }
                }
            }
            if !duplicates.isEmpty {
                let ids = duplicates.flatMap { plan in plan.decided.compactMap { batch.reports[$0.index]?.eventId } }
                batch.resolve(try await stored(ids))
                for plan in duplicates where batch.work[plan.vehicleId]?.count == plan.decided.count {
                    // None of its reports was found stored: the clash is not a copy of this batch.
                    batch.reject(plan, APIError(.alreadyExists, "an event id of vehicle \(plan.vehicleId)'s reports is already used by another event; send new eventIds"))
                }
            }
        }
        // A retried report refused by its decision this time (its vehicle deleted since) is
        // answered from its stored event, as the first try was.
        let refusedIds = batch.refusedByDecision.compactMap { batch.reports[$0]?.eventId }
        if !refusedIds.isEmpty {
            batch.revise(try await stored(refusedIds))
        }
        return batch.outcomes.enumerated().map { index, outcome in
            outcome ?? .rejected(batch.reports[index]?.vehicleId ?? "", batch.reports[index]?.eventId.map { $0.lowercasedText },
                                 APIError(.aborted, "reports[\(index)] could not be settled in \(Self.attempts) rounds while other writers changed its vehicle; retry with the same eventId"))
        }
    }

    private func stored(_ ids: [UUID]) async throws(APIError) -> [RecordedEvent] {
        do {
            return try await repository.store.readEvents(ids: ids)
        } catch {
            throw APIError(error, doing: "look up reports' event ids")
        }
    }

    /// One vehicle's decided reports, ready to append.
    struct Planned {
        var vehicleId: String
        var pending: AggregateRepository.Pending<VehicleAggregate>
        var eventIds: [UUID]
        var decided: [(index: Int, status: Status)]
    }

    /// The reports of one request and what has become of them.
    struct Batch {
        let provider: String
        /// Readable reports by request index.
        var reports: [Report?]
        /// Each report's event id (the client's, or one picked here).
        var reportIds: [UUID?]
        var outcomes: [Outcome?]
        /// Client-supplied ids → request index.
        var clientIds: [UUID: Int] = [:]
        /// Vehicles in order of first appearance, and each one's undecided reports in request order.
        var order: [String] = []
        var work: [String: [Int]] = [:]
        /// Reports with a client id that their decision refused (answered without an append).
        var refusedByDecision: [Int] = []

        init(provider: String, count: Int) {
            self.provider = provider
            reports = Array(repeating: nil, count: count)
            reportIds = Array(repeating: nil, count: count)
            outcomes = Array(repeating: nil, count: count)
        }

        var hasWork: Bool { work.values.contains { !$0.isEmpty } }

        mutating func admit(_ entry: Entry, at index: Int, caller: Principal) {
            switch entry {
            case .unreadable(let vehicleId, let eventId, let error):
                outcomes[index] = .rejected(vehicleId, eventId, error)
            case .report(let report):
                let idText = report.eventId.map { $0.lowercasedText }
                if caller.role == .driver, caller.vehicleId != report.vehicleId {
                    outcomes[index] = .rejected(report.vehicleId, idText, .permissionDenied(
                        "a driver token may report only its own vehicle (token vehicle \(caller.vehicleId ?? ""), reports[\(index)] vehicle \(report.vehicleId))"))
                    return
                }
                do throws(JourneyError) {
                    try Identifier.validate(report.vehicleId, field: "reports[\(index)].vehicleId")
                } catch {
                    outcomes[index] = .rejected(report.vehicleId, idText, APIError(error))
                    return
                }
                if let id = report.eventId {
                    if let first = clientIds[id] {
                        outcomes[index] = .rejected(report.vehicleId, idText, .invalidArgument(
                            "reports[\(index)].eventId repeats the eventId of reports[\(first)] (\(idText ?? ""))"))
                        return
                    }
                    clientIds[id] = index
                }
                reports[index] = report
                reportIds[index] = report.eventId ?? UUID.random()
                if work[report.vehicleId] == nil { order.append(report.vehicleId) }
                work[report.vehicleId, default: []].append(index)
            }
        }

        /// Answers the reports whose id is among `events` from the stored event, and takes them off the work list.
        mutating func resolve(_ events: [RecordedEvent]) {
            for event in events {
                guard let index = clientIds[event.id], outcomes[index] == nil, let report = reports[index] else { continue }
                let idText = event.id.lowercasedText
                let stream = AggregateRepository.vehicleStream(provider: provider, vehicleId: report.vehicleId)
                if event.streamId == stream, let status = ReportEventIds.status(ofPrimaryType: event.type) {
                    outcomes[index] = Outcome(vehicleId: report.vehicleId, eventId: idText, status: status)
                } else {
                    outcomes[index] = .rejected(report.vehicleId, idText, APIError(.alreadyExists,
                        "reports[\(index)].eventId \(idText) is already the id of another event; send a new id"))
                }
                work[report.vehicleId]?.removeAll { $0 == index }
            }
        }

        /// Answers the refused reports whose id is among `events` from the stored event instead.
        mutating func revise(_ events: [RecordedEvent]) {
            let refused = Set(refusedByDecision)
            for event in events {
                guard let index = clientIds[event.id], refused.contains(index) else { continue }
                outcomes[index] = nil
                resolve([event])
            }
        }

        /// Decides `indices` (reports of `vehicleId`, in order) on `loaded`; rejected reports are
        /// answered at once. Nil when no report of the vehicle produced events.
        mutating func decide(_ vehicleId: String, _ indices: [Int], on loaded: Loaded<Vehicle.State>, at now: Timestamp,
                             repository: AggregateRepository) throws(APIError) -> Planned? {
            work[vehicleId] = []
            guard loaded.state.exists else {
                for index in indices {
                    refuse(index, .notFound("vehicle \(vehicleId) not found (provider \(provider))"))
                }
                return nil
            }
            var state = loaded.state
            var events: [Vehicle.Event] = []
            var ids: [UUID] = []
            var decided: [(index: Int, status: Status)] = []
            for index in indices {
                guard let report = reports[index], let reportId = reportIds[index] else { continue }
                let produced: [Vehicle.Event]
                do throws(JourneyError) {
                    produced = try Vehicle.decide(.reportLocation(report.location, pastLocations: report.pastLocations, at: now), state: state)
                } catch {
                    refuse(index, Self.locate(APIError(error), index))
                    continue
                }
                guard !produced.isEmpty else {
                    refuse(index, .invalidArgument("reports[\(index)] holds nothing to record"))
                    continue
                }
                for event in produced { state = Vehicle.evolve(state, with: event) }
                let stale = produced.contains { if case .staleLocationRecorded = $0 { true } else { false } }
                events += produced
                ids += ReportEventIds.assign(produced, reportId: reportId)
                decided.append((index, stale ? .stale : .accepted))
            }
            guard !events.isEmpty else { return nil }
            return Planned(vehicleId: vehicleId, pending: repository.pendingVehicle(provider: provider, vehicleId: vehicleId, before: loaded, events: events),
                           eventIds: ids, decided: decided)
        }

        /// Answers a report its decision refused.
        private mutating func refuse(_ index: Int, _ error: APIError) {
            guard let report = reports[index] else { return }
            outcomes[index] = .rejected(report.vehicleId, report.eventId.map { $0.lowercasedText }, error)
            if report.eventId != nil { refusedByDecision.append(index) }
        }

        /// After the commit: each decided report's outcome.
        mutating func settle(_ plan: Planned) {
            for (index, status) in plan.decided {
                outcomes[index] = Outcome(vehicleId: plan.vehicleId, eventId: reportIds[index]?.lowercasedText, status: status)
            }
            work[plan.vehicleId] = []
        }

        mutating func reject(_ plan: Planned, _ error: APIError) {
            for (index, _) in plan.decided where outcomes[index] == nil {
                outcomes[index] = .rejected(plan.vehicleId, reports[index]?.eventId.map { $0.lowercasedText }, error)
            }
            work[plan.vehicleId] = []
        }

        /// The domain names the report's fields as UpdateVehicle's (`lastLocation`, `pastLocations[i]`);
        /// here they sit under `reports[index]`, the location as `location`.
        static func locate(_ error: APIError, _ index: Int) -> APIError {
            var located = error
            if error.message.hasPrefix("lastLocation") {
                located.message = "reports[\(index)].location" + error.message.dropFirst("lastLocation".count)
            } else if error.message.hasPrefix("pastLocations") {
                located.message = "reports[\(index)]." + error.message
            } else {
                located.message = "reports[\(index)]: " + error.message
            }
            return located
        }
    }
}
