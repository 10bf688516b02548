import Foundation
import Geo
import JSON

/// A small city generated from a seed: a street grid, two diagonal avenues, one-way streets and
/// varied speeds, so routes through it have turns, maneuvers and traffic.
///
/// Pure and deterministic: the same seed gives the same city on every machine, so the demo page
/// (which draws the streets) and the simulator (which drives them) agree without sharing state.
/// Intersections are numbered row by row; `node(row:column:)` names one.
package struct SyntheticCity: Sendable {
    /// One directed street piece between two neighbouring intersections.
    package struct Edge: Sendable, Hashable {
        package var from: Int
        package var to: Int
        package var street: String
        package var lengthMeters: Double
        /// Free-flow speed.
        package var metersPerSecond: Double
        /// How much slower than free flow traffic makes it (1 = free, 2 = half speed).
        package var congestion: Double

        /// Seconds to drive it without traffic.
        package var staticSeconds: Double { lengthMeters / metersPerSecond }
        /// Seconds to drive it in today's traffic.
        package var seconds: Double { staticSeconds * congestion }
        /// The traffic reading the routing API would give for it.
        package var speedReading: String { congestion >= 2.2 ? "TRAFFIC_JAM" : congestion >= 1.4 ? "SLOW" : "NORMAL" }
    }

    package let seed: UInt64
    package let rows: Int
    package let columns: Int
    package let nodes: [LatLng]
    package let edges: [Edge]
    /// Outgoing edge indexes per node.
    package let outgoing: [[Int]]

    /// The city's centre (Berlin Mitte; any place works, nothing is fetched).
    package static let center = LatLng(uncheckedLatitude: 52.52, longitude: 13.405)
    private static let streetNames = ["Oak", "Elm", "Linden", "Birch", "Maple", "Chestnut", "Willow", "Cedar", "Ash", "Poplar",
                                      "Rowan", "Alder", "Hazel", "Juniper", "Larch", "Spruce"]
    private static let avenueNames = ["Harbour", "Castle", "River", "Market", "Station", "Garden", "Mill", "Bridge", "Church", "Hill",
                                      "Park", "Forest", "Lake", "Meadow", "Tower", "Orchard"]

    /// Generates the city of `seed`: `rows` × `columns` intersections about `blockMeters` apart.
    package init(seed: UInt64, rows: Int = 12, columns: Int = 14, blockMeters: Double = 160) {
        precondition(rows >= 3 && columns >= 3, "a city needs at least 3 × 3 intersections")
        self.seed = seed
        self.rows = rows
        self.columns = columns
        var random = SeededRandom(seed: seed ^ 0xC17_5EED)
        // Intersections: a grid with a little jitter, centred on `center`.
        let metersPerDegreeLatitude = 111_320.0
        let metersPerDegreeLongitude = 111_320.0 * cos(Self.center.latitude * .pi / 180)
        var nodes: [LatLng] = []
        for row in 0..<rows {
            for column in 0..<columns {
                let north = (Double(row) - Double(rows - 1) / 2) * blockMeters + random.between(-12.0...12.0)
                let east = (Double(column) - Double(columns - 1) / 2) * blockMeters + random.between(-12.0...12.0)
                nodes.append(LatLng(uncheckedLatitude: Self.center.latitude + north / metersPerDegreeLatitude,
                                    longitude: Self.center.longitude + east / metersPerDegreeLongitude))
            }
        }
        self.nodes = nodes
        var edges: [Edge] = []
        func add(_ a: Int, _ b: Int, street: String, speedKmh: Double, oneWay: Bool, random: inout SeededRandom) {
            let length = Distance.meters(nodes[a], nodes[b])
            let speed = speedKmh / 3.6 * random.between(0.85...1.1)
            let roll = random.unit()
            let congestion = roll < 0.08 ? random.between(2.3...3.5) : roll < 0.25 ? random.between(1.4...2.1) : random.between(1.0...1.2)
            edges.append(Edge(from: a, to: b, street: street, lengthMeters: length, metersPerSecond: speed, congestion: congestion))
            if !oneWay {
                let back = random.unit()
                let backCongestion = back < 0.08 ? random.between(2.3...3.5) : back < 0.25 ? random.between(1.4...2.1) : random.between(1.0...1.2)
                edges.append(Edge(from: b, to: a, street: street, lengthMeters: length, metersPerSecond: speed, congestion: backCongestion))
            }
        }
        // East-west streets: every fourth is a faster boulevard; some side streets are one-way,
        // alternating direction. The outer ring stays two-way so every corner stays reachable.
        for row in 0..<rows {
            let main = row % 4 == 0
            let oneWay = !main && row != 0 && row != rows - 1 && random.chance(45)
            let eastbound = row % 2 == 0
            let name = "\(Self.streetNames[row % Self.streetNames.count]) Street"
            for column in 0..<(columns - 1) {
                let a = row * columns + column, b = a + 1
                add(eastbound || !oneWay ? a : b, eastbound || !oneWay ? b : a, street: name, speedKmh: main ? 50 : 30, oneWay: oneWay, random: &random)
            }
        }
        for column in 0..<columns {
            let main = column % 4 == 0
            let oneWay = !main && column != 0 && column != columns - 1 && random.chance(45)
            let northbound = column % 2 == 0
            let name = "\(Self.avenueNames[column % Self.avenueNames.count]) Road"
            for row in 0..<(rows - 1) {
                let a = row * columns + column, b = a + columns
                add(northbound || !oneWay ? a : b, northbound || !oneWay ? b : a, street: name, speedKmh: main ? 50 : 30, oneWay: oneWay, random: &random)
            }
        }
        // Two diagonal avenues across the grid, fast and two-way.
        let steps = min(rows, columns) - 1
        let startColumn = random.below(max(1, columns - steps))
        for step in 0..<steps {
            let a = step * columns + startColumn + step, b = (step + 1) * columns + startColumn + step + 1
            add(a, b, street: "Grand Diagonal", speedKmh: 60, oneWay: false, random: &random)
        }
        let otherStart = columns - 1 - random.below(max(1, columns - steps))
        for step in 0..<steps {
            let a = step * columns + otherStart - step, b = (step + 1) * columns + otherStart - step - 1
            add(a, b, street: "Crown Avenue", speedKmh: 60, oneWay: false, random: &random)
        }
        self.edges = edges
        var outgoing = [[Int]](repeating: [], count: nodes.count)
        for (index, edge) in edges.enumerated() { outgoing[edge.from].append(index) }
        self.outgoing = outgoing
    }

    /// The intersection at `row`, `column`.
    package func node(row: Int, column: Int) -> Int { row * columns + column }

    /// The streets as the demo page draws them: `{"seed", "nodes": [[lat, lng], ...], "streets":
    /// [[from, to, oneWay, kind], ...]}` where kind is 0 side street, 1 main street, 2 avenue.
    package var json: JSONValue {
        func number(_ value: Double) -> JSONValue { .number(JSONNumber((value * 1e6).rounded() / 1e6) ?? JSONNumber(0)) }
        let points: [JSONValue] = nodes.map { .array([number($0.latitude), number($0.longitude)]) }
        var seen = Set<[Int]>()
        var streets: [JSONValue] = []
        let pairs = Set(edges.map { [$0.from, $0.to] })
        for edge in edges {
            let key = [min(edge.from, edge.to), max(edge.from, edge.to)]
            guard seen.insert(key).inserted else { continue }
            let oneWay = !pairs.contains([edge.to, edge.from])
            let kind = edge.metersPerSecond > 15 ? 2 : edge.metersPerSecond > 11 ? 1 : 0
            streets.append(.array([.number(JSONNumber(edge.from)), .number(JSONNumber(edge.to)), .bool(oneWay), .number(JSONNumber(kind))]))
        }
        return .object(JSONObject([("seed", .string(String(seed))), ("nodes", .array(points)), ("streets", .array(streets))]))
    }
}
