import API
import Foundation
import GRPC
import JSON
import Protobuf
import Testing
import TestSupport

/// gRPC reads on a node with a read replica (see ReadReplicaTests for REST): GetVehicle with the
/// writer's consistency token as metadata shows the write while the standby's replay is paused;
/// without it the standby's older copy answers. In scripts/test.sh's last run (the filter matches
/// "ReadReplicaTests").
@Suite(.timeLimit(.minutes(3))) struct GRPCReadReplicaTests {
    @Test func getVehicleWithTheWritersTokenAsMetadataSeesTheWriteWhileTheReplicaLags() async throws {
        try await ReplicatedCluster.with { cluster in
            let (a, b) = try await cluster.startNodes(environment: ["WAYMARK_GRPC_PORT": "0", "WAYMARK_READ_REPLICA_WAIT_MS": "300"])
            defer { a.stop(); b.stop() }
            let bearer = Authenticator.mint(secret: Array(a.secret.utf8), role: .server, provider: "acme", tripId: nil, vehicleId: nil,
                                            issuedAt: Int64(Date().timeIntervalSince1970), ttl: 3600)
            func move(_ node: TestServer, _ latitude: Double) async throws -> TestServer.Response {
                try await node.request("PUT", "/v1/providers/acme/vehicles/v-1?updateMask=lastLocation",
                                       body: #"{"lastLocation":{"location":{"latitude":\#(latitude),"longitude":13.4}}}"#, token: bearer)
            }
            let created = try await a.request("POST", "/v1/providers/acme/vehicles?vehicleId=v-1", body: """
                {"vehicleState":"ONLINE","supportedTripTypes":["EXCLUSIVE"],"maximumCapacity":4,"vehicleType":{"category":"AUTO"},
                 "lastLocation":{"location":{"latitude":52.1,"longitude":13.4}}}
                """, token: bearer)
            try #require(created.status == 200, "\(created.text)")
            // The reader is the node that does not own the fleet projection (the owner answers from memory).
            var reader: TestServer?
            let deadline = ContinuousClock.now + .seconds(20)
            while reader == nil, ContinuousClock.now < deadline {
                for (node, other) in [(a, b), (b, a)] {
                    let metrics = try await node.request("GET", "/metrics").text
                    if metrics.contains("waymark_projection_owner{projection=\"fleet\"} 1") { reader = other }
                }
                if reader == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            let node = try #require(reader, "one node owns the fleet projection")
            let address = try #require(node.grpcAddress, "the node logged its gRPC port")
            let port = try #require(UInt16(address.split(separator: ":").last ?? ""))
            let client = try GRPCClient(host: "127.0.0.1", port: port)
            defer { client.close() }
            let request = try FleetEngineSchema.schema.encode(["name": "providers/acme/vehicles/v-1"], as: "maps.fleetengine.v1.GetVehicleRequest")
            func latitude(token: String?) async throws -> Double? {
                let metadata = [("authorization", "Bearer \(bearer)")] + (token.map { [(WaymarkAPI.consistencyTokenMetadata, $0)] } ?? [])
                let reply = await client.call("/maps.fleetengine.v1.VehicleService/GetVehicle", message: request, metadata: metadata)
                try #require(reply.status.code == 0, "\(reply.status)")
                let vehicle = try FleetEngineSchema.schema.decode((reply.message ?? [])[...], as: "maps.fleetengine.v1.Vehicle")
                return vehicle["lastLocation"]?["location"]?["latitude"]?.doubleValue
            }
            let first = try await move(a, 52.2)
            try #require(first.status == 200, "\(first.text)")
            #expect(try await latitude(token: first.header(WaymarkAPI.consistencyTokenHeader)) == 52.2)

            try await cluster.pauseReplay(true)
            do {
                let second = try await move(a, 52.3)
                try #require(second.status == 200, "\(second.text)")
                let token = try #require(second.header(WaymarkAPI.consistencyTokenHeader))
                #expect(try await latitude(token: token) == 52.3, "with the token the lagging standby is bypassed")
                #expect(try await latitude(token: nil) == 52.2, "without it the paused standby answers")
                let bad = await client.call("/maps.fleetengine.v1.VehicleService/GetVehicle", message: request,
                                            metadata: [("authorization", "Bearer \(bearer)"), (WaymarkAPI.consistencyTokenMetadata, "soon")])
                #expect(bad.status.code == 3, "a malformed token is INVALID_ARGUMENT: \(bad.status)")
            } catch {
                try? await cluster.pauseReplay(false)
                throw error
            }
            try await cluster.pauseReplay(false)
        }
    }
}
