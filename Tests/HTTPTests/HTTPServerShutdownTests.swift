import Foundation
import HTTP
import Testing

@Suite("HTTPServer.shutdown: drain in-flight requests, answer new ones 503, finish streams, stop listening")
struct HTTPServerShutdownTests {
    @Test(.timeLimit(.minutes(1)))
    func shutdownAnswersNewRequests503LetsInFlightRequestFinishSendsStreamsFinalBytesThenRefusesConnections() async throws {
        let streams = Recorder<HTTPStream>()
        let closes = Counter()
        let server = HTTPServer(configuration: HTTPServer.Configuration(port: 0), handler: ClosureHandler { request in
            if request.path == "/slow" {
                try? await Task.sleep(for: .milliseconds(400))
                return .text("slow done")
            }
            let stream = HTTPStream(finalBytesOnShutdown: Array("event: shutdown\n\n".utf8))
            stream.onClose { closes.increment() }
            stream.write(Array("event: open\n\n".utf8))
            streams.record(stream)
            return .stream(stream)
        })
        try server.start()
        let port = server.port

        let streamClient = try await blocking { () -> RawHTTPClient in
            let client = try RawHTTPClient(port: port)
            try client.send(RawHTTPClient.request("GET", "/events"))
            _ = try client.readHead()
            _ = try client.readChunk()
            return client
        }
        async let slow = blocking { try RawHTTPClient(port: port).exchange("GET", "/slow") }
        #expect(await eventually { server.inFlightRequests == 1 })
        #expect(server.openStreams == 1)

        let clock = ContinuousClock()
        let started = clock.now
        await server.shutdown(grace: .seconds(30))
        let took = clock.now - started

        let slowResponse = try await slow
        #expect(slowResponse.status == 200)
        #expect(slowResponse.text == "slow done")
        #expect(slowResponse.headers["Connection"]?.lowercased() == "close")
        let rest = try await blocking { () -> String in
            var rest: [UInt8] = []
            while let chunk = try streamClient.readChunk() { rest += chunk }
            return String(decoding: rest, as: UTF8.self)
        }
        #expect(rest == "event: shutdown\n\n")
        #expect(closes.count == 1)
        #expect(streams.all.allSatisfy { $0.isClosed })
        // Returns once the request is done, not at the end of the grace (generous: the suite shares two cores).
        #expect(took < .seconds(20), "shutdown took \(took) with a 400 ms request and a 30 s grace")
        #expect(!RawHTTPClient.canConnect(port: port))
        #expect(server.inFlightRequests == 0)
        #expect(server.openStreams == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func requestOnKeptAliveConnectionDuringShutdownGets503WithConnectionClose() async throws {
        let release = Counter()
        let server = HTTPServer(configuration: HTTPServer.Configuration(port: 0), handler: ClosureHandler { request in
            if request.path == "/hold" {
                while release.count == 0 { try? await Task.sleep(for: .milliseconds(10)) }
            }
            return .text("ok \(request.path)")
        })
        try server.start()
        let port = server.port
        let keptAlive = try await blocking { () -> RawHTTPClient in
            let client = try RawHTTPClient(port: port)
            _ = try client.exchange("GET", "/warm-up")
            return client
        }
        // A held request keeps shutdown in its grace period while the kept-alive connection is used.
        // The grace is far longer than the steps below need: with 10 s, a clean-clone CI run on a
        // loaded machine reached it first, and the held request was answered 503 instead of 200.
        // Shutdown returns as soon as the held request is released, so the grace costs nothing.
        async let held = blocking { try RawHTTPClient(port: port).exchange("GET", "/hold") }
        #expect(await eventually { server.inFlightRequests == 1 })
        async let stopped: Void = server.shutdown(grace: .seconds(90))
        // Draining: a connection made now is still taken, but its request is answered 503 and the
        // connection closed, while the held request still runs. Fresh connections until draining
        // has begun (until then they are answered as usual).
        var draining: (RawHTTPClient.Response, Bool)?
        let deadline = ContinuousClock.now + .seconds(20)
        while draining == nil, ContinuousClock.now < deadline {
            draining = try await blocking { () -> (RawHTTPClient.Response, Bool)? in
                let client = try RawHTTPClient(port: port)
                let response = try client.exchange("GET", "/fresh")
                return response.status == 200 ? nil : (response, client.serverClosed())
            }
            if draining == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let fresh = try #require(draining, "no fresh request was refused within 20 s of the shutdown")
        #expect(fresh.0.status == 503)
        #expect(fresh.0.headers["Connection"]?.lowercased() == "close")
        #expect(fresh.1)
        #expect(server.inFlightRequests == 1)

        let refused = try await blocking { () -> (RawHTTPClient.Response, Bool) in
            let response = try keptAlive.exchange("GET", "/late", headers: [("x-request-id", "late-1")])
            return (response, keptAlive.serverClosed())
        }
        #expect(refused.0.status == 503)
        #expect(refused.0.headers["Connection"]?.lowercased() == "close")
        #expect(refused.0.headers["x-request-id"] == "late-1")
        #expect(refused.0.text.contains(#""code":503"#))
        #expect(refused.1)

        release.increment()
        let heldResponse = try await held
        #expect(heldResponse.status == 200, "the held request was answered \(heldResponse.status): the grace ran out first")
        await stopped
        // Stopped: the listening socket is closed.
        #expect(try await blocking { !RawHTTPClient.canConnect(port: port) })
    }

    /// libmicrohttpd 0.9.75 aborts the process ("Failed to remove listen FD from epoll set") when
    /// `MHD_quiesce_daemon` and a busy worker thread both remove the listening socket from the
    /// worker's epoll set. With the server quiescing MHD at shutdown, this test aborted in one run
    /// of three here (and a clean-clone `make test` once); the server no longer quiesces.
    @Test(.timeLimit(.minutes(2)))
    func serversShutDownWhileClientsKeepSendingStopCleanlyAndRefuseConnectionsAfterwards() async throws {
        for round in 0..<400 {
            let server = HTTPServer(configuration: HTTPServer.Configuration(port: 0, threads: 8), handler: ClosureHandler { _ in .text("ok") })
            try server.start()
            let port = server.port
            let stopped = Counter()
            let answered = Counter()
            // Blocking clients on threads of their own (not the cooperative pool the server's
            // handlers need): new connections and kept-alive ones, until the server is gone.
            let clients = (0..<6).map { _ in
                Task {
                    try await blocking {
                        while stopped.count == 0 {
                            guard let client = try? RawHTTPClient(port: port) else { continue }
                            client.setTimeout(seconds: 5)
                            for _ in 0..<3 where (try? client.exchange("GET", "/"))?.status == 200 { answered.increment() }
                            client.close()
                        }
                    }
                }
            }
            #expect(await eventually { answered.count >= 10 })
            await server.shutdown(grace: .milliseconds(50))
            stopped.increment()
            for client in clients { try await client.value }
            #expect(try await blocking { !RawHTTPClient.canConnect(port: port) }, "round \(round): port \(port) still accepts")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func handlerStillRunningAfterGraceIsAnswered503AndShutdownCompletes() async throws {
        let server = HTTPServer(configuration: HTTPServer.Configuration(port: 0), handler: ClosureHandler { _ in
            try? await Task.sleep(for: .seconds(30))
            return .text("too late")
        })
        try server.start()
        let port = server.port
        async let stuck = blocking { try RawHTTPClient(port: port).exchange("GET", "/stuck") }
        #expect(await eventually { server.inFlightRequests == 1 })
        let clock = ContinuousClock()
        let started = clock.now
        await server.shutdown(grace: .milliseconds(200))
        // Far below the handler's 30 s, with room for a loaded machine (3 s was exceeded there).
        #expect(clock.now - started < .seconds(10))
        let response = try await stuck
        #expect(response.status == 503)
        #expect(response.headers["Connection"]?.lowercased() == "close")
        // A second shutdown is a no-op.
        await server.shutdown(grace: .seconds(1))
    }
}
