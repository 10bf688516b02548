import API
import Foundation
import Postgres
import Testing
import TestSupport

/// The API against real outside tools: the official `google-maps-fleetengine` message types and
/// schemathesis fuzzing `/openapi.json`. Their virtualenv is made by `scripts/pytools.sh`
/// (pinned versions, reused between runs).
@Suite(.timeLimit(.minutes(8)), .serialized) struct ConformanceTests {
    static func python() async throws -> String {
        let outcome = try await WaymarkBinary.runTool(WaymarkBinary.packageRoot + "/scripts/pytools.sh", [])
        try #require(outcome.status == 0, "scripts/pytools.sh failed: \(outcome.output)")
        return String(outcome.stdout.split(separator: "\n").last ?? "")
    }

    @Test func theCheckedInOpenAPIDocumentIsValidAndMatchesTheOfficialMessageTypes() async throws {
        let python = try await Self.python()
        let outcome = try await WaymarkBinary.runTool(python, [WaymarkBinary.packageRoot + "/Tests/python/check_openapi.py"])
        #expect(outcome.status == 0, "\(outcome.output)")
    }

    @Test func everyTripAndVehicleTheServerReturnsParsesStrictlyWithTheOfficialClientTypes() async throws {
        let python = try await Self.python()
        try await TestServer.with { server in
            let outcome = try await WaymarkBinary.runTool(python, [WaymarkBinary.packageRoot + "/Tests/python/fleetengine_shapes.py"], environment: [
                "WAYMARK_URL": server.baseURL, "WAYMARK_PROVIDER": "acme", "WAYMARK_TOKEN": server.token(.server),
            ])
            #expect(outcome.status == 0, "\(outcome.output)")
            #expect(outcome.stdout.contains("all steps passed"))
        }
    }

    @Test func schemathesisFindsNoServerErrorAndNoResponseOutsideTheSchema() async throws {
        let python = try await Self.python()
        try await TestServer.with { server in
            let outcome = try await WaymarkBinary.runTool("/bin/bash", [WaymarkBinary.packageRoot + "/Tests/python/schemathesis_run.sh"], environment: [
                "WAYMARK_URL": server.baseURL, "WAYMARK_PROVIDER": "acme", "WAYMARK_TOKEN": server.token(.server), "WAYMARK_PY": python,
            ])
            #expect(outcome.status == 0, "\(outcome.output.suffix(6000))")
        }
    }
}
