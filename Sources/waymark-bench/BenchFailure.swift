/// A benchmark whose outcome was wrong (lost rows, failed appends); exit status 1.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
