import EventStore
import Foundation
import Synchronization
import WaymarkCLI

extension BenchJourney {
    /// Connections that post the batches, each on a thread of its own.
    static let batchLanes = 5

    /// The fewest vehicles a batch-driven run needs: the probe vehicles, then for every lane
    /// enough vehicles of its own that no vehicle appears twice in a batch or in two lanes.
    static func vehiclesNeeded(reportsPerRequest: Int) -> Int {
        probeTrips + batchLanes * reportsPerRequest
    }

    /// Propagation under batch ingest: `batchLanes` connections post `vehicles:reportLocations`
    /// batches of `reportsPerRequest` reports, paced so all lanes together aim at `targetRate`
    /// reports/s. Every batch of a lane carries a new position for each of the lane's probe
    /// vehicles (v-0...v-9, split over the lanes; riders stream their trips) and positions of the
    /// lane's own load vehicles (v-10..., most of the first ninety serving trips). Propagation is
    /// the time from the batch's acknowledgement to the view with a probe position reaching its
    /// stream.
    func batchPropagation(reportsPerRequest: Int) async throws -> Propagation {
        let streams = try (0..<Self.probeTrips).map { n in try EventTap(port: port, path: "/v1/providers/bench/trips/t-\(n)/journey:stream", token: token) }
        defer { for stream in streams { stream.stop() } }
        for stream in streams { stream.start() }
        try await Task.sleep(for: .milliseconds(500))
        let lanes = Self.batchLanes
        let interval = Double(lanes * reportsPerRequest) / Double(max(1, targetRate))
        let stagesBefore = stageTimings()
        let started = ContinuousClock.now
        let startedWall = MonotonicMicros.wallClock()
        let outcomes = try await withThrowingTaskGroup(of: BatchLane.Outcome.self) { group in
            for lane in 0..<lanes {
                let worker = BatchLane(port: port, token: token, lane: lane, lanes: lanes, vehicles: vehicles, perRequest: reportsPerRequest,
                                       interval: interval, seconds: seconds)
                group.addTask { try await BenchHTTP.offThread { try worker.run() } }
            }
            var all: [BatchLane.Outcome] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        let elapsed = Self.seconds(started, .now)
        let reports = outcomes.flatMap(\.probes)
        // The last events on their way: wait until each probe vehicle's last accepted position has
        // arrived (up to 10 s), so that slow arrivals are measured rather than left out.
        var lastLatitude: [Int: Double] = [:]
        for report in reports { lastLatitude[report.vehicle] = max(lastLatitude[report.vehicle] ?? -90, report.latitude) }
        let drainDeadline = ContinuousClock.now + .seconds(10)
        repeat {
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < drainDeadline && lastLatitude.contains { streams[$0.key].arrival(ofLatitude: $0.value) == nil }

        let seen = ProbeLatencies(reports, streams: streams)
        logStages(since: stagesBefore)
        logSlowest(seen) { instant in
            let offset = instant - started
            return startedWall + offset.components.seconds * 1_000_000 + offset.components.attoseconds / 1_000_000_000_000
        }
        let accepted = outcomes.map(\.accepted).reduce(0, +)
        let failures = outcomes.map(\.failures).reduce(0, +)
        let requests = outcomes.map(\.requests).reduce(0, +)
        logger.info("batch propagation: \(seen.sorted.count) of \(reports.count) probe reports seen on the streams (\(seen.superseded) through a later view); \(accepted) reports accepted in \(requests) requests over \(String(format: "%.1f", elapsed)) s")
        return Propagation(targetRate: targetRate, achievedRate: Double(accepted) / elapsed, probeReports: reports.count, matched: seen.sorted.count,
                           beforeAck: seen.beforeAck, p50: seen.percentile(0.5), p99: seen.percentile(0.99), max: seen.sorted.last ?? 0, loadErrors: failures,
                           superseded: seen.superseded, reportsPerRequest: reportsPerRequest, requests: requests)
    }
}

/// One connection posting paced `vehicles:reportLocations` batches (bench only).
struct BatchLane: Sendable {
    struct Outcome: Sendable {
        var probes: [Probe.Report] = []
        var requests = 0
        var accepted = 0
        /// Reports not ACCEPTED plus requests not answered 200.
        var failures = 0
    }

    let port: UInt16
    let token: String
    let lane: Int
    let lanes: Int
    let vehicles: Int
    let perRequest: Int
    /// Seconds between two requests of this lane.
    let interval: Double
    let seconds: Int

    func run() throws -> Outcome {
        let connection = try BenchConnection(port: port)
        let probeVehicles = (0..<BenchJourney.probeTrips).filter { $0 % lanes == lane }
        let first = BenchJourney.probeTrips + lane * perRequest
        let loadVehicles = Array(first..<min(vehicles, first + perRequest - probeVehicles.count))
        var outcome = Outcome()
        let end = ContinuousClock.now + .seconds(seconds)
        var next = ContinuousClock.now
        var n = 0
        while ContinuousClock.now < end {
            n += 1
            var reports: [String] = []
            var probes: [(Int, Double)] = []
            for vehicle in probeVehicles {
                let latitude = ((52.52 + Double(n * BenchJourney.probeTrips + vehicle) * 0.000001) * 1e7).rounded() / 1e7
                probes.append((vehicle, latitude))
                reports.append(Self.report(vehicle: vehicle, latitude: latitude))
            }
            for (index, vehicle) in loadVehicles.enumerated() {
                reports.append(Self.report(vehicle: vehicle, latitude: ((52.5 + Double((n + index) % 997) * 0.00001) * 1e7).rounded() / 1e7))
            }
            let body = #"{"reports":["# + reports.joined(separator: ",") + "]}"
            try connection.send("POST /v1/providers/bench/vehicles:reportLocations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let answer = try connection.readResponseWithBody()
            let acknowledged = ContinuousClock.now
            outcome.requests += 1
            let accepted = String(decoding: answer.body, as: UTF8.self).components(separatedBy: "\"ACCEPTED\"").count - 1
            if answer.status == 200 {
                outcome.accepted += accepted
                outcome.failures += reports.count - accepted
                // Only a batch accepted whole counts its probes (a probe report could be the one refused).
                if accepted == reports.count {
                    outcome.probes += probes.map { Probe.Report(vehicle: $0.0, latitude: $0.1, acknowledged: acknowledged) }
                }
            } else {
                outcome.failures += reports.count
            }
            next = next + .nanoseconds(Int64(interval * 1e9))
            let wait = next - ContinuousClock.now
            if wait > .zero { Thread.sleep(forTimeInterval: BenchJourney.seconds(.now, .now + wait)) }
        }
        return outcome
    }

    static func report(vehicle: Int, latitude: Double) -> String {
        #"{"vehicleId":"v-\#(vehicle)","location":{"location":{"latitude":\#(String(format: "%.7f", latitude)),"longitude":13.405},"heading":90}}"#
    }
}
