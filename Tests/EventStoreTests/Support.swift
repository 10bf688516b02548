import EventStore
import Foundation
import JSON
import Simulator
import Synchronization

func event(_ type: String = "ThingHappened", _ data: JSONValue = ["n": 1], id: UUID = UUID()) -> EventData {
    EventData(id: id, type: type, data: data, metadata: ["source": "test"])
}

func makeStore(_ url: String, listen: Bool = false, committers: Int = 2) -> EventStore {
    EventStore(.init(conninfo: url, readPoolSize: 2, committers: committers, listen: listen))
}

/// A thread-safe bag of values for tests with concurrent writers.
final class Bag<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    func add(_ item: T) { items.withLock { $0.append(item) } }
    func add(contentsOf more: [T]) { items.withLock { $0.append(contentsOf: more) } }
    var all: [T] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

/// Polls `condition` every 10 ms for up to `seconds`.
func waitUntil(seconds: Double = 20, _ what: String = "condition", _ condition: @Sendable () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { throw StoreTestError("\(what) not met within \(seconds) s") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

struct StoreTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `store.append` as a `Result` (avoids a compiler crash on typed-throws `catch` patterns in Swift 6.3.1).
func appendResult(_ store: EventStore, _ events: [EventData], to stream: String, expectedVersion: ExpectedVersion) async -> Result<AppendResult, EventStoreError> {
    do {
        return .success(try await store.append(events, to: stream, expectedVersion: expectedVersion))
    } catch {
        return .failure(error)
    }
}

/// `store.readStream` as a `Result`, for the same reason.
func readStreamResult(_ store: EventStore, _ stream: String) async -> Result<[RecordedEvent], EventStoreError> {
    do {
        return .success(try await store.readStream(stream))
    } catch {
        return .failure(error)
    }
}
