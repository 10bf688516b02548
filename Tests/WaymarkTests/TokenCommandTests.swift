import Foundation
import JSON
import Postgres
import Signing
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(1))) struct TokenCommandTests {
    @Test func tokenPrintsOneHS256JWTWithTheRequestedClaims() async throws {
        let result = try await WaymarkBinary.run(["token", "--role", "driver", "--provider", "acme", "--vehicle", "v-1", "--ttl", "600"],
                                                 environment: ["WAYMARK_JWT_SECRET": "s3cret"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let parts = try #require(JWT.split(String(lines[0])))
        #expect(JWT.verifyHS256(parts, key: Array("s3cret".utf8)))
        let claims = try JSONValue.parse(parts.payload)
        #expect(claims["role"]?.stringValue == "driver" && claims["provider"]?.stringValue == "acme" && claims["aud"]?.stringValue == "waymark")
        #expect(claims["authorization"]?["vehicleid"]?.stringValue == "v-1")
        let exp = try #require(claims["exp"]?.int64Value)
        let iat = try #require(claims["iat"]?.int64Value)
        #expect(exp - iat == 600)
    }

    @Test func tokenRefusesMissingSecretsUnknownRolesAndOverlongLifetimes() async throws {
        let noSecret = try await WaymarkBinary.run(["token", "--role", "server", "--provider", "acme"])
        #expect(noSecret.status == 2 && noSecret.stderr.contains("WAYMARK_JWT_SECRET"))
        let badRole = try await WaymarkBinary.run(["token", "--role", "admin", "--provider", "acme"], environment: ["WAYMARK_JWT_SECRET": "x"])
        #expect(badRole.status == 2 && badRole.stderr.contains("--role must be one of"))
        let long = try await WaymarkBinary.run(["token", "--role", "server", "--provider", "acme", "--ttl", "7200"], environment: ["WAYMARK_JWT_SECRET": "x"])
        #expect(long.status == 2 && long.stderr.contains("at most 3600"))
        let driver = try await WaymarkBinary.run(["token", "--role", "driver", "--provider", "acme"], environment: ["WAYMARK_JWT_SECRET": "x"])
        #expect(driver.status == 2 && driver.stderr.contains("--vehicle"))
    }
}
