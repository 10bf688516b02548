extension JSONValue {
    /// The member `key` when this is an object that has it, else `nil`.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` when this is an array and the index is in bounds, else `nil`.
    package subscript(index: Int) -> JSONValue? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// Whether this is `null`.
    package var isNull: Bool {
        if case .null = self { true } else { false }
    }

    /// The Boolean when this is `true` or `false`, else `nil`.
    package var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The number when this is a number, else `nil`.
    package var numberValue: JSONNumber? {
        if case .number(let value) = self { value } else { nil }
    }

    /// The nearest `Double` when this is a number, else `nil`.
    package var doubleValue: Double? {
        numberValue?.doubleValue
    }

    /// The exact `Int64` when this is an integral number in range, else `nil`.
    package var int64Value: Int64? {
        numberValue?.int64Value
    }

    /// The string when this is a string, else `nil`.
    package var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The elements when this is an array, else `nil`.
    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The object when this is an object, else `nil`.
    package var objectValue: JSONObject? {
        if case .object(let value) = self { value } else { nil }
    }
}
