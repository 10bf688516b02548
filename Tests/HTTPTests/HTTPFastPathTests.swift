import Foundation
import HTTP
import Synchronization
import Testing

/// `HTTPHandler.respondImmediately`: answers queued on the server thread without a Task.
@Suite("HTTPServer: the synchronous fast path")
struct HTTPFastPathTests {
    /// Answers `/fast` (bytes) and `/fast-stream` (a stream) at once, everything else in `respond`.
    struct FastHandler: HTTPHandler {
        let slowCalls = Counter()
        let fastCalls = Counter()
        let streams = Recorder<HTTPStream>()

        func respond(to request: HTTPRequest) async -> HTTPResponse {
            slowCalls.increment()
            return .text("slow \(request.path)")
        }

        func respondImmediately(to request: HTTPRequest) -> HTTPResponse? {
            switch request.path {
            case "/fast":
                fastCalls.increment()
                return .text("fast \(request.queryValues("n").first ?? "")", headers: [("ETag", "\"7\"")])
            case "/fast-stream":
                fastCalls.increment()
                let stream = HTTPStream()
                stream.write(Array("data: first\n\n".utf8))
                streams.record(stream)
                return .stream(stream)
            default:
                return nil
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func anImmediateAnswerIsSentWithoutCallingRespondAndNilFallsBackToIt() async throws {
        let handler = FastHandler()
        let exchanges = Recorder<HTTPExchange>()
        let server = HTTPServer(configuration: .init(port: 0), handler: handler, observer: { exchanges.record($0) })
        try server.start()
        let port = server.port
        do {
            let (fast, slow, again) = try await blocking {
                let client = try RawHTTPClient(port: port)
                // Keep-alive across both paths on one connection.
                let fast = try client.exchange("GET", "/fast?n=1", headers: [("x-request-id", "fast-1")])
                let slow = try client.exchange("GET", "/other")
                let again = try client.exchange("GET", "/fast?n=2")
                return (fast, slow, again)
            }
            #expect(fast.status == 200 && fast.text == "fast 1")
            #expect(fast.headers["ETag"] == "\"7\"")
            #expect(fast.headers["x-request-id"] == "fast-1")
            #expect(slow.text == "slow /other")
            #expect(again.text == "fast 2")
            #expect(handler.fastCalls.count == 2)
            #expect(handler.slowCalls.count == 1)
            #expect(await eventually { exchanges.count == 3 })
            #expect(exchanges.all.map(\.status) == [200, 200, 200])
            #expect(server.inFlightRequests == 0)
        } catch {
            await server.shutdown(grace: .zero)
            throw error
        }
        await server.shutdown(grace: .seconds(1))
    }

    @Test(.timeLimit(.minutes(1)))
    func anImmediateStreamIsServedAndLaterWritesReachTheClient() async throws {
        let handler = FastHandler()
        let server = HTTPServer(configuration: .init(port: 0), handler: handler)
        try server.start()
        let port = server.port
        do {
            let client = try RawHTTPClient(port: port)
            let head = try await blocking {
                try client.send(RawHTTPClient.request("GET", "/fast-stream"))
                return try client.readHead()
            }
            #expect(head.status == 200)
            #expect(head.headers["Content-Type"] == "text/event-stream")
            #expect(try await blocking { try client.readChunk() } == Array("data: first\n\n".utf8))
            let stream = try #require(handler.streams.all.first)
            #expect(await eventually { server.openStreams == 1 })
            stream.finish(Array("data: last\n\n".utf8))
            #expect(try await blocking { try client.readChunk() } == Array("data: last\n\n".utf8))
            #expect(try await blocking { try client.readChunk() } == nil)
            #expect(handler.slowCalls.count == 0)
        } catch {
            await server.shutdown(grace: .zero)
            throw error
        }
        await server.shutdown(grace: .seconds(1))
    }
}
