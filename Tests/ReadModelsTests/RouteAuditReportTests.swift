import Foundation
import Geo
import JSON
import Journey
import ReadModels
import Testing

/// `RouteAuditReport`: the route audit for people (text) and as an SVG map.
@Suite struct RouteAuditReportTests {
    static func audit() throws -> JSONValue {
        try #require(RouteAuditProjectionTests.fold(try RouteAuditProjectionTests.offRouteTrip().envelopes).document("audits", RouteAuditProjectionTests.key))
    }

    @Test func theTextNamesDistancesStopsTokenExecutionAndTheOffRouteEpisode() throws {
        let audit = try Self.audit()
        let text = RouteAuditReport.text(audit)
        let planned = try #require(audit["distance"]?["plannedMeters"]?.int64Value)
        let driven = try #require(audit["distance"]?["drivenMeters"]?.int64Value)
        #expect(text.hasPrefix("Route audit of trip t-1 (provider acme)\n"))
        #expect(text.contains("status      COMPLETE (EXCLUSIVE)"))
        #expect(text.contains("vehicle     v-1"))
        #expect(text.contains("planned     \(RouteAuditReportTests.grouped(planned)) m (first plan, 2026-03-01T08:00:21.001000Z)"), "\(text)")
        #expect(text.contains("driven      \(RouteAuditReportTests.grouped(driven)) m"))
        let difference = driven - planned
        #expect(text.contains("difference  \(difference >= 0 ? "+" : "-")\(RouteAuditReportTests.grouped(abs(difference))) m"), "\(text)")
        // One line per stop with planned and actual arrival.
        for stop in try #require(audit["stops"]?.arrayValue) {
            let actual = try #require(stop["actualArrivalTime"]?.stringValue)
            #expect(text.contains("actual \(actual)"), "\(text)")
        }
        #expect(text.contains("pickup"))
        #expect(text.contains("intermediate 0") && text.contains("intermediate 1") && text.contains("dropoff"))
        #expect(text.contains("execution   TOKEN_SUCCESSFULLY_APPLIED, token applied: yes"), "\(text)")
        #expect(text.contains("resolved    DRIVE"), "\(text)")
        #expect(text.contains("1. from 2026-03-01T08:00:50.002000Z until 2026-03-01T08:00:55.002000Z (5s), max deviation 202.3 m (threshold 50.0 m), REJOINED"), "\(text)")
    }

    @Test func aTripWithoutPlanOrEpisodesSaysSo() {
        let audit: JSONValue = ["name": "providers/acme/trips/t-2", "tripId": "t-2", "tripStatus": "NEW", "createTime": "2026-03-01T08:00:00.000000Z",
                                "distance": .object(JSONObject()), "offRouteEpisodes": [], "stops": []]
        let text = RouteAuditReport.text(audit)
        #expect(text.contains("planned     no plan") && text.contains("driven      no reports"))
        #expect(text.contains("Off-route episodes\n  none"))
        #expect(text.contains("Route token\n  no plan"))
        let svg = RouteAuditReport.svg(audit)
        #expect(svg.hasPrefix("<svg ") && svg.hasSuffix("</svg>\n"))
        #expect(!svg.contains("class=\"driven\"") && !svg.contains("class=\"off-route\""))
    }

    @Test func theSVGDrawsThePlanTheDrivenPathAndHighlightsTheOffRouteStretch() throws {
        let audit = try Self.audit()
        let svg = RouteAuditReport.svg(audit)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"600\""))
        #expect(svg.hasSuffix("</svg>\n"))
        let legs = try #require(audit["plannedRoute"]?["legs"]?.arrayValue)
        #expect(Self.count("class=\"planned\"", in: svg) == legs.count)
        #expect(Self.count("class=\"driven\"", in: svg) == 1)
        #expect(Self.count("class=\"off-route\"", in: svg) == 1)
        #expect(Self.count("class=\"off-route-start\"", in: svg) == 1)
        #expect(Self.count("class=\"stop\"", in: svg) == audit["stops"]?.arrayValue?.count)
        #expect(svg.contains(">P</text>") && svg.contains(">D</text>") && svg.contains(">1</text>") && svg.contains(">2</text>"))
        #expect(svg.contains("<title>Trip t-1: planned "))

        // The highlighted stretch is the part of the driven path between where the episode began and ended.
        let driven = try Polyline.decode(try #require(audit["drivenPath"]?["encodedPolyline"]?.stringValue))
        let stretch = RouteAuditReport.offRouteStretch(try #require(audit["offRouteEpisodes"]?[0]), driven: driven)
        #expect(stretch.first == (try LatLng(latitude: 52.518, longitude: 13.4065)))
        #expect(stretch.last == (try LatLng(latitude: 52.5185, longitude: 13.4035)))
        #expect(stretch.count == 2)
        // Every drawn coordinate lies inside the drawing.
        for number in Self.coordinates(svg) { #expect(number >= 0 && number <= 800, "coordinate \(number)") }
    }

    @Test func textInTheSVGIsEscaped() {
        let audit: JSONValue = ["name": "providers/acme/trips/a<b", "tripId": "a<b&\"c\"", "distance": .object(JSONObject()), "stops": []]
        let svg = RouteAuditReport.svg(audit)
        #expect(svg.contains("Trip a&lt;b&amp;&quot;c&quot;"))
        #expect(!svg.contains("a<b"))
    }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// The numbers in `points="x,y ..."`, `cx`, `cy`, `x` and `y` attributes.
    static func coordinates(_ svg: String) -> [Double] {
        var numbers: [Double] = []
        for part in svg.split(whereSeparator: { $0 == "\"" || $0 == " " || $0 == "," }) {
            if let value = Double(part), part.contains(".") { numbers.append(value) }
        }
        return numbers
    }

    static func grouped(_ value: Int64) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }
}
