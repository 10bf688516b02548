import API
import EventStore
import Foundation
import JSON
import Journey
import Signing
import Testing
import TestSupport

extension AuditEndpoints {
    /// `GET /v1/providers/{p}/trips/{t}/history` and `.../vehicles/{v}/history`.
    @Suite(.timeLimit(.minutes(3))) struct HistoryEndpointTests {
        @Test func tripHistoryListsEveryEventInOrderWithAHashAnAuditorCanRecompute() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                try await server.completeTrip()
                let (status, body) = try await server.history("trips/t-1")
                #expect(status == 200, "\(body)")
                let events = try #require(body["events"]?.arrayValue)
                #expect(body["nextPageToken"] == nil)
                #expect(types(events).first == "TripCreated")
                #expect(types(events).last == "TripCompleted")
                #expect(types(events).contains("TripVehicleAssigned"))
                #expect(events.map { $0["streamVersion"]?.int64Value } == (1...Int64(events.count)).map { $0 })
                #expect(positions(events) == positions(events).sorted() && Set(positions(events)).count == events.count)
                var previous = HashChain.genesis
                for event in events {
                    #expect(event["streamId"]?.stringValue == "trip:acme/t-1")
                    #expect(event["metadata"]?["requestId"]?.stringValue?.isEmpty == false, "\(event)")
                    #expect(event["metadata"]?["role"]?.stringValue == "server")
                    #expect(event["deviceTime"] == nil)
                    // Recompute the chain from the answer alone: data and metadata are exactly what was stored.
                    let id = try #require(event["eventId"]?.stringValue.flatMap(UUID.init(uuidString:)))
                    #expect(event["eventId"]?.stringValue == id.uuidString.lowercased())
                    let recorded = try #require(event["recordedTime"]?.stringValue.flatMap(Timestamp.init(rfc3339:)))
                    let hash = HashChain.hash(previous: previous, streamId: "trip:acme/t-1", version: try #require(event["streamVersion"]?.int64Value),
                                              eventId: id, type: try #require(event["type"]?.stringValue),
                                              canonicalData: try #require(event["data"]).canonicalBytes(),
                                              canonicalMetadata: try #require(event["metadata"]).canonicalBytes(),
                                              recordedAtMicros: recorded.microsecondsSinceEpoch)
                    #expect(event["hash"]?.stringValue == Digest.hex(hash), "event \(event["streamVersion"] ?? nil)")
                    previous = hash
                }
                // A server token reads it too.
                #expect(try await server.history("trips/t-1", token: server.server).0 == 200)
            }
        }

        @Test func vehicleHistoryPagesWithOpaqueTokensAndEveryPageJoinsToTheWholeStream() async throws {
            try await TestServer.with { server in
                try await server.createVehicle("v-1")
                for i in 1...11 { try await server.report(latitude: 52.52 + Double(i) / 10_000) }
                let (status, whole) = try await server.history("vehicles/v-1", "?pageSize=1000")
                #expect(status == 200)
                let all = try #require(whole["events"]?.arrayValue)
                #expect(all.count >= 12, "\(types(all))")
                #expect(types(all).first == "VehicleRegistered")
                let (paged, pages) = try await server.wholeHistory("vehicles/v-1", pageSize: 5)
                #expect(paged == all)
                #expect(pages == (all.count + 4) / 5 || pages == (all.count + 4) / 5 + 1)
                // A location report: data.location is the VehicleLocation, its location the LatLng; deviceTime its updateTime.
                let report = try #require(all.last { $0["type"]?.stringValue == "VehicleLocationReported" })
                #expect(report["data"]?["location"]?["location"]?["latitude"]?.doubleValue == 52.52 + Double(11) / 10_000)
                #expect(report["data"]?["location"]?["location"]?["longitude"]?.doubleValue == 13.405)
                if let device = report["data"]?["location"]?["updateTime"]?.stringValue {
                    #expect(report["deviceTime"]?.stringValue == device)
                }
                // The default page is 100 events, all of these.
                #expect(try await server.history("vehicles/v-1").1["events"]?.arrayValue?.count == all.count)
            }
        }

        @Test func typeAndRecordedTimeFiltersSelectEventsAndCombineWithPaging() async throws {
            try await TestServer.with { server in
                try await server.createVehicle("v-1")
                for i in 1...6 { try await server.report(latitude: 52.52 + Double(i) / 10_000) }
                let all = try #require(try await server.history("vehicles/v-1", "?pageSize=1000").1["events"]?.arrayValue)
                let reports = all.filter { $0["type"]?.stringValue == "VehicleLocationReported" }
                #expect(reports.count >= 6)

                let (status, typed) = try await server.history("vehicles/v-1", "?types=VehicleLocationReported")
                #expect(status == 200)
                #expect(typed["events"]?.arrayValue == reports)
                let (_, two) = try await server.history("vehicles/v-1", "?types=VehicleRegistered,%20VehicleLocationReported")
                #expect(two["events"]?.arrayValue == all.filter { ["VehicleRegistered", "VehicleLocationReported"].contains($0["type"]?.stringValue ?? "") })

                // since/until are inclusive recorded times.
                let since = try #require(reports[1]["recordedTime"]?.stringValue)
                let until = try #require(reports[4]["recordedTime"]?.stringValue)
                let window = try await server.wholeHistory("vehicles/v-1", "types=VehicleLocationReported&since=\(since)&until=\(until)", pageSize: 2)
                #expect(window.events == Array(reports[1...4]))
                let later = try #require(try await server.history("vehicles/v-1", "?since=\(until)").1["events"]?.arrayValue)
                #expect(later == all.filter { ($0["recordedTime"]?.stringValue ?? "") >= until })
            }
        }

        @Test func includeVehicleInterleavesTheVehicleWhileItServedTheTripInGlobalOrder() async throws {
            try await TestServer.with { server in
                try await server.createVehicle("v-1")
                try await server.report(latitude: 52.5201)  // before the trip: not part of it
                try await server.createTrip("t-1")
                let (status0, body0) = try await server.updateTrip("t-1", mask: "vehicleId,tripStatus", #"{"vehicleId":"v-1","tripStatus":"ENROUTE_TO_PICKUP"}"#)
                try #require(status0 == 200, "assign: \(body0)")
                try await server.report(latitude: 52.5202)
                try await server.report(latitude: 52.5203)
                try await server.completeTrip()
                try await server.report(latitude: 52.5204)  // after the trip ended: not part of it

                let trip = try #require(try await server.history("trips/t-1", "?pageSize=1000").1["events"]?.arrayValue)
                let vehicle = try #require(try await server.history("vehicles/v-1", "?pageSize=1000").1["events"]?.arrayValue)
                let (status, body) = try await server.history("trips/t-1", "?include=vehicle&pageSize=1000")
                #expect(status == 200, "\(body)")
                let merged = try #require(body["events"]?.arrayValue)
                #expect(positions(merged) == positions(merged).sorted())
                #expect(merged.filter { $0["streamId"]?.stringValue == "trip:acme/t-1" } == trip)

                let assigned = try #require(trip.first { $0["type"]?.stringValue == "TripVehicleAssigned" }?["recordedTime"]?.stringValue)
                let completed = try #require(trip.first { $0["type"]?.stringValue == "TripCompleted" }?["recordedTime"]?.stringValue)
                let during = vehicle.filter { ($0["recordedTime"]?.stringValue ?? "") >= assigned && ($0["recordedTime"]?.stringValue ?? "") <= completed }
                #expect(merged.filter { $0["streamId"]?.stringValue == "vehicle:acme/v-1" } == during)
                let latitudes = during.compactMap { $0["data"]?["location"]?["location"]?["latitude"]?.doubleValue }
                #expect(latitudes.contains(52.5202) && latitudes.contains(52.5203))
                #expect(!latitudes.contains(52.5201) && !latitudes.contains(52.5204))
                #expect(!types(merged).contains("VehicleRegistered"))

                // Paged, the same sequence; filters apply to both streams.
                let paged = try await server.wholeHistory("trips/t-1", "include=vehicle", pageSize: 3)
                #expect(paged.events == merged)
                let typed = try #require(try await server.history("trips/t-1", "?include=vehicle&types=VehicleLocationReported,TripCompleted").1["events"]?.arrayValue)
                #expect(typed == merged.filter { ["VehicleLocationReported", "TripCompleted"].contains($0["type"]?.stringValue ?? "") })
            }
        }

        @Test func historyRefusesOtherRolesUnknownStreamsAndBadFiltersWithFleetEngineErrors() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                // Roles: only server and auditor; another provider's token is refused.
                expectError(try await server.history("trips/t-1", token: server.token(.driver, vehicle: "v-1")), 403, "PERMISSION_DENIED")
                expectError(try await server.history("trips/t-1", token: server.token(.consumer, trip: "t-1")), 403, "PERMISSION_DENIED")
                expectError(try await server.history("vehicles/v-1", token: server.token(.driver, vehicle: "v-1")), 403, "PERMISSION_DENIED")
                expectError(try await server.history("trips/t-1", token: server.token(.auditor, provider: "other")), 403, "PERMISSION_DENIED")
                let (shareStatus, share) = try await server.json("POST", "/v1/providers/acme/trips/t-1:share", "{}")
                try #require(shareStatus == 200, "\(share)")
                let before = try await server.eventCount()
                expectError(try await server.history("trips/t-1", token: share["token"]?.stringValue), 403, "PERMISSION_DENIED")
                let anonymous = try await server.request("GET", "/v1/providers/acme/trips/t-1/history")
                #expect(anonymous.status == 401)
                // Unknown streams.
                expectError(try await server.history("trips/t-9"), 404, "NOT_FOUND", containing: "t-9")
                expectError(try await server.history("vehicles/v-9"), 404, "NOT_FOUND", containing: "v-9")
                // Bad filters, sizes and tokens.
                for query in ["?pageSize=-1", "?pageSize=abc", "?pageSize=1001", "?pageToken=bm9wZQ", "?types=TripExploded", "?types=",
                              "?since=yesterday", "?until=2024-13-01T00:00:00Z", "?since=2024-05-02T00:00:00Z&until=2024-05-01T00:00:00Z",
                              "?include=driver", "?colour=red", "?pageSize=1&pageSize=2"] {
                    expectError(try await server.history("trips/t-1", query), 400, "INVALID_ARGUMENT")
                }
                expectError(try await server.history("vehicles/v-1", "?include=vehicle"), 400, "INVALID_ARGUMENT", containing: "include")
                // A token of one listing does not page another.
                let first = try await server.history("trips/t-1", "?pageSize=1").1
                let token = try #require(first["nextPageToken"]?.stringValue)
                expectError(try await server.history("vehicles/v-1", "?pageToken=\(token)"), 400, "INVALID_ARGUMENT", containing: "pageToken")
                expectError(try await server.history("trips/t-1", "?include=vehicle&pageToken=\(token)"), 400, "INVALID_ARGUMENT")
                #expect(try await server.history("trips/t-1", "?pageToken=\(token)").0 == 200)
                // Read only.
                let posted = try await server.json("POST", "/v1/providers/acme/trips/t-1/history", "{}")
                expectError(posted, 405, "UNIMPLEMENTED")
                #expect(try await server.eventCount() == before)
            }
        }
    }
}
