/// A whole-number setting of `waymark`: the value of `name` in `environment`, `fallback` when it
/// is unset.
///
/// Anything else, or a number outside `range`, is refused with the message every such setting
/// gives: `NAME must be a whole number [of UNIT] from LOW to HIGH, got "TEXT"`.
package func wholeSetting(_ environment: [String: String], _ name: String, _ range: ClosedRange<Int>, default fallback: Int,
                  of unit: String? = nil) throws -> Int {
    guard let text = environment[name] else { return fallback }
    guard let number = Int(text), range.contains(number) else {
        let kind = unit.map { "a whole number of \($0)" } ?? "a whole number"
        throw UsageError("\(name) must be \(kind) from \(range.lowerBound) to \(range.upperBound), got \(text.debugDescription)")
    }
    return number
}
