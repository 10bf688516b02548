import Foundation
import Geo
import JSON

/// A planned drive through the city, split into legs (one per stop) and steps (one per street),
/// with the maneuver that starts each step: what a routing API answers.
package struct RouteDirections: Sendable, Hashable {
    /// One street's worth of driving.
    package struct Step: Sendable, Hashable {
        /// A Routes API maneuver name (`DEPART`, `TURN_LEFT`, `STRAIGHT`, ...).
        package var maneuver: String
        package var instructions: String
        package var edges: [Int]
        package var points: [LatLng]
        package var distanceMeters: Double
        package var staticSeconds: Double
    }

    /// The drive to one stop.
    package struct Leg: Sendable, Hashable {
        package var startNode: Int
        package var endNode: Int
        package var edges: [Int]
        package var points: [LatLng]
        package var steps: [Step]
        package var distanceMeters: Double
        package var seconds: Double
        package var staticSeconds: Double
        /// Traffic per point interval: `(start, end, speed)` with Routes API speed names.
        package var speedIntervals: [(start: Int, end: Int, speed: String)]

        package static func == (lhs: Leg, rhs: Leg) -> Bool { lhs.edges == rhs.edges && lhs.startNode == rhs.startNode }
        package func hash(into hasher: inout Hasher) { hasher.combine(edges); hasher.combine(startNode) }
    }

    package var legs: [Leg]

    package var distanceMeters: Double { legs.reduce(0) { $0 + $1.distanceMeters } }
    package var seconds: Double { legs.reduce(0) { $0 + $1.seconds } }
    package var staticSeconds: Double { legs.reduce(0) { $0 + $1.staticSeconds } }

    /// Plans the drive from `start` through each of `stops` in order; nil when one cannot be reached.
    package static func plan(_ router: CityRouter, from start: Int, stops: [Int]) -> RouteDirections? {
        var legs: [Leg] = []
        var here = start
        for stop in stops {
            guard let edges = router.route(from: here, to: stop) else { return nil }
            legs.append(leg(router.city, from: here, edges: edges))
            here = stop
        }
        return RouteDirections(legs: legs)
    }

    /// One leg along `edges` from `start`: steps per street, maneuvers from the turn angles.
    package static func leg(_ city: SyntheticCity, from start: Int, edges: [Int]) -> Leg {
        var steps: [Step] = []
        var previousBearing: Double?
        var index = 0
        while index < edges.count {
            let street = city.edges[edges[index]].street
            var end = index
            while end + 1 < edges.count && city.edges[edges[end + 1]].street == street { end += 1 }
            let stepEdges = Array(edges[index...end])
            let first = city.edges[stepEdges[0]]
            let bearing = Distance.initialBearing(from: city.nodes[first.from], to: city.nodes[first.to])
            let maneuver = previousBearing.map { Self.maneuver(turning: bearing - $0) } ?? "DEPART"
            let last = city.edges[stepEdges[stepEdges.count - 1]]
            previousBearing = Distance.initialBearing(from: city.nodes[last.from], to: city.nodes[last.to])
            steps.append(Step(
                maneuver: maneuver, instructions: instructions(maneuver, street: street, bearing: bearing), edges: stepEdges,
                points: [city.nodes[first.from]] + stepEdges.map { city.nodes[city.edges[$0].to] },
                distanceMeters: stepEdges.reduce(0) { $0 + city.edges[$1].lengthMeters },
                staticSeconds: stepEdges.reduce(0) { $0 + city.edges[$1].staticSeconds }))
            index = end + 1
        }
        var intervals: [(start: Int, end: Int, speed: String)] = []
        for (i, edgeIndex) in edges.enumerated() {
            let speed = city.edges[edgeIndex].speedReading
            if let last = intervals.last, last.speed == speed, last.end == i {
                intervals[intervals.count - 1].end = i + 1
            } else {
                intervals.append((i, i + 1, speed))
            }
        }
        return Leg(startNode: start, endNode: edges.last.map { city.edges[$0].to } ?? start, edges: edges,
                   points: [city.nodes[start]] + edges.map { city.nodes[city.edges[$0].to] }, steps: steps,
                   distanceMeters: edges.reduce(0) { $0 + city.edges[$1].lengthMeters },
                   seconds: edges.reduce(0) { $0 + city.edges[$1].seconds },
                   staticSeconds: edges.reduce(0) { $0 + city.edges[$1].staticSeconds }, speedIntervals: intervals)
    }

    /// The Routes API maneuver for a change of heading by `degrees` (positive: clockwise, to the right).
    package static func maneuver(turning degrees: Double) -> String {
        var turn = degrees.truncatingRemainder(dividingBy: 360)
        if turn > 180 { turn -= 360 }
        if turn <= -180 { turn += 360 }
        let side = turn >= 0 ? "RIGHT" : "LEFT"
        switch abs(turn) {
        case ..<20: return "STRAIGHT"
        case ..<60: return "TURN_SLIGHT_\(side)"
        case ..<135: return "TURN_\(side)"
        case ..<170: return "TURN_SHARP_\(side)"
        default: return "UTURN_\(side)"
        }
    }

    static func instructions(_ maneuver: String, street: String, bearing: Double) -> String {
        switch maneuver {
        case "DEPART":
            let compass = ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"]
            let sector = Int(((bearing.truncatingRemainder(dividingBy: 360) + 360 + 22.5) / 45).rounded(.down)) % 8
            return "Head \(compass[sector]) on \(street)"
        case "STRAIGHT": return "Continue onto \(street)"
        case "TURN_LEFT": return "Turn left onto \(street)"
        case "TURN_RIGHT": return "Turn right onto \(street)"
        case "TURN_SLIGHT_LEFT": return "Keep slightly left onto \(street)"
        case "TURN_SLIGHT_RIGHT": return "Keep slightly right onto \(street)"
        case "TURN_SHARP_LEFT": return "Turn sharply left onto \(street)"
        case "TURN_SHARP_RIGHT": return "Turn sharply right onto \(street)"
        default: return "Make a U-turn onto \(street)"
        }
    }

    /// The `:planRoute` request body of the route-plan contract: one route whose legs end at the stops,
    /// plus the request's options (DRIVE, TRAFFIC_AWARE, no route modifiers).
    package func planRouteBody(routeToken: String, intermediates: Int) -> JSONValue {
        func duration(_ seconds: Double) -> JSONValue { .string("\(Int(seconds.rounded()))s") }
        func meters(_ value: Double) -> JSONValue { .number(JSONNumber(Int(value.rounded()))) }
        func location(_ point: LatLng) -> JSONValue {
            .object(JSONObject([("latLng", .object(JSONObject([
                ("latitude", .number(JSONNumber(point.latitude) ?? JSONNumber(0))), ("longitude", .number(JSONNumber(point.longitude) ?? JSONNumber(0))),
            ])))]))
        }
        // A stop where the previous one is (or where the car stands) is a leg of no length: two equal
        // points, as a routing API answers it, since a polyline needs two.
        func polyline(_ points: [LatLng]) -> JSONValue {
            .object(JSONObject([("encodedPolyline", .string(Polyline.encode(points.count == 1 ? points + points : points)))]))
        }
        let legsJSON: [JSONValue] = legs.map { leg in
            let steps: [JSONValue] = leg.steps.map { step in
                .object(JSONObject([
                    ("distanceMeters", meters(step.distanceMeters)), ("staticDuration", duration(step.staticSeconds)),
                    ("polyline", polyline(step.points)),
                    ("startLocation", location(step.points[0])), ("endLocation", location(step.points[step.points.count - 1])),
                    ("navigationInstruction", .object(JSONObject([("maneuver", .string(step.maneuver)), ("instructions", .string(step.instructions))]))),
                ]))
            }
            let intervals: [JSONValue] = leg.speedIntervals.map {
                .object(JSONObject([("startPolylinePointIndex", .number(JSONNumber($0.start))), ("endPolylinePointIndex", .number(JSONNumber($0.end))),
                                    ("speed", .string($0.speed))]))
            }
            return .object(JSONObject([
                ("distanceMeters", meters(leg.distanceMeters)), ("duration", duration(leg.seconds)), ("staticDuration", duration(leg.staticSeconds)),
                ("polyline", polyline(leg.points)),
                ("startLocation", location(leg.points[0])), ("endLocation", location(leg.points[leg.points.count - 1])),
                ("steps", .array(steps)),
                ("travelAdvisory", .object(JSONObject([("speedReadingIntervals", .array(intervals))]))),
            ]))
        }
        let allPoints = legs.enumerated().flatMap { index, leg in leg.points.dropFirst(index == 0 ? 0 : 1) }
        let route: JSONValue = .object(JSONObject([
            ("routeToken", .string(routeToken)), ("distanceMeters", meters(distanceMeters)), ("duration", duration(seconds)),
            ("staticDuration", duration(staticSeconds)), ("polyline", polyline(allPoints)),
            ("legs", .array(legsJSON)),
        ]))
        var members: [(String, JSONValue)] = [
            ("routes", .array([route])), ("travelMode", "DRIVE"), ("routingPreference", "TRAFFIC_AWARE"), ("objectives", .array([])),
            ("routeModifiers", .object(JSONObject([("avoidTolls", false), ("avoidHighways", false), ("avoidFerries", false)]))),
        ]
        if intermediates > 0 {
            members.append(("intermediates", .array(Array(repeating: .object(JSONObject([("via", false)])), count: intermediates))))
        }
        return .object(JSONObject(members))
    }
}
