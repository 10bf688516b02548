import Testing
@testable import API

@Suite struct RecentCacheTests {
    @Test func aFullCacheEvictsTheLeastRecentlyUsedEntriesFirst() {
        var cache = RecentCache<Int>(capacity: 8)
        for index in 0..<8 { cache.set("k\(index)", index) }
        #expect(cache.count == 8)
        // k0 was written first but is read now: k1 becomes the least recently used.
        #expect(cache.get("k0") == 0)
        cache.set("k8", 8)
        #expect(cache.count == 8, "one eighth of 8 evicted, one added")
        #expect(cache.peek("k1") == nil)
        #expect(cache.peek("k0") == 0)
        #expect(cache.peek("k8") == 8)
    }

    @Test func theCacheNeverHoldsMoreThanItsCapacity() {
        var cache = RecentCache<Int>(capacity: 100)
        for index in 0..<1_000 {
            cache.set("k\(index)", index)
            #expect(cache.count <= 100)
        }
        // The latest entries are kept, the oldest are gone.
        #expect(cache.peek("k999") == 999)
        #expect(cache.peek("k0") == nil)
    }

    @Test func overwritingAKeyDoesNotEvictAndModifyLeavesAbsentKeysAbsent() {
        var cache = RecentCache<Int>(capacity: 2)
        cache.set("a", 1)
        cache.set("b", 2)
        cache.set("a", 3)
        #expect(cache.count == 2)
        #expect(cache.peek("a") == 3)
        #expect(cache.peek("b") == 2)
        cache.modify("a") { $0 += 1 }
        cache.modify("missing") { $0 += 1 }
        #expect(cache.peek("a") == 4)
        #expect(cache.peek("missing") == nil)
    }

    @Test func aCopyOfTheCacheKeepsItsOwnValues() {
        var cache = RecentCache<Int>(capacity: 4)
        cache.set("a", 1)
        var copy = cache
        copy.modify("a") { $0 = 10 }
        copy.set("b", 2)
        #expect(cache.peek("a") == 1)
        #expect(cache.peek("b") == nil)
        #expect(copy.peek("a") == 10)
        #expect(copy.peek("b") == 2)
    }
}
