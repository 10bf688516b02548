/// The one error type of the Geo module: an invalid coordinate, a malformed encoded
/// polyline, or traffic data that does not fit its path.
///
/// Callers and tests branch on `code`; `message` is for people and states the rule that
/// was broken, then the offending value ("latitude 91.0 is outside [-90, 90]"). A message
/// names only the value that broke a rule, never the other half of a coordinate pair, so a
/// valid rider position never ends up in a log line through this type.
package struct GeoError: Error, Sendable, CustomStringConvertible {
    /// What kind of rule was broken; compare against the static members.
    ///
    /// A struct rather than an enum so that new codes can be added without breaking
    /// exhaustive `switch`es in other modules.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The code's name, e.g. `invalidLatitude`.
        package var description: String { name }

        /// A latitude outside [-90, 90].
        package static let invalidLatitude = Code("invalidLatitude")
        /// A longitude outside [-180, 180].
        package static let invalidLongitude = Code("invalidLongitude")
        /// A NaN or infinite coordinate.
        package static let notFinite = Code("notFinite")
        /// An encoded polyline that is not a well-formed sequence of chunks.
        package static let malformedPolyline = Code("malformedPolyline")
        /// An encoded-polyline precision other than 5 or 6.
        package static let invalidPrecision = Code("invalidPrecision")
        /// A traffic interval with bad indices, out of range, out of order or overlapping.
        package static let invalidInterval = Code("invalidInterval")
        /// A road stretch with a negative offset, a non-positive length, or overlapping another.
        package static let invalidRoadStretch = Code("invalidRoadStretch")
    }

    /// What kind of rule was broken.
    package let code: Code
    /// The rule, then the offending value.
    package let message: String
    /// The source file that raised the error (`#fileID`).
    package let file: String
    /// The source line that raised the error.
    package let line: Int

    /// Creates an error; prefer the static factories, which word the message consistently.
    package init(code: Code, message: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    /// `GeoError.<code>: <message>`.
    package var description: String { "GeoError.\(code): \(message)" }
}

/// Factories used inside Geo, so every message is worded in one place per code and carries the call site.
extension GeoError {
    static func invalidLatitude(_ message: String, file: String = #fileID, line: Int = #line) -> GeoError {
        GeoError(code: .invalidLatitude, message: message, file: file, line: line)
    }

    static func invalidLongitude(_ message: String, file: String = #fileID, line: Int = #line) -> GeoError {
        GeoError(code: .invalidLongitude, message: message, file: file, line: line)
    }

    static func notFinite(_ message: String, file: String = #fileID, line: Int = #line) -> GeoError {
        GeoError(code: .notFinite, message: message, file: file, line: line)
    }

    static func malformedPolyline(_ message: String, file: String = #fileID, line: Int = #line) -> GeoError {
        GeoError(code: .malformedPolyline, message: message, file: file, line: line)
    }

    static func invalidPrecision(_ precision: Int, file: String = #fileID, line: Int = #line) -> GeoError {
        GeoError(
            code: .invalidPrecision,
            message: "polyline precision \(precision) is not supported (expected 5 or 6)",
            file: file,
            line: line
        )
    }

    static func invalidInterval(_ message: String, file: String = #fileID, line: Int = #line) -> GeoError {
        GeoError(code: .invalidInterval, message: message, file: file, line: line)
    }

    static func invalidRoadStretch(_ message: String, file: String = #fileID, line: Int = #line) -> GeoError {
        GeoError(code: .invalidRoadStretch, message: message, file: file, line: line)
    }
}
