import Foundation
import JSON
import Postgres
import Testing
import TestSupport

/// `waymark simulate` as a load generator and end-to-end test: a fleet driven through the public
/// HTTP API of a real server for an hour of simulated time; afterwards the read models rebuild
/// identically (`verify-projections`) and every hash chain verifies (`verify`).
@Suite(.timeLimit(.minutes(10))) struct SimulateCommandTests {
    @Test func anHourOfSimulatedFleetEndsEveryTripWithoutServerErrorsAndProjectionsVerify() async throws {
        try await TestServer.with { server in
            let run = try await WaymarkBinary.run(
                ["simulate", "--url", server.baseURL, "--vehicles", "8", "--trips-per-minute", "3", "--speedup", "240", "--minutes", "60", "--seed", "11"],
                environment: ["WAYMARK_JWT_SECRET": server.secret])
            let lastLine = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
            let summary = try JSONValue.parse(lastLine)
            #expect(run.status == 0, "simulate failed: \(run.stderr.suffix(2000))")
            #expect(summary["serverErrors"] == 0, "\(summary)")
            #expect(summary["errors"] == 0, "\(run.stderr.suffix(2000))")
            #expect(summary["simulatedSeconds"]?.int64Value ?? 0 >= 3600)
            let created = summary["tripsCreated"]?.int64Value ?? 0
            #expect(created >= 60, "\(summary)")
            #expect(summary["tripsOpen"] == 0)
            #expect((summary["tripsCompleted"]?.int64Value ?? 0) > created / 2)
            #expect((summary["reroutes"]?.int64Value ?? 0) > 0)

            // The server agrees: no trip of the provider is still under way, every vehicle is offline.
            let token = try await WaymarkBinary.run(["token", "--role", "server", "--provider", "demo"], environment: ["WAYMARK_JWT_SECRET": server.secret])
            let bearer = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let active = try await server.request("POST", "/v1/providers/demo/trips:search", body: #"{"activeTripsOnly":true,"pageSize":1000}"#, token: bearer)
            #expect(active.status == 200)
            #expect(try JSONValue.parse(active.body)["trips"]?.arrayValue?.isEmpty ?? true, "open trips: \(active.text.prefix(500))")
            let all = try await server.request("POST", "/v1/providers/demo/trips:search", body: #"{"pageSize":1000}"#, token: bearer)
            let trips = try JSONValue.parse(all.body)["trips"]?.arrayValue ?? []
            #expect(Int64(trips.count) == created - (summary["tripsFailed"]?.int64Value ?? 0))
            #expect(trips.allSatisfy { ["COMPLETE", "CANCELED"].contains($0["tripStatus"]?.stringValue ?? "") })
            #expect(trips.contains { $0["tripType"] == "SHARED" } && trips.contains { $0["intermediateDestinations"]?.arrayValue?.isEmpty == false })

            let verify = try await WaymarkBinary.run(["verify-projections"], environment: ["DATABASE_URL": server.databaseURL])
            #expect(verify.status == 0, "\(verify.stdout.suffix(2000)) \(verify.stderr.suffix(2000))")
            let chains = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": server.databaseURL])
            #expect(chains.status == 0, "\(chains.stdout.suffix(2000)) \(chains.stderr.suffix(2000))")
        }
    }

    @Test func simulateWithoutASecretSaysWhereToGetOne() async throws {
        let run = try await WaymarkBinary.run(["simulate", "--url", "http://127.0.0.1:9", "--data-dir", "/tmp/wm-none-\(UUID().uuidString)/pg"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("WAYMARK_JWT_SECRET must be set"))
    }

    @Test func serveSimulateWithoutDemoIsRefused() async throws {
        let run = try await WaymarkBinary.run(["serve", "--simulate"], environment: ["DATABASE_URL": "postgresql:///x?host=/nonexistent-wm&port=1"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--simulate needs --demo"))
    }

    @Test func aBadSimulateFlagNamesItAndTheExpectedForm() async throws {
        let run = try await WaymarkBinary.run(["simulate", "--speedup", "fast"], environment: ["WAYMARK_JWT_SECRET": "x"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--speedup must be a positive number"))
    }
}
