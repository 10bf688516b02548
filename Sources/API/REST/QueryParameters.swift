import Foundation
import JSON

/// A request's query parameters, read strictly: every name must be one the operation knows.
///
/// Always allowed and ignored: `header.*` (the RequestHeader, optional in Fleet Engine), and
/// the system parameters `$alt`, `alt`, `$.xgafv`, `key`, `prettyPrint`.
struct QueryParameters {
    let pairs: [(name: String, value: String)]
    private var read: Set<String> = []

    init(_ pairs: [(name: String, value: String)]) { self.pairs = pairs }

    static let system: Set<String> = ["$alt", "alt", "$.xgafv", "key", "prettyPrint", "$prettyPrint"]

    /// Whether the caller asked for enums as numbers (`$alt=json;enum-encoding=int`).
    var numericEnums: Bool {
        pairs.contains { ($0.name == "$alt" || $0.name == "alt") && $0.value.replacingOccurrences(of: " ", with: "").contains("enum-encoding=int") }
    }

    /// Every value of `name` (lowerCamel, or its snake_case form).
    mutating func values(_ name: String) -> [String] {
        read.insert(name)
        guard !pairs.isEmpty else { return [] }
        let snake = ProtoObject.snakeCase(name)
        read.insert(snake)
        return pairs.filter { $0.name == name || $0.name == snake }.map(\.value)
    }

    /// The single value of `name`; INVALID_ARGUMENT when it is given more than once.
    mutating func value(_ name: String) throws(APIError) -> String? {
        let all = values(name)
        guard all.count <= 1 else { throw .invalidArgument("query parameter \(name) is given \(all.count) times") }
        return all.first
    }

    /// A query value as the JSON a body would carry: numbers and booleans as such, the rest as strings.
    static func json(_ text: String) -> JSONValue {
        if let number = JSONNumber(lexeme: text) { return .number(number) }
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        return .string(text)
    }

    func finish() throws(APIError) {
        for pair in pairs where !read.contains(pair.name) && !Self.system.contains(pair.name) && !pair.name.hasPrefix("header.") {
            throw .invalidArgument("unknown query parameter \(pair.name.debugDescription)")
        }
    }
}
