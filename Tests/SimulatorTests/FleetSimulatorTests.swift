import JSON
import Journey
import Simulator
import Synchronization
import Testing

/// The fleet simulator, against a fake server that checks what a trip's status may do: trips move
/// only by Fleet Engine's transitions, every trip ends, and the route plans it sends are whole.
@Suite(.timeLimit(.minutes(2)))
struct FleetSimulatorTests {
    /// Answers like a server would, and remembers every trip's status.
    final class FakeServer: FleetTransport {
        struct Record { var statuses: [String: TripStatus] = [:]; var violations: [String] = []; var plans = 0; var reports = 0; var segments = 0 }
        let record = Mutex(Record())
        let offersPlanRoute: Bool

        init(offersPlanRoute: Bool) { self.offersPlanRoute = offersPlanRoute }

        func send(_ method: String, _ path: String, body: JSONValue?) async -> FleetResponse {
            let route = path.split(separator: "?")[0]
            let id = route.split(separator: "/").last.map(String.init) ?? ""
            return record.withLock { record in
                if method == "POST", route.hasSuffix("/trips") {
                    let tripId = String(path.split(separator: "=").last ?? "")
                    record.statuses[tripId] = .new
                    return FleetResponse(status: 200, body: ["intermediateDestinationsVersion": "2026-03-01T00:00:00Z"])
                }
                if method == "POST", id.hasSuffix(":planRoute") {
                    guard offersPlanRoute else { return FleetResponse(status: 404, body: ["error": ["code": 404, "message": .string("no operation at \(route)"), "status": "NOT_FOUND"]]) }
                    let legs = body?["routes"]?[0]?["legs"]?.arrayValue ?? []
                    if legs.isEmpty || legs.contains(where: { $0["steps"]?.arrayValue?.isEmpty ?? true }) { record.violations.append("plan without legs or steps: \(path)") }
                    record.plans += 1
                    return FleetResponse(status: 200, body: [:])
                }
                if method == "PUT", route.contains("/trips/"), let next = body?["tripStatus"]?.stringValue.flatMap(TripStatus.init(rawValue:)) {
                    let current = record.statuses[id] ?? .unknown
                    if !current.canMove(to: next) { record.violations.append("\(id): \(current.rawValue) → \(next.rawValue)") }
                    if next == .enrouteToIntermediateDestination, body?["intermediateDestinationsVersion"]?.stringValue == nil {
                        record.violations.append("\(id): ENROUTE_TO_INTERMEDIATE_DESTINATION without intermediateDestinationsVersion")
                    }
                    record.statuses[id] = next
                }
                if route.hasSuffix("vehicles:reportLocations") {
                    let reports = body?["reports"]?.arrayValue ?? []
                    record.reports += reports.count
                    return FleetResponse(status: 200, body: ["results": .array(reports.map { ["vehicleId": $0["vehicleId"] ?? nil, "status": "ACCEPTED"] })])
                }
                if path.contains("updateMask=currentRouteSegment") { record.segments += 1 }
                return FleetResponse(status: 200, body: method == "POST" && route.hasSuffix("trips:search") ? ["trips": []] : [:])
            }
        }
    }

    func simulate(offersPlanRoute: Bool) async -> (FleetSummary, FakeServer.Record) {
        var options = FleetOptions()
        options.vehicles = 6
        options.tripsPerMinute = 3
        options.speedup = 600
        options.minutes = 40
        options.seed = 3
        let server = FakeServer(offersPlanRoute: offersPlanRoute)
        let simulator = FleetSimulator(options: options, transport: server) { _ in }
        let summary = await simulator.run(shouldStop: { false }) { _ in }
        return (summary, server.record.withLock { $0 })
    }

    @Test func tripsMoveOnlyByLegalTransitionsAndAllEnd() async {
        let (summary, record) = await simulate(offersPlanRoute: true)
        #expect(record.violations.isEmpty, "\(record.violations.prefix(10))")
        #expect(summary.tripsCreated > 20)
        #expect(summary.errorCount == 0)
        #expect(record.statuses.count == summary.tripsCreated)
        #expect(record.statuses.values.allSatisfy { $0 == .complete || $0 == .canceled }, "\(record.statuses.filter { $0.value != .complete && $0.value != .canceled })")
        #expect(summary.tripsCompleted + summary.tripsCanceled == summary.tripsCreated)
        #expect(record.statuses.values.filter { $0 == .complete }.count == summary.tripsCompleted)
        #expect(summary.reroutes > 0)
        #expect(record.plans > summary.tripsCreated / 2)
        #expect(record.reports > 0 && record.segments > 0)
    }

    @Test func aServerWithoutPlanRouteIsAskedOnceAndTheRunGoesOn() async {
        let (summary, record) = await simulate(offersPlanRoute: false)
        #expect(!summary.planRouteAvailable)
        #expect(summary.errorCount == 0)
        #expect(record.plans == 0)
        #expect(summary.tripsCompleted > 10)
    }
}
