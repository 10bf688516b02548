import Foundation

/// A small value-type logger: JSON lines when stderr is not a terminal, plain text when it is.
///
/// Passed in, never global. Metadata keys are dotted and declared in `LogKey`.
package struct Logger: Sendable {
    package enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        case debug, info, warning, error
        package static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        package var description: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    package let label: String
    package let minimum: Level
    package let json: Bool

    package init(label: String, minimum: Level = .info, json: Bool = isatty(STDERR_FILENO) == 0) {
        self.label = label
        self.minimum = minimum
        self.json = json
    }

    // Message and metadata are built only when the level is on (access logs run per request).
    package func debug(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        if .debug >= minimum { log(.debug, message(), metadata()) }
    }
    package func info(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        if .info >= minimum { log(.info, message(), metadata()) }
    }
    package func warning(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        if .warning >= minimum { log(.warning, message(), metadata()) }
    }
    package func error(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        if .error >= minimum { log(.error, message(), metadata()) }
    }

    package func log(_ level: Level, _ message: String, _ metadata: [String: String]) {
        guard level >= minimum else { return }
        let line: String
        if json {
            var fields = ["\"time\":\(Self.quote(Self.timestamp()))", "\"level\":\"\(level)\"", "\"logger\":\(Self.quote(label))",
                          "\"message\":\(Self.quote(message))"]
            for key in metadata.keys.sorted() { fields.append("\(Self.quote(key)):\(Self.quote(metadata[key]!))") }
            line = "{" + fields.joined(separator: ",") + "}\n"
        } else {
            let extra = metadata.keys.sorted().map { "\($0)=\(metadata[$0]!)" }.joined(separator: " ")
            line = "\(level): \(message)\(extra.isEmpty ? "" : " [\(extra)]")\n"
        }
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func timestamp() -> String {
        ISO8601DateFormatter().string(from: Date())
    }

    private static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}

/// Metadata keys, declared once.
package enum LogKey {
    package static let databaseURL = "db.url"
    package static let dataDirectory = "db.data_dir"
    package static let feedPosition = "event.feed_position"
    package static let applied = "schema.applied"
    package static let requestId = "http.request.id"
    package static let durationMs = "http.duration_ms"
}

/// Writes a line to stdout (for values scripts read, such as `db url`).
package func printOut(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
