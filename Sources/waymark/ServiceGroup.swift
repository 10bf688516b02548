/// The parts of a process, started one after another and stopped in reverse by one shutdown path.
///
/// `run`'s body starts each part with `start(_:stop:)` once what it needs exists. When the body
/// returns (`serve`: a signal) or throws (a part failed to start), the parts started so far stop,
/// the last started first. A part whose start throws was not started and is not stopped. Each stop
/// is told why, so a listener can drain longer after a signal than after a failed start.
final class ServiceGroup {
    /// Why the group stops.
    enum Reason {
        /// The body returned: the process was asked to stop.
        case signal
        /// The body threw: a part could not start.
        case failedStart
    }

    private var stops: [(Reason) async -> Void] = []

    private init() {}

    /// Runs `body` with a new group; then stops what it started, in reverse, and returns or rethrows.
    static func run<Value>(_ body: (ServiceGroup) async throws -> Value) async throws -> Value {
        let group = ServiceGroup()
        let value: Value
        do {
            value = try await body(group)
        } catch {
            await group.stop(.failedStart)
            throw error
        }
        await group.stop(.signal)
        return value
    }

    /// Starts one part and keeps `stop` for the shutdown; returns what `start` made.
    @discardableResult
    func start<Part>(_ start: () async throws -> Part, stop: @escaping (Part, Reason) async -> Void) async rethrows -> Part {
        let part = try await start()
        stops.append { reason in await stop(part, reason) }
        return part
    }

    private func stop(_ reason: Reason) async {
        while let stop = stops.popLast() { await stop(reason) }
    }
}
