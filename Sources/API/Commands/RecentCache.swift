import ReadModels

/// A map of at most `capacity` entries that evicts the least recently used ones.
///
/// Eviction is done in bulk: when an insert finds the map full, the oldest eighth (by last use) is
/// dropped in one pass, so the cost is O(n log n) per n/8 inserts and reads only bump a counter.
///
/// Each entry lives in a slot on the heap and the dictionary holds a pointer to it. A `Dictionary`
/// keeps its values inline in a table of a power-of-two capacity at most three quarters full; with
/// 50,000 cached `Vehicle.State`s (several hundred bytes each) that table had 131,072 slots, most
/// of its bytes empty. A slot's value is never changed in place (`modify` stores a new slot), so a
/// copy of the cache never sees the other's values; only the use counter is shared between copies,
/// which changes nothing but eviction order.
struct RecentCache<Value> {
    private final class Slot {
        let value: Value
        var used: UInt64

        init(_ value: Value, used: UInt64) {
            self.value = value
            self.used = used
        }
    }

    private var entries: [String: Slot] = [:]
    private var clock: UInt64 = 0
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0, "a cache holds at least one entry")
        self.capacity = capacity
    }

    var count: Int { entries.count }

    /// The value for `key`, marked as just used.
    mutating func get(_ key: String) -> Value? {
        guard let slot = entries[key] else { return nil }
        clock += 1
        slot.used = clock
        return slot.value
    }

    /// The value for `key` without marking it used.
    func peek(_ key: String) -> Value? { entries[key]?.value }

    /// Stores `value` for `key` as just used, evicting the least recently used entries when full.
    mutating func set(_ key: String, _ value: Value) {
        set(key, value) { _ in false }
    }

    /// Stores `value` for `key` as just used unless the value already there is to be kept
    /// (`keeps(old)`); one look-up of `key` when the map is not full and the new value goes in.
    mutating func set(_ key: String, _ value: Value, unlessKept keeps: (Value) -> Bool) {
        clock += 1
        if entries.count >= capacity, entries[key] == nil { evict() }
        if let old = entries.updateValue(Slot(value, used: clock), forKey: key), keeps(old.value) {
            entries[key] = old
        }
    }

    /// Changes the value for `key`, if present (not a use).
    mutating func modify(_ key: String, _ change: (inout Value) -> Void) {
        guard let slot = entries[key] else { return }
        var value = slot.value
        change(&value)
        entries[key] = Slot(value, used: slot.used)
    }

    private mutating func evict() {
        let drop = max(1, capacity / 8)
        for key in LeastRecent.oldest(drop, of: entries.map { (key: $0.key, stamp: $0.value.used) }) { entries[key] = nil }
    }
}

extension WaymarkAPI {
    /// Trip and Vehicle states the command side caches per kind unless told otherwise.
    package static let defaultAggregateCache = AggregateRepository.defaultCapacity
}
