import Foundation
import HTTP
import Synchronization

/// A handler made of a closure.
struct ClosureHandler: HTTPHandler {
    let body: @Sendable (HTTPRequest) async -> HTTPResponse

    init(_ body: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        self.body = body
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        await body(request)
    }
}

/// Collects values from any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func record(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    var all: [Value] { values.withLock { $0 } }
    var count: Int { values.withLock { $0.count } }
}

/// Runs blocking work (socket reads) on a thread of its own, never on the cooperative pool: the
/// pool has as many threads as cores, and the handlers under test need it.
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do {
                continuation.resume(returning: try work())
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.start()
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(20), _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Starts a server on 127.0.0.1 with an OS-chosen port, runs `body`, then shuts it down.
func withServer(
    _ configure: (inout HTTPServer.Configuration) -> Void = { _ in },
    observer: (@Sendable (HTTPExchange) -> Void)? = nil,
    handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse,
    _ body: (HTTPServer) async throws -> Void
) async throws {
    var configuration = HTTPServer.Configuration(port: 0)
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, handler: ClosureHandler(handler), observer: observer)
    try server.start()
    do {
        try await body(server)
    } catch {
        await server.shutdown(grace: .zero)
        throw error
    }
    await server.shutdown(grace: .seconds(1))
}

/// True when `value` is a server-generated request id (32 lowercase hex digits).
func isGeneratedRequestId(_ value: String?) -> Bool {
    guard let value, value.utf8.count == 32 else { return false }
    return value.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
}

/// A counter shared with closures that run on other threads.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    func increment() {
        value.add(1, ordering: .relaxed)
    }

    var count: Int { value.load(ordering: .relaxed) }
}
