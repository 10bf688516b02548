import Foundation
import JSON
import Postgres
import Signing
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(1))) struct TokenCommandTests {
    static let secret = ["WAYMARK_JWT_SECRET": "a-secret-of-thirty-two-bytes-or-more"]

    @Test func tokenPrintsOneHS256JWTWithTheRequestedClaims() async throws {
        let result = try await WaymarkBinary.run(["token", "--role", "driver", "--provider", "acme", "--vehicle", "v-1", "--ttl", "600"],
                                                 environment: ["WAYMARK_JWT_SECRET": "s3cret-of-thirty-two-bytes-or-more"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let parts = try #require(JWT.split(String(lines[0])))
        #expect(JWT.verifyHS256(parts, key: Array("s3cret-of-thirty-two-bytes-or-more".utf8)))
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
        let badRole = try await WaymarkBinary.run(["token", "--role", "admin", "--provider", "acme"], environment: Self.secret)
        #expect(badRole.status == 2 && badRole.stderr.contains("--role must be one of"))
        let long = try await WaymarkBinary.run(["token", "--role", "server", "--provider", "acme", "--ttl", "7200"], environment: Self.secret)
        #expect(long.status == 2 && long.stderr.contains("at most 3600"))
        let driver = try await WaymarkBinary.run(["token", "--role", "driver", "--provider", "acme"], environment: Self.secret)
        #expect(driver.status == 2 && driver.stderr.contains("--vehicle"))
    }

    @Test func theSecretComesFromAFileOrTheEnvironmentNeverBothAndNeverShort() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("wm-secret-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let secret = "file-secret-0123456789abcdef0123456789"
        try Data((secret + "\n").utf8).write(to: file)
        let fromFile = try await WaymarkBinary.run(["token", "--role", "server", "--provider", "acme"], environment: ["WAYMARK_JWT_SECRET_FILE": file.path])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let parts = try #require(JWT.split(fromFile.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(JWT.verifyHS256(parts, key: Array(secret.utf8)), "the file's line end is not part of the secret")

        let both = try await WaymarkBinary.run(["token", "--role", "server", "--provider", "acme"],
                                               environment: Self.secret.merging(["WAYMARK_JWT_SECRET_FILE": file.path]) { $1 })
        #expect(both.status == 2 && both.stderr.contains("not both"), "\(both.stderr)")
        let short = try await WaymarkBinary.run(["token", "--role", "server", "--provider", "acme"], environment: ["WAYMARK_JWT_SECRET": "s3cret"])
        #expect(short.status == 2 && short.stderr.contains("at least 32"), "\(short.stderr)")
        #expect(!short.stderr.contains("s3cret"), "the secret is never echoed")
        try Data("short\n".utf8).write(to: file)
        let shortFile = try await WaymarkBinary.run(["token", "--role", "server", "--provider", "acme"], environment: ["WAYMARK_JWT_SECRET_FILE": file.path])
        #expect(shortFile.status == 2 && shortFile.stderr.contains("at least 32"), "\(shortFile.stderr)")
        let missing = try await WaymarkBinary.run(["token", "--role", "server", "--provider", "acme"], environment: ["WAYMARK_JWT_SECRET_FILE": file.path + ".nope"])
        #expect(missing.status == 2 && missing.stderr.contains("cannot be read"), "\(missing.stderr)")
    }
}
