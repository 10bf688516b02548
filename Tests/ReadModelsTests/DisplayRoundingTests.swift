import ReadModels
import Testing

/// Distances and minutes rounded as in-car displays round them.
@Suite struct DisplayRoundingTests {
    @Test(arguments: [
        (0.0, "0 m"), (4.9, "0 m"), (5.0, "10 m"), (34.0, "30 m"), (35.0, "40 m"), (94.9, "90 m"), (95.0, "100 m"), (99.9, "100 m"),
        (100.0, "100 m"), (124.9, "100 m"), (125.0, "150 m"), (272.0, "250 m"), (832.0, "850 m"), (974.9, "950 m"), (975.0, "1.0 km"),
        (999.0, "1.0 km"), (1000.0, "1.0 km"), (1049.0, "1.0 km"), (1050.0, "1.1 km"), (1942.0, "1.9 km"), (9949.0, "9.9 km"),
        (9950.0, "10 km"), (10_000.0, "10 km"), (10_499.0, "10 km"), (10_500.0, "11 km"), (123_456.0, "123 km"), (-3.0, "0 m"),
    ])
    func distancesRoundToTheNearestDisplayStep(meters: Double, shown: String) {
        #expect(DisplayRounding.distance(meters: meters).description == shown)
    }

    @Test(arguments: [
        (0.0, true, 0), (1.0, true, 1), (29.0, true, 1), (29.0, false, 0), (30.0, false, 1), (89.0, true, 1), (90.0, true, 2),
        (92.0, true, 2), (212.0, true, 4), (3599.0, true, 60), (-5.0, true, 0),
    ])
    func timesAreWholeMinutesNeverZeroWhileMoving(seconds: Double, moving: Bool, minutes: Int) {
        #expect(DisplayRounding.minutes(seconds: seconds, moving: moving) == minutes)
    }

    @Test func kilometreValuesBelowTenKeepOneDecimalAndAreJSONNumbers() {
        #expect(DisplayRounding.distance(meters: 2000).value == "2.0")
        #expect(DisplayRounding.distance(meters: 2000).unit == "km")
        #expect(DisplayRounding.distance(meters: 20_000).value == "20")
    }
}
