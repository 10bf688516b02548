import Foundation
import Postgres
@testable import GRPC
import Synchronization
import Testing
import TestSupport

/// The HTTP/2 server on its own, with a stand-in handler, driven by grpcio (the C-core client the
/// official libraries use): large messages both ways (flow control), many concurrent streams on one
/// connection, trailers with percent-encoded messages, deadlines, and the refusals.
@Suite(.timeLimit(.minutes(4)), .serialized) struct GRPCServerTests {
    /// Echoes the request `repeat` times (`/test.Echo/Repeat`: first byte = count), fails with the
    /// message in the request (`/test.Echo/Fail`), or sleeps (`/test.Echo/Sleep`: first byte = seconds).
    struct EchoHandler: GRPCHandler {
        func handle(_ request: GRPCRequest) async -> GRPCResponse {
            switch request.path {
            case "/test.Echo/Repeat":
                let times = Int(request.message.first ?? 1)
                return .message(Array([[UInt8]](repeating: request.message, count: times).joined()))
            case "/test.Echo/Fail":
                return .status(GRPCStatus(code: 9, message: String(decoding: request.message, as: UTF8.self)))
            case "/test.Echo/Sleep":
                try? await Task.sleep(for: .seconds(Int(request.message.first ?? 1)))
                return .message([])
            case "/test.Echo/Metadata":
                return .message(Array((request.metadata("authorization") ?? "").utf8))
            case "/test.Echo/Count":
                InFlight.shared.enter()
                try? await Task.sleep(for: .milliseconds(500))
                InFlight.shared.leave()
                return .message([])
            default:
                return .status(.unimplemented("no method \(request.path)"))
            }
        }
    }

    static let script = #"""
import sys, time, grpc, concurrent.futures as cf
ep = sys.argv[1]
ch = grpc.insecure_channel(ep, options=[("grpc.max_receive_message_length", 64 << 20), ("grpc.max_send_message_length", 64 << 20)])
ident = lambda b: b
rep = ch.unary_unary("/test.Echo/Repeat", request_serializer=ident, response_deserializer=ident)
big = bytes([3]) + bytes(range(256)) * 4096           # ~1 MiB, echoed 3 times: ~3 MiB back
out = rep(big, timeout=30)
assert out == big * 3, ("echo", len(out))
print("ok large both ways", len(big), len(out))
with cf.ThreadPoolExecutor(64) as pool:
    futures = [pool.submit(rep, bytes([2, i % 256]) * 100, timeout=30) for i in range(400)]
    for i, f in enumerate(futures):
        assert f.result() == (bytes([2, i % 256]) * 100) * 2
print("ok 400 concurrent calls")
fail = ch.unary_unary("/test.Echo/Fail", request_serializer=ident, response_deserializer=ident)
try:
    fail("trip “t” 100% gone\nnext line".encode(), timeout=10)
    raise SystemExit("fail succeeded")
except grpc.RpcError as e:
    assert e.code() == grpc.StatusCode.FAILED_PRECONDITION, e.code()
    assert e.details() == "trip “t” 100% gone\nnext line", repr(e.details())
print("ok status and percent-encoded message")
meta = ch.unary_unary("/test.Echo/Metadata", request_serializer=ident, response_deserializer=ident)
assert meta(b"x", metadata=[("authorization", "Bearer abc")], timeout=10) == b"Bearer abc"
print("ok metadata")
empty = ch.unary_unary("/test.Echo/Repeat", request_serializer=ident, response_deserializer=ident)
assert empty(b"", timeout=10) == b""
print("ok zero-length message")
gz = grpc.insecure_channel(ep, compression=grpc.Compression.Gzip)
try:
    gz.unary_unary("/test.Echo/Repeat", request_serializer=ident, response_deserializer=ident)(b"\x01" * 1000, timeout=10)
    raise SystemExit("compressed succeeded")
except grpc.RpcError as e:
    assert e.code() == grpc.StatusCode.UNIMPLEMENTED, e.code()
print("ok compressed refused")
print("all steps passed")
"""#

    @Test func grpcioCallsGetLargeMessagesConcurrentStreamsAndTrailers() async throws {
        let server = GRPCServer(configuration: .init(port: 0, maxMessageBytes: 8 << 20), handler: EchoHandler())
        try server.start()
        let python = try await FleetEngineClientTests.python()
        let outcome = try await WaymarkBinary.runTool(python, ["-c", Self.script, "127.0.0.1:\(server.port)"])
        await server.shutdown(grace: .seconds(2))
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.stdout.contains("all steps passed"), "\(outcome.output)")
        #expect(server.connectionCount == 0)
    }

    @Test func theServerEndsACallWithDeadlineExceededWhenItsGRPCTimeoutPasses() async throws {
        let server = GRPCServer(configuration: .init(port: 0), handler: EchoHandler())
        try server.start()
        let client = try GRPCClient(host: "127.0.0.1", port: server.port)
        let started = ContinuousClock.now
        // The client itself sets no deadline: only the server's reading of grpc-timeout can end the call early.
        // The handler sleeps 20 s, so a bound of 10 s tells the two apart with room for a loaded CI machine.
        let reply = await client.call("/test.Echo/Sleep", message: [20], metadata: [("grpc-timeout", "200m")])
        let elapsed = ContinuousClock.now - started
        #expect(reply.status.code == 4, "\(reply.status)")
        #expect(elapsed < .seconds(10), "\(elapsed)")
        let fine = await client.call("/test.Echo/Repeat", message: [2, 7], metadata: [("grpc-timeout", "10S")])
        #expect(fine.status.code == 0 && fine.message == [2, 7, 2, 7])
        let malformed = await client.call("/test.Echo/Repeat", message: [1], metadata: [("grpc-timeout", "soon")])
        #expect(malformed.status.code == 3, "\(malformed.status)")
        client.close()
        await server.shutdown(grace: .seconds(2))
    }

    @Test func connectionsBeyondTheLimitAreClosedAndTheAdmittedOneKeepsWorking() async throws {
        let server = GRPCServer(configuration: .init(port: 0, maxConnections: 1), handler: EchoHandler())
        try server.start()
        let first = try GRPCClient(host: "127.0.0.1", port: server.port)
        let admitted = await first.call("/test.Echo/Repeat", message: [1, 9])
        #expect(admitted.status.code == 0 && admitted.message == [1, 9])
        let second = try GRPCClient(host: "127.0.0.1", port: server.port)
        let refused = await second.call("/test.Echo/Repeat", message: [1, 9])
        #expect(refused.status.code == 14, "\(refused.status)")
        let again = await first.call("/test.Echo/Repeat", message: [2, 3])
        #expect(again.status.code == 0 && again.message == [2, 3, 2, 3])
        first.close()
        second.close()
        await server.shutdown(grace: .seconds(2))
    }

    @Test func oneConnectionCarriesAtMostAHundredCallsAtOnce() async throws {
        let server = GRPCServer(configuration: .init(port: 0), handler: EchoHandler())
        try server.start()
        let python = try await FleetEngineClientTests.python()
        // 150 calls at once on one channel (one connection): the client holds back what the
        // server's SETTINGS_MAX_CONCURRENT_STREAMS does not admit, and every call still succeeds.
        let script = """
            import sys, grpc
            ch = grpc.insecure_channel(sys.argv[1])
            count = ch.unary_unary("/test.Echo/Count", request_serializer=lambda b: b, response_deserializer=lambda b: b)
            futures = [count.future(b"", timeout=60) for _ in range(150)]
            for f in futures:
                assert f.result() == b""
            print("all steps passed")
            """
        InFlight.shared.reset()
        let outcome = try await WaymarkBinary.runTool(python, ["-c", script, "127.0.0.1:\(server.port)"])
        await server.shutdown(grace: .seconds(2))
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(InFlight.shared.peak > 1, "the calls did not overlap: nothing was measured")
        #expect(InFlight.shared.peak <= 100, "peak \(InFlight.shared.peak) calls in flight on one connection")
    }

    @Test func aConnectionWithNoCallOpenIsClosedAfterTheIdleTimeoutAndALongCallIsNot() async throws {
        let server = GRPCServer(configuration: .init(port: 0, idleTimeout: .seconds(1)), handler: EchoHandler())
        try server.start()
        // A client that connects and never speaks: the server hangs up on it (read returns 0, not a timeout).
        let silent = try LoopbackSocket.connect(port: server.port, readTimeoutSeconds: 30)
        let started = ContinuousClock.now
        let closed = try await Blocking.run { () -> Int in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(silent, &buffer, buffer.count)
                if count <= 0 { return count }  // 0: closed by the server; -1: the 30 s read timeout
            }
        }
        close(silent)
        #expect(closed == 0, "the silent connection was not closed within 30 s")
        #expect(ContinuousClock.now - started >= .milliseconds(900))
        // A call that outlasts the idle timeout keeps its connection and completes.
        let client = try GRPCClient(host: "127.0.0.1", port: server.port)
        let slow = await client.call("/test.Echo/Sleep", message: [2])
        #expect(slow.status.code == 0, "\(slow.status)")
        client.close()
        await server.shutdown(grace: .seconds(2))
    }

    @Test func otherMethodsContentTypesAndMalformedFramesAreRefused() async throws {
        let server = GRPCServer(configuration: .init(port: 0), handler: EchoHandler())
        try server.start()
        let client = try GRPCClient(host: "127.0.0.1", port: server.port)
        let put = await client.call("/test.Echo/Repeat", message: [1], method: "PUT")
        #expect(put.status == .unimplemented("gRPC requires POST"))
        let json = await client.call("/test.Echo/Repeat", message: [1], contentType: "application/json")
        #expect(json.status == .unimplemented("content-type must be application/grpc"))
        let proto = await client.call("/test.Echo/Repeat", message: [1, 5], contentType: "application/grpc+proto")
        #expect(proto.status.code == 0 && proto.message == [1, 5])
        let unknown = await client.call("/test.Echo/Nope", message: [])
        #expect(unknown.status.code == 12)
        client.close()
        await server.shutdown(grace: .seconds(2))
    }

    @Test func aRequestLargerThanTheLimitGetsResourceExhausted() async throws {
        let server = GRPCServer(configuration: .init(port: 0, maxMessageBytes: 1024), handler: EchoHandler())
        try server.start()
        let python = try await FleetEngineClientTests.python()
        let script = """
            import sys, grpc
            ch = grpc.insecure_channel(sys.argv[1])
            rep = ch.unary_unary("/test.Echo/Repeat", request_serializer=lambda b: b, response_deserializer=lambda b: b)
            try:
                rep(b"\\x01" * 5000, timeout=10)
                raise SystemExit("too large succeeded")
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, e.code()
            assert rep(b"\\x01" * 100, timeout=10) == b"\\x01" * 100
            print("all steps passed")
            """
        let outcome = try await WaymarkBinary.runTool(python, ["-c", script, "127.0.0.1:\(server.port)"])
        await server.shutdown(grace: .seconds(2))
        #expect(outcome.status == 0, "\(outcome.output)")
    }
}

/// The most `/test.Echo/Count` calls the server ran at once.
final class InFlight: Sendable {
    static let shared = InFlight()
    private let state = Mutex<(now: Int, peak: Int)>((0, 0))

    func enter() { state.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) } }
    func leave() { state.withLock { $0.now -= 1 } }
    func reset() { state.withLock { $0 = (0, 0) } }
    var peak: Int { state.withLock { $0.peak } }
}
