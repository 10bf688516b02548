import Foundation
import EventStore
import HTTP
import JSON
import Journey
import Signing

/// The query readers and answers of the audit history operations (`OperationTable+Audit`).
extension RESTHandler {
    /// `include=vehicle` (the only value), or nothing.
    static func include(_ query: inout QueryParameters) throws(APIError) -> Bool {
        guard let value = try query.value("include") else { return false }
        guard value == "vehicle" else { throw .invalidArgument("include must be \"vehicle\" (got \(String(value.prefix(32)).debugDescription))") }
        return true
    }

    /// `pageSize`, `pageToken`, `types`, `since`, `until`.
    static func historyRequest(_ query: inout QueryParameters, provider: String, subject: AuditService.Subject) throws(APIError) -> AuditService.HistoryRequest {
        var request = AuditService.HistoryRequest(provider: provider, subject: subject)
        if let text = try query.value("pageSize") {
            guard let size = Int(text), size >= 0 else {
                throw .invalidArgument("pageSize must be a whole number from 0 to \(AuditService.maximumPageSize) (got \(String(text.prefix(32)).debugDescription))")
            }
            guard size <= AuditService.maximumPageSize else {
                throw .invalidArgument("pageSize must be at most \(AuditService.maximumPageSize) (got \(size))")
            }
            if size > 0 { request.pageSize = size }
        }
        request.pageToken = try query.value("pageToken").flatMap { $0.isEmpty ? nil : $0 }
        let types = query.values("types").flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if !types.isEmpty {
            for type in types where !AuditService.knownTypes.contains(type) {
                throw .invalidArgument("types names \(String(type.prefix(64)).debugDescription), which is not a trip or vehicle event type")
            }
            request.filter.types = Array(Set(types)).sorted()
        }
        request.filter.recordedFrom = try timestamp(&query, "since")?.microsecondsSinceEpoch
        request.filter.recordedThrough = try timestamp(&query, "until")?.microsecondsSinceEpoch
        if let from = request.filter.recordedFrom, let through = request.filter.recordedThrough, from > through {
            throw .invalidArgument("since must not be later than until")
        }
        return request
    }

    /// `{"events":[...],"nextPageToken":"..."}` (the token left out on the last page).
    static func historyJSON(_ page: AuditService.HistoryPage) -> JSONValue {
        var members: [(String, JSONValue)] = [("events", .array(page.events.map(historyEvent)))]
        if !page.nextPageToken.isEmpty { members.append(("nextPageToken", .string(page.nextPageToken))) }
        return .object(JSONObject(members))
    }

    /// One stored event as history shows it.
    ///
    /// `data` and `metadata` are exactly what was stored, so an auditor can recompute `hash` from
    /// the answer (the encoding in `HashChain`). A location report's `data.location` is Fleet
    /// Engine's `VehicleLocation`, whose `location` is the LatLng (`{"latitude","longitude"}`);
    /// `deviceTime` is that report's `updateTime` (when the device took the fix), absent for
    /// events without one.
    static func historyEvent(_ event: RecordedEvent) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("globalPosition", .string(String(event.globalPosition))),
            ("streamId", .string(event.streamId)),
            ("streamVersion", .number(JSONNumber(event.streamVersion))),
            ("eventId", .string(event.id.uuidString.lowercased())),
            ("type", .string(event.type)),
            ("data", event.data),
            ("metadata", event.metadata),
        ]
        if let device = event.data["location"]?["updateTime"]?.stringValue { members.append(("deviceTime", .string(device))) }
        members.append(("recordedTime", .string(Timestamp(microsecondsSinceEpoch: event.recordedAtMicros).rfc3339)))
        members.append(("hash", .string(Digest.hex(event.hash))))
        return .object(JSONObject(members))
    }
}
