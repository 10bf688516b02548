/// The eviction order of the in-memory maps that keep a bounded number of entries: a projection's
/// records (`RecordMap`), the fleet mirror's documents, the arrival detector's vehicle states and
/// the command side's aggregate cache. Each stamps an entry with a counter when it is written or
/// used; the smallest stamps go first, several at a time, so the O(n log n) pass is paid once per
/// many inserts.
package enum LeastRecent {
    /// Whether a map of `count` entries that keeps `limit` must shrink now: once it is an eighth
    /// past its limit.
    package static func mustShrink(_ count: Int, keeping limit: Int) -> Bool {
        count > limit + limit / 8
    }

    /// The keys of the `count` entries with the smallest stamps (equal stamps in any order).
    package static func oldest(_ count: Int, of entries: [(key: String, stamp: UInt64)]) -> [String] {
        guard count > 0 else { return [] }
        return entries.sorted { $0.stamp < $1.stamp }.prefix(count).map(\.key)
    }
}
