import EventStore
import Foundation
import HTTP
import JSON
import Journey
import Postgres
import Signing

/// `GET /v1/audit/roots?pageSize=&pageToken=`: the signed roots over the global feed, oldest first.
///
/// Server and auditor tokens of any provider may read them: a root holds hashes and feed
/// positions only, no event content. The page token is opaque to clients (the last root number
/// of the page).
extension RESTHandler {
    static let defaultRootsPageSize = 100
    static let maximumRootsPageSize = 1000

    static func listAuditRoots(_ query: inout QueryParameters, api: WaymarkAPI) async throws(APIError) -> HTTPResponse {
        var pageSize = Self.defaultRootsPageSize
        if let text = try query.value("pageSize") {
            guard let size = Int(text), size >= 0 else { throw .invalidArgument("pageSize must be a whole number ≥ 0, got \(text.debugDescription)") }
            pageSize = size == 0 ? Self.defaultRootsPageSize : min(size, Self.maximumRootsPageSize)
        }
        var after: Int64 = 0
        if let token = try query.value("pageToken"), !token.isEmpty {
            guard let decoded = Self.rootsPageToken(token) else { throw .invalidArgument("pageToken is not one this server issued") }
            after = decoded
        }
        try query.finish()
        let limit = pageSize
        let startAfter = after
        let roots: [AuditRoot]
        do {
            roots = try await api.store.pool.withConnection { connection in
                try AuditRoots.list(on: connection, after: startAfter, limit: limit + 1)
            }
        } catch {
            if let failure = error as? PostgresError, failure.isRetriable {
                throw APIError(.unavailable, "the database is unavailable (list audit roots); retry", underlying: error)
            }
            throw APIError(.internal, "storage failed (list audit roots)", underlying: error)
        }
        let page = roots.prefix(limit)
        var members: [(String, JSONValue)] = [("roots", .array(page.map(Self.rootJSON)))]
        if roots.count > limit, let last = page.last {
            members.append(("nextPageToken", .string(Base64URL.encode(Array("roots:\(last.number)".utf8)))))
        }
        return Self.json(.object(JSONObject(members)))
    }

    static func rootsPageToken(_ token: String) -> Int64? {
        guard let bytes = Base64URL.decode(Substring(token)) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix("roots:"), let number = Int64(text.dropFirst("roots:".count)), number >= 0 else { return nil }
        return number
    }

    static func rootJSON(_ root: AuditRoot) -> JSONValue {
        .object(JSONObject([
            ("rootNumber", .string(String(root.number))),
            ("firstFeedPosition", .string(root.first.description)),
            ("lastFeedPosition", .string(root.last.description)),
            ("eventCount", .string(String(root.eventCount))),
            ("previousRoot", .string(Digest.hex(root.previousRoot))),
            ("root", .string(Digest.hex(root.root))),
            ("createdTime", .string(Timestamp(microsecondsSinceEpoch: root.createdAtMicros).rfc3339)),
        ]))
    }
}
