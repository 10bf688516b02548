import API
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

extension AuditEndpoints {
    /// `waymark report trip T`: the route audit printed for people, and `trip-T.svg` beside it.
    @Suite(.timeLimit(.minutes(3))) struct ReportCommandTests {
        @Test func reportPrintsTheRouteAuditAndWritesTheSVGOfTheDrivenPath() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                try await server.report(latitude: 52.505, longitude: 13.40)
                try await server.report(latitude: 52.50, longitude: 13.40)
                try await server.completeTrip()
                try await server.waitForProjections()
                let audit = try await server.json("GET", "/v1/providers/acme/trips/t-1/routeAudit").1
                let directory = NSTemporaryDirectory() + "waymark-report-\(UUID().uuidString)"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                let environment = ["DATABASE_URL": server.databaseURL]

                let result = try await WaymarkBinary.run(["report", "trip", "t-1", "--provider", "acme", "--out-dir", directory], environment: environment)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.hasPrefix("Route audit of trip t-1 (provider acme)\n"), "\(result.stdout)")
                #expect(result.stdout.contains("status      COMPLETE (EXCLUSIVE)"))
                let driven = try #require(audit["distance"]?["drivenMeters"]?.int64Value)
                #expect(result.stdout.contains("driven      \(driven.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))) m (2 location reports)"),
                        "\(result.stdout)")
                #expect(result.stdout.contains("planned     no plan"))
                #expect(result.stdout.contains("Off-route episodes\n  none"))
                let path = directory + "/trip-t-1.svg"
                #expect(result.stdout.hasSuffix("map: \(path)\n"))
                let svg = try String(contentsOfFile: path, encoding: .utf8)
                #expect(svg.hasPrefix("<svg ") && svg.hasSuffix("</svg>\n"))
                #expect(svg.contains("class=\"driven\""))
                #expect(svg.components(separatedBy: "class=\"stop\"").count - 1 == 2)

                // Without --provider the trip id alone finds it.
                let bare = try await WaymarkBinary.run(["report", "trip", "t-1", "--out-dir", directory], environment: environment)
                #expect(bare.status == 0, "\(bare.stderr)")
                #expect(bare.stdout == result.stdout)
            }
        }

        @Test func reportOfAnUnknownTripOrAMalformedCommandFails() async throws {
            try await TestServer.with { server in
                let environment = ["DATABASE_URL": server.databaseURL]
                let unknown = try await WaymarkBinary.run(["report", "trip", "t-9", "--out-dir", NSTemporaryDirectory()], environment: environment)
                #expect(unknown.status == 1)
                #expect(unknown.stderr.contains("no route audit of trip \"t-9\""), "\(unknown.stderr)")
                #expect(!FileManager.default.fileExists(atPath: NSTemporaryDirectory() + "/trip-t-9.svg"))
                let noSubject = try await WaymarkBinary.run(["report"], environment: environment)
                #expect(noSubject.status == 2)
                #expect(noSubject.stderr.contains("report needs a subject"))
                let twoIds = try await WaymarkBinary.run(["report", "trip", "a", "b"], environment: environment)
                #expect(twoIds.status == 2)
            }
        }
    }
}
