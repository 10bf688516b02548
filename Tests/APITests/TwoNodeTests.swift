import API
import Foundation
import JSON
import Testing
import TestSupport

/// Two `waymark serve` processes on one database: whichever node a request reaches, it decides on
/// the latest state (a node's cached state that another node made stale is caught by the
/// expected-version check and refreshed) and the answer includes the request's own write.
@Suite(.timeLimit(.minutes(3))) struct TwoNodeTests {
    @Test func writesAlternatingBetweenTwoNodesAllLandAndEachAnswerShowsItsOwnWrite() async throws {
        try await TestDatabase.withTestDatabase { url in
            let first = try await TestServer.start(databaseURL: url)
            defer { first.stop() }
            let second = try await TestServer.start(databaseURL: url, environment: ["WAYMARK_JWT_SECRET": first.secret])
            defer { second.stop() }
            try await first.createVehicle("v-1")
            for round in 0..<6 {
                let node = round.isMultiple(of: 2) ? first : second
                let latitude = 52.0 + Double(round) / 100
                let (status, vehicle) = try await node.json("PUT", "/v1/providers/acme/vehicles/v-1?updateMask=lastLocation,navigationStatus", """
                    {"lastLocation":{"location":{"latitude":\(latitude),"longitude":13.4}},"navigationStatus":"\(round.isMultiple(of: 2) ? "ENROUTE_TO_DESTINATION" : "NO_GUIDANCE")"}
                    """, token: first.server)
                #expect(status == 200, "round \(round): \(vehicle)")
                #expect(vehicle["lastLocation"]?["location"]?["latitude"]?.doubleValue == latitude, "round \(round) reads its own write")
            }
            let (_, fromSecond) = try await second.json("GET", "/v1/providers/acme/vehicles/v-1", token: first.server)
            #expect(fromSecond["navigationStatus"]?.stringValue == "NO_GUIDANCE")
            #expect(fromSecond["lastLocation"]?["location"]?["latitude"]?.doubleValue == 52.05)
            // Registered + 6 rounds of (location, navigation status change): nothing lost, nothing doubled.
            #expect(try await first.eventCount() == 1 + 1 + 6 * 2)
        }
    }
}
