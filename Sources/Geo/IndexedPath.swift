/// A path prepared for snapping many positions onto it: a tree of bounding caps over its segments.
///
/// `snap` returns exactly what `Path.snap` returns, bit for bit: it evaluates segments with the
/// same code, only in another order, and skips a run of segments only when a conservative lower
/// bound on their distance exceeds the best candidate found. Near the route that leaves a few
/// dozen segments per query, whatever the path's length. Immutable; `PathCache` shares them.
package struct IndexedPath: Sendable {
    /// One run of segments `firstSegment..<endSegment` and a cap holding all their points.
    struct Node: Sendable {
        var firstSegment: Int
        var endSegment: Int
        var center: LatLng
        /// Metres from `center` that no point on the run's segments exceeds.
        var radius: Double
        /// Children, or -1 for a leaf.
        var left = -1
        var right = -1
    }

    /// Segments per leaf: each leaf is scanned whole.
    static let leafSegments = 16

    /// The path itself, with its points and cumulative distances.
    package let path: Path
    /// The cap tree, root first; empty for fewer than two points.
    let nodes: [Node]

    /// Indexes `path` in O(n): one distance per node above the leaves, none per vertex.
    package init(_ path: Path) {
        self.path = path
        var nodes: [Node] = []
        if path.points.count > 1 {
            nodes.reserveCapacity(2 * (path.points.count / Self.leafSegments + 1))
            Self.build(path, first: 0, end: path.points.count - 1, into: &nodes)
        }
        self.nodes = nodes
    }

    /// The nearest point on the path to `p`; see `Path.snap(_:notBefore:)`, whose result it is.
    package func snap(_ p: LatLng, notBefore distanceAlong: Double = 0) -> SnappedPoint? {
        search(p, notBefore: distanceAlong).snapped
    }

    /// A distance in metres that no snap of `p` onto this path can be below; +infinity for an empty path.
    package func lowerBound(to p: LatLng) -> Double {
        guard let root = nodes.first else {
            return path.points.first.map { Distance.meters(p, $0) } ?? .infinity
        }
        return Self.lowerBound(root, p)
    }

    /// `snap` and how many segments it evaluated (for tests of the bound on per-report work).
    package func search(_ p: LatLng, notBefore distanceAlong: Double) -> (snapped: SnappedPoint?, segmentsExamined: Int) {
        guard path.points.count > 1 else { return (path.snap(p, notBefore: distanceAlong), 0) }
        let cumulative = path.cumulativeDistances
        let bound = path.snapBound(distanceAlong)
        var best: Path.SnapCandidate?
        var examined = 0
        func scan(_ node: Node) {
            for index in node.firstSegment..<node.endSegment where cumulative[index + 1] >= bound {
                let candidate = path.snapCandidate(p, onSegment: index, bound: bound)
                examined += 1
                // The full scan keeps the earliest of equal distances; visiting out of order, compare indices too.
                if best.map({ candidate.off < $0.off || (candidate.off == $0.off && index < $0.index) }) ?? true {
                    best = candidate
                }
            }
        }
        // Nearest cap first: once the nearest left cannot beat the best, none can.
        var frontier = Frontier()
        frontier.push(0, Self.lowerBound(nodes[0], p))
        while let (index, lowerBound) = frontier.popNearest() {
            if let best, lowerBound > best.off { break }
            let node = nodes[index]
            if cumulative[node.endSegment] < bound { continue }
            if node.left < 0 {
                scan(node)
                continue
            }
            frontier.push(node.left, Self.lowerBound(nodes[node.left], p))
            frontier.push(node.right, Self.lowerBound(nodes[node.right], p))
        }
        return (path.snappedPoint(best, for: p, bound: bound), examined)
    }

    /// Nodes still to visit, as a binary min-heap on their lower bounds.
    private struct Frontier {
        private var heap: [(node: Int, lowerBound: Double)] = []

        mutating func push(_ node: Int, _ lowerBound: Double) {
            heap.append((node, lowerBound))
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child].lowerBound < heap[parent].lowerBound else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }

        mutating func popNearest() -> (node: Int, lowerBound: Double)? {
            guard !heap.isEmpty else { return nil }
            heap.swapAt(0, heap.count - 1)
            let nearest = heap.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].lowerBound < heap[smallest].lowerBound { smallest = left }
                if right < heap.count, heap[right].lowerBound < heap[smallest].lowerBound { smallest = right }
                guard smallest != parent else { return nearest }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
    }

    /// Metres below which no point of `node`'s segments lies from `p`, less a margin for rounding.
    ///
    /// Triangle inequality on the sphere. The margin (1 cm plus 1 ppm) covers the rounding of the
    /// haversine and of the interpolation: below a micrometre at city scale, about 0.1 m for
    /// points near antipodes, 20,000 km apart.
    private static func lowerBound(_ node: Node, _ p: LatLng) -> Double {
        let distance = Distance.meters(p, node.center)
        return distance - node.radius - (0.01 + 1e-6 * (distance + node.radius))
    }

    /// Appends the node for segments `first..<end` and its subtree; returns its index.
    ///
    /// A cap is centred on the run's middle vertex. No point of the run is farther from it than
    /// along the path, so the longer half of the run bounds the radius, at no cost; above the
    /// leaves, the children's caps (centre distance plus radius) may bound it more tightly.
    @discardableResult
    private static func build(_ path: Path, first: Int, end: Int, into nodes: inout [Node]) -> Int {
        let index = nodes.count
        let middle = (first + end) / 2
        let cumulative = path.cumulativeDistances
        // Each sum in `cumulative` rounds by at most an ulp of its total.
        let rounding = Double(end - first + 1) * cumulative[end].ulp
        var radius = max(cumulative[middle] - cumulative[first], cumulative[end] - cumulative[middle]) + rounding
        let center = path.points[middle]
        nodes.append(Node(firstSegment: first, endSegment: end, center: center, radius: radius))
        if end - first > leafSegments {
            let left = build(path, first: first, end: middle, into: &nodes)
            let right = build(path, first: middle, end: end, into: &nodes)
            radius = min(radius, max(
                Distance.meters(center, nodes[left].center) + nodes[left].radius,
                Distance.meters(center, nodes[right].center) + nodes[right].radius
            ))
            nodes[index].radius = radius
            nodes[index].left = left
            nodes[index].right = right
        }
        return index
    }
}
