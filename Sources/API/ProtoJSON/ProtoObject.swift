import JSON

/// A JSON object read field by field under proto3 JSON rules, strictly.
///
/// Each field is looked up by its lowerCamel JSON name or its original snake_case name (proto3
/// JSON parsers accept both; giving both is an error). `null` reads as absent. `finish()` rejects
/// every member that was not read, naming it: unknown fields are INVALID_ARGUMENT, never dropped.
struct ProtoObject {
    private let object: JSONObject
    /// Where this object sits in the request, e.g. `trip.pickupPoint`.
    let path: String
    /// Members (by their key as sent) that were read, each once: a handful per object, so a
    /// list costs less than a set's hashing on every field of every report.
    private var consumed: [String] = []
    /// Whether some key has an underscore: only then can a field be spelled in snake_case, so
    /// objects in lowerCamel (nearly all) skip that second look-up.
    private let hasSnakeKeys: Bool
    /// Names (lowerCamel) passed to `ignore`, as passed: looked at only when a member was not read,
    /// so the common request (every member known) never builds a set of them.
    private var ignored: [[String]] = []

    init(_ value: JSONValue, at path: String) throws(APIError) {
        guard case .object(let object) = value else {
            throw .invalidArgument("\(path) must be a JSON object (got \(ProtoValue.kind(value)))")
        }
        self.object = object
        self.path = path
        hasSnakeKeys = object.contains { key, _ in key.utf8.contains(UInt8(ascii: "_")) }
    }

    /// The path of a member of this object.
    func path(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }

    /// Reads field `name` (lowerCamel); nil when absent or null.
    mutating func take(_ name: String) throws(APIError) -> JSONValue? {
        // Once every member has been read, the remaining (usually many) optional fields are absent.
        guard consumed.count < object.count else { return nil }
        let camelValue = object[name]
        // The snake_case spelling differs only for names with capitals.
        let snake = hasSnakeKeys && name.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
            ? ProtoObject.snakeCase(name) : nil
        let snakeValue = snake.flatMap { object[$0] }
        if camelValue != nil, !consumed.contains(name) { consumed.append(name) }
        if let snake, snakeValue != nil, !consumed.contains(snake) { consumed.append(snake) }
        if camelValue != nil, snakeValue != nil {
            throw .invalidArgument("\(path(name)) is given twice (as \(name) and \(snake ?? name))")
        }
        switch camelValue ?? snakeValue {
        case .none, .null?: return nil
        case let value?: return value
        }
    }

    /// Whether field `name` is present (and not null), without reading it.
    func has(_ name: String) -> Bool {
        for key in [name, ProtoObject.snakeCase(name)] {
            if let value = object[key], !value.isNull { return true }
        }
        return false
    }

    /// Marks fields as known and deliberately ignored (e.g. output-only fields on create).
    mutating func ignore(_ names: [String]) {
        ignored.append(names)
    }

    /// Rejects the first member that was neither read nor ignored.
    func finish() throws(APIError) {
        guard consumed.count < object.count else { return }
        let ignored = Set(ignored.joined())
        let consumed = Set(consumed)
        for key in object.keys where !consumed.contains(key) && !ignored.contains(key) && !ignored.contains(ProtoObject.camelCase(key)) {
            throw .invalidArgument("unknown field \"\(key)\" in \(path.isEmpty ? "the request body" : path)")
        }
    }

    /// `pickupPoint` → `pickup_point` (ASCII letters only change; field names are ASCII).
    static func snakeCase(_ camel: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(camel.utf8.count + 4)
        for byte in camel.utf8 {
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
                bytes.append(UInt8(ascii: "_"))
                bytes.append(byte + 32)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `pickup_point` → `pickupPoint` (a name without underscores is returned as is).
    static func camelCase(_ snake: String) -> String {
        guard snake.utf8.contains(UInt8(ascii: "_")) else { return snake }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(snake.utf8.count)
        var upper = false
        for byte in snake.utf8 {
            if byte == UInt8(ascii: "_") {
                upper = true
            } else if upper, byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") {
                bytes.append(byte - 32)
                upper = false
            } else {
                bytes.append(byte)
                upper = false
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
