import Foundation
import HTTP
import Testing

@Suite("HTTPStream: chunked streaming, finish, client disconnect")
struct HTTPStreamTests {
    /// Hands the handler's stream to the test.
    final class StreamBox: Sendable {
        let streams = Recorder<HTTPStream>()
        var latest: HTTPStream? { streams.all.last }
    }

    @Test(.timeLimit(.minutes(1)))
    func aWriteLargerThanTheStreamBlockArrivesWholeAndInOrder() async throws {
        // 40 KiB of distinct lines: ten times libmicrohttpd's per-stream block.
        let large = Array((0..<1_000).map { "data: line \(1_000_000 + $0) of the big event\n" }.joined().utf8) + Array("\n".utf8)
        let box = StreamBox()
        try await withServer(handler: { _ in
            let stream = HTTPStream()
            box.streams.record(stream)
            return .stream(stream, headers: [])
        }) { server in
            let port = server.port
            let client = try await blocking { try RawHTTPClient(port: port) }
            let head = try await blocking { () -> RawHTTPClient.Response in
                try client.send(RawHTTPClient.request("GET", "/v1/events"))
                return try client.readHead()
            }
            #expect(head.status == 200)
            let stream = try #require(box.latest)
            #expect(large.count > 8 * 4 * 1024)
            #expect(stream.write(large))
            stream.finish(Array("event: bye\n\n".utf8))
            let received = try await blocking { () -> [UInt8] in
                var all: [UInt8] = []
                while let chunk = try client.readChunk() { all += chunk }
                return all
            }
            #expect(received == large + Array("event: bye\n\n".utf8))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func streamDeliversEachWriteAsItHappensAndFinishEndsIt() async throws {
        let box = StreamBox()
        try await withServer(handler: { request in
            if request.path == "/after" { return .text("after the stream") }
            let stream = HTTPStream()
            stream.write(Array("event: hello\n\n".utf8))
            box.streams.record(stream)
            return .stream(stream, headers: [(name: "Cache-Control", value: "no-cache")])
        }) { server in
            let port = server.port
            let client = try await blocking { try RawHTTPClient(port: port) }
            let (head, first) = try await blocking { () -> (RawHTTPClient.Response, [UInt8]?) in
                try client.send(RawHTTPClient.request("GET", "/v1/events", headers: [("x-request-id", "sse-1")]))
                return (try client.readHead(), try client.readChunk())
            }
            #expect(head.status == 200)
            #expect(head.headers["Transfer-Encoding"]?.lowercased() == "chunked")
            #expect(head.headers["Content-Type"] == "text/event-stream")
            #expect(head.headers["Cache-Control"] == "no-cache")
            #expect(head.headers["x-request-id"] == "sse-1")
            #expect(head.headers["Content-Length"] == nil)
            #expect(first.map { String(decoding: $0, as: UTF8.self) } == "event: hello\n\n")
            #expect(server.openStreams == 1)

            // The stream is idle (connection suspended); a write wakes it and arrives on its own.
            let stream = try #require(box.latest)
            try await Task.sleep(for: .milliseconds(50))  // lets the connection go idle; the write's arrival is waited for below
            #expect(stream.write(Array("data: 1\n\n".utf8)))
            let second = try await blocking { try client.readChunk() }
            #expect(second.map { String(decoding: $0, as: UTF8.self) } == "data: 1\n\n")

            stream.finish(Array("event: bye\n\n".utf8))
            #expect(stream.isClosed)
            #expect(!stream.write(Array("too late".utf8)))
            let rest = try await blocking { () -> [UInt8] in
                var rest: [UInt8] = []
                while let chunk = try client.readChunk() { rest += chunk }
                return rest
            }
            #expect(String(decoding: rest, as: UTF8.self) == "event: bye\n\n")
            #expect(await eventually { server.openStreams == 0 })

            // The connection stays usable after the stream ended.
            let after = try await blocking { try client.exchange("GET", "/after") }
            #expect(after.text == "after the stream")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func clientDisconnectFiresOnCloseAndMakesWriteReturnFalse() async throws {
        let box = StreamBox()
        let closed = Counter()
        let exchanges = Recorder<HTTPExchange>()
        try await withServer(observer: { exchanges.record($0) }, handler: { _ in
            let stream = HTTPStream()
            stream.onClose { closed.increment() }
            stream.write(Array("data: first\n\n".utf8))
            box.streams.record(stream)
            return .stream(stream)
        }) { server in
            let port = server.port
            let first = try await blocking { () -> [UInt8]? in
                let client = try RawHTTPClient(port: port)
                try client.send(RawHTTPClient.request("GET", "/v1/events"))
                _ = try client.readHead()
                let first = try client.readChunk()
                client.close()
                return first
            }
            #expect(first.map { String(decoding: $0, as: UTF8.self) } == "data: first\n\n")
            let stream = try #require(box.latest)
            // Noticed without any further write: the idle stream's socket is watched for hang-ups.
            #expect(await eventually { closed.count == 1 })
            #expect(stream.isClosed)
            #expect(!stream.write(Array("data: nobody listens\n\n".utf8)))
            #expect(await eventually { server.openStreams == 0 })
            #expect(await eventually { exchanges.count == 1 })
            #expect(exchanges.all.first?.completed == false)
            // onClose registered after the fact runs at once; the first one ran exactly once.
            let late = Counter()
            stream.onClose { late.increment() }
            #expect(late.count == 1)
            #expect(closed.count == 1)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func clientDisconnectDuringWritesIsNoticedByWrite() async throws {
        let box = StreamBox()
        try await withServer(handler: { _ in
            let stream = HTTPStream()
            box.streams.record(stream)
            return .stream(stream)
        }) { server in
            let port = server.port
            let client = try await blocking { () -> RawHTTPClient in
                let client = try RawHTTPClient(port: port)
                try client.send(RawHTTPClient.request("GET", "/v1/events"))
                _ = try client.readHead()
                return client
            }
            let stream = try #require(box.latest)
            client.close()
            // Keep writing, as a busy stream would, until the server notices the client is gone.
            let payload = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
            let noticed = await eventually(timeout: .seconds(40)) { !stream.write(payload) }
            #expect(noticed)
            #expect(stream.isClosed)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func streamThatOverflowsItsBufferIsClosed() async throws {
        let stream = HTTPStream(maxBufferedBytes: 10)
        let closed = Counter()
        stream.onClose { closed.increment() }
        #expect(stream.write(Array("0123456789".utf8)))
        #expect(!stream.write(Array("x".utf8)))
        #expect(stream.isClosed)
        #expect(closed.count == 1)
    }
}
