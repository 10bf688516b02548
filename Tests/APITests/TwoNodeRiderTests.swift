import API
import Foundation
import JSON
import Testing
import TestSupport

extension RiderEndpoints {
    /// Rider endpoints on a node that does not own the journey projection (it reads the table and its
    /// hub polls it): views arrive, and a link revoked through the other node ends its streams.
    @Suite(.timeLimit(.minutes(3))) struct TwoNodeRiderTests {
        @Test func aStreamOnTheOtherNodeGetsChangesAndEndsWhenItsLinkIsRevokedElsewhere() async throws {
            try await TestDatabase.withTestDatabase { url in
                let first = try await TestServer.start(databaseURL: url)
                defer { first.stop() }
                // The first node owns every projection; the second stands by and serves riders from the tables.
                let second = try await TestServer.start(databaseURL: url, environment: ["WAYMARK_JWT_SECRET": first.secret])
                defer { second.stop() }
                try await first.startTrip()
                let (status, shared) = try await first.json("POST", "/v1/providers/acme/trips/t-1:share", "{}")
                try #require(status == 200, "\(shared)")
                let link = try #require(shared["token"]?.stringValue)

                #expect(try await second.journey("t-1", token: link).status == 200)
                let stream = try await second.openStream("/v1/providers/acme/trips/t-1/journey:stream?access_token=\(link)", token: nil)
                defer { stream.close() }
                #expect(stream.status == 200)
                let opened = try #require(try await stream.nextEventAsync())
                let openedVersion = Int64(opened.id ?? "") ?? 0

                // A change made through the first node reaches the stream on the second.
                try await first.report(latitude: 52.5401)
                let changed = try #require(try await stream.nextEventAsync())
                #expect(Int64(changed.id ?? "") ?? 0 > openedVersion)

                // Revoked through the first node: the second node's stream ends within seconds.
                let started = ContinuousClock.now
                let (revoked, _) = try await first.json("POST", "/v1/providers/acme/trips/t-1:unshare", #"{"token":"\#(link)"}"#)
                #expect(revoked == 200)
                var end: EventStreamClient.Event?
                while let event = try await stream.nextEventAsync() {
                    if event.event == "end" {
                        end = event
                        break
                    }
                }
                #expect(try JSONValue.parse(Array(try #require(end).data.utf8))["reason"] == "LINK_REVOKED")
                #expect(ContinuousClock.now - started < .seconds(5))
                expectError((try await second.journey("t-1", token: link)).pair, 401, "UNAUTHENTICATED")
            }
        }
    }
}
