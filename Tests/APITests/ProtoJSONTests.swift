import Foundation
import JSON
import Signing
import Synchronization
import Testing
@testable import API

@Suite struct ProtoJSONTests {
    @Test func durationsParseSecondsWithUpToNineFractionDigits() {
        #expect(ProtoValue.parseDuration("12.5s") == 12_500_000)
        #expect(ProtoValue.parseDuration("0s") == 0)
        #expect(ProtoValue.parseDuration("-1.000000001s") == -1_000_000)
        #expect(ProtoValue.parseDuration("300s") == 300_000_000)
        for bad in ["12.5", "s", "1.s", ".5s", "1.2345678901s", "abc s", "1e3s", "+1s", ""] {
            #expect(ProtoValue.parseDuration(bad) == nil, "\(bad)")
        }
    }

    @Test func fieldsAreFoundByCamelOrSnakeNameButNotBoth() throws {
        var object = try ProtoObject(["pickup_point": 1, "vehicleId": 2], at: "trip")
        #expect(try object.take("pickupPoint") == 1)
        #expect(try object.take("vehicleId") == 2)
        try object.finish()
        var both = try ProtoObject(["pickupPoint": 1, "pickup_point": 2], at: "trip")
        #expect(throws: APIError.self) { try both.take("pickupPoint") }
        let unknown = try ProtoObject(["colour": 1], at: "trip")
        #expect(throws: APIError.self) { try unknown.finish() }
        #expect(ProtoObject.snakeCase("intermediateDestinationsVersion") == "intermediate_destinations_version")
        #expect(ProtoObject.camelCase("current_route_segment_end_point") == "currentRouteSegmentEndPoint")
    }

    @Test func enumsReadNamesAndNumbersAndRefuseTheRest() throws {
        #expect(try ProtoValue.enumName(8, .tripStatus, at: "s") == "ENROUTE_TO_INTERMEDIATE_DESTINATION")
        #expect(try ProtoValue.enumName("SDK", .tripView, at: "v") == "SDK")
        #expect(throws: APIError.self) { try ProtoValue.enumName(9, .tripStatus, at: "s") }
        #expect(throws: APIError.self) { try ProtoValue.enumName("new", .tripStatus, at: "s") }
        #expect(throws: APIError.self) { try ProtoValue.enumName(true, .tripStatus, at: "s") }
    }

    @Test func numericEnumEncodingRewritesOnlyEnumStrings() throws {
        let trip: JSONValue = ["tripStatus": "COMPLETE", "supportedTripTypes": ["SHARED", "EXCLUSIVE"],
                               "lastLocation": ["speed": 3.5, "locationSensor": "GPS"], "name": "providers/p/trips/t"]
        let numbered = ProtoEnum.numbered(trip)
        #expect(numbered["tripStatus"] == 5)
        #expect(numbered["supportedTripTypes"] == [1, 2])
        #expect(numbered["lastLocation"]?["speed"] == 3.5)
        #expect(numbered["lastLocation"]?["locationSensor"] == 1)
        #expect(numbered["name"] == "providers/p/trips/t")
    }

    @Test func routesAreRecognizedAndOthersAreNotFoundOrMethodNotAllowed() throws {
        func match(_ method: String, _ path: String) throws -> (String, PathParameters)? {
            try OperationTable.standard.match(method: method, path: path).map { ($0.operation.name, $0.parameters) }
        }
        #expect(try match("POST", "/v1/providers/p/trips:search")! == ("SearchTrips", PathParameters(provider: "p")))
        #expect(try match("GET", "/v1/providers/p/trips/t-1")! == ("GetTrip", PathParameters(provider: "p", id: "t-1")))
        #expect(try match("POST", "/v1/providers/p/vehicles/v:updateAttributes")! == ("UpdateVehicleAttributes", PathParameters(provider: "p", id: "v")))
        #expect(try match("GET", "/v1/providers/p/vehicles")! == ("ListVehicles", PathParameters(provider: "p")))
        #expect(try match("HEAD", "/healthz")! == ("healthz", PathParameters()))
        #expect(performing: { try match("PATCH", "/v1/providers/p/trips/t") }, throws: {
            ($0 as? APIError)?.code == .methodNotAllowed && ($0 as? APIError)?.message == "PATCH is not allowed on /v1/providers/p/trips/t (allowed: DELETE, GET, PUT)"
        })
        for other in ["/v1/providers//trips/t", "/v2/providers/p/trips/t", "/v1/providers/p/trips/", "/healthz/", "/v1/providers/p/trips/t/x"] {
            #expect(try match("GET", other) == nil, "\(other)")
        }
    }

    @Test func webhookAndAuditRoutesMatchTheirPathsOnlyAndRefuseOtherMethods() throws {
        func match(_ method: String, _ path: String) throws -> (String, PathParameters)? {
            try OperationTable.standard.match(method: method, path: path).map { ($0.operation.name, $0.parameters) }
        }
        #expect(try match("POST", "/v1/providers/p/webhooks")! == ("CreateWebhook", PathParameters(provider: "p")))
        #expect(try match("GET", "/v1/providers/p/webhooks")! == ("ListWebhooks", PathParameters(provider: "p")))
        #expect(try match("DELETE", "/v1/providers/p/webhooks/w-1")! == ("DeleteWebhook", PathParameters(provider: "p", id: "w-1")))
        #expect(try match("POST", "/v1/providers/p/webhooks/w-1:resume")! == ("ResumeWebhook", PathParameters(provider: "p", id: "w-1")))
        for other in ["/v1/providers/p/webhooksx", "/v1/providers/p/trips/webhooks", "/v1/providers/webhooks", "/v1/providers/p/vehicles/v",
                      "/v1/providers/p/trips/t/journey", "/v1/provider/p/webhooks"] {
            #expect(try match("GET", other).map { $0.0.hasSuffix("Webhook") || $0.0.hasSuffix("Webhooks") } != true, "\(other)")
        }
        #expect(performing: { try match("PUT", "/v1/providers/p/webhooks") }, throws: { ($0 as? APIError)?.code == .methodNotAllowed })

        #expect(try match("GET", "/v1/providers/p/trips/t/history")! == ("GetTripHistory", PathParameters(provider: "p", id: "t")))
        #expect(try match("HEAD", "/v1/providers/p/vehicles/v/history")! == ("GetVehicleHistory", PathParameters(provider: "p", id: "v")))
        #expect(try match("GET", "/v1/providers/p/trips/t/routeAudit")! == ("GetRouteAudit", PathParameters(provider: "p", id: "t")))
        for other in ["/v1/providers/p/trips/history", "/v1/providers/p/vehicles/v/routeAudit", "/v1/providers/p/trips/t/historyx",
                      "/v1/providers/p/trips/t/history/", "/history", "/v1/providers/p/trips/t", "/v2/providers/p/trips/t/history"] {
            #expect(try match("GET", other).map { $0.0.hasSuffix("History") || $0.0 == "GetRouteAudit" } != true, "\(other)")
        }
        #expect(performing: { try match("POST", "/v1/providers/p/trips/t/history") }, throws: {
            ($0 as? APIError)?.message == "POST is not allowed on /v1/providers/p/trips/t/history (allowed: GET)"
        })
    }

    @Test func verbSuffixesWinOverPlainIdsAndADeadEndBacktracks() throws {
        func match(_ method: String, _ path: String) throws -> (String, PathParameters)? {
            try OperationTable.standard.match(method: method, path: path).map { ($0.operation.name, $0.parameters) }
        }
        #expect(try match("POST", "/v1/providers/p/trips/t:share")! == ("ShareTrip", PathParameters(provider: "p", id: "t")))
        #expect(try match("POST", "/v1/providers/p/trips/t:planRoute")! == ("PlanRoute", PathParameters(provider: "p", id: "t")))
        #expect(try match("GET", "/v1/providers/p/trips/:share")! == ("GetTrip", PathParameters(provider: "p", id: ":share")))
        #expect(try match("GET", "/v1/providers/p/trips/t:share/journey")! == ("GetJourney", PathParameters(provider: "p", id: "t:share")))
        #expect(try match("GET", "/v1/providers/p/vehicles/v/driverFeed:stream")! == ("StreamDriverFeed", PathParameters(provider: "p", id: "v")))
        #expect(performing: { try match("GET", "/v1/providers/p/trips/t:share") }, throws: {
            ($0 as? APIError)?.message == "GET is not allowed on /v1/providers/p/trips/t:share (allowed: POST)"
        })
    }

    @Test func pageTokensAreBoundToTheirListing() throws {
        let token = PageToken.encode("providers/p/trips/t-9", scope: "trips:p")
        #expect(try PageToken.decode(token, scope: "trips:p") == "providers/p/trips/t-9")
        #expect(throws: APIError.self) { try PageToken.decode(token, scope: "trips:other") }
        #expect(throws: APIError.self) { try PageToken.decode("%%%", scope: "trips:p") }
    }

    @Test func aTokenVerifiedOnceIsStillRefusedOnceItExpires() throws {
        let secret = Array("k".utf8)
        let now = Mutex<Int64>(1_000_000)
        let auth = Authenticator(hs256Secret: secret, clock: { now.withLock { $0 } })
        let token = Authenticator.mint(secret: secret, role: .server, provider: "p", issuedAt: 1_000_000, ttl: 600)
        #expect(try auth.verify(token: token).role == .server)
        #expect(try auth.verify(token: token).role == .server)  // from the verified-token cache
        now.withLock { $0 = 1_000_000 + 600 + 61 }  // past exp plus the leeway
        #expect(throws: APIError.self) { try auth.verify(token: token) }
        // A token with one byte of its signature changed is not the cached one and fails verification.
        var forged = Array(token.utf8)
        forged[forged.count - 2] = forged[forged.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        now.withLock { $0 = 1_000_000 }
        #expect(throws: APIError.self) { try auth.verify(token: String(decoding: forged, as: UTF8.self)) }
    }

    @Test func authenticatorChecksExpiryLifetimeAudienceAndRoleClaims() throws {
        let secret = Array("k".utf8)
        let auth = Authenticator(hs256Secret: secret, clock: { 1_000_000 })
        let good = Authenticator.mint(secret: secret, role: .driver, provider: "p", vehicleId: "v", issuedAt: 1_000_000, ttl: 3600)
        let principal = try auth.verify(token: good)
        #expect(principal == Principal(role: .driver, provider: "p", vehicleId: "v"))
        let expired = Authenticator.mint(secret: secret, role: .server, provider: "p", issuedAt: 990_000, ttl: 3600)
        #expect(throws: APIError.self) { try auth.verify(token: expired) }
        let overlong = Authenticator.mint(secret: secret, role: .server, provider: "p", issuedAt: 1_000_000, ttl: 7200)
        #expect(throws: APIError.self) { try auth.verify(token: overlong) }
        let foreign = Authenticator.mint(secret: secret, role: .server, provider: "p", issuedAt: 1_000_000, ttl: 60, audience: "other")
        #expect(throws: APIError.self) { try auth.verify(token: foreign) }
        let driverWithoutVehicle = Authenticator.mint(secret: secret, role: .driver, provider: "p", issuedAt: 1_000_000, ttl: 60)
        #expect(throws: APIError.self) { try auth.verify(token: driverWithoutVehicle) }
        #expect(throws: APIError.self) { try auth.authenticate(authorization: "Basic abc") }
        #expect(try auth.authenticate(authorization: "bearer " + good).role == .driver)
    }
}
