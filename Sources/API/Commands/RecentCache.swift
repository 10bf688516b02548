/// A map of at most `capacity` entries that evicts the least recently used ones.
///
/// Eviction is done in bulk: when an insert finds the map full, the oldest eighth (by last use) is
/// dropped in one pass, so the cost is O(n log n) per n/8 inserts and reads only bump a counter.
struct RecentCache<Value> {
    private var entries: [String: (value: Value, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0, "a cache holds at least one entry")
        self.capacity = capacity
    }

    var count: Int { entries.count }

    /// The value for `key`, marked as just used.
    mutating func get(_ key: String) -> Value? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key]!.used = clock
        return entry.value
    }

    /// The value for `key` without marking it used.
    func peek(_ key: String) -> Value? { entries[key]?.value }

    /// Stores `value` for `key` as just used, evicting the least recently used entries when full.
    mutating func set(_ key: String, _ value: Value) {
        clock += 1
        if entries[key] == nil, entries.count >= capacity { evict() }
        entries[key] = (value, clock)
    }

    /// Changes the value for `key` in place, if present (not a use).
    mutating func modify(_ key: String, _ change: (inout Value) -> Void) {
        guard entries[key] != nil else { return }
        change(&entries[key]!.value)
    }

    private mutating func evict() {
        let drop = max(1, capacity / 8)
        let oldest = entries.map { ($0.key, $0.value.used) }.sorted { $0.1 < $1.1 }.prefix(drop)
        for (key, _) in oldest { entries[key] = nil }
    }
}

extension WaymarkAPI {
    /// Trip and Vehicle states the command side caches per kind unless told otherwise.
    package static let defaultAggregateCache = AggregateRepository.defaultCapacity
}
