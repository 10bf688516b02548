import EventStore
import JSON
import Journey

/// The webhook resource's JSON: the request body read strictly, the answer rendered (never the secret).
enum WebhookJSON {
    static let fields: Set<String> = ["url", "secret", "eventTypes", "tripIds", "vehicleIds"]

    /// `{"url","secret","eventTypes":[...],"tripIds":[...],"vehicleIds":[...]}`; unknown fields are refused.
    static func subscription(_ body: JSONValue, provider: String, id: String) throws(APIError) -> WebhookSubscription {
        guard let object = body.objectValue else { throw .invalidArgument("the request body must be a JSON object") }
        for (key, _) in object where !fields.contains(key) {
            throw .invalidArgument("unknown field \(key.debugDescription) (allowed: \(fields.sorted().joined(separator: ", ")))")
        }
        guard let url = object["url"]?.stringValue, !url.isEmpty else { throw .invalidArgument("url is required (a string)") }
        _ = try WebhookTarget.validateForm(url)
        guard let secret = object["secret"]?.stringValue else { throw .invalidArgument("secret is required (a string of 16 to 256 bytes)") }
        guard (16...256).contains(secret.utf8.count) else {
            throw .invalidArgument("secret must be 16 to 256 bytes long (got \(secret.utf8.count))")
        }
        let eventTypes = try strings(object, "eventTypes")
        for type in eventTypes where !WebhookService.knownEventTypes.contains(type) {
            throw .invalidArgument("eventTypes names an unknown event type \(type.prefix(64).debugDescription)")
        }
        let tripIds = try strings(object, "tripIds")
        let vehicleIds = try strings(object, "vehicleIds")
        for (field, ids) in [("tripIds", tripIds), ("vehicleIds", vehicleIds)] {
            for id in ids {
                do { try Identifier.validate(id, field: field) } catch { throw APIError(error) }
            }
        }
        return WebhookSubscription(provider: provider, id: id, url: url, secret: secret, eventTypes: unique(eventTypes), tripIds: unique(tripIds),
                                   vehicleIds: unique(vehicleIds), createdAtMicros: 0, checkpoint: .start, generation: 0, paused: false,
                                   consecutiveFailures: 0, lastError: nil, lastAttemptAtMicros: nil, lastDeliveredAtMicros: nil, deliveredEvents: 0)
    }

    static let maximumFilterValues = 1000

    private static func strings(_ object: JSONObject, _ field: String) throws(APIError) -> [String] {
        guard let value = object[field], value != .null else { return [] }
        guard let array = value.arrayValue else { throw .invalidArgument("\(field) must be an array of strings") }
        guard array.count <= maximumFilterValues else { throw .invalidArgument("\(field) may hold at most \(maximumFilterValues) values (got \(array.count))") }
        var strings: [String] = []
        for (index, element) in array.enumerated() {
            guard let string = element.stringValue else { throw .invalidArgument("\(field)[\(index)] must be a string") }
            strings.append(string)
        }
        return strings
    }

    private static func unique(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        return values.filter { seen.insert($0).inserted }
    }

    static func time(_ micros: Int64?) -> JSONValue {
        micros.map { .string(Timestamp(microsecondsSinceEpoch: $0).rfc3339) } ?? .null
    }

    /// The resource with its delivery status. `head` is the log's highest position; `lagSeconds`
    /// is known only on the node that delivers.
    static func render(_ s: WebhookSubscription, head: Int64, lagSeconds: Double?) -> JSONValue {
        var status: [(String, JSONValue)] = [
            ("position", .number(JSONNumber(s.checkpoint.globalPosition))),
            ("checkpoint", .string(s.checkpoint.description)),
            ("lagPositions", .number(JSONNumber(max(0, head - s.checkpoint.globalPosition)))),
        ]
        if let lagSeconds { status.append(("lagSeconds", .number(JSONNumber(lagSeconds)!))) }
        status += [
            ("paused", .bool(s.paused)),
            ("consecutiveFailures", .number(JSONNumber(s.consecutiveFailures))),
            ("lastError", s.lastError.map { .string($0) } ?? .null),
            ("lastAttemptTime", time(s.lastAttemptAtMicros)),
            ("lastDeliveryTime", time(s.lastDeliveredAtMicros)),
            ("deliveredEvents", .number(JSONNumber(s.deliveredEvents))),
        ]
        return .object(JSONObject([
            ("name", .string("providers/\(s.provider)/webhooks/\(s.id)")),
            ("webhookId", .string(s.id)),
            ("url", .string(s.url)),
            ("eventTypes", .array(s.eventTypes.map { .string($0) })),
            ("tripIds", .array(s.tripIds.map { .string($0) })),
            ("vehicleIds", .array(s.vehicleIds.map { .string($0) })),
            ("createTime", time(s.createdAtMicros)),
            ("status", .object(JSONObject(status))),
        ]))
    }
}
