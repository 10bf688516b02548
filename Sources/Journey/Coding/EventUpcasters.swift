import JSON

/// Every upcaster of stored event shapes, in one place (STYLE.md, Domain).
///
/// A stored event is never rewritten. When a payload's JSON shape changes, the new shape gets a
/// new type string, and an entry here turns the old `(type, json)` into the new one on read.
/// There are no old shapes yet, so every event passes through unchanged. A new optional member
/// that is left out of the JSON when absent (`VehicleRegistered.licensePlate`) keeps every stored
/// payload valid and needs no entry here.
package enum EventUpcasters {
    /// Returns the current `(type, json)` for a stored `(type, json)`.
    package static func upcast(type: String, json: JSONValue) -> (type: String, json: JSONValue) {
        switch type {
        default:
            return (type, json)
        }
    }
}
