import Geo
import JSON
import Simulator
import Testing

/// The synthetic city is deterministic and connected, and its router finds the fastest ways and
/// describes them as a routing API would (legs, steps, maneuvers, traffic).
@Suite(.timeLimit(.minutes(2)))
struct CityRouterTests {
    let city = SyntheticCity(seed: 1)
    var router: CityRouter { CityRouter(city: city) }

    @Test func theSameSeedGivesTheSameCityAndAnotherSeedDoesNot() {
        let again = SyntheticCity(seed: 1)
        let other = SyntheticCity(seed: 2)
        #expect(city.nodes == again.nodes && city.edges == again.edges)
        #expect(city.json == again.json)
        #expect(city.edges != other.edges)
    }

    @Test func theCityHasOneWayStreetsDiagonalsAndVariedSpeeds() {
        let pairs = Set(city.edges.map { [$0.from, $0.to] })
        let oneWay = city.edges.filter { !pairs.contains([$0.to, $0.from]) }
        #expect(oneWay.count > 10)
        #expect(city.edges.contains { $0.street == "Grand Diagonal" } && city.edges.contains { $0.street == "Crown Avenue" })
        #expect(Set(city.edges.map { Int($0.metersPerSecond * 3.6 / 10) }).count >= 3)
        #expect(Set(city.edges.map(\.speedReading)) == ["NORMAL", "SLOW", "TRAFFIC_JAM"])
    }

    @Test func everyIntersectionReachesEveryOther() {
        for start in [0, city.nodes.count / 2, city.nodes.count - 1] {
            for goal in 0..<city.nodes.count {
                #expect(router.route(from: start, to: goal) != nil, "no route \(start) → \(goal)")
            }
        }
    }

    @Test func routesAreConnectedAndAsFastAsBellmanFordSays() {
        var random = SeededRandom(seed: 9)
        let best = bellmanFord(from: 5)
        for _ in 0..<40 {
            let goal = random.below(city.nodes.count)
            guard let edges = router.route(from: 5, to: goal) else { Issue.record("no route to \(goal)"); continue }
            var at = 5
            for index in edges {
                #expect(city.edges[index].from == at, "route breaks at edge \(index)")
                at = city.edges[index].to
            }
            #expect(at == goal)
            let seconds = edges.reduce(0) { $0 + city.edges[$1].seconds }
            #expect(abs(seconds - best[goal]) < 1e-6, "route to \(goal) takes \(seconds) s, the fastest \(best[goal]) s")
        }
    }

    @Test func aOneWayStreetIsNeverDrivenAgainstItsDirection() {
        let pairs = Set(city.edges.map { [$0.from, $0.to] })
        let oneWay = city.edges.first { !pairs.contains([$0.to, $0.from]) }!
        let back = router.route(from: oneWay.to, to: oneWay.from)!
        #expect(back.count > 1, "the way back along a one-way street must go around the block")
        for index in back { #expect(pairs.contains([city.edges[index].from, city.edges[index].to])) }
    }

    @Test func turnAnglesBecomeRoutesAPIManeuvers() {
        #expect(RouteDirections.maneuver(turning: 5) == "STRAIGHT")
        #expect(RouteDirections.maneuver(turning: -350) == "STRAIGHT")
        #expect(RouteDirections.maneuver(turning: 45) == "TURN_SLIGHT_RIGHT")
        #expect(RouteDirections.maneuver(turning: -45) == "TURN_SLIGHT_LEFT")
        #expect(RouteDirections.maneuver(turning: 90) == "TURN_RIGHT")
        #expect(RouteDirections.maneuver(turning: 270) == "TURN_LEFT")
        #expect(RouteDirections.maneuver(turning: -150) == "TURN_SHARP_LEFT")
        #expect(RouteDirections.maneuver(turning: 179) == "UTURN_RIGHT")
    }

    @Test func directionsHaveALegPerStopAndAStepPerStreet() throws {
        let stops = [city.node(row: 9, column: 2), city.node(row: 1, column: 12), city.node(row: 6, column: 6)]
        let directions = try #require(RouteDirections.plan(router, from: city.node(row: 0, column: 0), stops: stops))
        #expect(directions.legs.count == 3)
        for (leg, stop) in zip(directions.legs, stops) {
            #expect(leg.endNode == stop)
            #expect(leg.steps.first?.maneuver == "DEPART")
            #expect(abs(leg.steps.reduce(0) { $0 + $1.distanceMeters } - leg.distanceMeters) < 1e-6)
            for (a, b) in zip(leg.steps, leg.steps.dropFirst()) {
                #expect(city.edges[a.edges.last!].street != city.edges[b.edges.first!].street, "two steps on one street")
                #expect(b.maneuver != "DEPART")
                #expect(b.instructions.hasSuffix(city.edges[b.edges[0]].street))
            }
            #expect(leg.speedIntervals.first?.start == 0 && leg.speedIntervals.last?.end == leg.points.count - 1)
            #expect(leg.seconds >= leg.staticSeconds)
        }
        #expect(directions.legs.flatMap(\.steps).contains { $0.maneuver.hasPrefix("TURN_") })
    }

    @Test func planRouteBodyHasTheContractShape() throws {
        let stops = [city.node(row: 3, column: 3), city.node(row: 10, column: 11)]
        let directions = try #require(RouteDirections.plan(router, from: city.node(row: 0, column: 5), stops: stops))
        let body = directions.planRouteBody(routeToken: "tok-1", intermediates: 0)
        #expect(body.objectValue?.keys == ["routes", "travelMode", "routingPreference", "objectives", "routeModifiers"])
        let route = try #require(body["routes"]?[0])
        #expect(route["routeToken"] == "tok-1")
        #expect(route["duration"]?.stringValue?.hasSuffix("s") == true)
        let legs = try #require(route["legs"]?.arrayValue)
        #expect(legs.count == 2)
        for (leg, planned) in zip(legs, directions.legs) {
            let points = try Polyline.decode(try #require(leg["polyline"]?["encodedPolyline"]?.stringValue))
            #expect(points.count == planned.points.count)
            #expect(Distance.meters(points.last!, city.nodes[planned.endNode]) < 1)
            #expect(leg["steps"]?[0]?["navigationInstruction"]?["maneuver"] == "DEPART")
            #expect(leg["travelAdvisory"]?["speedReadingIntervals"]?[0]?["startPolylinePointIndex"] == 0)
            #expect(leg["endLocation"]?["latLng"]?["latitude"]?.doubleValue != nil)
        }
        let whole = try Polyline.decode(try #require(route["polyline"]?["encodedPolyline"]?.stringValue))
        #expect(whole.count == directions.legs[0].points.count + directions.legs[1].points.count - 1)
    }

    /// A stop where the car already stands (or where the previous stop is) makes a leg of no
    /// length; the plan still sends it as a polyline of two points, which the server requires.
    @Test func aLegOfNoLengthIsSentAsTwoEqualPoints() throws {
        let here = city.node(row: 4, column: 4)
        let directions = try #require(RouteDirections.plan(router, from: here, stops: [here, city.node(row: 6, column: 7)]))
        let body = directions.planRouteBody(routeToken: "tok-2", intermediates: 1)
        let first = try #require(body["routes"]?[0]?["legs"]?[0]?["polyline"]?["encodedPolyline"]?.stringValue)
        let points = try Polyline.decode(first)
        #expect(points.count == 2 && points[0] == points[1])
    }

    /// The fastest times from `start` to every intersection, by relaxing every edge until nothing changes.
    func bellmanFord(from start: Int) -> [Double] {
        var best = [Double](repeating: .infinity, count: city.nodes.count)
        best[start] = 0
        var changed = true
        while changed {
            changed = false
            for edge in city.edges where best[edge.from] + edge.seconds < best[edge.to] - 1e-9 {
                best[edge.to] = best[edge.from] + edge.seconds
                changed = true
            }
        }
        return best
    }
}
