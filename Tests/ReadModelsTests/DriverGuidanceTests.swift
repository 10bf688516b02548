import Geo
import Journey
import ReadModels
import Testing

/// Where the vehicle stands on a leg, and on which side its stop lies.
@Suite struct DriverGuidanceTests {
    static func p(_ lat: Double, _ lng: Double) -> LatLng { LatLng(uncheckedLatitude: lat, longitude: lng) }
    static let north = [p(52.5150, 13.4050), p(52.5200, 13.4050)]

    @Test func aStopEastOfANorthboundRoadIsOnTheRight() {
        #expect(DriverGuidance.destinationSide(path: Self.north, stop: Self.p(52.5200, 13.4053)) == .right)
        #expect(DriverGuidance.destinationSide(path: Self.north, stop: Self.p(52.5200, 13.4047)) == .left)
    }

    @Test func aStopStraightOnOrAtTheEndOfThePathIsAhead() {
        #expect(DriverGuidance.destinationSide(path: Self.north, stop: Self.p(52.5203, 13.40501)) == .ahead)
        #expect(DriverGuidance.destinationSide(path: Self.north, stop: Self.p(52.52001, 13.4050)) == .ahead)
        #expect(DriverGuidance.destinationSide(path: [Self.p(52.52, 13.40)], stop: Self.p(52.53, 13.40)) == .ahead)
    }

    @Test func withoutStepsTheProgressIsAlongTheLegPolyline() {
        let leg = RoutePlan.Leg(encodedPolyline: Polyline.encode(Self.north), distanceMeters: 556, durationSeconds: 60)
        let halfway = DriverGuidance.progress(on: leg, stop: Self.north[1], position: Self.p(52.5175, 13.4050))
        #expect(halfway.current == nil)
        #expect(abs(halfway.metersToStop - 278) < 1)
        #expect(abs(halfway.secondsToStop - 30) < 0.1)
        let unknown = DriverGuidance.progress(on: leg, stop: Self.north[1], position: nil)
        #expect(unknown.metersToStop == 556)
    }

    @Test func theCurrentStepIsTheOneAfterTheStepBeingDriven() {
        let a = Self.p(52.5150, 13.4000), b = Self.p(52.5150, 13.4050), c = Self.p(52.5200, 13.4050)
        let steps = [
            RoutePlan.Step(maneuver: .depart, instruction: "Head east", distanceMeters: 340, durationSeconds: 40, encodedPolyline: Polyline.encode([a, b]), start: a, end: b),
            RoutePlan.Step(maneuver: .turnLeft, instruction: "Turn left", distanceMeters: 560, durationSeconds: 60, encodedPolyline: Polyline.encode([b, c]), start: b, end: c),
        ]
        let leg = RoutePlan.Leg(encodedPolyline: Polyline.encode([a, b, c]), distanceMeters: 900, durationSeconds: 100, steps: steps)
        let onFirst = DriverGuidance.progress(on: leg, stop: Self.p(52.5200, 13.4053), position: Self.p(52.5150, 13.4010))
        #expect(onFirst.current == .step(1))
        #expect(onFirst.next == .destination(.right))
        #expect(abs((onFirst.metersToManeuver ?? 0) - 272) < 0.5)
        #expect(abs(onFirst.metersToStop - 832) < 0.5)
        let onLast = DriverGuidance.progress(on: leg, stop: Self.p(52.5200, 13.4053), position: Self.p(52.5180, 13.4050))
        #expect(onLast.current == .destination(.right))
        #expect(onLast.next == nil)
        #expect(abs((onLast.metersToManeuver ?? 0) - 224) < 0.5)
    }
}
