import Foundation
import Testing
@testable import Signing

@Suite struct JWTTests {
    @Test func base64URLRoundTripsEveryLengthWithoutPadding() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<40 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(Substring(text)) == bytes)
        }
    }

    @Test func base64URLRejectsForeignCharactersPaddingAndNonCanonicalTails() {
        #expect(Base64URL.decode("ab+d") == nil)
        #expect(Base64URL.decode("ab/d") == nil)
        #expect(Base64URL.decode("YQ==") == nil)
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("YR") == nil)  // "YQ" is canonical for "a"; "YR" leaves bits set
        #expect(Base64URL.decode("YQ") == [0x61])
    }

    @Test func hs256MatchesTheRFC7515Example() {
        // RFC 7515 appendix A.1: header, payload and key from the RFC, signature checked below.
        let header = Array("{\"typ\":\"JWT\",\r\n \"alg\":\"HS256\"}".utf8)
        let payload = Array("{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}".utf8)
        let key = Base64URL.decode("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow")!
        let token = JWT.signHS256(header: header, payload: payload, key: key)
        #expect(token.hasSuffix(".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
        let parts = JWT.split(token)!
        #expect(parts.header == header && parts.payload == payload)
        #expect(JWT.verifyHS256(parts, key: key))
    }

    @Test func hs256RejectsAnotherKeyAndATamperedPayload() {
        let token = JWT.signHS256(header: Array(#"{"alg":"HS256"}"#.utf8), payload: Array(#"{"role":"server"}"#.utf8), key: Array("secret".utf8))
        #expect(!JWT.verifyHS256(JWT.split(token)!, key: Array("other".utf8)))
        let segments = token.split(separator: ".")
        let forged = segments[0] + "." + Base64URL.encode(Array(#"{"role":"auditor"}"#.utf8)) + "." + segments[2]
        #expect(!JWT.verifyHS256(JWT.split(String(forged))!, key: Array("secret".utf8)))
    }

    @Test func splitRejectsTokensThatAreNotThreeSegments() {
        #expect(JWT.split("a.b") == nil)
        #expect(JWT.split("a.b.c.d") == nil)
        #expect(JWT.split(".YQ.YQ") == nil)
        #expect(JWT.split("e30.e30.") != nil)  // an empty signature splits; verification rejects it
    }

    @Test func rs256VerifiesAnOpenSSLSignatureAndRejectsTampering() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wm-jwt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8)) + "." + Base64URL.encode(Array(#"{"role":"server"}"#.utf8))
        try input.write(to: dir.appendingPathComponent("input"), atomically: true, encoding: .utf8)
        func openssl(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["openssl"] + arguments
            process.currentDirectoryURL = dir
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "openssl \(arguments.joined(separator: " ")) failed")
        }
        try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "private.pem"])
        try openssl(["pkey", "-in", "private.pem", "-pubout", "-out", "public.pem"])
        try openssl(["dgst", "-sha256", "-sign", "private.pem", "-out", "signature", "input"])
        let signature = [UInt8](try Data(contentsOf: dir.appendingPathComponent("signature")))
        let key = try #require(RSAPublicKey(pem: try String(contentsOf: dir.appendingPathComponent("public.pem"), encoding: .utf8)))
        let token = input + "." + Base64URL.encode(signature)
        #expect(JWT.verifyRS256(JWT.split(token)!, key: key))
        let tampered = Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8)) + "." + Base64URL.encode(Array(#"{"role":"auditor"}"#.utf8)) + "." + Base64URL.encode(signature)
        #expect(!JWT.verifyRS256(JWT.split(tampered)!, key: key))
        #expect(RSAPublicKey(pem: "not a key") == nil)
    }
}
