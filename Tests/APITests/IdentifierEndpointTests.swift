import API
import Foundation
import JSON
import Testing
import TestSupport

/// Ids are compared by Swift (canonical equivalence) and by PostgreSQL (bytes): only NFC ids and
/// plain ASCII providers get in, so the two can never disagree on which trip is which.
@Suite(.timeLimit(.minutes(2))) struct IdentifierEndpointTests {
    @Test func decomposedIdsForeignProvidersAndLongIdsAreRefusedAndNothingIsWritten() async throws {
        try await TestServer.with { server in
            try await server.createTrip("caf\u{E9}")
            let before = try await server.eventCount()
            let body = #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}}}"#
            // café with a combining accent: the same string to Swift, another to the database.
            expectError(try await server.json("POST", "/v1/providers/acme/trips?tripId=cafe%CC%81", body), 400, "INVALID_ARGUMENT",
                        containing: "Normalization Form C")
            expectError(try await server.json("GET", "/v1/providers/acme/trips/cafe%CC%81"), 400, "INVALID_ARGUMENT", containing: "Normalization Form C")
            #expect(try await server.json("GET", "/v1/providers/acme/trips/caf%C3%A9").0 == 200)
            // 33 two-byte letters are 66 bytes, past the 64-byte limit.
            let long = String(repeating: "%C3%A9", count: 33)
            expectError(try await server.json("POST", "/v1/providers/acme/trips?tripId=\(long)", body), 400, "INVALID_ARGUMENT", containing: "64 bytes")
            // Providers: ASCII letters, digits, '.', '_', '-'; a Kelvin sign is not a K.
            expectError(try await server.json("GET", "/v1/providers/acm%C3%A9/trips/t-1"), 400, "INVALID_ARGUMENT", containing: "provider")
            expectError(try await server.json("GET", "/v1/providers/%E2%84%AAacme/trips/t-1"), 400, "INVALID_ARGUMENT")
            expectError(try await server.json("GET", "/v1/providers/ac%20me/trips/t-1"), 400, "INVALID_ARGUMENT", containing: "provider")
            #expect(try await server.eventCount() == before)
        }
    }

    @Test func tokensWithAnInvalidProviderOrADecomposedIdAreUnauthenticated() async throws {
        try await TestServer.with { server in
            let now = Int64(Date().timeIntervalSince1970)
            func attempt(_ extra: String) async throws -> (Int, JSONValue) {
                let claims = #"{"aud":"waymark","exp":\#(now + 600),"iat":\#(now),\#(extra)}"#
                let token = AuthTests.forge(claims: claims, secret: server.secret)
                let response = try await server.request("GET", "/v1/providers/acme/trips/t-1/journey", token: token)
                return (response.status, try JSONValue.parse(response.body))
            }
            expectError(try await attempt(#""role":"server","provider":"ac me""#), 401, "UNAUTHENTICATED", containing: "provider")
            expectError(try await attempt(#""role":"server","provider":"\u212Aacme""#), 401, "UNAUTHENTICATED", containing: "provider")
            expectError(try await attempt(#""role":"consumer","provider":"acme","authorization":{"tripid":"cafe\u0301"}"#), 401, "UNAUTHENTICATED",
                        containing: "Normalization Form C")
        }
    }
}
