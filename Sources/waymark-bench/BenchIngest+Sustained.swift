import EventStore
import Foundation
import Postgres
import Projections
import WaymarkCLI

extension BenchIngest {
    /// The sustained case's offered rates unless `--offered-rates` says otherwise.
    static let defaultOfferedRates = "0.15x,0.2x,0.25x,0.3x"

    /// One offered rate of the sustained case, as measured.
    struct SustainedStep {
        var offered: Double
        var achieved: Double
        var requests: Int
        var failedRequests: Int
        /// Per projection: p99 and max of the lag samples, seconds.
        var lags: [(name: String, p99: Double, max: Double)]
        var passed: Bool
    }

    /// `--offered-rates`: events/s, or a multiple of the COPY ceiling written `0.25x`; ascending.
    static func offeredRates(_ text: String, ceiling: Double) throws -> [Double] {
        let rates = try text.split(separator: ",").map { item -> Double in
            let ratio = item.hasSuffix("x")
            guard let value = Double(ratio ? item.dropLast() : item), value > 0 else {
                throw UsageError("--offered-rates takes events/s or multiples of the COPY ceiling such as 0.25x, comma-separated; got \(String(item).debugDescription)")
            }
            return ratio ? value * ceiling : value
        }
        guard !rates.isEmpty else { throw UsageError("--offered-rates needs at least one rate") }
        return rates.sorted()
    }

    /// The sustained case: reportLocations at each offered rate in turn for `rateSeconds`, with
    /// every projection live, while each projection's lag is sampled every 100 ms; stops at the
    /// first rate that fails. A rate passes when the server took at least 95% of what was offered,
    /// every request was answered 200, and every projection's lag stayed under 1 s at p99.
    ///
    /// The lag of a projection at a sample is the time since the last head sample that what this
    /// node's readers see had reached (the mirror of the journey and fleet projections, which riders
    /// and vehicle reads are answered from; the stored checkpoint of the others): events it has not
    /// applied committed after that one (an upper bound, within the 100 ms between samples). The
    /// stored checkpoints' lag, which other nodes and replicas see, is logged beside it. Afterwards each projection's live cost per event over
    /// the whole case is shown beside a replay of the same feed (`BenchProjectionCost.replay`),
    /// which also checks that every live document equals its rebuild.
    func sustained(port: UInt16, token: String, runners: [ProjectionRunner], store: EventStore, pool: ConnectionPool,
                   ceiling: Double) async throws -> (rows: [[String]], verdicts: [String], notes: [String]) {
        let rates = try Self.offeredRates(offeredRates, ceiling: ceiling)
        let lanes = ingestConnections
        let tag = UInt32.random(in: 0...UInt32.max)
        // Each vehicle's report before and after its event id's counter (as the wrk script has them).
        let prefix = Self.hex(UInt64(tag), width: 8)
        var heads: [String] = [], tails: [String] = []
        for v in 0..<vehicles {
            heads.append(#"{"vehicleId":"v-\#(v)","eventId":""# + prefix + "-")
            tails.append(String(format: #"","location":{"location":{"latitude":%.7f,"longitude":%.7f},"heading":%d,"speed":%.1f,"latlngAccuracy":4.2}}"#,
                                52.3 + Double(v % 1000) * 0.0003, 13.1 + Double(v % 977) * 0.0006, v % 360, Double(v % 300) / 10))
        }
        var steps: [SustainedStep] = []
        var notes: [String] = []
        _ = try await catchUp(runners, store: store)
        let costBefore = BenchProjectionCost.now(runners)
        let cacheHitsBefore = store.feedCacheHits
        let joinedBefore = store.feedReadsJoined
        for (index, rate) in rates.enumerated() {
            if index > 0 { _ = try await catchUp(runners, store: store) }
            let before = try await eventCount(pool)
            let started = ContinuousClock.now
            let end = started + .seconds(rateSeconds)
            let interval = Double(lanes * reportsPerRequest) / rate
            typealias Sampled = (visible: [[Double]], stored: [[Double]], longestGap: Double)
            let (outcomes, lags) = try await withThrowingTaskGroup(of: ([SustainedLane.Outcome], Sampled?).self) { group in
                group.addTask { ([], try await Self.sampleLags(runners, store: store, until: end)) }
                for lane in 0..<lanes {
                    let worker = SustainedLane(port: port, token: token, lane: lane, lanes: lanes, perRequest: reportsPerRequest, interval: interval,
                                               started: started, end: end, step: index, heads: heads, tails: tails)
                    group.addTask { ([try await BenchHTTP.offThread { try worker.run() }], nil) }
                }
                var outcomes: [SustainedLane.Outcome] = [], lags: Sampled = ([], [], .infinity)
                for try await (outcome, sampled) in group {
                    outcomes += outcome
                    if let sampled { lags = sampled }
                }
                return (outcomes, lags)
            }
            let elapsed = (ContinuousClock.now - started).seconds
            let grown = try await eventCount(pool) - before
            let achieved = Double(grown) / Double(rateSeconds)
            let failed = outcomes.map(\.failedRequests).reduce(0, +)
            let perProjection = zip(runners, lags.visible).map { runner, samples in
                let (p99, max) = Self.percentile99(samples)
                return (name: runner.name, p99: p99, max: max)
            }
            let storedLags = zip(runners, lags.stored).map { runner, samples in
                let (p99, max) = Self.percentile99(samples)
                return "\(runner.name) \(String(format: "%.2f", p99)) / \(String(format: "%.2f", max)) s"
            }
            // A lag sampler held up for long (its head query, its task) could not see a projection fall behind: the rate does not pass.
            let sampled = lags.longestGap < 0.5
            let passed = failed == 0 && achieved >= 0.95 * rate && perProjection.allSatisfy { $0.p99 < 1 } && sampled
            let step = SustainedStep(offered: rate, achieved: achieved, requests: outcomes.map(\.requests).reduce(0, +), failedRequests: failed,
                                     lags: perProjection, passed: passed)
            steps.append(step)
            let lagText = perProjection.map { "\($0.name) \(String(format: "%.2f", $0.p99)) / \(String(format: "%.2f", $0.max)) s" }.joined(separator: ", ")
            let line = "sustained, offered \(BenchTable.grouped(Int(rate.rounded()))) events/s (\(String(format: "%.3f", rate / ceiling)) × COPY): "
                + "took \(BenchTable.grouped(Int(achieved.rounded()))) events/s (\(BenchTable.grouped(grown)) events in \(rateSeconds) s; the lanes ran \(String(format: "%.1f", elapsed)) s), "
                + "\(failed) requests not answered 200; lag p99 / max: \(lagText); \(passed ? "kept up" : "did NOT keep up"); "
                + "the tables' checkpoints: \(storedLags.joined(separator: ", ")); longest time between lag samples \(String(format: "%.2f", lags.longestGap)) s"
                + (sampled ? "" : " (0.5 s or more: the lag was not seen, the rate does not pass)")
            logger.info("\(line)")
            notes.append(line)
            if !passed { break }
        }
        let caughtUp = try await catchUp(runners, store: store)
        let live = BenchProjectionCost.now(runners).perEvent(since: costBefore)
        logger.info("feed reads answered from the node's cache during the case: \(store.feedCacheHits - cacheHitsBefore); joined another reader's read: \(store.feedReadsJoined - joinedBefore)")
        for runner in runners {
            guard let before = costBefore.samples[runner.name] else { continue }
            logger.info("projection \(runner.name) during the case: \(runner.status.stages.since(before.stages).summary)")
        }
        let replays = try await BenchProjectionCost.replay(store: store, url: url, runners: runners)
        var ratios: [String] = []
        var costMet = true
        logger.info("live cost: \(live.map(\.summary).joined(separator: "; ")); replay: \(replays.map { "\($0.name) \($0.events) events, \(String(format: "%.1f", $0.micros)) µs" }.joined(separator: ", "))")
        for cost in live {
            guard let replay = replays.first(where: { $0.name == cost.name }), replay.micros > 0 else {
                notes.append("live cost per event, sustained case: \(cost.summary); no replay figure")
                costMet = false
                continue
            }
            let ratio = cost.total / replay.micros
            costMet = costMet && ratio <= 2
            ratios.append("\(cost.name) \(String(format: "%.1f", ratio))×")
            notes.append("live cost per event, sustained case: \(cost.summary); replay \(String(format: "%.1f", replay.micros)) µs per event "
                + "(\(BenchTable.grouped(Int(replay.events))) events): \(String(format: "%.2f", ratio)) × the replay")
        }
        if let caughtUp { notes.append("after the sustained case: the projections needed \(caughtUp) more to apply what was left") }
        notes.append("sustained: \(lanes) connections, each posting \(reportsPerRequest) reports a request at a fixed pace (\(rateSeconds) s per offered rate); "
            + "a rate passes when ≥ 95% of it was appended, every answer was 200 and every projection's lag stayed < 1 s at p99 (lag: time since the "
            + "last head sample, every 100 ms, that what this node's readers see had reached: the mirror for the journey and fleet projections, "
            + "the stored checkpoint for the others; the tables' own lag is logged beside it); live cost: the runner's thread CPU (fold, encode, mirror, "
            + "write) and its PostgreSQL session's CPU, feed reads not included; replay: Rebuilder.verify of the same feed (fold, compare with the "
            + "live table), this process's CPU (the Swift side of the feed reads included, PostgreSQL's not); every live document equal to its rebuild")
        let best = steps.filter(\.passed).last
        let ratio = (best?.offered ?? 0) / ceiling
        let verdicts = [
            "target sustained reportLocations, every projection's lag p99 < 1 s: ≥ 0.25 × the COPY ceiling: \(ratio >= 0.25 ? "met" : "NOT met") ("
                + (best.map { "\(String(format: "%.3f", ratio)): \(BenchTable.grouped(Int($0.offered.rounded()))) events/s offered" } ?? "no offered rate kept up") + ")",
            "target live projection cost per event ≤ 2 × the replay's: \(costMet && !ratios.isEmpty ? "met" : "NOT met") (\(ratios.joined(separator: ", ")))",
        ]
        let rows = steps.map { step in
            ["sustained reportLocations, offered \(BenchTable.grouped(Int(step.offered.rounded()))) events/s, \(step.passed ? "kept up" : "fell behind")",
             String(format: "%.0f", Double(step.requests) / Double(rateSeconds)), BenchTable.grouped(Int(step.achieved.rounded())), "COPY ceiling",
             String(format: "%.3f", step.offered / ceiling), "≥ 0.25, lag p99 < 1 s", "-", "-", "-", "-"]
        }
        return (rows, verdicts, notes)
    }

    private func eventCount(_ pool: ConnectionPool) async throws -> Int {
        Int(try await pool.query("SELECT count(*) FROM events").first?.int64(0) ?? 0)
    }

    /// Samples, every 100 ms until `end`, the head of the log and each runner's lag behind it
    /// (seconds): `visible`, of what this node's readers see (the mirror for a projection that has
    /// one, else the table), and `stored`, of the table's checkpoint (other nodes, replicas, queries
    /// that read the table).
    static func sampleLags(_ runners: [ProjectionRunner], store: EventStore,
                           until end: ContinuousClock.Instant) async throws -> (visible: [[Double]], stored: [[Double]], longestGap: Double) {
        var heads: [(at: ContinuousClock.Instant, head: FeedPosition)] = []
        // Per runner, how many head samples (in order) its visible position and its checkpoint reached.
        var reached = Array(repeating: (visible: 0, stored: 0), count: runners.count)
        var visible = Array(repeating: [Double](), count: runners.count), stored = visible
        func lag(_ reached: inout Int, _ position: FeedPosition, now: ContinuousClock.Instant) -> Double {
            while reached < heads.count && heads[reached].head <= position { reached += 1 }
            return reached == heads.count ? 0 : (now - heads[max(0, reached - 1)].at).seconds
        }
        var longestGap = 0.0
        while ContinuousClock.now < end {
            let now = ContinuousClock.now
            if let previous = heads.last { longestGap = max(longestGap, (now - previous.at).seconds) }
            heads.append((now, try await store.head()))
            for (index, runner) in runners.enumerated() {
                let status = runner.status
                visible[index].append(lag(&reached[index].visible, status.visible, now: now))
                stored[index].append(lag(&reached[index].stored, status.checkpoint, now: now))
            }
            try await Task.sleep(until: now + .milliseconds(100))
        }
        // The time to the end counts too: a sampler held up until then saw nothing of the step.
        if let previous = heads.last { longestGap = max(longestGap, (ContinuousClock.now - previous.at).seconds) }
        return (visible, stored, heads.isEmpty ? .infinity : longestGap)
    }

    /// The 99th percentile and the largest of `samples` (0 when empty).
    static func percentile99(_ samples: [Double]) -> (p99: Double, max: Double) {
        let sorted = samples.sorted()
        guard let last = sorted.last else { return (0, 0) }
        return (sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)], last)
    }

    static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

/// One connection posting `vehicles:reportLocations` batches at a fixed pace (bench only).
///
/// Lane `lane` of `lanes` posts every `interval` seconds from its start (lanes start spread over one
/// interval); a lane whose answers come late sends its next request at once and so catches up, as
/// long as the server keeps up. Request n of a lane carries group `(lane + n × lanes) mod groups`
/// of `perRequest` vehicles, each report with an event id of its own.
struct SustainedLane: Sendable {
    struct Outcome: Sendable {
        var requests = 0
        var failedRequests = 0
    }

    let port: UInt16
    let token: String
    let lane: Int
    let lanes: Int
    let perRequest: Int
    let interval: Double
    let started: ContinuousClock.Instant
    let end: ContinuousClock.Instant
    let step: Int
    let heads: [String]
    let tails: [String]

    func run() throws -> Outcome {
        let connection = try BenchConnection(port: port)
        let groups = max(1, heads.count / perRequest)
        let idPrefix = BenchIngest.hex(UInt64(step * 4096 + lane), width: 4) + "-4000-8000-"
        var outcome = Outcome()
        var next = started + .nanoseconds(Int64(interval * 1e9 * Double(lane) / Double(lanes)))
        var n = 0
        while next < end {
            let wait = next - ContinuousClock.now
            if wait > .zero { Thread.sleep(forTimeInterval: wait.seconds) }
            let group = (lane + n * lanes) % groups
            var body = #"{"reports":["#
            body.reserveCapacity(perRequest * 200)
            for j in 0..<perRequest {
                let v = group * perRequest + j
                if j > 0 { body += "," }
                body += heads[v]
                body += idPrefix
                body += BenchIngest.hex(UInt64(n * perRequest + j), width: 12)
                body += tails[v]
            }
            body += "]}"
            try connection.send("POST /v1/providers/bench/vehicles:reportLocations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let answer = try connection.readResponseWithBody()
            outcome.requests += 1
            if answer.status != 200 { outcome.failedRequests += 1 }
            n += 1
            next = next + .nanoseconds(Int64(interval * 1e9))
        }
        return outcome
    }
}
