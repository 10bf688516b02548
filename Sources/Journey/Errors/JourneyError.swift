/// The one error type of the Journey domain.
///
/// Every rejection carries a `Code` that maps to Fleet Engine's canonical status name and HTTP
/// status (`statusName`, `httpStatus`), and a `message` that states the rule and then the field
/// and value that broke it. Tests assert the code; the API layer renders
/// `{"error":{"code","message","status"}}` from it.
///
/// `TRAVEL_MODE_UNSUPPORTED` is its own `Code` (`.travelModeUnsupported`) so callers can tell it
/// apart, but it maps to `INVALID_ARGUMENT` / 400 on the wire and exposes the distinguishing
/// `reason` string `"TRAVEL_MODE_UNSUPPORTED"`.
package struct JourneyError: Error, CustomStringConvertible {
    /// What kind of failure this is.
    package enum Code: Hashable, Sendable, CaseIterable {
        /// A field is missing, malformed or out of range.
        case invalidArgument
        /// A route plan asks for a travel mode other than DRIVE or TWO_WHEELER.
        case travelModeUnsupported
        /// The command is well-formed but not allowed in the current state.
        case failedPrecondition
        /// The trip or vehicle does not exist.
        case notFound
        /// The trip or vehicle already exists.
        case alreadyExists
        /// A concurrency token (e.g. `intermediateDestinationsVersion`) is stale.
        case aborted

        /// Fleet Engine's canonical status name (gRPC status / JSON `error.status`).
        package var statusName: String {
            switch self {
            case .invalidArgument, .travelModeUnsupported: "INVALID_ARGUMENT"
            case .failedPrecondition: "FAILED_PRECONDITION"
            case .notFound: "NOT_FOUND"
            case .alreadyExists: "ALREADY_EXISTS"
            case .aborted: "ABORTED"
            }
        }

        /// The HTTP status Fleet Engine answers with for this code.
        package var httpStatus: Int {
            switch self {
            case .invalidArgument, .travelModeUnsupported, .failedPrecondition: 400
            case .notFound: 404
            case .alreadyExists, .aborted: 409
            }
        }

        /// A finer-grained reason than `statusName`, when there is one.
        package var reason: String? {
            switch self {
            case .travelModeUnsupported: "TRAVEL_MODE_UNSUPPORTED"
            default: nil
            }
        }
    }

    /// What kind of failure this is.
    package var code: Code
    /// The rule that was broken, then the field and value.
    package var message: String
    /// The error this one wraps, if any (e.g. a JSON decoding error).
    package var underlying: (any Error)?
    /// Where the error was raised.
    package var file: String
    /// Where the error was raised.
    package var line: Int

    /// Creates an error; prefer the static factories.
    package init(code: Code, message: String, underlying: (any Error)? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.file = file
        self.line = line
    }

    package var description: String { "\(code.statusName): \(message)" }

    /// A field is missing, malformed or out of range.
    package static func invalidArgument(_ message: String, file: String = #fileID, line: Int = #line) -> JourneyError {
        JourneyError(code: .invalidArgument, message: message, file: file, line: line)
    }

    /// A route plan asks for an unsupported travel mode.
    package static func travelModeUnsupported(_ message: String, file: String = #fileID, line: Int = #line) -> JourneyError {
        JourneyError(code: .travelModeUnsupported, message: message, file: file, line: line)
    }

    /// The command is not allowed in the current state.
    package static func failedPrecondition(_ message: String, file: String = #fileID, line: Int = #line) -> JourneyError {
        JourneyError(code: .failedPrecondition, message: message, file: file, line: line)
    }

    /// The aggregate does not exist.
    package static func notFound(_ message: String, file: String = #fileID, line: Int = #line) -> JourneyError {
        JourneyError(code: .notFound, message: message, file: file, line: line)
    }

    /// The aggregate already exists.
    package static func alreadyExists(_ message: String, file: String = #fileID, line: Int = #line) -> JourneyError {
        JourneyError(code: .alreadyExists, message: message, file: file, line: line)
    }

    /// A concurrency token does not match.
    package static func aborted(_ message: String, file: String = #fileID, line: Int = #line) -> JourneyError {
        JourneyError(code: .aborted, message: message, file: file, line: line)
    }
}
