import API
import Foundation
import Postgres
import Testing
import TestSupport

/// The official `google-maps-fleetengine` Python client, unchanged, against `waymark serve` with
/// its gRPC port: the scripted session of `Tests/python/fleetengine_grpc.py` (every RPC, every
/// trip status, paging, both views compared with REST, the unhappy paths as the client's
/// exception classes).
@Suite(.timeLimit(.minutes(8)), .serialized) struct FleetEngineClientTests {
    static func python() async throws -> String {
        let outcome = try await WaymarkBinary.runTool(WaymarkBinary.packageRoot + "/scripts/pytools.sh", [])
        try #require(outcome.status == 0, "scripts/pytools.sh failed: \(outcome.output)")
        return String(outcome.stdout.split(separator: "\n").last ?? "")
    }

    @Test func theOfficialClientRunsAWholeSessionOverGRPCAndAgreesWithREST() async throws {
        let python = try await Self.python()
        try await TestServer.with(environment: ["WAYMARK_GRPC_PORT": "0"]) { server in
            let grpc = try #require(server.grpcAddress, "the server logged no gRPC port")
            let secret = Array(server.secret.utf8)
            let now = Int64(Date().timeIntervalSince1970)
            let run = "g\(UInt32.random(in: 0...UInt32.max))"
            func mint(_ role: Principal.Role, trip: String? = nil, vehicle: String? = nil) -> String {
                Authenticator.mint(secret: secret, role: role, provider: "acme", tripId: trip, vehicleId: vehicle, issuedAt: now, ttl: 3600)
            }
            let outcome = try await WaymarkBinary.runTool(python, [WaymarkBinary.packageRoot + "/Tests/python/fleetengine_grpc.py"], environment: [
                "WAYMARK_GRPC": grpc, "WAYMARK_URL": server.baseURL, "WAYMARK_PROVIDER": "acme", "WAYMARK_RUN_ID": run,
                "WAYMARK_TOKEN": mint(.server), "WAYMARK_DRIVER_TOKEN": mint(.driver, vehicle: "\(run)-v2"),
                "WAYMARK_CONSUMER_TOKEN": mint(.consumer, trip: "\(run)-t1"),
            ])
            #expect(outcome.status == 0, "\(outcome.output)")
            #expect(outcome.stdout.contains("all steps passed"), "\(outcome.output)")
        }
    }

    @Test func aServerStartedWithGRPCOffOpensNoGRPCPort() async throws {
        try await TestServer.with { server in
            #expect(server.grpcAddress == nil)
            #expect(!server.process.stderr.contains("listening for gRPC"))
        }
    }
}
