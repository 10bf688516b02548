import Foundation
import HTTP
import Synchronization
import Testing
import TestSupport

@Suite("HTTP: slow and hostile clients (streams that are not read, slowloris)")
struct SlowClientTests {
    /// Streams by request path, so the test can write to each.
    final class Streams: Sendable {
        private let byPath = Mutex<[String: HTTPStream]>([:])
        func record(_ stream: HTTPStream, path: String) { byPath.withLock { $0[path] = stream } }
        subscript(path: String) -> HTTPStream? { byPath.withLock { $0[path] } }
    }

    @Test(.timeLimit(.minutes(1)))
    func aClientThatNeverReadsIsDroppedAtItsBufferLimitWhileAReaderKeepsReceiving() async throws {
        let streams = Streams()
        try await withServer({ $0.streamBufferBytes = 64 * 1024; $0.diagnostics = { _ in } }, handler: { request in
            let stream = HTTPStream()
            streams.record(stream, path: request.path)
            return .stream(stream)
        }) { server in
            let port = server.port
            let request = Array(RawHTTPClient.request("GET", "/stalled"))
            let stalled = try SlowSocket(port: port, receiveBuffer: 4096)
            stalled.send(request)
            let reader = try await blocking { () -> RawHTTPClient in
                let client = try RawHTTPClient(port: port)
                try client.send(RawHTTPClient.request("GET", "/reading"))
                _ = try client.readHead()
                return client
            }
            #expect(await eventually { streams["/stalled"] != nil && streams["/reading"] != nil })
            let stalledStream = try #require(streams["/stalled"])
            let readingStream = try #require(streams["/reading"])
            // A stream without a limit of its own takes the server's once its response is queued.
            #expect(await eventually { stalledStream.maxBufferedBytes == 64 * 1024 && readingStream.maxBufferedBytes == 64 * 1024 })

            // The reader drains on a thread of its own while both streams get the same writes.
            let received = Atomic<Int>(0)
            let readerDone = Task {
                try await blocking {
                    while let chunk = try reader.readChunk() { received.add(chunk.count, ordering: .relaxed) }
                }
            }
            let payload = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
            var written = 0
            let deadline = ContinuousClock.now + .seconds(30)
            while stalledStream.write(payload), ContinuousClock.now < deadline {
                #expect(readingStream.write(payload))
                written += payload.count
                // Paced by the reader, so its own buffer never nears the limit.
                while written - received.load(ordering: .relaxed) > 32 * 1024, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            #expect(stalledStream.isClosed, "the stalled stream never overflowed within 30 s (\(written) bytes written)")
            #expect(stalledStream.overflowed)
            #expect(stalledStream.maxBufferedBytes == 64 * 1024)
            #expect(server.droppedStreams == 1)
            // Its connection is closed by the server although the client reads nothing.
            #expect(await eventually { server.openStreams == 1 })
            #expect(try await blocking { stalled.drainUntilClosed(timeout: .seconds(10)) }, "the stalled client's connection stays open")

            // The reader is unaffected: everything written so far arrives, and more after.
            let total = written
            #expect(!readingStream.isClosed)
            #expect(await eventually { received.load(ordering: .relaxed) == total }, "reader got \(received.load(ordering: .relaxed)) of \(total)")
            #expect(readingStream.write(Array("after".utf8)))
            #expect(await eventually { received.load(ordering: .relaxed) == total + 5 })
            readingStream.finish()
            try await readerDone.value
            #expect(server.droppedStreams == 1, "a finished stream is not counted as dropped")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aStreamWithItsOwnLimitKeepsItAndAcceptsNothingAfterOverflowing() async throws {
        let stream = HTTPStream(maxBufferedBytes: 100)
        #expect(stream.write([UInt8](repeating: 1, count: 100)))
        #expect(!stream.overflowed)
        #expect(!stream.write([2]))
        #expect(stream.overflowed)
        #expect(!stream.write([3]), "a dropped stream accepts nothing more")
        // Served by a server with a larger default, it keeps its own.
        let own = HTTPStream(maxBufferedBytes: 10)
        try await withServer({ $0.streamBufferBytes = 1 << 20 }, handler: { _ in .stream(own) }) { server in
            let port = server.port
            let client = try await blocking { () -> RawHTTPClient in
                let client = try RawHTTPClient(port: port)
                try client.send(RawHTTPClient.request("GET", "/own"))
                _ = try client.readHead()
                return client
            }
            defer { client.close() }
            #expect(own.maxBufferedBytes == 10)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aStreamThatOverflowsBeforeItsResponseIsQueuedIsCountedAndEnded() async throws {
        try await withServer({ $0.streamBufferBytes = 1024; $0.diagnostics = { _ in } }, handler: { _ in
            let stream = HTTPStream(maxBufferedBytes: 8)
            stream.write(Array("12345678".utf8))
            stream.write(Array("9".utf8))
            return .stream(stream)
        }) { server in
            let port = server.port
            let socket = try SlowSocket(port: port)
            socket.send(Array(RawHTTPClient.request("GET", "/early")))
            #expect(try await blocking { socket.drainUntilClosed(timeout: .seconds(10)) })
            #expect(server.droppedStreams == 1)
            #expect(await eventually { server.openStreams == 0 })
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aZeroStreamBufferIsRefusedAtStart() {
        var configuration = HTTPServer.Configuration(port: 0)
        configuration.streamBufferBytes = 0
        let server = HTTPServer(configuration: configuration, handler: ClosureHandler { _ in .text("") })
        let result = Result { () throws(HTTPError) in try server.start() }
        switch result {
        case .success: Issue.record("started with streamBufferBytes 0")
        case .failure(let error): #expect(error.code == .invalidConfiguration)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func slowlorisConnectionsAndIdleStreamsDoNotDelayOtherRequests() async throws {
        try await withServer({ $0.diagnostics = { _ in } }, handler: { request in
            if request.path == "/stream" { return .stream(HTTPStream()) }
            return .text("ok")
        }) { server in
            let port = server.port
            let idle = try (0..<300).map { _ in
                let socket = try SlowSocket(port: port)
                socket.send(Array(RawHTTPClient.request("GET", "/stream")))
                return socket
            }
            defer { for socket in idle { socket.close() } }
            let slowloris = try Slowloris(count: 300, port: port, interval: .milliseconds(200))
            defer { slowloris.stop() }
            #expect(await eventually { server.openStreams == 300 })
            // The attack is under way: each slowloris connection has crawled a few bytes into its header.
            #expect(await eventually { slowloris.bytesSent >= 5 })
            var slowest = Duration.zero
            let client = try await blocking { try RawHTTPClient(port: port) }
            for _ in 0..<200 {
                let started = ContinuousClock.now
                let response = try await blocking { try client.exchange("GET", "/plain") }
                slowest = max(slowest, ContinuousClock.now - started)
                #expect(response.status == 200)
            }
            #expect(slowest < .seconds(1), "slowest request took \(slowest)")
            #expect(slowloris.openCount == 300, "the slowloris connections are still held (not yet timed out)")
            #expect(server.openStreams == 300)
        }
    }
}
