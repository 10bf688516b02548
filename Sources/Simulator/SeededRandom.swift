/// A seedable random number generator (SplitMix64), so a seed replays exactly: the simulator's
/// workloads and every randomized test draw from it.
///
/// Owned by the simulator rather than borrowed from the system generator: the same seed must
/// give the same workload on every platform and Swift version, which `SystemRandomNumberGenerator`
/// and the standard library's `random(in:using:)` algorithms do not promise. So every draw goes
/// through the helpers here, which use only `next()` and integer arithmetic.
package struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound` (`bound` ≥ 1), by Lemire's multiply-shift.
    package mutating func below(_ bound: Int) -> Int {
        precondition(bound >= 1, "below(_:) needs a bound of at least 1 (got \(bound))")
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A uniform integer in `range`.
    package mutating func between(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// A uniform double in `0..<1` (53 random bits).
    package mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// A uniform double in `range`.
    package mutating func between(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// True with probability `percent`/100.
    package mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// One element of a non-empty array.
    package mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
