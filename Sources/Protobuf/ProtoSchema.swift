/// The shape of protobuf messages: field numbers, names and types, enough to transcode between the
/// binary wire format and proto3 JSON without generated code.
///
/// Message and enum names are the full proto names (`maps.fleetengine.v1.Trip`). The well-known
/// types `google.protobuf.Timestamp`, `Duration`, `FieldMask`, `Empty` and the wrappers
/// (`Int32Value`, `DoubleValue`, `BoolValue`, ...) are built in and need no entry.
package struct ProtoSchema: Sendable {
    /// A field's type.
    package indirect enum FieldType: Sendable, Hashable {
        case double, float, int32, int64, uint32, uint64, sint32, sint64, fixed32, fixed64, sfixed32, sfixed64, bool, string, bytes
        /// An enum, by full name.
        case enumeration(String)
        /// A message, by full name (a well-known type or one in `messages`).
        case message(String)
    }

    /// One field of a message.
    package struct Field: Sendable {
        package var number: Int
        /// The proto (snake_case) name.
        package var name: String
        /// The proto3 JSON (lowerCamel) name.
        package var jsonName: String
        package var type: FieldType
        package var repeated: Bool

        package init(_ number: Int, _ name: String, _ type: FieldType, repeated: Bool = false) {
            self.number = number
            self.name = name
            self.jsonName = Self.lowerCamel(name)
            self.type = type
            self.repeated = repeated
        }

        /// `trip_status` → `tripStatus`, as protoc derives JSON names.
        package static func lowerCamel(_ name: String) -> String {
            var out = ""
            var upper = false
            for character in name {
                if character == "_" {
                    upper = true
                } else if upper {
                    out += character.uppercased()
                    upper = false
                } else {
                    out.append(character)
                }
            }
            return out
        }

        /// Whether the values of this field may be packed (scalar numbers, bools, enums).
        var isPackable: Bool {
            switch type {
            case .string, .bytes, .message: false
            default: true
            }
        }
    }

    /// One message: its fields, looked up by number and by JSON name.
    package struct Message: Sendable {
        package var name: String
        package var fields: [Field]
        let byNumber: [Int: Int]
        let byJSONName: [String: Int]

        package init(_ name: String, _ fields: [Field]) {
            self.name = name
            self.fields = fields
            var byNumber: [Int: Int] = [:]
            var byJSONName: [String: Int] = [:]
            for (index, field) in fields.enumerated() {
                precondition(byNumber[field.number] == nil, "\(name): field number \(field.number) twice")
                byNumber[field.number] = index
                byJSONName[field.jsonName] = index
                byJSONName[field.name] = index
            }
            self.byNumber = byNumber
            self.byJSONName = byJSONName
        }

        package func field(number: Int) -> Field? { byNumber[number].map { fields[$0] } }
        package func field(jsonName: String) -> Field? { byJSONName[jsonName].map { fields[$0] } }
    }

    /// An enum's values by name and number.
    package struct Enumeration: Sendable {
        package var name: String
        let names: [Int: String]
        let numbers: [String: Int]

        package init(_ name: String, _ values: [(String, Int)]) {
            self.name = name
            var names: [Int: String] = [:]
            var numbers: [String: Int] = [:]
            for (valueName, number) in values {
                if names[number] == nil { names[number] = valueName }
                numbers[valueName] = number
            }
            self.names = names
            self.numbers = numbers
        }

        package func name(of number: Int) -> String? { names[number] }
        package func number(of name: String) -> Int? { numbers[name] }
    }

    package private(set) var messages: [String: Message] = [:]
    package private(set) var enums: [String: Enumeration] = [:]

    package init(messages: [Message], enums: [Enumeration]) {
        for message in messages { self.messages[message.name] = message }
        for enumeration in enums { self.enums[enumeration.name] = enumeration }
        for message in messages {
            for field in message.fields {
                switch field.type {
                case .message(let name):
                    precondition(self.messages[name] != nil || Self.wellKnown.contains(name), "\(message.name).\(field.name): unknown message \(name)")
                case .enumeration(let name):
                    precondition(self.enums[name] != nil, "\(message.name).\(field.name): unknown enum \(name)")
                default:
                    break
                }
            }
        }
    }

    /// The well-known types the transcoder handles itself.
    package static let wellKnown: Set<String> = [
        timestamp, duration, fieldMask, empty,
        "google.protobuf.Int32Value", "google.protobuf.Int64Value", "google.protobuf.UInt32Value", "google.protobuf.UInt64Value",
        "google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.BoolValue", "google.protobuf.StringValue",
        "google.protobuf.BytesValue",
    ]
    package static let timestamp = "google.protobuf.Timestamp"
    package static let duration = "google.protobuf.Duration"
    package static let fieldMask = "google.protobuf.FieldMask"
    package static let empty = "google.protobuf.Empty"

    /// The value type of a wrapper message (`google.protobuf.Int32Value` → `.int32`), or nil.
    static func wrapped(_ name: String) -> FieldType? {
        switch name {
        case "google.protobuf.Int32Value": .int32
        case "google.protobuf.Int64Value": .int64
        case "google.protobuf.UInt32Value": .uint32
        case "google.protobuf.UInt64Value": .uint64
        case "google.protobuf.DoubleValue": .double
        case "google.protobuf.FloatValue": .float
        case "google.protobuf.BoolValue": .bool
        case "google.protobuf.StringValue": .string
        case "google.protobuf.BytesValue": .bytes
        default: nil
        }
    }
}
