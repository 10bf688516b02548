import API
import Foundation
import JSON
import Signing
import Testing
import TestSupport

/// The corpus in `Tests/Fixtures/hostile-requests.jsonl`: malformed and hostile requests, each
/// answered with its 4xx and a Fleet Engine error that says what was wrong, the event log
/// unchanged, the server still serving.
///
/// A case is one JSON object: `name`, `method`, `path` (or `pathParts`), the expected `status`,
/// and optionally `body` (text), `bodyBase64` (raw bytes, for invalid UTF-8), `bodyParts`
/// (`[text, times]` pairs, for bodies too big to keep in the file), `contentType` (default
/// JSON), `token` (`server` by default; `none`, `garbage`, `expired`, `forged`, `algNone`,
/// `consumer`, `otherProvider`), `errorStatus`, and `contains` (a piece of the message).
@Suite(.timeLimit(.minutes(3))) struct HostileInputTests {
    struct Case: Sendable {
        var name: String
        var method: String
        var path: String
        var body: [UInt8]?
        var contentType: String?
        var token: String
        var status: Int
        var errorStatus: String?
        var contains: String?
    }

    static func corpus() throws -> [Case] {
        let url = URL(fileURLWithPath: WaymarkBinary.packageRoot + "/Tests/Fixtures/hostile-requests.jsonl")
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let value = try JSONValue.parse(Array(line.utf8))
            func joined(_ parts: JSONValue?) -> String? {
                guard let parts = parts?.arrayValue else { return nil }
                return parts.map { part in
                    String(repeating: part[0]?.stringValue ?? "", count: Int(part[1]?.int64Value ?? 0))
                }.joined()
            }
            var body: [UInt8]?
            if let text = value["body"]?.stringValue ?? joined(value["bodyParts"]) { body = Array(text.utf8) }
            if let encoded = value["bodyBase64"]?.stringValue { body = Data(base64Encoded: encoded).map { [UInt8]($0) } }
            let contentType: String? = body == nil ? nil : (value["contentType"]?.stringValue ?? "application/json")
            return Case(name: value["name"]?.stringValue ?? "?", method: value["method"]?.stringValue ?? "GET",
                        path: value["path"]?.stringValue ?? joined(value["pathParts"]) ?? "/", body: body, contentType: contentType,
                        token: value["token"]?.stringValue ?? "server", status: Int(value["status"]?.int64Value ?? 0),
                        errorStatus: value["errorStatus"]?.stringValue, contains: value["contains"]?.stringValue)
        }
    }

    @Test func theCorpusHasEveryFamilyTheIssueNames() throws {
        let names = try Self.corpus().map(\.name).joined(separator: "|").lowercased()
        for family in ["truncated", "nested", "1e400", "utf-8", "10,000 characters", "sql", "nan", "infinity", "xml", "expired", "forged"
                       , "alg none"] {
            #expect(names.contains(family), "no case for \(family)")
        }
    }

    @Test func everyHostileRequestIsRefusedWithItsStatusAndAClearMessageAndChangesNothing() async throws {
        let corpus = try Self.corpus()
        #expect(corpus.count >= 40)
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createTrip("t-1")
            let before = try await server.eventCount()
            let now = Int64(Date().timeIntervalSince1970)
            let claims = #"{"aud":"waymark","exp":\#(now + 600),"iat":\#(now),"role":"server","provider":"acme"}"#
            let tokens: [String: String?] = [
                "server": server.server,
                "none": nil,
                "garbage": "eyJ.not.a-token",
                "expired": server.token(.server, ttl: 60, issuedAt: now - 3600),
                "forged": JWT.signHS256(header: Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8), payload: Array(claims.utf8), key: Array("not-the-key".utf8)),
                "algNone": Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + ".",
                "consumer": server.token(.consumer, trip: "t-1"),
                "otherProvider": server.token(.driver, provider: "other", vehicle: "v-1"),
            ]
            for item in corpus {
                guard let token = tokens[item.token] else { Issue.record("\(item.name): unknown token kind \(item.token)"); continue }
                let response = try await server.request(item.method, item.path, bytes: item.body, token: token, contentType: item.contentType)
                #expect(response.status == item.status, "\(item.name): \(response.status) \(response.text.prefix(300))")
                let answer = try? JSONValue.parse(response.body)
                let message = answer?["error"]?["message"]?.stringValue ?? ""
                #expect(!message.isEmpty && answer?["error"]?["code"]?.int64Value == Int64(response.status),
                        "\(item.name): not a Fleet Engine error: \(response.text.prefix(300))")
                if let status = item.errorStatus {
                    #expect(answer?["error"]?["status"]?.stringValue == status, "\(item.name): \(response.text.prefix(300))")
                }
                if let piece = item.contains {
                    #expect(message.contains(piece), "\(item.name): message \(message.prefix(300).debugDescription) lacks \(piece.debugDescription)")
                }
            }
            #expect(try await server.eventCount() == before, "a refused request wrote events")
            let health = try await server.request("GET", "/healthz")
            #expect(health.status == 200)
            let (status, trip) = try await server.json("GET", "/v1/providers/acme/trips/t-1")
            #expect(status == 200 && trip["tripStatus"]?.stringValue == "NEW", "\(trip)")
        }
    }
}
