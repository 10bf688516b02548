extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil` is `null`.
    package init(nilLiteral: ()) {
        self = .null
    }

    /// A Boolean literal.
    package init(booleanLiteral value: Bool) {
        self = .bool(value)
    }

    /// An integer literal, as its exact decimal text.
    package init(integerLiteral value: Int64) {
        self = .number(JSONNumber(value))
    }

    /// A float literal, as the shortest text that reads back as the same `Double`.
    package init(floatLiteral value: Double) {
        self = .number(JSONNumber(floatLiteral: value))
    }

    /// A string literal.
    package init(stringLiteral value: String) {
        self = .string(value)
    }

    /// An array literal.
    package init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }

    /// An object literal, in written order.
    ///
    /// - Precondition: no key appears twice.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
