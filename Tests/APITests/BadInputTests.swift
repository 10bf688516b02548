import API
import Foundation
import JSON
import Testing
import TestSupport

/// Every endpoint that reads a body refuses the same families of bad input the same way, and
/// none of them writes anything when it does.
@Suite(.timeLimit(.minutes(3))) struct BadInputTests {
    /// (operation, method, path, a valid body, a member with a wrong type, a whole body with a coordinate out of range)
    static let bodies: [(String, String, String, String, String, String?)] = [
        ("CreateTrip", "POST", "/v1/providers/acme/trips?tripId=t-new",
         #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}}}"#, #""numberOfPassengers":"two""#,
         #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.5,"longitude":"NaN"}}}"#),
        ("UpdateTrip", "PUT", "/v1/providers/acme/trips/t-1?updateMask=dropoffPoint",
         #"{"dropoffPoint":{"point":{"latitude":52.5,"longitude":13.4}}}"#, #""vehicleId":7"#,
         #"{"dropoffPoint":{"point":{"latitude":-91,"longitude":13.4}}}"#),
        ("SearchTrips", "POST", "/v1/providers/acme/trips:search", #"{"vehicleId":"v-1"}"#, #""activeTripsOnly":"yes""#, nil),
        ("CreateVehicle", "POST", "/v1/providers/acme/vehicles?vehicleId=v-new",
         #"{"vehicleState":"ONLINE","supportedTripTypes":["EXCLUSIVE"],"maximumCapacity":4,"vehicleType":{"category":"AUTO"}}"#,
         #""backToBackEnabled":1"#,
         #"{"vehicleState":"ONLINE","supportedTripTypes":["EXCLUSIVE"],"maximumCapacity":4,"vehicleType":{"category":"AUTO"},"lastLocation":{"location":{"latitude":52.5,"longitude":181}}}"#),
        ("UpdateVehicle", "PUT", "/v1/providers/acme/vehicles/v-1?updateMask=lastLocation",
         #"{"lastLocation":{"location":{"latitude":52.5,"longitude":13.4}}}"#, #""navigationStatus":[]"#,
         #"{"lastLocation":{"location":{"latitude":"Infinity","longitude":13.4}}}"#),
        ("UpdateVehicleAttributes", "POST", "/v1/providers/acme/vehicles/v-1:updateAttributes",
         #"{"attributes":[{"key":"a","stringValue":"b"}]}"#, #""header":5"#, nil),
        ("SearchVehicles", "POST", "/v1/providers/acme/vehicles:search",
         #"{"pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}},"pickupRadiusMeters":2000,"count":5,"minimumCapacity":1,"tripTypes":["EXCLUSIVE"],"vehicleTypes":[{"category":"AUTO"}],"orderBy":"PICKUP_POINT_STRAIGHT_DISTANCE"}"#,
         #""includeBackToBack":"true""#,
         #"{"pickupPoint":{"point":{"latitude":95,"longitude":13.4}},"pickupRadiusMeters":2000,"count":5,"minimumCapacity":1,"tripTypes":["EXCLUSIVE"],"vehicleTypes":[{"category":"AUTO"}],"orderBy":"PICKUP_POINT_STRAIGHT_DISTANCE"}"#),
    ]

    /// `body` with `member` added as its last member.
    static func adding(_ member: String, to body: String) -> String { String(body.dropLast()) + "," + member + "}" }

    @Test func aJSONMediaTypeInAnyCaseWithParametersAndBlanksAndAMaskWithBlanksAreAccepted() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            let path = "/v1/providers/acme/vehicles/v-1?updateMask=lastLocation,%20vehicleState%09"
            let body = #"{"vehicleState":"OFFLINE","lastLocation":{"location":{"latitude":52.51,"longitude":13.4}}}"#
            let answer = try await server.request("PUT", path, body: body, token: server.server, contentType: " Application/JSON ; charset=utf-8")
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.json["vehicleState"]?.stringValue == "OFFLINE")
            #expect(answer.json["lastLocation"]?["location"]?["latitude"]?.doubleValue == 52.51)
            let other = try await server.request("PUT", path, body: body, token: server.server, contentType: "application/jsonx")
            #expect(other.status == 415, "\(other.text)")
        }
    }

    @Test func everyBodyEndpointRejectsWrongMediaMalformedJSONUnknownFieldsWrongTypesAndBadCoordinates() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createTrip("t-1")
            let before = try await server.eventCount()
            for (operation, method, path, valid, wrongType, badCoordinate) in Self.bodies {
                let text = try await server.request(method, path, body: valid, token: server.server, contentType: "text/plain")
                #expect(text.status == 415, "\(operation) text/plain: \(text.text)")
                let none = try await server.request(method, path, body: valid, token: server.server, contentType: nil)
                #expect(none.status == 415, "\(operation) without Content-Type: \(none.text)")
                expectError(try await server.json(method, path, String(valid.dropLast())), 400, "INVALID_ARGUMENT", containing: "not valid JSON")
                expectError(try await server.json(method, path, "[1,2]"), 400, "INVALID_ARGUMENT", containing: "must be a JSON object")
                expectError(try await server.json(method, path, Self.adding(#""surprise":true"#, to: valid)), 400, "INVALID_ARGUMENT",
                            containing: "unknown field \"surprise\"")
                expectError(try await server.json(method, path, Self.adding(wrongType, to: valid)), 400, "INVALID_ARGUMENT", containing: "must be")
                if let badCoordinate {
                    let result = try await server.json(method, path, badCoordinate)
                    expectError(result, 400, "INVALID_ARGUMENT")
                    let message = result.1["error"]?["message"]?.stringValue ?? ""
                    #expect(message.contains("latitude") || message.contains("longitude"), "\(operation): \(message)")
                }
            }
            #expect(try await server.eventCount() == before)
        }
    }

    @Test func everyEndpointNamingAnUnknownResourceAnswersNotFoundAndWritesNothing() async throws {
        try await TestServer.with { server in
            let before = try await server.eventCount()
            let cases: [(String, String, String?)] = [
                ("GET", "/v1/providers/acme/trips/nope", nil),
                ("PUT", "/v1/providers/acme/trips/nope?updateMask=tripStatus", #"{"tripStatus":"CANCELED"}"#),
                ("DELETE", "/v1/providers/acme/trips/nope", nil),
                ("GET", "/v1/providers/acme/vehicles/nope", nil),
                ("PUT", "/v1/providers/acme/vehicles/nope?updateMask=vehicleState", #"{"vehicleState":"ONLINE"}"#),
                ("POST", "/v1/providers/acme/vehicles/nope:updateAttributes", #"{"attributes":[{"key":"a","stringValue":"b"}]}"#),
                ("DELETE", "/v1/providers/acme/vehicles/nope", nil),
            ]
            for (method, path, body) in cases {
                expectError(try await server.json(method, path, body), 404, "NOT_FOUND", containing: "nope")
            }
            #expect(try await server.eventCount() == before)
        }
    }

    @Test func oversizedBodiesAreRefusedOnEveryBodyEndpoint() async throws {
        try await TestServer.with(environment: ["WAYMARK_MAX_BODY_BYTES": "2048"]) { server in
            let before = try await server.eventCount()
            let padding = String(repeating: " ", count: 4096)
            for (operation, method, path, valid, _, _) in Self.bodies {
                let response = try await server.request(method, path, body: padding + valid, token: server.server)
                #expect(response.status == 413, "\(operation): \(response.status) \(response.text)")
            }
            #expect(try await server.eventCount() == before)
        }
    }
}
