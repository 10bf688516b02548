import EventStore
import Journey

/// The one error type of the API: what the caller did wrong (or what failed), in Fleet Engine's terms.
///
/// `Code` is the canonical status; the table in `Code.httpStatus`/`statusName` is the only place
/// that maps codes to HTTP statuses and gRPC status names (REST errors render
/// `{"error":{"code","message","status"}}`, the gRPC front door uses the same names).
package struct APIError: Error, CustomStringConvertible, Sendable {
    /// Canonical status of the failure.
    package enum Code: Hashable, Sendable, CaseIterable {
        case invalidArgument
        case failedPrecondition
        case unauthenticated
        case permissionDenied
        case notFound
        case alreadyExists
        case aborted
        case resourceExhausted
        case unimplemented
        case `internal`
        case unavailable
        case deadlineExceeded
        /// A body larger than the server accepts (HTTP 413, status INVALID_ARGUMENT).
        case payloadTooLarge
        /// A body that is not `application/json` (HTTP 415, status INVALID_ARGUMENT).
        case unsupportedMediaType
        /// A known path with another method (HTTP 405, status UNIMPLEMENTED).
        case methodNotAllowed

        /// The gRPC status name, also `error.status` in REST bodies.
        package var statusName: String {
            switch self {
            case .invalidArgument, .payloadTooLarge, .unsupportedMediaType: "INVALID_ARGUMENT"
            case .failedPrecondition: "FAILED_PRECONDITION"
            case .unauthenticated: "UNAUTHENTICATED"
            case .permissionDenied: "PERMISSION_DENIED"
            case .notFound: "NOT_FOUND"
            case .alreadyExists: "ALREADY_EXISTS"
            case .aborted: "ABORTED"
            case .resourceExhausted: "RESOURCE_EXHAUSTED"
            case .unimplemented, .methodNotAllowed: "UNIMPLEMENTED"
            case .internal: "INTERNAL"
            case .unavailable: "UNAVAILABLE"
            case .deadlineExceeded: "DEADLINE_EXCEEDED"
            }
        }

        /// The HTTP status of a REST response with this error.
        package var httpStatus: Int {
            switch self {
            case .invalidArgument, .failedPrecondition: 400
            case .unauthenticated: 401
            case .permissionDenied: 403
            case .notFound: 404
            case .methodNotAllowed: 405
            case .alreadyExists, .aborted: 409
            case .payloadTooLarge: 413
            case .unsupportedMediaType: 415
            case .resourceExhausted: 429
            case .internal: 500
            case .unimplemented: 501
            case .unavailable: 503
            case .deadlineExceeded: 504
            }
        }

        /// The gRPC status number.
        package var grpcCode: Int {
            switch self {
            case .invalidArgument, .payloadTooLarge, .unsupportedMediaType: 3
            case .deadlineExceeded: 4
            case .notFound: 5
            case .alreadyExists: 6
            case .permissionDenied: 7
            case .resourceExhausted: 8
            case .failedPrecondition: 9
            case .aborted: 10
            case .unimplemented, .methodNotAllowed: 12
            case .internal: 13
            case .unavailable: 14
            case .unauthenticated: 16
            }
        }
    }

    package var code: Code
    /// What was wrong and where; safe to show to the caller (no tokens, no SQL).
    package var message: String
    /// A finer reason (e.g. `TRAVEL_MODE_UNSUPPORTED`), when there is one.
    package var reason: String?
    package var underlying: (any Error)?
    package var file: String
    package var line: Int

    package init(_ code: Code, _ message: String, reason: String? = nil, underlying: (any Error)? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.reason = reason
        self.underlying = underlying
        self.file = file
        self.line = line
    }

    package var description: String { "\(code.statusName): \(message)" }

    package static func invalidArgument(_ message: String, file: String = #fileID, line: Int = #line) -> APIError {
        APIError(.invalidArgument, message, file: file, line: line)
    }

    package static func notFound(_ message: String, file: String = #fileID, line: Int = #line) -> APIError {
        APIError(.notFound, message, file: file, line: line)
    }

    package static func permissionDenied(_ message: String, file: String = #fileID, line: Int = #line) -> APIError {
        APIError(.permissionDenied, message, file: file, line: line)
    }

    package static func unauthenticated(_ message: String, file: String = #fileID, line: Int = #line) -> APIError {
        APIError(.unauthenticated, message, file: file, line: line)
    }

    /// The domain's rejection, same code family.
    package init(_ error: JourneyError) {
        let code: Code = switch error.code {
        case .invalidArgument, .travelModeUnsupported: .invalidArgument
        case .failedPrecondition: .failedPrecondition
        case .notFound: .notFound
        case .alreadyExists: .alreadyExists
        case .aborted: .aborted
        }
        self.init(code, error.message, reason: error.code.reason, underlying: error, file: error.file, line: error.line)
    }

    /// A storage failure: unavailable when retrying may help, internal otherwise.
    package init(_ error: EventStoreError, doing what: String) {
        switch error.code {
        case .unavailable:
            self.init(.unavailable, "the database is unavailable (\(what)); retry", underlying: error)
        case .wrongExpectedVersion:
            self.init(.aborted, "a concurrent change won the race (\(what)); retry", underlying: error)
        default:
            self.init(.internal, "storage failed (\(what))", underlying: error)
        }
    }
}
