import Geo
import Testing

@Suite struct DistanceTests {
    @Test func oneDegreeOfLatitudeIsAbout111_2Kilometres() {
        // 2πR / 360 with R = 6 371 008.8 m.
        #expect(abs(Distance.meters(.at(0, 0), .at(1, 0)) - 111_195.08) < 0.01)
        #expect(abs(Distance.meters(.at(45, 7), .at(46, 7)) - 111_195.08) < 0.01)
    }

    @Test func jfkToLaxIsWithinHalfAPercentOfThePublishedDistance() {
        // Great Circle Mapper: JFK–LAX 2 475 mi = 3 983 km (ellipsoidal).
        let distance = Distance.meters(.at(40.6413, -73.7781), .at(33.9416, -118.4085))
        #expect(abs(distance - 3_983_000) / 3_983_000 < 0.005)
    }

    @Test func londonToParisIsAbout343_6Kilometres() {
        let distance = Distance.meters(.at(51.5074, -0.1278), .at(48.8566, 2.3522))
        #expect(abs(distance - 343_556.5) < 1)
    }

    @Test func distanceAcrossTheAntimeridianTakesTheShortWay() {
        #expect(abs(Distance.meters(.at(0, 179.9), .at(0, -179.9)) - 22_239.02) < 0.01)
    }

    @Test func distanceIsSymmetricAndZeroForIdenticalPoints() {
        let a = LatLng.at(48.137, 11.575)
        let b = LatLng.at(48.145, 11.59)
        #expect(Distance.meters(a, a) == 0)
        #expect(abs(Distance.meters(a, b) - Distance.meters(b, a)) < 1e-9)
    }

    @Test func cumulativeStartsAtZeroAndAddsEachSegment() {
        let points = [LatLng.at(0, 0), .at(1, 0), .at(1, 0), .at(2, 0)]
        let cumulative = Distance.cumulative(points)
        #expect(cumulative.count == 4)
        #expect(cumulative[0] == 0)
        #expect(abs(cumulative[1] - 111_195.08) < 0.01)
        #expect(cumulative[2] == cumulative[1])
        #expect(abs(cumulative[3] - 222_390.16) < 0.02)
        #expect(Distance.pathLength(points) == cumulative[3])
    }

    @Test func cumulativeOfRandomPathsEqualsTheRunningSumOfSegments() {
        var generator = RouteGenerator(seed: 0xD157)
        for _ in 0..<200 {
            let points = generator.path().points
            let cumulative = Distance.cumulative(points)
            #expect(cumulative.count == points.count)
            var sum = 0.0
            for index in points.indices.dropFirst() {
                sum += Distance.meters(points[index - 1], points[index])
                #expect(abs(cumulative[index] - sum) < 1e-9)
            }
        }
    }

    @Test func emptyAndSinglePointPathsHaveZeroLength() {
        #expect(Distance.cumulative([]) == [])
        #expect(Distance.cumulative([.at(1, 2)]) == [0])
        #expect(Distance.pathLength([]) == 0)
        #expect(Distance.pathLength([.at(1, 2)]) == 0)
    }

    @Test(arguments: [
        (LatLng.at(0, 0), LatLng.at(1, 0), 0.0),
        (.at(0, 0), .at(0, 1), 90),
        (.at(0, 0), .at(-1, 0), 180),
        (.at(0, 0), .at(0, -1), 270),
        (.at(0, 179.5), .at(0, -179.5), 90),
    ])
    func initialBearingPointsTheRightWay(from: LatLng, to: LatLng, expected: Double) {
        #expect(abs(Distance.initialBearing(from: from, to: to) - expected) < 1e-9)
    }

    @Test func initialBearingIsAlwaysInZeroTo360() {
        var generator = RouteGenerator(seed: 0xBEA2)
        for _ in 0..<500 {
            let points = generator.path(pointCount: 2...2, steps: 0...2_000, allowRepeats: false).points
            let bearing = Distance.initialBearing(from: points[0], to: points[1])
            #expect(bearing >= 0 && bearing < 360)
        }
        #expect(Distance.initialBearing(from: .at(3, 4), to: .at(3, 4)) == 0)
    }

    @Test func destinationTravelsTheRequestedDistanceOnTheRequestedBearing() {
        let start = LatLng.at(52.52, 13.405)
        for bearing in stride(from: 0.0, to: 360, by: 15) {
            let end = Distance.destination(from: start, bearing: bearing, meters: 1_234.5)
            #expect(abs(Distance.meters(start, end) - 1_234.5) < 1e-6)
            let measured = Distance.initialBearing(from: start, to: end)
            let difference = abs(measured - bearing)
            #expect(min(difference, 360 - difference) < 1e-6)
        }
    }

    @Test func interpolateSplitsTheGreatCircleDistanceLinearly() {
        let a = LatLng.at(40.7128, -74.006)
        let b = LatLng.at(40.73, -73.935)
        let total = Distance.meters(a, b)
        for fraction in [0.0, 0.1, 0.25, 0.5, 0.9, 1.0] {
            let point = Distance.interpolate(from: a, to: b, fraction: fraction)
            #expect(abs(Distance.meters(a, point) - fraction * total) < 1e-6)
            #expect(abs(Distance.meters(point, b) - (1 - fraction) * total) < 1e-6)
        }
        #expect(Distance.interpolate(from: a, to: b, fraction: 0) == a)
        #expect(Distance.interpolate(from: a, to: b, fraction: 1) == b)
    }
}
