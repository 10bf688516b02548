import API
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3))) struct AuditRootsEndpointTests {
    static let environment = ["WAYMARK_AUDIT_KEY": "roots-test-key", "WAYMARK_AUDIT_ROOT_EVERY": "2", "WAYMARK_AUDIT_ROOT_SECONDS": "1"]

    /// Writes a few events and waits until the background writer has covered all of them.
    private func seed(_ server: TestServer) async throws -> Int64 {
        try await server.createVehicle("v-1")
        try await server.createTrip("t-1")
        try await server.createTrip("t-2")
        let events = try await server.eventCount()
        let url = server.databaseURL
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let covered = try await Blocking.run { try Connection(conninfo: url).query("SELECT coalesce(sum(event_count), 0) FROM audit_roots").first?.int64(0) ?? 0 }
            if covered == events { return events }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSetupError("the root writer did not cover \(events) events within 30 s")
    }

    @Test func auditorsAndServersListSignedRootsOldestFirstInPages() async throws {
        try await TestServer.with(environment: Self.environment) { server in
            let events = try await seed(server)
            let (status, body) = try await server.json("GET", "/v1/audit/roots?pageSize=1000", token: server.token(.auditor, provider: "other"))
            #expect(status == 200, "\(body)")
            let roots = try #require(body["roots"]?.arrayValue)
            #expect(!roots.isEmpty && body["nextPageToken"] == nil)
            #expect(roots.compactMap { $0["eventCount"]?.stringValue.flatMap { Int64($0) } }.reduce(0, +) == events)
            #expect(roots.first?["rootNumber"]?.stringValue == "1")
            #expect(roots.first?["previousRoot"]?.stringValue == String(repeating: "0", count: 64))
            for (previous, root) in zip(roots, roots.dropFirst()) {
                #expect(root["previousRoot"] == previous["root"])
            }
            for member in ["firstFeedPosition", "lastFeedPosition", "root", "createdTime"] {
                #expect(roots.allSatisfy { $0[member]?.stringValue?.isEmpty == false }, "\(member)")
            }
            // Paging: one root per page, in order, until no token is returned.
            var token: String?
            var numbers: [String] = []
            repeat {
                let query = "/v1/audit/roots?pageSize=1" + (token.map { "&pageToken=\($0)" } ?? "")
                let (pageStatus, page) = try await server.json("GET", query, token: server.token(.server))
                try #require(pageStatus == 200, "\(page)")
                numbers += page["roots"]?.arrayValue?.compactMap { $0["rootNumber"]?.stringValue } ?? []
                token = page["nextPageToken"]?.stringValue
            } while token != nil && numbers.count <= roots.count
            #expect(numbers == roots.compactMap { $0["rootNumber"]?.stringValue })

            // `waymark verify` rechecks the same roots with the key.
            let verify = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": server.databaseURL, "WAYMARK_AUDIT_KEY": "roots-test-key"])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            #expect(verify.stdout.contains("\(roots.count) signed roots checked") || verify.stdout.contains("signed roots checked"), "\(verify.stdout)")
            let wrongKey = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": server.databaseURL, "WAYMARK_AUDIT_KEY": "not-the-key"])
            #expect(wrongKey.status == 1 && wrongKey.stdout.contains("root 1 (feed after 0:0 through "), "\(wrongKey.stdout)")
        }
    }

    @Test func listingRootsRefusesOtherRolesBadPagingAndOtherMethods() async throws {
        try await TestServer.with(environment: Self.environment) { server in
            let path = "/v1/audit/roots"
            expectError(try await server.json("GET", path, token: server.token(.driver, vehicle: "v-1")), 403, "PERMISSION_DENIED", containing: "driver token may not list audit roots")
            expectError(try await server.json("GET", path, token: server.token(.consumer, trip: "t-1")), 403, "PERMISSION_DENIED")
            let anonymous = try await server.request("GET", path)
            #expect(anonymous.status == 401)
            expectError(try await server.json("GET", path + "?pageToken=bm9wZQ", token: server.token(.auditor)), 400, "INVALID_ARGUMENT", containing: "pageToken")
            expectError(try await server.json("GET", path + "?pageSize=-1", token: server.token(.auditor)), 400, "INVALID_ARGUMENT", containing: "pageSize")
            expectError(try await server.json("GET", path + "?colour=red", token: server.token(.auditor)), 400, "INVALID_ARGUMENT", containing: "colour")
            expectError(try await server.json("POST", path, "{}", token: server.token(.server)), 405, "UNIMPLEMENTED")
            #expect(try await server.eventCount() == 0)
            let (status, body) = try await server.json("GET", path, token: server.token(.auditor))
            #expect(status == 200 && body["roots"]?.arrayValue?.isEmpty == true, "\(body)")
        }
    }

    @Test func withoutAKeyTheServerWritesNoRootsAndSaysSo() async throws {
        // A root for every event, looked for every second: a writer would not wait long.
        let often = ["WAYMARK_AUDIT_ROOT_EVERY": "1", "WAYMARK_AUDIT_ROOT_SECONDS": "1"]
        try await TestServer.with(environment: often) { server in
            try await server.createTrip("t-1")
            // The marker: a node with a key, started and written to after this one, writes its first
            // root. By then a writer on this node, had it one, would have written one too.
            try await TestServer.with(environment: often.merging(["WAYMARK_AUDIT_KEY": "roots-test-key"]) { $1 }) { keyed in
                try await keyed.createTrip("t-1")
                #expect(await waitFor(.seconds(60)) {
                    try await keyed.json("GET", "/v1/audit/roots", token: keyed.token(.auditor)).1["roots"]?.arrayValue?.isEmpty == false
                }, "the node with a key wrote no root within 60 s")
            }
            let (status, body) = try await server.json("GET", "/v1/audit/roots", token: server.token(.auditor))
            #expect(status == 200 && body["roots"]?.arrayValue?.isEmpty == true, "\(body)")
            #expect(server.process.stderr.contains("WAYMARK_AUDIT_KEY is not set: no signed audit roots are written"))
        }
    }
}
