/// `waymark bench ...`: benchmarks measured side by side in one run.
enum BenchCommand {
    static func run(_ arguments: [String], environment: [String: String]) async throws {
        throw UsageError("bench is being written")
    }
}
