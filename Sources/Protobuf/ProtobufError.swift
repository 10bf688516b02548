/// A protobuf message that could not be read or written, with the field path where it failed.
package struct ProtobufError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure.
    package enum Code: Hashable, Sendable {
        /// The bytes are not a well-formed protobuf message (truncated, bad wire type, bad UTF-8).
        case malformed
        /// A JSON value that does not fit the field's type (server-side encoding).
        case typeMismatch
    }

    package var code: Code
    /// What was wrong and where (a field path such as `trip.pickup_point.point`).
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    static func malformed(_ message: String) -> ProtobufError { ProtobufError(.malformed, message) }
}
