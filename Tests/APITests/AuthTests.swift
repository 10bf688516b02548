import API
import Foundation
import JSON
import Postgres
import Signing
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3))) struct AuthTests {
    /// A token with hand-made header and claims, signed HS256 with `secret`.
    static func forge(header: String = #"{"alg":"HS256","typ":"JWT"}"#, claims: String, secret: String) -> String {
        JWT.signHS256(header: Array(header.utf8), payload: Array(claims.utf8), key: Array(secret.utf8))
    }

    @Test func missingExpiredOverlongForeignAndUnsignedTokensAreUnauthenticated() async throws {
        try await TestServer.with { server in
            let now = Int64(Date().timeIntervalSince1970)
            let path = "/v1/providers/acme/vehicles/v-1"
            func attempt(_ token: String?) async throws -> (Int, JSONValue) {
                let response = try await server.request("GET", path, token: token)
                return (response.status, try JSONValue.parse(response.body))
            }
            let claims = { (exp: Int64, aud: String) in
                #"{"aud":"\#(aud)","exp":\#(exp),"iat":\#(now),"role":"server","provider":"acme"}"#
            }
            expectError(try await attempt(nil), 401, "UNAUTHENTICATED", containing: "bearer token is required")
            expectError(try await attempt("not-a-jwt"), 401, "UNAUTHENTICATED")
            expectError(try await attempt(server.token(.server, ttl: 60, issuedAt: now - 3600)), 401, "UNAUTHENTICATED", containing: "expired")
            expectError(try await attempt(Self.forge(claims: #"{"aud":"waymark","role":"server","provider":"acme"}"#, secret: server.secret)),
                        401, "UNAUTHENTICATED", containing: "no exp")
            expectError(try await attempt(Self.forge(claims: claims(now + 7200, "waymark"), secret: server.secret)), 401, "UNAUTHENTICATED", containing: "more than 3600 s ahead")
            expectError(try await attempt(Self.forge(claims: claims(now + 600, "someone-else"), secret: server.secret)), 401, "UNAUTHENTICATED", containing: "aud")
            expectError(try await attempt(Self.forge(claims: claims(now + 600, "waymark"), secret: "another-key")), 401, "UNAUTHENTICATED", containing: "signature")
            let unsigned = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Array(claims(now + 600, "waymark").utf8)) + "."
            expectError(try await attempt(unsigned), 401, "UNAUTHENTICATED", containing: "alg none is not accepted")
            expectError(try await attempt(Self.forge(header: #"{"alg":"HS512"}"#, claims: claims(now + 600, "waymark"), secret: server.secret)),
                        401, "UNAUTHENTICATED", containing: "alg HS512")
            expectError(try await attempt(Self.forge(claims: #"{"aud":"waymark","exp":\#(now + 600),"role":"admin","provider":"acme"}"#, secret: server.secret)),
                        401, "UNAUTHENTICATED", containing: "role")
            let unauthorized = try await server.request("GET", path)
            #expect(unauthorized.header("WWW-Authenticate") == "Bearer")
        }
    }

    @Test func signedTokensWithHugeTimesOrAFutureNotBeforeAreUnauthenticatedAndTheServerLivesOn() async throws {
        try await TestServer.with { server in
            let now = Int64(Date().timeIntervalSince1970)
            let path = "/v1/providers/acme/vehicles/v-1"
            func attempt(_ times: String) async throws -> (Int, JSONValue) {
                let claims = #"{"aud":"waymark",\#(times),"role":"server","provider":"acme"}"#
                let response = try await server.request("GET", path, token: Self.forge(claims: claims, secret: server.secret))
                return (response.status, try JSONValue.parse(response.body))
            }
            expectError(try await attempt(#""exp":1e300,"iat":\#(now)"#), 401, "UNAUTHENTICATED", containing: "ahead")
            expectError(try await attempt(#""exp":-1e300,"iat":\#(now)"#), 401, "UNAUTHENTICATED", containing: "expired")
            expectError(try await attempt(#""exp":\#(now + 600),"iat":1e300"#), 401, "UNAUTHENTICATED", containing: "iat is in the future")
            expectError(try await attempt(#""exp":\#(now + 600),"iat":\#(now),"nbf":\#(now + 300)"#), 401, "UNAUTHENTICATED", containing: "nbf")
            expectError(try await attempt(#""exp":\#(now + 600),"iat":\#(now),"nbf":1e300"#), 401, "UNAUTHENTICATED", containing: "nbf")
            expectError(try await attempt(#""exp":\#(now + 600),"iat":\#(now),"nbf":"soon""#), 401, "UNAUTHENTICATED", containing: "nbf")
            // A token whose nbf has passed (and one with a very old iat) is fine, and the process is still serving.
            let (status, _) = try await attempt(#""exp":\#(now + 600),"iat":-1e300,"nbf":\#(now - 10)"#)
            #expect(status == 404)
        }
    }

    @Test func rs256TokensSignedByAConfiguredKeyAreAcceptedAndOthersAreNot() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wm-rs256-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func openssl(_ arguments: [String]) async throws {
            let outcome = try await WaymarkBinary.runTool("/usr/bin/openssl", arguments)
            try #require(outcome.status == 0, "openssl \(arguments): \(outcome.output)")
        }
        for name in ["trusted", "stranger"] {
            try await openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "\(dir)/\(name).pem"])
        }
        try await openssl(["pkey", "-in", "\(dir)/trusted.pem", "-pubout", "-out", "\(dir)/trusted.pub"])
        let now = Int64(Date().timeIntervalSince1970)
        let input = Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8)) + "."
            + Base64URL.encode(Array(#"{"aud":"waymark","exp":\#(now + 600),"iat":\#(now),"role":"server","provider":"acme"}"#.utf8))
        try input.write(toFile: "\(dir)/input", atomically: true, encoding: .utf8)
        func signed(by key: String) async throws -> String {
            try await openssl(["dgst", "-sha256", "-sign", "\(dir)/\(key).pem", "-out", "\(dir)/\(key).sig", "\(dir)/input"])
            return input + "." + Base64URL.encode([UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(key).sig"))))
        }
        let trusted = try await signed(by: "trusted")
        let stranger = try await signed(by: "stranger")
        try await TestServer.with(environment: ["WAYMARK_JWT_PUBLIC_KEYS": "\(dir)/trusted.pub"]) { server in
            let accepted = try await server.request("GET", "/v1/providers/acme/vehicles?vehicleTypeCategories=AUTO", token: trusted)
            #expect(accepted.status == 200, "\(accepted.text)")
            let refused = try await server.request("GET", "/v1/providers/acme/vehicles?vehicleTypeCategories=AUTO", token: stranger)
            #expect(refused.status == 401 && refused.text.contains("signature"), "\(refused.text)")
            // HS256 keeps working beside RS256.
            let hs256 = try await server.request("GET", "/v1/providers/acme/vehicles?vehicleTypeCategories=AUTO", token: server.server)
            #expect(hs256.status == 200)
        }
        // With the public keys alone serve starts without a secret, and then no HS256 token gets in.
        try await TestServer.with(environment: ["WAYMARK_JWT_PUBLIC_KEYS": "\(dir)/trusted.pub", "WAYMARK_JWT_SECRET": ""]) { server in
            #expect(server.process.stderr.contains("only RS256 tokens"))
            let accepted = try await server.request("GET", "/v1/providers/acme/vehicles?vehicleTypeCategories=AUTO", token: trusted)
            #expect(accepted.status == 200, "\(accepted.text)")
            let claims = #"{"aud":"waymark","exp":\#(now + 600),"iat":\#(now),"role":"server","provider":"acme"}"#
            let hs256 = try await server.request("GET", "/v1/providers/acme/vehicles?vehicleTypeCategories=AUTO",
                                                 token: Self.forge(claims: claims, secret: "any-secret-of-thirty-two-bytes-or-more"))
            #expect(hs256.status == 401 && hs256.text.contains("HS256 is not accepted"), "\(hs256.text)")
        }
    }

    @Test func everyRoleGetsExactlyItsOperations() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createVehicle("v-2")
            try await server.createTrip("t-1", extra: #","attributes":[{"key":"consumerId","stringValue":"rider-9"}]"#)
            try await server.createTrip("t-2")
            _ = try await server.updateTrip("t-1", mask: "vehicleId", #"{"vehicleId":"v-1"}"#)

            let driver = server.token(.driver, vehicle: "v-1")
            let otherDriver = server.token(.driver, vehicle: "v-2")
            let consumer = server.token(.consumer, trip: "t-1")
            let rider = server.token(.consumer, consumer: "rider-9")
            let auditor = server.token(.auditor)
            let foreign = server.token(.server, provider: "other")

            let trip = #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52,"longitude":13}}}"#
            let vehicle = #"{"vehicleState":"ONLINE","supportedTripTypes":["EXCLUSIVE"],"maximumCapacity":4,"vehicleType":{"category":"AUTO"}}"#
            let search = #"{"pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}},"pickupRadiusMeters":2000,"count":5,"minimumCapacity":1,"tripTypes":["EXCLUSIVE"],"vehicleTypes":[{"category":"AUTO"}],"orderBy":"PICKUP_POINT_STRAIGHT_DISTANCE"}"#
            // (operation, method, path, body, [token: expected status])
            let cases: [(String, String, String, String?, [(String, String, Int)])] = [
                ("CreateTrip", "POST", "/v1/providers/acme/trips?tripId=t-new", trip,
                 [("driver", driver, 403), ("consumer", consumer, 403), ("auditor", auditor, 403), ("foreign", foreign, 403)]),
                ("GetTrip SDK", "GET", "/v1/providers/acme/trips/t-1", nil,
                 [("driver", driver, 200), ("other driver", otherDriver, 403), ("consumer", consumer, 403), ("auditor", auditor, 200), ("foreign", foreign, 403)]),
                ("GetTrip journey sharing", "GET", "/v1/providers/acme/trips/t-1?view=JOURNEY_SHARING_V1S", nil,
                 [("consumer", consumer, 200), ("rider", rider, 200), ("driver", driver, 200)]),
                ("GetTrip of another trip", "GET", "/v1/providers/acme/trips/t-2?view=JOURNEY_SHARING_V1S", nil,
                 [("consumer", consumer, 403), ("rider", rider, 403), ("driver", driver, 403), ("auditor", auditor, 200)]),
                ("UpdateTrip", "PUT", "/v1/providers/acme/trips/t-1?updateMask=tripStatus", #"{"tripStatus":"ENROUTE_TO_PICKUP"}"#,
                 [("other driver", otherDriver, 403), ("consumer", consumer, 403), ("auditor", auditor, 403), ("driver", driver, 200)]),
                ("UpdateTrip vehicleId by driver", "PUT", "/v1/providers/acme/trips/t-1?updateMask=vehicleId", #"{"vehicleId":"v-2"}"#,
                 [("driver", driver, 403)]),
                ("SearchTrips", "POST", "/v1/providers/acme/trips:search", #"{"vehicleId":"v-1"}"#,
                 [("driver", driver, 200), ("other driver", otherDriver, 403), ("consumer", consumer, 403), ("auditor", auditor, 200)]),
                ("DeleteTrip", "DELETE", "/v1/providers/acme/trips/t-2", nil,
                 [("driver", driver, 403), ("consumer", consumer, 403), ("auditor", auditor, 403), ("foreign", foreign, 403)]),
                ("CreateVehicle", "POST", "/v1/providers/acme/vehicles?vehicleId=v-new", vehicle,
                 [("driver", driver, 403), ("consumer", consumer, 403), ("auditor", auditor, 403)]),
                ("GetVehicle", "GET", "/v1/providers/acme/vehicles/v-1", nil,
                 [("driver", driver, 200), ("other driver", otherDriver, 403), ("consumer", consumer, 403), ("auditor", auditor, 200), ("foreign", foreign, 403)]),
                ("UpdateVehicle", "PUT", "/v1/providers/acme/vehicles/v-1?updateMask=navigationStatus", #"{"navigationStatus":"ENROUTE_TO_DESTINATION"}"#,
                 [("driver", driver, 200), ("other driver", otherDriver, 403), ("consumer", consumer, 403), ("auditor", auditor, 403)]),
                ("UpdateVehicleAttributes", "POST", "/v1/providers/acme/vehicles/v-1:updateAttributes", #"{"attributes":[{"key":"k","stringValue":"v"}]}"#,
                 [("driver", driver, 200), ("other driver", otherDriver, 403), ("consumer", consumer, 403), ("auditor", auditor, 403)]),
                ("ListVehicles", "GET", "/v1/providers/acme/vehicles?vehicleTypeCategories=AUTO", nil,
                 [("driver", driver, 403), ("consumer", consumer, 403), ("auditor", auditor, 200), ("foreign", foreign, 403)]),
                ("SearchVehicles", "POST", "/v1/providers/acme/vehicles:search", search,
                 [("driver", driver, 403), ("consumer", consumer, 403), ("auditor", auditor, 200)]),
                ("DeleteVehicle", "DELETE", "/v1/providers/acme/vehicles/v-2", nil,
                 [("driver", otherDriver, 403), ("consumer", consumer, 403), ("auditor", auditor, 403), ("foreign", foreign, 403)]),
            ]
            for (operation, method, path, body, expectations) in cases {
                for (who, token, expected) in expectations {
                    let response = try await server.request(method, path, body: body, token: token)
                    #expect(response.status == expected, "\(operation) as \(who): \(response.status) \(response.text)")
                    if expected == 403 {
                        #expect(response.text.contains("PERMISSION_DENIED"), "\(operation) as \(who): \(response.text)")
                    }
                }
            }
            // The server role may do everything (its happy paths are covered by the endpoint suites).
            let (deleted, _) = try await server.json("DELETE", "/v1/providers/acme/vehicles/v-2")
            #expect(deleted == 200)
        }
    }
}
