import Geo
import Simulator

/// Random city-scale routes, queries and traffic for property tests, from a fixed seed.
struct RouteGenerator {
    var random: SeededRandom

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    /// A random walk of `pointCount` points with steps of `steps` metres, turning by `turns`
    /// degrees at each; about one step in twenty repeats the previous point (zero-length
    /// segment). Starts may sit near ±180°.
    mutating func path(
        pointCount: ClosedRange<Int> = 1...40, steps: ClosedRange<Double> = 0...800, turns: ClosedRange<Double> = -100...100,
        allowRepeats: Bool = true
    ) -> Path {
        let count = Int.random(in: pointCount, using: &random)
        var point = LatLng(
            uncheckedLatitude: Double.random(in: -60...60, using: &random),
            longitude: Double.random(in: -180...180, using: &random)
        )
        var points: [LatLng] = []
        var heading = Double.random(in: 0..<360, using: &random)
        for _ in 0..<count {
            points.append(point)
            if allowRepeats, Int.random(in: 0..<20, using: &random) == 0 { continue }
            heading = (heading + Double.random(in: turns, using: &random) + 360).truncatingRemainder(dividingBy: 360)
            point = Distance.destination(from: point, bearing: heading, meters: Double.random(in: steps, using: &random))
        }
        return Path(points)
    }

    /// A point up to `spread` metres from a random place on (or just beyond) `path`.
    mutating func query(near path: Path, spread: Double = 150) -> LatLng {
        let along = Double.random(in: -50...(path.length + 50), using: &random)
        let base = path.point(atDistance: along)
        return Distance.destination(
            from: base,
            bearing: Double.random(in: 0..<360, using: &random),
            meters: Double.random(in: 0...spread, using: &random)
        )
    }

    /// Ordered, non-overlapping intervals with random gaps over a path of `pointCount` points.
    mutating func intervals(pointCount: Int) -> [TrafficInterval] {
        var result: [TrafficInterval] = []
        var cursor = 0
        while cursor < pointCount - 1 {
            let start = cursor + (Bool.random(using: &random) ? 0 : Int.random(in: 0...2, using: &random))
            guard start < pointCount - 1 else { break }
            let end = Int.random(in: (start + 1)...min(start + 6, pointCount - 1), using: &random)
            let speed = TrafficSpeed.allCases.randomElement(using: &random) ?? .normal
            // Constructed from values that satisfy 0 <= start < end, so this cannot throw.
            if let interval = try? TrafficInterval(startIndex: start, endIndex: end, speed: speed) {
                result.append(interval)
            }
            cursor = end
        }
        return result
    }

    /// Sorted, non-overlapping stretches inside `0...limit` metres, each at least `minimumLength`
    /// long and separated by gaps of at least `minimumGap`.
    mutating func stretches(upTo limit: Int, minimumLength: Int = 1, minimumGap: Int = 1) -> [RoadStretch] {
        var result: [RoadStretch] = []
        var cursor = Int.random(in: 0...max(0, minimumGap), using: &random)
        while true {
            let length = minimumLength + Int.random(in: 0...(2 * minimumLength + 300), using: &random)
            guard cursor + length <= limit else { break }
            let style: RoadStretch.Style = Bool.random(using: &random) ? .slowerTraffic : .trafficJam
            if let stretch = try? RoadStretch(style: style, offsetMeters: cursor, lengthMeters: length) {
                result.append(stretch)
            }
            cursor += length + minimumGap + Int.random(in: 0...200, using: &random)
        }
        return result
    }
}
