import API
import Foundation
import Geo
import JSON
import Journey
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct VehicleEndpointTests {
    @Test func createAndGetVehicleRoundTripTheFleetEngineFields() async throws {
        try await TestServer.with { server in
            let (status, vehicle) = try await server.json("POST", "/v1/providers/acme/vehicles?vehicleId=v-1", """
                {"vehicleState":"OFFLINE","supportedTripTypes":["EXCLUSIVE"],"maximumCapacity":4,"vehicleType":{"category":"AUTO"},
                 "attributes":[{"key":"colour","stringValue":"blue"},{"key":"ev","boolValue":true}],
                 "licensePlate":{"countryCode":"DE","lastCharacter":"7"},"currentTrips":["ignored"]}
                """)
            #expect(status == 200, "\(vehicle)")
            #expect(vehicle["name"]?.stringValue == "providers/acme/vehicles/v-1")
            #expect(vehicle["vehicleState"]?.stringValue == "OFFLINE")
            #expect(vehicle["maximumCapacity"]?.int64Value == 4)
            #expect(vehicle["currentTrips"] == nil)
            #expect(vehicle["licensePlate"]?["countryCode"]?.stringValue == "DE")
            let (_, fetched) = try await server.json("GET", "/v1/providers/acme/vehicles/v-1")
            #expect(fetched == vehicle)
        }
    }

    @Test func badCreateVehicleBodiesAreRejectedAndNothingIsWritten() async throws {
        try await TestServer.with { server in
            let before = try await server.eventCount()
            let path = "/v1/providers/acme/vehicles?vehicleId=v-1"
            expectError(try await server.json("POST", path, #"{"supportedTripTypes":["EXCLUSIVE"],"maximumCapacity":4,"vehicleType":{"category":"AUTO"}}"#),
                        400, "INVALID_ARGUMENT", containing: "vehicleState")
            expectError(try await server.json("POST", path, #"{"vehicleState":"ONLINE","supportedTripTypes":["EXCLUSIVE"],"maximumCapacity":0,"vehicleType":{"category":"AUTO"}}"#),
                        400, "INVALID_ARGUMENT", containing: "maximumCapacity")
            expectError(try await server.json("POST", path, #"{"vehicleState":"ONLINE","supportedTripTypes":"EXCLUSIVE","maximumCapacity":4,"vehicleType":{"category":"AUTO"}}"#),
                        400, "INVALID_ARGUMENT", containing: "must be a JSON array")
            expectError(try await server.json("POST", path, #"{"vehicleState":"ONLINE","supportedTripTypes":["EXCLUSIVE"],"maximumCapacity":4.5,"vehicleType":{"category":"AUTO"}}"#),
                        400, "INVALID_ARGUMENT", containing: "integer")
            expectError(try await server.json("POST", path, #"{"vehicleState":"ONLINE","supportedTripTypes":["EXCLUSIVE"],"maximumCapacity":4,"vehicleType":{"category":"AUTO","wheels":4}}"#),
                        400, "INVALID_ARGUMENT", containing: "unknown field \"wheels\" in vehicle.vehicleType")
            #expect(try await server.eventCount() == before)
        }
    }

    @Test func updateVehicleReportsLocationsAndRejectsBadOnesWithoutWriting() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            let path = "/v1/providers/acme/vehicles/v-1"
            let (status, vehicle) = try await server.json("PUT", path + "?updateMask=lastLocation", """
                {"lastLocation":{"location":{"latitude":52.6,"longitude":13.5},"heading":90,"speed":9.5}}
                """)
            #expect(status == 200, "\(vehicle)")
            #expect(vehicle["lastLocation"]?["location"]?["latitude"]?.doubleValue == 52.6)
            #expect(vehicle["lastLocation"]?["serverTime"] != nil)
            // A report older than the last accepted one is recorded but does not move the vehicle back.
            let (staleStatus, stale) = try await server.json("PUT", path + "?updateMask=lastLocation",
                                                             #"{"lastLocation":{"location":{"latitude":1,"longitude":1},"updateTime":"2001-01-01T00:00:00Z"}}"#)
            #expect(staleStatus == 200 && stale["lastLocation"]?["location"]?["latitude"]?.doubleValue == 52.6, "\(stale)")
            let before = try await server.eventCount()
            expectError(try await server.json("PUT", path + "?updateMask=lastLocation", #"{"lastLocation":{"location":{"latitude":52,"longitude":190}}}"#),
                        400, "INVALID_ARGUMENT", containing: "longitude must be within [-180, 180]")
            expectError(try await server.json("PUT", path + "?updateMask=lastLocation", #"{"lastLocation":{"location":{"latitude":52,"longitude":13},"heading":400}}"#),
                        400, "INVALID_ARGUMENT", containing: "heading")
            expectError(try await server.json("PUT", path + "?updateMask=currentTrips", #"{}"#), 400, "INVALID_ARGUMENT", containing: "managed by the server")
            expectError(try await server.json("PUT", path + "?updateMask=currentRouteSegmentEndPoint", #"{}"#), 400, "INVALID_ARGUMENT", containing: "only together with currentRouteSegment")
            expectError(try await server.json("PUT", path + "?updateMask=vehicleState", #"{"vehicleState":"FLYING"}"#), 400, "INVALID_ARGUMENT", containing: "vehicle.vehicleState must be one of")
            expectError(try await server.json("PUT", "/v1/providers/acme/vehicles/v-none?updateMask=vehicleState", #"{"vehicleState":"OFFLINE"}"#), 404, "NOT_FOUND")
            // A route segment past the point limit (10,000) is refused whole.
            let long = Polyline.encode((0...PathLimit.maximumPoints).map { LatLng(uncheckedLatitude: 52.5 + Double($0) * 0.00001, longitude: 13.4) })
            expectError(try await server.json("PUT", path + "?updateMask=currentRouteSegment", #"{"currentRouteSegment":"\#(long.replacingOccurrences(of: "\\", with: "\\\\"))"}"#),
                        400, "INVALID_ARGUMENT", containing: "at most 10000 points (got 10001)")
            #expect(try await server.eventCount() == before)
            // snake_case mask, enum by number.
            let (offline, updated) = try await server.json("PUT", path + "?updateMask=vehicle_state", #"{"vehicle_state":1}"#)
            #expect(offline == 200 && updated["vehicleState"]?.stringValue == "OFFLINE", "\(updated)")
        }
    }

    @Test func updateVehicleAttributesMergesByKey() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            _ = try await server.json("PUT", "/v1/providers/acme/vehicles/v-1?updateMask=attributes", #"{"attributes":[{"key":"a","stringValue":"1"},{"key":"b","stringValue":"2"}]}"#)
            let (status, merged) = try await server.json("POST", "/v1/providers/acme/vehicles/v-1:updateAttributes",
                                                         #"{"attributes":[{"key":"b","stringValue":"3"},{"key":"c","numberValue":4}]}"#)
            #expect(status == 200, "\(merged)")
            let keys = merged["attributes"]?.arrayValue?.compactMap { $0["key"]?.stringValue }
            #expect(keys == ["a", "b", "c"])
            #expect(merged["attributes"]?[1]?["stringValue"]?.stringValue == "3")
            expectError(try await server.json("POST", "/v1/providers/acme/vehicles/v-1:updateAttributes", #"{"attributes":[]}"#), 400, "INVALID_ARGUMENT")
        }
    }

    @Test func listVehiclesFiltersPagesAndReportsTotalSizeAsAString() async throws {
        try await TestServer.with { server in
            for n in 1...3 { try await server.createVehicle("v-\(n)", capacity: n + 1) }
            _ = try await server.json("PUT", "/v1/providers/acme/vehicles/v-2?updateMask=attributes", #"{"attributes":[{"key":"colour","stringValue":"red"}]}"#)
            let (status, all) = try await server.json("GET", "/v1/providers/acme/vehicles?vehicleTypeCategories=AUTO&pageSize=2")
            #expect(status == 200, "\(all)")
            #expect(all["totalSize"] == .string("3"))
            #expect(all["vehicles"]?.arrayValue?.count == 2)
            let next = try #require(all["nextPageToken"]?.stringValue)
            let (_, rest) = try await server.json("GET", "/v1/providers/acme/vehicles?vehicleTypeCategories=AUTO&pageSize=2&pageToken=\(next)")
            #expect(rest["vehicles"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["providers/acme/vehicles/v-3"])
            #expect(rest["nextPageToken"] == nil)
            let (_, red) = try await server.json("GET", "/v1/providers/acme/vehicles?vehicleTypeCategories=1&requiredAttributes=colour:red")
            #expect(red["vehicles"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["providers/acme/vehicles/v-2"])
            let (_, big) = try await server.json("GET", "/v1/providers/acme/vehicles?vehicleTypeCategories=AUTO&minimumCapacity=4")
            #expect(big["totalSize"] == .string("1"))
            expectError(try await server.json("GET", "/v1/providers/acme/vehicles"), 400, "INVALID_ARGUMENT", containing: "vehicleTypeCategories is required")
            expectError(try await server.json("GET", "/v1/providers/acme/vehicles?vehicleTypeCategories=AUTO&filter=colour%3Dred"), 400, "INVALID_ARGUMENT", containing: "filter")
        }
    }

    @Test func searchVehiclesOrdersByStraightLineDistanceWithinTheRadius() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("near", latitude: 52.5005, longitude: 13.4)
            try await server.createVehicle("far", latitude: 52.51, longitude: 13.4)
            try await server.createVehicle("outside", latitude: 52.6, longitude: 13.4)
            let body = """
                {"pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}},"pickupRadiusMeters":2000,"count":5,"minimumCapacity":1,
                 "tripTypes":["EXCLUSIVE"],"vehicleTypes":[{"category":"AUTO"}],"orderBy":"PICKUP_POINT_STRAIGHT_DISTANCE"}
                """
            let (status, result) = try await server.json("POST", "/v1/providers/acme/vehicles:search", body)
            #expect(status == 200, "\(result)")
            let names = result["matches"]?.arrayValue?.compactMap { $0["vehicle"]?["name"]?.stringValue }
            #expect(names == ["providers/acme/vehicles/near", "providers/acme/vehicles/far"])
            #expect(result["matches"]?[0]?["vehiclePickupStraightLineDistanceMeters"]?.int64Value == 56)
            #expect(result["matches"]?[0]?["vehicleMatchType"]?.stringValue == "EXCLUSIVE")
            let eta = body.replacingOccurrences(of: "PICKUP_POINT_STRAIGHT_DISTANCE", with: "PICKUP_POINT_ETA")
            expectError(try await server.json("POST", "/v1/providers/acme/vehicles:search", eta), 501, "UNIMPLEMENTED", containing: "PICKUP_POINT_ETA")
            let radius = body.replacingOccurrences(of: "2000", with: "50")
            expectError(try await server.json("POST", "/v1/providers/acme/vehicles:search", radius), 400, "INVALID_ARGUMENT", containing: "pickupRadiusMeters")
        }
    }
}
