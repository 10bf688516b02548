import EventStore
import JSON
import Journey

/// Who asked, and under which request: recorded in every event's metadata.
package struct CommandContext: Sendable {
    package var caller: Principal
    package var requestId: String

    package init(caller: Principal, requestId: String) {
        self.caller = caller
        self.requestId = requestId
    }

    var metadata: JSONValue {
        var members: [(String, JSONValue)] = [("requestId", .string(requestId)), ("role", .string(caller.role.rawValue))]
        if let subject = caller.subject { members.append(("subject", .string(subject))) }
        if let vehicleId = caller.vehicleId { members.append(("vehicleId", .string(vehicleId))) }
        return .object(JSONObject(members))
    }
}

/// The latest feed position among appends, for read-your-writes.
struct WriteMark: Sendable {
    private(set) var position: FeedPosition?

    init(position: FeedPosition? = nil) {
        self.position = position
    }

    mutating func include(_ result: AppendResult) {
        guard let next = result.feedPosition else { return }
        if let current = position, current >= next { return }
        position = next
    }
}
