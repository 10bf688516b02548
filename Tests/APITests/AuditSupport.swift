import API
import Foundation
import JSON
import Testing
import TestSupport

/// Helpers for the audit endpoint tests.
extension TestServer {
    /// GET a history page (JSON).
    func history(_ path: String, _ query: String = "", token: String? = nil) async throws -> (Int, JSONValue) {
        try await json("GET", "/v1/providers/acme/\(path)/history\(query)", token: token ?? self.token(.auditor))
    }

    /// Every event of a history, following `nextPageToken` (at most 100 pages).
    func wholeHistory(_ path: String, _ query: String = "", pageSize: Int) async throws -> (events: [JSONValue], pages: Int) {
        var events: [JSONValue] = []
        var token: String?
        for page in 1...100 {
            var parameters = query.isEmpty ? [] : [query]
            parameters.append("pageSize=\(pageSize)")
            if let token { parameters.append("pageToken=\(token)") }
            let (status, body) = try await history(path, "?" + parameters.joined(separator: "&"))
            try #require(status == 200, "history page \(page): \(body)")
            let list = try #require(body["events"]?.arrayValue, "no events list: \(body)")
            #expect(list.count <= pageSize)
            events += list
            guard let next = body["nextPageToken"]?.stringValue else { return (events, page) }
            #expect(!next.isEmpty)
            token = next
        }
        Issue.record("history of \(path) did not end within 100 pages")
        return (events, 100)
    }

    /// Waits until every projection has applied every event this server appended (for up to 20 s).
    func waitForProjections(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        var last = ""
        while ContinuousClock.now < deadline {
            let text = try await request("GET", "/metrics").text
            func value(_ prefix: String) -> Int64? {
                text.split(separator: "\n").first { $0.hasPrefix(prefix + " ") }.flatMap { Int64($0.split(separator: " ").last ?? "") }
            }
            let appended = value("waymark_events_appended_total") ?? -1
            let applied = ["journey", "fleet", "route_audit"].map { value("waymark_projection_events_applied_total{projection=\"\($0)\"}") ?? -1 }
            if applied.allSatisfy({ $0 >= appended }) { return }
            last = "appended \(appended), applied \(applied)"
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the projections did not catch up within 20 s (\(last))", sourceLocation: sourceLocation)
        throw TestSetupError("projections behind")
    }
}

/// The types of a list of history events.
func types(_ events: [JSONValue]) -> [String] { events.map { $0["type"]?.stringValue ?? "?" } }

/// The global positions of a list of history events.
func positions(_ events: [JSONValue]) -> [Int64] { events.map { Int64($0["globalPosition"]?.stringValue ?? "") ?? -1 } }

/// The audit endpoint suites, one test at a time (each starts a server).
@Suite(.serialized) enum AuditEndpoints {}
