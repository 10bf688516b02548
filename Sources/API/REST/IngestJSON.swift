import Foundation
import JSON
import Journey

/// Reads `vehicles:reportLocations` bodies and writes their answers.
///
/// The envelope (`reports`, `header`) is read strictly: anything wrong with it fails the request.
/// Each report is read on its own, and a report that cannot be read (a wrong type, an unknown
/// field, a bad coordinate) becomes an `unreadable` entry, rejected in its slot of the answer.
enum IngestJSON {
    static func reportLocations(_ body: JSONValue) throws(APIError) -> [LocationIngestService.Entry] {
        var object = try ProtoObject(body, at: "")
        guard let reports = try object.take("reports") else {
            throw .invalidArgument("reports is required (a list of at most \(LocationIngestService.maximumReports) location reports)")
        }
        if let header = try object.take("header") { try FleetEngineValues.requestHeader(header, at: "header") }
        try object.finish()
        let list = try ProtoValue.array(reports, at: "reports")
        guard list.count <= LocationIngestService.maximumReports else {
            throw .invalidArgument("reports may hold at most \(LocationIngestService.maximumReports) reports per request (got \(list.count))")
        }
        return list.enumerated().map { index, value in entry(value, index: index) }
    }

    static func entry(_ value: JSONValue, index: Int) -> LocationIngestService.Entry {
        let path = "reports[\(index)]"
        do throws(APIError) {
            var object = try ProtoObject(value, at: path)
            guard let vehicle = try object.take("vehicleId") else { throw .invalidArgument("\(path).vehicleId is required") }
            let vehicleId = try ProtoValue.string(vehicle, at: object.path("vehicleId"))
            let eventId = try object.take("eventId").map { v throws(APIError) in try uuid(v, at: object.path("eventId")) }
            let location = try object.take("location").map { v throws(APIError) in
                try FleetEngineValues.vehicleLocation(v, at: object.path("location"))
            }
            let past = try object.take("pastLocations").map { v throws(APIError) in
                try FleetEngineValues.list(v, at: object.path("pastLocations"), FleetEngineValues.vehicleLocation)
            } ?? []
            try object.finish()
            guard location != nil || !past.isEmpty else {
                throw .invalidArgument("\(path) needs a location or pastLocations (got neither)")
            }
            return .report(LocationIngestService.Report(vehicleId: vehicleId, eventId: eventId, location: location, pastLocations: past))
        } catch {
            // Name the report in its answer as it named itself, when it did so readably.
            let vehicleId = value["vehicleId"]?.stringValue ?? value["vehicle_id"]?.stringValue ?? ""
            let eventId = value["eventId"]?.stringValue ?? value["event_id"]?.stringValue
            return .unreadable(vehicleId: vehicleId, eventId: eventId, error: error)
        }
    }

    /// A UUID in its 36-character hyphenated form, either case.
    static func uuid(_ value: JSONValue, at path: String) throws(APIError) -> UUID {
        let text = try ProtoValue.string(value, at: path)
        guard text.utf8.count == 36, let id = UUID(text: text) else {
            throw .invalidArgument("\(path) must be a UUID such as 7c3e9a52-5b1f-4f0e-9d7a-2f6b1c8e4a10 (got \(text.debugDescription))")
        }
        return id
    }

    /// `{"results":[...]}`: one entry per report, in request order, each `{"vehicleId", "eventId"
    /// (when known), "status", "error": {"code", "status", "message"} (rejected only)}`, compact.
    /// Written without building a value (an answer holds one entry per report, up to 5,000); the
    /// writer writes members in the order given, not the canonical one. No member is a Fleet Engine
    /// enum, so a request for numbered enums gets the same answer.
    static func resultBytes(_ outcomes: [LocationIngestService.Outcome]) -> [UInt8] {
        var writer = CanonicalJSONWriter(capacity: 32 + outcomes.count * 96)
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
        for outcome in outcomes {
            writer.beginObject()
            writer.key("vehicleId")
            writer.string(outcome.vehicleId)
            if let eventId = outcome.eventId {
                writer.key("eventId")
                writer.string(eventId)
            }
            writer.key("status")
            writer.string(outcome.status.rawValue)
            if let error = outcome.error {
                writer.key("error")
                writer.beginObject()
                writer.key("code")
                writer.integer(error.code.httpStatus)
                writer.key("status")
                writer.string(error.code.statusName)
                writer.key("message")
                writer.string(error.message)
                writer.endObject()
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
