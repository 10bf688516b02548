import Foundation
import Geo
import JSON

/// A route audit document (see `RouteAuditProjection.auditDocument`) for people: a text summary
/// and an SVG map of the planned route against the driven path, off-route stretches highlighted.
///
/// Pure functions of the document: what `GET .../routeAudit` serves is exactly what is drawn.
package enum RouteAuditReport {
    // MARK: - Text

    /// The summary `waymark report trip` prints.
    package static func text(_ audit: JSONValue) -> String {
        var lines: [String] = []
        let tripId = audit["tripId"]?.stringValue ?? "?"
        let name = audit["name"]?.stringValue ?? ""
        let provider = name.split(separator: "/").dropFirst().first.map(String.init) ?? "?"
        lines.append("Route audit of trip \(tripId) (provider \(provider))\(audit["lifecycle"]?.int64Value.map { ", lifecycle \($0)" } ?? "")")
        lines.append("  status      \(audit["tripStatus"]?.stringValue ?? "unknown")\(audit["tripType"]?.stringValue.map { " (\($0))" } ?? "")")
        lines.append("  vehicle     \(audit["vehicleId"]?.stringValue ?? "none")")
        for (label, key) in [("created", "createTime"), ("started", "startTime"), ("ended", "endTime"), ("deleted", "deleteTime")] {
            if let time = audit[key]?.stringValue { lines.append("  \(label.padding(toLength: 11, withPad: " ", startingAt: 0)) \(time)") }
        }

        lines.append("")
        lines.append("Distance")
        let distance = audit["distance"]
        let planned = distance?["plannedMeters"]?.int64Value
        let driven = distance?["drivenMeters"]?.int64Value
        lines.append("  planned     \(planned.map { "\(grouped($0)) m" } ?? "no plan")"
            + (audit["plannedRoute"]?["planTime"]?.stringValue.map { " (first plan, \($0))" } ?? ""))
        lines.append("  driven      \(driven.map { "\(grouped($0)) m" } ?? "no reports")"
            + (audit["drivenPath"]?["reportCount"]?.int64Value.map { " (\($0) location reports)" } ?? ""))
        if let difference = distance?["differenceMeters"]?.int64Value {
            let percent = planned.flatMap { $0 > 0 ? String(format: " (%+.1f%%)", Double(difference) * 100 / Double($0)) : nil } ?? ""
            lines.append("  difference  \(difference >= 0 ? "+" : "-")\(grouped(abs(difference))) m\(percent)")
        }
        if let count = audit["planCount"]?.int64Value, count > 1 {
            lines.append("  plans       \(count) (latest \(audit["latestPlannedRoute"]?["planTime"]?.stringValue ?? "?"))")
        }

        lines.append("")
        lines.append("Stops")
        let stops = audit["stops"]?.arrayValue ?? []
        if stops.isEmpty { lines.append("  none") }
        for stop in stops {
            var label = stopLabel(stop)
            label = label.padding(toLength: max(label.count, 28), withPad: " ", startingAt: 0)
            var parts = ["planned \(stop["plannedArrivalTime"]?.stringValue ?? "-")", "actual \(stop["actualArrivalTime"]?.stringValue ?? "-")"]
            if let delay = stop["arrivalDelay"]?.stringValue { parts.append("delay \(delay)") }
            if let departed = stop["departureTime"]?.stringValue { parts.append("departed \(departed)") }
            lines.append("  \(label)\(parts.joined(separator: "  "))")
        }

        lines.append("")
        lines.append("Route token")
        if let plan = audit["plannedRoute"] {
            lines.append("  token       \(plan["routeTokenPresent"]?.boolValue == true ? "present" : "absent") in the first plan"
                + (plan["travelMode"]?.stringValue.map { ", \($0)" } ?? "") + (plan["routingPreference"]?.stringValue.map { ", \($0)" } ?? ""))
        } else {
            lines.append("  no plan")
        }
        if let execution = audit["routeTokenExecution"] {
            lines.append("  execution   \(execution["status"]?.stringValue ?? "?"), token applied: \(execution["tokenApplied"]?.boolValue == true ? "yes" : "no")"
                + (execution["reportTime"]?.stringValue.map { " (\($0))" } ?? ""))
            lines.append("  resolved    \(options(execution["resolvedParameters"]))")
            if let reported = execution["reportedParameters"] { lines.append("  reported    \(options(reported))") }
        } else if audit["plannedRoute"] != nil {
            lines.append("  execution   not reported")
        }

        lines.append("")
        lines.append("Off-route episodes")
        let episodes = audit["offRouteEpisodes"]?.arrayValue ?? []
        if episodes.isEmpty { lines.append("  none") }
        for (index, episode) in episodes.enumerated() {
            let end = episode["endTime"]?.stringValue.map { "until \($0)" } ?? "still open"
            let duration = episode["duration"]?.stringValue.map { " (\($0))" } ?? ""
            let deviation = episode["maxDeviationMeters"]?.doubleValue.map { "max deviation \(String(format: "%.1f", $0)) m" } ?? ""
            let threshold = episode["thresholdMeters"]?.doubleValue.map { " (threshold \(String(format: "%.1f", $0)) m)" } ?? ""
            let resolution = episode["resolution"]?.stringValue.map { ", \($0)" } ?? ""
            lines.append("  \(index + 1). from \(episode["startTime"]?.stringValue ?? "?") \(end)\(duration), \(deviation)\(threshold)\(resolution)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func stopLabel(_ stop: JSONValue) -> String {
        switch stop["waypointType"]?.stringValue {
        case "PICKUP_WAYPOINT_TYPE": "pickup"
        case "DROP_OFF_WAYPOINT_TYPE": "dropoff"
        case "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE": "intermediate \(stop["intermediateDestinationIndex"]?.int64Value ?? 0)"
        case let other: other ?? "stop"
        }
    }

    /// `DRIVE, avoid tolls, avoid highways, reroute tolerance 60 s`.
    static func options(_ parameters: JSONValue?) -> String {
        guard let parameters else { return "none" }
        var parts = [parameters["travelMode"]?.stringValue ?? "travel mode unspecified"]
        for (key, text) in [("avoidTolls", "avoid tolls"), ("avoidHighways", "avoid highways"), ("avoidFerries", "avoid ferries"), ("avoidTunnels", "avoid tunnels")]
        where parameters[key]?.boolValue == true {
            parts.append(text)
        }
        if let vignettes = parameters["avoidVignettes"]?.arrayValue, !vignettes.isEmpty {
            parts.append("avoid vignettes " + vignettes.compactMap(\.stringValue).joined(separator: ","))
        }
        if let tolerance = parameters["rerouteTimeToleranceSeconds"]?.int64Value { parts.append("reroute tolerance \(tolerance) s") }
        return parts.joined(separator: ", ")
    }

    /// `12345` → `12,345`.
    static func grouped(_ value: Int64) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    // MARK: - SVG

    /// The drawing's size in pixels.
    static let width = 800.0, height = 600.0, margin = 40.0

    /// An SVG map: the first plan's legs (blue, dashed), a later plan's (grey, dotted), the driven
    /// path (black), each off-route stretch of it (red, thick), the stops (numbered circles) and
    /// where each episode began (red ring). Equirectangular projection around the drawing's middle
    /// latitude, north up; good for the few kilometers of a trip.
    package static func svg(_ audit: JSONValue) -> String {
        let firstPlan = planLegs(audit["plannedRoute"])
        let latestPlan = planLegs(audit["latestPlannedRoute"])
        let driven = audit["drivenPath"]?["encodedPolyline"]?.stringValue.flatMap { try? Polyline.decode($0) } ?? []
        let stops = (audit["stops"]?.arrayValue ?? []).compactMap { stop in latLng(stop["location"]).map { (stop, $0) } }
        let episodes = audit["offRouteEpisodes"]?.arrayValue ?? []
        let stretches = episodes.map { offRouteStretch($0, driven: driven) }

        var all = firstPlan.flatMap { $0 } + latestPlan.flatMap { $0 } + driven + stops.map(\.1)
        all += episodes.compactMap { latLng($0["startLocation"]) }
        let title = "Trip \(audit["tripId"]?.stringValue ?? "?"): planned \(audit["distance"]?["plannedMeters"]?.int64Value.map { "\(grouped($0)) m" } ?? "-")"
            + ", driven \(audit["distance"]?["drivenMeters"]?.int64Value.map { "\(grouped($0)) m" } ?? "-")"
            + ", \(episodes.count) off-route episode\(episodes.count == 1 ? "" : "s")"

        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <title>\(escape(title))</title>
            <rect width="100%" height="100%" fill="#ffffff"/>

            """
        let project = projection(all)
        func points(_ path: [LatLng]) -> String {
            path.map { point in
                let (x, y) = project(point)
                return "\(format(x)),\(format(y))"
            }.joined(separator: " ")
        }
        for leg in latestPlan where leg.count > 1 {
            out += ##"<polyline class="latest-plan" points="\##(points(leg))" fill="none" stroke="#9e9e9e" stroke-width="3" stroke-dasharray="2 4"/>"## + "\n"
        }
        for leg in firstPlan where leg.count > 1 {
            out += ##"<polyline class="planned" points="\##(points(leg))" fill="none" stroke="#1e64c8" stroke-width="4" stroke-dasharray="10 6"/>"## + "\n"
        }
        if driven.count > 1 {
            out += ##"<polyline class="driven" points="\##(points(driven))" fill="none" stroke="#202020" stroke-width="2.5"/>"## + "\n"
        }
        for stretch in stretches where stretch.count > 1 {
            out += ##"<polyline class="off-route" points="\##(points(stretch))" fill="none" stroke="#d62828" stroke-width="6" stroke-opacity="0.8"/>"## + "\n"
        }
        for episode in episodes {
            guard let start = latLng(episode["startLocation"]) else { continue }
            let (x, y) = project(start)
            out += ##"<circle class="off-route-start" cx="\##(format(x))" cy="\##(format(y))" r="9" fill="none" stroke="#d62828" stroke-width="2"/>"## + "\n"
        }
        for (stop, point) in stops {
            let (x, y) = project(point)
            let label = switch stop["waypointType"]?.stringValue {
            case "PICKUP_WAYPOINT_TYPE": "P"
            case "DROP_OFF_WAYPOINT_TYPE": "D"
            default: String((stop["intermediateDestinationIndex"]?.int64Value ?? 0) + 1)
            }
            out += ##"<circle class="stop" cx="\##(format(x))" cy="\##(format(y))" r="8" fill="#ffffff" stroke="#202020" stroke-width="2"/>"## + "\n"
            out += ##"<text x="\##(format(x))" y="\##(format(y + 4))" text-anchor="middle" font-weight="bold">\##(escape(label))</text>"## + "\n"
        }
        out += ##"<text x="\##(Int(margin))" y="24" font-size="14">\##(escape(title))</text>"## + "\n"
        let legend: [(String, String)] = [("#1e64c8", "planned route"), ("#202020", "driven path"), ("#d62828", "off route")]
        for (index, (color, label)) in legend.enumerated() {
            let y = height - 14
            let x = margin + Double(index) * 140
            out += ##"<line x1="\##(format(x))" y1="\##(format(y - 4))" x2="\##(format(x + 24))" y2="\##(format(y - 4))" stroke="\##(color)" stroke-width="4"/>"##
            out += ##"<text x="\##(format(x + 30))" y="\##(format(y))">\##(label)</text>"## + "\n"
        }
        out += "</svg>\n"
        return out
    }

    /// The decoded legs of a planned route in the document (empty when there is none).
    static func planLegs(_ plan: JSONValue?) -> [[LatLng]] {
        (plan?["legs"]?.arrayValue ?? []).compactMap { leg in leg["encodedPolyline"]?.stringValue.flatMap { try? Polyline.decode($0) } }
    }

    static func latLng(_ value: JSONValue?) -> LatLng? {
        guard let latitude = value?["latitude"]?.doubleValue, let longitude = value?["longitude"]?.doubleValue else { return nil }
        return try? LatLng(latitude: latitude, longitude: longitude)
    }

    /// The part of the driven path an episode covers: from the point nearest where it began to the
    /// point nearest where it ended (searched after the start), or to the end while it is open.
    package static func offRouteStretch(_ episode: JSONValue, driven: [LatLng]) -> [LatLng] {
        guard !driven.isEmpty, let start = latLng(episode["startLocation"]) else { return [] }
        let first = driven.indices.min { Distance.meters(driven[$0], start) < Distance.meters(driven[$1], start) } ?? 0
        var last = driven.count - 1
        if let end = latLng(episode["endLocation"]) {
            last = driven.indices[first...].min { Distance.meters(driven[$0], end) < Distance.meters(driven[$1], end) } ?? last
        }
        return last > first ? Array(driven[first...last]) : [driven[first]]
    }

    /// Maps points into the drawing, keeping the aspect ratio (meters east and north alike).
    static func projection(_ points: [LatLng]) -> (LatLng) -> (Double, Double) {
        guard let first = points.first else { return { _ in (width / 2, height / 2) } }
        var minLat = first.latitude, maxLat = first.latitude, minLng = first.longitude, maxLng = first.longitude
        for point in points {
            minLat = min(minLat, point.latitude); maxLat = max(maxLat, point.latitude)
            minLng = min(minLng, point.longitude); maxLng = max(maxLng, point.longitude)
        }
        let squeeze = cos((minLat + maxLat) / 2 * .pi / 180)
        let spanX = max((maxLng - minLng) * squeeze, 1e-9), spanY = max(maxLat - minLat, 1e-9)
        let scale = min((width - 2 * margin) / spanX, (height - 2 * margin - 30) / spanY)
        let offsetX = (width - spanX * scale) / 2, offsetY = (height - spanY * scale) / 2
        return { point in
            (offsetX + (point.longitude - minLng) * squeeze * scale, height - offsetY - (point.latitude - minLat) * scale)
        }
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
