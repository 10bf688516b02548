/// A key with a string, bool or number value: Fleet Engine's `VehicleAttribute` / `TripAttribute`.
///
/// JSON shape follows Fleet Engine: `{"key":"k","stringValue":"v"}` (or `boolValue` / `numberValue`).
/// Keys may not contain `:` and `"key:value"` is at most 256 characters.
package struct Attribute: Codable, Hashable, Sendable {
    /// The typed value of an attribute.
    package enum Value: Hashable, Sendable {
        case string(String)
        case bool(Bool)
        case number(Double)

        /// The value as text, as used for the 256-character limit.
        package var text: String {
            switch self {
            case .string(let s): s
            case .bool(let b): b ? "true" : "false"
            case .number(let n): String(n)
            }
        }
    }

    /// The attribute's key; unique within a list.
    package var key: String
    /// The attribute's value.
    package var value: Value

    package init(key: String, value: Value) {
        self.key = key
        self.value = value
    }

    /// The longest list accepted.
    package static let maximumCount = 100
    /// The longest `"key:value"` accepted, in characters.
    package static let maximumPairLength = 256

    private enum CodingKeys: String, CodingKey { case key, stringValue, boolValue, numberValue }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        key = try c.decode(String.self, forKey: .key)
        if let s = try c.decodeIfPresent(String.self, forKey: .stringValue) {
            value = .string(s)
        } else if let b = try c.decodeIfPresent(Bool.self, forKey: .boolValue) {
            value = .bool(b)
        } else if let n = try c.decodeIfPresent(Double.self, forKey: .numberValue) {
            value = .number(n)
        } else {
            throw DecodingError.dataCorruptedError(forKey: .stringValue, in: c, debugDescription: "attribute \(key) has no value")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(key, forKey: .key)
        switch value {
        case .string(let s): try c.encode(s, forKey: .stringValue)
        case .bool(let b): try c.encode(b, forKey: .boolValue)
        case .number(let n): try c.encode(n, forKey: .numberValue)
        }
    }

    /// Throws `INVALID_ARGUMENT` naming `field` unless the list has at most 100 attributes with
    /// unique, non-empty NFC keys free of `:` and `"key:value"` of at most 256 characters, and a
    /// `consumerId` string value in NFC.
    package static func validate(_ attributes: [Attribute], field: String) throws(JourneyError) {
        guard attributes.count <= maximumCount else {
            throw .invalidArgument("\(field) may hold at most \(maximumCount) attributes (got \(attributes.count))")
        }
        var seen: Set<String> = []
        for (i, attribute) in attributes.enumerated() {
            guard !attribute.key.isEmpty else { throw .invalidArgument("\(field)[\(i)].key is required (got an empty key)") }
            guard !attribute.key.contains(":") else {
                throw .invalidArgument("\(field)[\(i)].key must not contain ':' (got \"\(attribute.key)\")")
            }
            // Keys, and the consumerId that names a trip's rider, are looked up by Swift and by the database alike.
            try Identifier.requireNFC(attribute.key, field: "\(field)[\(i)].key")
            if attribute.key == "consumerId", case .string(let rider) = attribute.value {
                try Identifier.requireNFC(rider, field: "\(field)[\(i)].stringValue (the consumerId)")
            }
            if case .number(let n) = attribute.value, !n.isFinite {
                throw .invalidArgument("\(field)[\(i)].numberValue must be finite (got \(n))")
            }
            let length = attribute.key.count + 1 + attribute.value.text.count
            guard length <= maximumPairLength else {
                throw .invalidArgument("\(field)[\(i)] \"key:value\" must be at most \(maximumPairLength) characters (got \(length) for key \"\(attribute.key)\")")
            }
            guard seen.insert(attribute.key).inserted else {
                throw .invalidArgument("\(field) keys must be unique (got \"\(attribute.key)\" twice)")
            }
        }
    }
}
