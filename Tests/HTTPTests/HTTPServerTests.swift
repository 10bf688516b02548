import Foundation
import HTTP
import Synchronization
import Testing

@Suite("HTTPServer: requests, keep-alive, request ids, limits, concurrency, binding")
struct HTTPServerTests {
    @Test(.timeLimit(.minutes(1)))
    func getReachesHandlerWithMethodPathRepeatedQueryAndHeaders() async throws {
        let seen = Recorder<HTTPRequest>()
        try await withServer(handler: { request in
            seen.record(request)
            return .text("ok")
        }) { server in
            let port = server.port
            let response = try await blocking {
                try RawHTTPClient(port: port).exchange(
                    "GET", "/v1/providers/p-1/vehicles/v%201?a=1&b=x%20y&a=2&$alt=json;enum-encoding=int&flag",
                    headers: [("X-Trace", "one"), ("accept", "application/json"), ("X-Trace", "two")]
                )
            }
            #expect(response.status == 200)
            #expect(response.text == "ok")
        }
        let request = try #require(seen.all.first)
        #expect(seen.count == 1)
        #expect(request.method == "GET")
        #expect(request.path == "/v1/providers/p-1/vehicles/v 1")
        #expect(request.query.map(\.name) == ["a", "b", "a", "$alt", "flag"])
        #expect(request.query.map(\.value) == ["1", "x y", "2", "json;enum-encoding=int", ""])
        #expect(request.queryValues("a") == ["1", "2"])
        #expect(request.queryValues("$alt") == ["json;enum-encoding=int"])
        #expect(request.header("x-trace") == "one")
        #expect(request.headers.values("X-TRACE") == ["one", "two"])
        #expect(request.header("Accept") == "application/json")
        #expect(request.body.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func postBodyReachesHandlerByteForByte() async throws {
        let seen = Recorder<HTTPRequest>()
        let body = (0..<3).flatMap { _ in (0...255).map { UInt8($0) } }
        try await withServer(handler: { request in
            seen.record(request)
            return .bytes(status: 201, contentType: "application/octet-stream", request.body.reversed())
        }) { server in
            let port = server.port
            let response = try await blocking {
                try RawHTTPClient(port: port).exchange(
                    "POST", "/v1/providers/p-1/trips?tripId=t-1", headers: [("Content-Type", "application/json")], body: body)
            }
            #expect(response.status == 201)
            #expect(response.body == body.reversed())
            #expect(response.headers["Content-Length"] == "\(body.count)")
        }
        let request = try #require(seen.all.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/providers/p-1/trips")
        #expect(request.queryValues("tripId") == ["t-1"])
        #expect(request.header("content-type") == "application/json")
        #expect(request.body == body)
    }

    @Test(.timeLimit(.minutes(1)))
    func chunkedUploadWithinLimitReachesHandlerIntact() async throws {
        let seen = Recorder<[UInt8]>()
        try await withServer({ $0.maxBodyBytes = 1000 }, handler: { request in
            seen.record(request.body)
            return .text("got \(request.body.count)")
        }) { server in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
                try client.send("190\r\n" + String(repeating: "a", count: 400) + "\r\n")
                try client.send("190\r\n" + String(repeating: "b", count: 400) + "\r\n0\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.text == "got 800")
        }
        #expect(seen.all == [Array(repeating: UInt8(ascii: "a"), count: 400) + Array(repeating: UInt8(ascii: "b"), count: 400)])
    }

    @Test(.timeLimit(.minutes(1)))
    func twoRequestsOnOneConnectionAreBothAnsweredWithKeepAlive() async throws {
        let calls = Recorder<String>()
        try await withServer(handler: { request in
            calls.record(request.path)
            return .text("answer for \(request.path)")
        }) { server in
            let port = server.port
            let (first, second, closedAfter) = try await blocking {
                let client = try RawHTTPClient(port: port, timeoutSeconds: 30)
                let first = try client.exchange("GET", "/one")
                let second = try client.exchange("POST", "/two", body: Array("payload".utf8))
                // Still open: the server does not close an idle keep-alive connection within 1 s.
                client.setTimeout(seconds: 1)
                return (first, second, client.serverClosed())
            }
            #expect(first.status == 200)
            #expect(first.text == "answer for /one")
            #expect(first.headers["Connection"] == nil)
            #expect(second.status == 200)
            #expect(second.text == "answer for /two")
            #expect(second.headers["Connection"] == nil)
            #expect(!closedAfter)
        }
        #expect(calls.all == ["/one", "/two"])
    }

    @Test(.timeLimit(.minutes(1)))
    func clientRequestIdIsEchoedAndOneIsGeneratedOtherwise() async throws {
        let seen = Recorder<String>()
        try await withServer(handler: { request in
            seen.record(request.requestId)
            return .text(request.requestId)
        }) { server in
            let port = server.port
            let responses = try await blocking {
                let client = try RawHTTPClient(port: port)
                return [
                    try client.exchange("GET", "/", headers: [("X-Request-Id", "abc.DEF_123-xyz")]),
                    try client.exchange("GET", "/"),
                    try client.exchange("GET", "/", headers: [("x-request-id", "has space")]),
                    try client.exchange("GET", "/", headers: [("x-request-id", String(repeating: "a", count: 129))]),
                    try client.exchange("GET", "/", headers: [("x-request-id", String(repeating: "b", count: 128))]),
                ]
            }
            let ids = responses.map { $0.headers["x-request-id"] }
            #expect(ids[0] == "abc.DEF_123-xyz")
            #expect(isGeneratedRequestId(ids[1]))
            #expect(isGeneratedRequestId(ids[2]))
            #expect(isGeneratedRequestId(ids[3]))
            #expect(ids[4] == String(repeating: "b", count: 128))
            #expect(Set(ids.compactMap { $0 }).count == 5)
            #expect(responses.map(\.text) == ids.compactMap { $0 })
        }
        #expect(seen.count == 5)
    }

    @Test(.timeLimit(.minutes(1)))
    func declaredContentLengthOverLimitIs413AndHandlerIsNeverCalled() async throws {
        let calls = Recorder<String>()
        let exchanges = Recorder<HTTPExchange>()
        try await withServer({ $0.maxBodyBytes = 1024 }, observer: { exchanges.record($0) }, handler: { request in
            calls.record(request.path)
            return .text("should not happen")
        }) { server in
            let port = server.port
            let (tooLarge, generated) = try await blocking {
                let tooLarge = try RawHTTPClient(port: port).exchange(
                    "PUT", "/big", headers: [("x-request-id", "big-1")], body: [UInt8](repeating: 7, count: 2048))
                // Only the headers: the 413 must come without the server waiting for the body.
                let client = try RawHTTPClient(port: port)
                try client.send("POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n")
                return (tooLarge, try client.readResponse())
            }
            #expect(tooLarge.status == 413)
            #expect(tooLarge.headers["x-request-id"] == "big-1")
            #expect(tooLarge.headers["Content-Type"] == "application/json")
            #expect(tooLarge.text.contains(#""code":413"#))
            #expect(tooLarge.text.contains("2048 bytes exceeds the limit of 1024 bytes"))
            #expect(tooLarge.headers["Connection"]?.lowercased() == "close")
            #expect(generated.status == 413)
            #expect(isGeneratedRequestId(generated.headers["x-request-id"]))
        }
        #expect(calls.count == 0)
        #expect(exchanges.all.map(\.status) == [413, 413])
    }

    @Test(.timeLimit(.minutes(1)))
    func chunkedBodyOverLimitIs413AndHandlerIsNeverCalled() async throws {
        let calls = Recorder<String>()
        try await withServer({ $0.maxBodyBytes = 1000 }, handler: { request in
            calls.record(request.path)
            return .text("should not happen")
        }) { server in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /stream-up HTTP/1.1\r\nHost: x\r\nx-request-id: chunky\r\nTransfer-Encoding: chunked\r\n\r\n")
                for _ in 0..<3 {
                    try client.send("190\r\n" + String(repeating: "z", count: 400) + "\r\n")
                }
                try client.send("0\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 413)
            #expect(response.headers["x-request-id"] == "chunky")
            #expect(response.text.contains(#""code":413"#))
        }
        #expect(calls.count == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func endlessChunkedBodyGets413AndIsCutOff() async throws {
        let calls = Recorder<String>()
        try await withServer({ $0.maxBodyBytes = 1000 }, handler: { request in
            calls.record(request.path)
            return .text("should not happen")
        }) { server in
            let port = server.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /endless HTTP/1.1\r\nHost: x\r\nx-request-id: endless\r\nTransfer-Encoding: chunked\r\n\r\n")
                let chunk = "4000\r\n" + String(repeating: "z", count: 0x4000) + "\r\n"
                // Far past limit + discard allowance; the server cuts the upload off on the way.
                for _ in 0..<256 {
                    do { try client.send(chunk) } catch { break }
                }
                return try client.readResponse()
            }
            #expect(response.status == 413)
            #expect(response.headers["x-request-id"] == "endless")
            #expect(response.headers["Connection"] == "close")
            #expect(response.text.contains(#""code":413"#))
        }
        #expect(calls.count == 0)
    }

    /// Proves concurrency without a wall-clock bound (the suite shares two cores with everything
    /// else): each handler waits until all eight are running at once. If a handler blocked an MHD
    /// thread, at most `threads` could run together, the barrier would never fill, and the
    /// handlers would give up after 20 s and say so.
    @Test(.timeLimit(.minutes(1)), arguments: [1, 2])
    func slowHandlersDoNotBlockOtherRequests(threads: Int) async throws {
        let running = Mutex(0)
        let peak = Mutex(0)
        try await withServer({ $0.threads = threads }, handler: { request in
            let now = running.withLock { count -> Int in count += 1; return count }
            peak.withLock { $0 = max($0, now) }
            let deadline = ContinuousClock.now + .seconds(20)
            while running.withLock({ $0 }) < 8, peak.withLock({ $0 }) < 8, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
            let together = peak.withLock { $0 } >= 8
            running.withLock { $0 -= 1 }
            return .text(together ? "together \(request.path)" : "alone \(request.path)")
        }) { server in
            let port = server.port
            let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try await blocking { try RawHTTPClient(port: port, timeoutSeconds: 40).exchange("GET", "/\(index)").text }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(bodies) == Set((0..<8).map { "together /\($0)" }))
            #expect(peak.withLock { $0 } == 8)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func clientThatLeavesWhileHandlerRunsIsCleanedUp() async throws {
        let exchanges = Recorder<HTTPExchange>()
        let handled = Counter()
        let streamClosed = Counter()
        try await withServer(observer: { exchanges.record($0) }, handler: { request in
            try? await Task.sleep(for: .milliseconds(200))
            handled.increment()
            if request.path == "/stream" {
                let stream = HTTPStream()
                stream.onClose { streamClosed.increment() }
                return .stream(stream)
            }
            return .text("nobody reads this")
        }) { server in
            let port = server.port
            _ = try await blocking {
                for path in ["/bytes", "/stream"] {
                    let client = try RawHTTPClient(port: port)
                    try client.send(RawHTTPClient.request("GET", path))
                    client.close()
                }
                return true
            }
            #expect(await eventually { handled.count == 2 })
            #expect(await eventually { exchanges.count == 2 })
            #expect(await eventually { streamClosed.count == 1 })
            #expect(await eventually { server.inFlightRequests == 0 && server.openStreams == 0 })
            // The server is unaffected.
            let response = try await blocking { try RawHTTPClient(port: port).exchange("GET", "/bytes") }
            #expect(response.status == 200)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func observerReportsEachExchangeOnceWithStatusIdAndSizes() async throws {
        let exchanges = Recorder<HTTPExchange>()
        try await withServer(observer: { exchanges.record($0) }, handler: { request in
            .bytes(status: request.path == "/missing" ? 404 : 200, contentType: "text/plain", Array("12345".utf8))
        }) { server in
            let port = server.port
            _ = try await blocking {
                let client = try RawHTTPClient(port: port)
                _ = try client.exchange("POST", "/found", headers: [("x-request-id", "obs-1")], body: Array("abc".utf8))
                _ = try client.exchange("GET", "/missing", headers: [("x-request-id", "obs-2")])
                return true
            }
            #expect(await eventually { exchanges.count == 2 })
        }
        let all = exchanges.all
        #expect(all.count == 2)
        #expect(all.map(\.requestId) == ["obs-1", "obs-2"])
        #expect(all.map(\.method) == ["POST", "GET"])
        #expect(all.map(\.path) == ["/found", "/missing"])
        #expect(all.map(\.status) == [200, 404])
        #expect(all.map(\.requestBytes) == [3, 0])
        #expect(all.map(\.responseBytes) == [5, 5])
        #expect(all.allSatisfy { $0.completed && $0.durationSeconds >= 0 })
    }

    @Test(.timeLimit(.minutes(1)))
    func invalidHandlerStatusBecomes500FromErrorBody() async throws {
        try await withServer({ config in
            config.errorBody = { status, message in ("text/plain", Array("E\(status): \(message)".utf8)) }
        }, handler: { _ in HTTPResponse(status: 42) }) { server in
            let port = server.port
            let response = try await blocking { try RawHTTPClient(port: port).exchange("GET", "/") }
            #expect(response.status == 500)
            #expect(response.text == "E500: the handler answered with the invalid status 42")
            #expect(isGeneratedRequestId(response.headers["x-request-id"]))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func startOnPortInUseThrowsBindFailedNamingHostAndPort() async throws {
        try await withServer(handler: { _ in .text("first") }) { server in
            let diagnostics = Recorder<String>()
            let second = HTTPServer(
                configuration: HTTPServer.Configuration(host: "127.0.0.1", port: server.port, diagnostics: { diagnostics.record($0) }),
                handler: ClosureHandler { _ in .text("second") })
            let result = Result { () throws(HTTPError) in try second.start() }
            switch result {
            case .success:
                Issue.record("second server bound a port that is in use")
                await second.shutdown(grace: .zero)
            case .failure(let error):
                #expect(error.code == .bindFailed)
                #expect(error.message.contains("127.0.0.1:\(server.port)"))
                // libmicrohttpd's own message went to `diagnostics`, not standard error.
                #expect(diagnostics.all.contains { $0.contains("bind") && $0.contains("\(server.port)") })
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func startAfterShutdownThrowsInvalidState() async throws {
        let server = HTTPServer(configuration: HTTPServer.Configuration(port: 0), handler: ClosureHandler { _ in .text("") })
        try server.start()
        let port = server.port
        #expect(port != 0)
        await server.shutdown(grace: .zero)
        #expect(server.port == port)
        let result = Result { () throws(HTTPError) in try server.start() }
        switch result {
        case .success: Issue.record("a shut-down server started again")
        case .failure(let error): #expect(error.code == .invalidState)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func hostThatIsNotDottedIPv4IsRejected() {
        let server = HTTPServer(configuration: HTTPServer.Configuration(host: "localhost", port: 0), handler: ClosureHandler { _ in .text("") })
        let result = Result { () throws(HTTPError) in try server.start() }
        switch result {
        case .success: Issue.record("started with host \"localhost\"")
        case .failure(let error): #expect(error.code == .invalidConfiguration)
        }
    }
}
