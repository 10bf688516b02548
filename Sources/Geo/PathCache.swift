import Synchronization

/// A bounded, thread-safe memo of decoded and indexed polylines, keyed by their encoded text.
///
/// Location reports snap onto the same route segment over and over; decoding and indexing it
/// once keeps each report's work independent of the segment's length. The memo is pure (the same
/// text always gives the same path), so `decide` and the projections may use it. It holds at most
/// `maximumPaths` paths and `maximumPoints` points in all, dropping the least recently used.
package final class PathCache: Sendable {
    /// The process's cache: 1,024 paths (segments, plan legs and their steps), 250,000 points
    /// (about 8 MB with their text). On a miss, a report costs a little less than before it.
    package static let shared = PathCache(maximumPaths: 1_024, maximumPoints: 250_000)

    /// Most paths held at once.
    package let maximumPaths: Int
    /// Most points held at once, summed over the paths; a longer path is indexed but not kept.
    package let maximumPoints: Int
    private let state = Mutex(State())

    /// An empty cache with these bounds (each at least 1).
    package init(maximumPaths: Int, maximumPoints: Int) {
        self.maximumPaths = max(1, maximumPaths)
        self.maximumPoints = max(1, maximumPoints)
    }

    /// The indexed path of `encoded`, decoded at most once while it stays in the cache.
    ///
    /// Throws what `Polyline.decode` throws; failures are not cached.
    package func path(_ encoded: String, precision: Int = 5) throws(GeoError) -> IndexedPath {
        let key = Key(encoded: encoded, precision: precision)
        if let hit = state.withLock({ $0.use(key) }) { return hit }
        // Decoded outside the lock: a long path must not stall other threads' hits.
        let built = IndexedPath(Path(try Polyline.decode(encoded, precision: precision)))
        return state.withLock { $0.insert(built, for: key, maximumPaths: maximumPaths, maximumPoints: maximumPoints) }
    }

    /// Whether `encoded` is held now (without counting as a use).
    package func contains(_ encoded: String, precision: Int = 5) -> Bool {
        let key = Key(encoded: encoded, precision: precision)
        return state.withLock { $0.entries[key] != nil }
    }

    /// How many paths the cache holds now.
    package var count: Int { state.withLock { $0.entries.count } }

    /// How many points the cache holds now.
    package var pointCount: Int { state.withLock { $0.points } }

    /// An encoded polyline and its precision.
    ///
    /// The hash reads the length and at most 128 bytes (both ends and an even sample), so a
    /// look-up costs the same for 10 points as for 10,000; equality compares all bytes, and is
    /// immediate when both keys share one string's storage, as the read models' copies do.
    struct Key: Hashable, Sendable {
        let encoded: String
        let precision: Int

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.precision == rhs.precision && lhs.encoded.utf8.count == rhs.encoded.utf8.count && lhs.encoded == rhs.encoded
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(precision)
            let sampled: Void? = encoded.utf8.withContiguousStorageIfAvailable { Self.sample($0, into: &hasher) }
            if sampled == nil {
                Array(encoded.utf8).withUnsafeBufferPointer { Self.sample($0, into: &hasher) }
            }
        }

        private static func sample(_ bytes: UnsafeBufferPointer<UInt8>, into hasher: inout Hasher) {
            let count = bytes.count
            hasher.combine(count)
            guard count > 128 else {
                hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
                return
            }
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<32])))
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(count - 32)...])))
            for k in 1...64 {
                hasher.combine(bytes[32 + k * (count - 65) / 65])
            }
        }
    }

    /// A cached path and when it was last used.
    struct Entry {
        var path: IndexedPath
        var weight: Int
        var stamp: UInt64
    }

    /// The entries, their points in all, and a use counter that orders them.
    struct State {
        var entries: [Key: Entry] = [:]
        var points = 0
        var clock: UInt64 = 0

        /// The path under `key`, marked as just used.
        mutating func use(_ key: Key) -> IndexedPath? {
            guard let index = entries.index(forKey: key) else { return nil }
            clock += 1
            entries.values[index].stamp = clock
            return entries.values[index].path
        }

        /// Stores `path` under `key` (keeping one another thread stored first), evicting the least recently used.
        mutating func insert(_ path: IndexedPath, for key: Key, maximumPaths: Int, maximumPoints: Int) -> IndexedPath {
            if let existing = use(key) { return existing }
            let weight = max(1, path.path.points.count)
            guard weight <= maximumPoints else { return path }
            // A linear search per eviction: about a microsecond per thousand entries, only on a miss.
            while entries.count + 1 > maximumPaths || points + weight > maximumPoints,
                  let oldest = entries.min(by: { $0.value.stamp < $1.value.stamp }) {
                entries.removeValue(forKey: oldest.key)
                points -= oldest.value.weight
            }
            clock += 1
            entries[key] = Entry(path: path, weight: weight, stamp: clock)
            points += weight
            return path
        }
    }
}
