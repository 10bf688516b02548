import Geo
import Testing

@Suite struct PathCacheTests {
    /// Once with short paths (the path count binds), once with long ones (the point count binds).
    @Test func neverHoldsMorePathsOrPointsThanItsBounds() throws {
        var generator = RouteGenerator(seed: 0xCAC4_0001)
        for sizes in [1...20, 20...150] {
            let cache = PathCache(maximumPaths: 8, maximumPoints: 400)
            var most = (paths: 0, points: 0)
            for _ in 0..<300 {
                let encoded = Polyline.encode(generator.path(pointCount: sizes).points)
                _ = try cache.path(encoded)
                most = (max(most.paths, cache.count), max(most.points, cache.pointCount))
            }
            #expect(most.paths <= 8 && most.points <= 400, "\(sizes): \(most)")
            #expect(most.paths == 8 || most.points > 300, "\(sizes): the cache never filled (\(most))")
        }
    }

    @Test func returnsTheDecodedPathWhetherCachedOrNot() throws {
        let cache = PathCache(maximumPaths: 4, maximumPoints: 10_000)
        var generator = RouteGenerator(seed: 0xCAC4_0002)
        let encodings = (0..<10).map { _ in Polyline.encode(generator.path(pointCount: 1...300).points) }
        for round in 0..<60 {
            let encoded = encodings[(round * 7) % encodings.count]
            #expect(try cache.path(encoded).path.points == Polyline.decode(encoded))
        }
        #expect(try cache.path(encodings[0], precision: 6).path.points == Polyline.decode(encodings[0], precision: 6))
    }

    @Test func theLeastRecentlyUsedPathIsDroppedFirst() throws {
        let cache = PathCache(maximumPaths: 2, maximumPoints: 1_000)
        let a = Polyline.encode([.at(0, 0), .at(0, 0.01)])
        let b = Polyline.encode([.at(1, 0), .at(1, 0.01)])
        let c = Polyline.encode([.at(2, 0), .at(2, 0.01)])
        _ = try cache.path(a)
        _ = try cache.path(b)
        _ = try cache.path(a)
        _ = try cache.path(c)
        #expect(cache.contains(a) && cache.contains(c))
        #expect(!cache.contains(b))
    }

    @Test func aPathOverThePointBudgetIsIndexedButNotKept() throws {
        let cache = PathCache(maximumPaths: 4, maximumPoints: 50)
        let small = Polyline.encode(equatorPath(count: 20, spacing: 10).points)
        let large = Polyline.encode(equatorPath(count: 51, spacing: 10).points)
        _ = try cache.path(small)
        #expect(try cache.path(large).path.points.count == 51)
        #expect(cache.contains(small) && !cache.contains(large))
        #expect(cache.pointCount == 20)
    }

    @Test func malformedTextThrowsAndIsNotKept() {
        let cache = PathCache(maximumPaths: 4, maximumPoints: 100)
        #expect(throws: GeoError.self) { try cache.path("_p~iF~ps|U_") }
        #expect(cache.count == 0)
    }

    @Test(.timeLimit(.minutes(1))) func concurrentUseStaysWithinBoundsAndReturnsTheRightPaths() async throws {
        let cache = PathCache(maximumPaths: 6, maximumPoints: 600)
        var generator = RouteGenerator(seed: 0xCAC4_0003)
        let encodings = (0..<24).map { _ in Polyline.encode(generator.path(pointCount: 1...120).points) }
        let decoded = try encodings.map { try Polyline.decode($0) }
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<4 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<500 {
                        let i = (round * (task + 3) + task) % encodings.count
                        if (try? cache.path(encodings[i]).path.points) != decoded[i] { wrong += 1 }
                        if cache.count > 6 || cache.pointCount > 600 { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        #expect(cache.count <= 6 && cache.pointCount <= 600)
    }
}
