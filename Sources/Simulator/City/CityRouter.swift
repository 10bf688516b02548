import Geo

/// Shortest paths through a `SyntheticCity` by travel time in today's traffic (Dijkstra).
///
/// The city has a few hundred intersections, so a plain array scan for the nearest open node is
/// as fast as a heap and easier to trust. One-way streets are respected: edges are directed.
package struct CityRouter: Sendable {
    package let city: SyntheticCity

    package init(city: SyntheticCity) { self.city = city }

    /// The edges of the fastest way from `start` to `goal`, in driving order; empty when they are
    /// the same intersection, nil when `goal` cannot be reached. `avoiding` edges are not used.
    package func route(from start: Int, to goal: Int, avoiding: Set<Int> = []) -> [Int]? {
        if start == goal { return [] }
        let count = city.nodes.count
        var best = [Double](repeating: .infinity, count: count)
        var via = [Int](repeating: -1, count: count)
        var done = [Bool](repeating: false, count: count)
        best[start] = 0
        while true {
            var current = -1
            var currentCost = Double.infinity
            for node in 0..<count where !done[node] && best[node] < currentCost {
                current = node
                currentCost = best[node]
            }
            guard current >= 0 else { return nil }
            if current == goal { break }
            done[current] = true
            for index in city.outgoing[current] where !avoiding.contains(index) {
                let edge = city.edges[index]
                let cost = currentCost + edge.seconds
                // Ties break on the lower edge index, so equal routes come out the same every time.
                if cost < best[edge.to] || (cost == best[edge.to] && via[edge.to] > index) {
                    best[edge.to] = cost
                    via[edge.to] = index
                }
            }
        }
        var edges: [Int] = []
        var node = goal
        while node != start {
            let index = via[node]
            edges.append(index)
            node = city.edges[index].from
        }
        return edges.reversed()
    }

    /// The points of a path of edges: the start of the first edge, then each edge's end.
    package func points(of edges: [Int], from start: Int) -> [LatLng] {
        [city.nodes[start]] + edges.map { city.nodes[city.edges[$0].to] }
    }
}
