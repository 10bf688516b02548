import API
import Foundation
import GRPC
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

    static let failingCalls = #"""
import os, sys, grpc
from google.api_core import exceptions as gexc
from google.maps import fleetengine_v1 as fe
from google.maps.fleetengine_v1.services.trip_service.transports import TripServiceGrpcTransport
from google.maps.fleetengine_v1.services.vehicle_service.transports import VehicleServiceGrpcTransport
from google.protobuf import field_mask_pb2
ep, server, consumer = sys.argv[1], sys.argv[2], sys.argv[3]
channel = grpc.insecure_channel(ep)
trips = fe.TripServiceClient(transport=TripServiceGrpcTransport(channel=channel))
vehicles = fe.VehicleServiceClient(transport=VehicleServiceGrpcTransport(channel=channel))
auth = lambda token: [("authorization", "Bearer " + token)]
def expect(kind, call):
    try:
        call()
    except kind as error:
        print("ok", type(error).__name__, error.message)
        return
    raise SystemExit(f"expected {kind.__name__}")
vehicle = fe.Vehicle(vehicle_state=2, supported_trip_types=[2], maximum_capacity=4, vehicle_type=fe.Vehicle.VehicleType(category=1))
expect(gexc.InvalidArgument, lambda: trips.create_trip(request={"parent": "providers/acme", "trip_id": "t1", "trip": {"trip_type": 2}}, metadata=auth(server)))
expect(gexc.InvalidArgument, lambda: trips.create_trip(request={"parent": "acme", "trip_id": "t1"}, metadata=auth(server)))
expect(gexc.PermissionDenied, lambda: vehicles.create_vehicle(request={"parent": "providers/acme", "vehicle_id": "v1", "vehicle": vehicle}, metadata=auth(consumer)))
expect(gexc.PermissionDenied, lambda: vehicles.create_vehicle(request={"parent": "providers/other", "vehicle_id": "v1", "vehicle": vehicle}, metadata=auth(server)))
expect(gexc.Unauthenticated, lambda: vehicles.create_vehicle(request={"parent": "providers/acme", "vehicle_id": "v1", "vehicle": vehicle}))
expect(gexc.NotFound, lambda: trips.update_trip(request={"name": "providers/acme/trips/nope", "trip": {"trip_status": 6},
                                                         "update_mask": field_mask_pb2.FieldMask(paths=["trip_status"])}, metadata=auth(server)))
expect(gexc.InvalidArgument, lambda: vehicles.update_vehicle(request={"name": "providers/acme/vehicles/v1", "vehicle": {}}, metadata=auth(server)))
raw = channel.unary_unary("/maps.fleetengine.v1.VehicleService/CreateVehicle")
try:
    raw(b"\x1a\x05acm", metadata=auth(server))   # field 3 claims 5 bytes, 3 follow
    raise SystemExit("truncated protobuf accepted")
except grpc.RpcError as error:
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.code()
    print("ok truncated message", error.details())
print("all steps passed")
"""#

    @Test func failedCallsRaiseTheClientsExceptionsAndWriteNothing() async throws {
        let python = try await Self.python()
        try await TestServer.with(environment: ["WAYMARK_GRPC_PORT": "0"]) { server in
            let grpc = try #require(server.grpcAddress)
            let now = Int64(Date().timeIntervalSince1970)
            let secret = Array(server.secret.utf8)
            let before = try await server.eventCount()
            let outcome = try await WaymarkBinary.runTool(python, ["-c", Self.failingCalls, grpc,
                Authenticator.mint(secret: secret, role: .server, provider: "acme", issuedAt: now, ttl: 3600),
                Authenticator.mint(secret: secret, role: .consumer, provider: "acme", tripId: "t1", issuedAt: now, ttl: 3600)])
            #expect(outcome.status == 0, "\(outcome.output)")
            #expect(outcome.stdout.contains("all steps passed"), "\(outcome.output)")
            #expect(try await server.eventCount() == before)
            // gRPC calls are counted in /metrics under their method name, method GRPC and the HTTP status REST would give.
            let metrics = try await server.request("GET", "/metrics")
            #expect(metrics.text.contains(#"waymark_http_requests_total{route="CreateTrip",method="GRPC",status="400"} 2"#), "\(metrics.text)")
            #expect(metrics.text.contains(#"waymark_http_requests_total{route="UpdateTrip",method="GRPC",status="404"} 1"#))
        }
    }

    @Test func theTokenIsCheckedBeforeTheRequestMessageIsDecoded() async throws {
        try await TestServer.with(environment: ["WAYMARK_GRPC_PORT": "0"]) { server in
            let address = try #require(server.grpcAddress).split(separator: ":")
            let client = try GRPCClient(host: String(address[0]), port: try #require(UInt16(address[1])))
            defer { client.close() }
            let garbage: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
            let path = "/maps.fleetengine.v1.TripService/GetTrip"
            let anonymous = await client.call(path, message: garbage)
            #expect(anonymous.status.code == 16, "\(anonymous.status)")  // UNAUTHENTICATED, not INVALID_ARGUMENT
            let forged = await client.call(path, message: garbage, metadata: [("authorization", "Bearer a.b.c")])
            #expect(forged.status.code == 16, "\(forged.status)")
            let now = Int64(Date().timeIntervalSince1970)
            let token = Authenticator.mint(secret: Array(server.secret.utf8), role: .server, provider: "acme", issuedAt: now, ttl: 600)
            let admitted = await client.call(path, message: garbage, metadata: [("authorization", "Bearer \(token)")])
            #expect(admitted.status.code == 3, "\(admitted.status)")  // past the token, the message is judged
        }
    }

    @Test func aServerStartedWithGRPCOffOpensNoGRPCPort() async throws {
        try await TestServer.with { server in
            #expect(server.grpcAddress == nil)
            #expect(!server.process.stderr.contains("listening for gRPC"))
        }
    }
}
