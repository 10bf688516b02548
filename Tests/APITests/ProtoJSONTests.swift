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
