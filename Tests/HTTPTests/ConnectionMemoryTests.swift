import Foundation
import HTTP
import Testing

@Suite("HTTPServer: the per-connection memory pool (request headers must fit)")
struct ConnectionMemoryTests {
    @Test(.timeLimit(.minutes(1)))
    func theDefaultPoolIsMHDsOwnThirtyTwoKiB() {
        #expect(HTTPServer.Configuration(port: 0).connectionMemoryBytes == 32 << 10)
    }

    @Test(.timeLimit(.minutes(1)))
    func headersOfEightKiBWithALongBearerTokenReachTheHandlerIntact() async throws {
        let seen = Recorder<HTTPRequest>()
        let token = String(repeating: "a", count: 4096)
        let extra = String(repeating: "b", count: 3500)
        let body = Array(String(repeating: "{\"x\":1}", count: 4000).utf8)  // 28 KB: larger than the pool
        try await withServer(handler: { request in
            seen.record(request)
            return .text("bytes \(request.body.count)")
        }) { server in
            let port = server.port
            let response = try await blocking {
                try RawHTTPClient(port: port).exchange(
                    "POST", "/v1/providers/p-1/vehicles:reportLocations",
                    headers: [("Authorization", "Bearer \(token)"), ("X-Extra", extra), ("Content-Type", "application/json")], body: body)
            }
            #expect(response.status == 200)
            #expect(response.text == "bytes \(body.count)")
        }
        let request = try #require(seen.all.first)
        #expect(request.header("authorization") == "Bearer \(token)")
        #expect(request.header("x-extra") == extra)
        #expect(request.body == body)
    }

    @Test(.timeLimit(.minutes(1)))
    func aQueryOfEightKiBReachesTheHandlerWithTheDefaultPool() async throws {
        // schemathesis sends SearchVehicles with long lists of attributes: MHD must not answer it itself.
        let query = (0..<200).map { "requiredAttributes=%C3%A9\($0)%F0%9F%9A%97" }.joined(separator: "&")
        #expect(query.utf8.count > 7 * 1024)
        try await withServer(handler: { request in
            .text("\(request.query.count)")
        }) { server in
            let port = server.port
            let response = try await blocking {
                try RawHTTPClient(port: port).exchange("GET", "/v1/providers/p-1/vehicles?" + query,
                                                       headers: [("Authorization", "Bearer " + String(repeating: "t", count: 1024))])
            }
            #expect(response.status == 200)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func requestLinesUpToTheWholePoolAreAnsweredAndLongerOnes414() async throws {
        // Once seen (curl, 16–24 KB request lines): no answer at all until the connection timed
        // out. Every length up to the 32 KiB pool must reach the handler, and longer ones get 414.
        try await withServer(handler: { request in
            .text("\(request.query.count)")
        }) { server in
            let port = server.port
            for kib in [12, 16, 18, 20, 22, 24, 28, 31] {
                let query = "filter=" + String(repeating: "a", count: kib * 1024 - 40)
                let response = try await blocking { try RawHTTPClient(port: port).exchange("GET", "/v1/providers/p-1/vehicles?" + query) }
                #expect(response.status == 200, "a request line of \(kib) KiB")
            }
            let tooLong = try await blocking {
                try RawHTTPClient(port: port).exchange("GET", "/v1/providers/p-1/vehicles?filter=" + String(repeating: "a", count: 36 * 1024))
            }
            #expect(tooLong.status == 414)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func headersLargerThanThePoolAre431AndTheServerKeepsServing() async throws {
        let calls = Recorder<String>()
        try await withServer(handler: { request in
            calls.record(request.path)
            return .text("ok")
        }) { server in
            let port = server.port
            let (tooLarge, next) = try await blocking {
                let huge = String(repeating: "h", count: 40 * 1024)
                let tooLarge = try RawHTTPClient(port: port).exchange("GET", "/huge", headers: [("X-Huge", huge)])
                let next = try RawHTTPClient(port: port).exchange("GET", "/after")
                return (tooLarge, next)
            }
            #expect(tooLarge.status == 431)
            #expect(next.status == 200)
            #expect(next.text == "ok")
        }
        #expect(calls.all == ["/after"], "the handler never sees a request whose headers did not fit")
    }

    @Test(.timeLimit(.minutes(1)))
    func aLargerConfiguredPoolAcceptsLargerHeaders() async throws {
        try await withServer({ $0.connectionMemoryBytes = 96 << 10 }, handler: { request in
            .text("\(request.header("x-huge")?.count ?? 0)")
        }) { server in
            let port = server.port
            let response = try await blocking {
                try RawHTTPClient(port: port).exchange("GET", "/huge", headers: [("X-Huge", String(repeating: "h", count: 40 * 1024))])
            }
            #expect(response.status == 200)
            #expect(response.text == "\(40 * 1024)")
        }
    }
}
