/// An error from the event store.
///
/// Messages state the rule, then the values: "expected version 4 does not match stream version 6
/// (stream trip:acme/t-1)". They never contain event payloads.
package struct EventStoreError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let name: String
        package var description: String { name }

        /// The stream's version is not the expected one (Fleet Engine: ABORTED, HTTP 409).
        package static let wrongExpectedVersion = Code(name: "wrongExpectedVersion")
        /// An event id is already stored with another payload or in another stream.
        package static let duplicateEventId = Code(name: "duplicateEventId")
        /// A stream id, event type or event list is not acceptable.
        package static let invalidEvent = Code(name: "invalidEvent")
        /// The database could not be reached or failed; the outcome of the append is unknown and
        /// retrying with the same event ids is safe.
        package static let unavailable = Code(name: "unavailable")
        /// The database answered in a way the store did not expect.
        package static let storage = Code(name: "storage")
    }

    package let code: Code
    package let message: String
    package let underlying: (any Error)?
    package let file: String
    package let line: Int

    package init(_ code: Code, _ message: String, underlying: (any Error)? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.file = file
        self.line = line
    }

    /// True when the same request may succeed later (the database was unreachable or restarting).
    package var isRetriable: Bool { code == .unavailable }

    package var description: String { "\(code): \(message)" }

    static func wrongExpectedVersion(expected: ExpectedVersion, actual: Int64, stream: String) -> EventStoreError {
        let found = actual == 0 ? "the stream does not exist" : "stream version \(actual)"
        return EventStoreError(.wrongExpectedVersion, "expected \(expected) does not match \(found) (stream \(stream))")
    }

    /// Wraps a lower-level error: retriable PostgreSQL failures become `unavailable`, the rest `storage`.
    static func wrapping(_ error: any Error, _ what: String) -> EventStoreError {
        if let error = error as? EventStoreError { return error }
        if let error = error as? PostgresError, error.isRetriable {
            return EventStoreError(.unavailable, "\(what): database unavailable (\(error.code))", underlying: error)
        }
        return EventStoreError(.storage, "\(what) failed", underlying: error)
    }
}

import Postgres
