@testable import API
import JSON
import Testing

@Suite struct IngestJSONTests {
    /// The answer as a value, built member by member: what `resultBytes` must write, compacted.
    private func answer(_ outcomes: [LocationIngestService.Outcome]) -> JSONValue {
        .object(JSONObject([("results", .array(outcomes.map { outcome in
            var members: [(String, JSONValue)] = [("vehicleId", .string(outcome.vehicleId))]
            if let eventId = outcome.eventId { members.append(("eventId", .string(eventId))) }
            members.append(("status", .string(outcome.status.rawValue)))
            if let error = outcome.error {
                members.append(("error", .object(JSONObject([
                    ("code", .number(JSONNumber(error.code.httpStatus))), ("status", .string(error.code.statusName)), ("message", .string(error.message)),
                ]))))
            }
            return .object(JSONObject(members))
        }))]))
    }

    @Test func theAnswerWrittenAsBytesIsTheCompactAnswerValue() {
        let outcomes: [LocationIngestService.Outcome] = [
            .init(vehicleId: "v-1", eventId: "7c3e9a52-5b1f-4f0e-9d7a-2f6b1c8e4a10", status: .accepted, error: nil),
            .init(vehicleId: "v-2", eventId: nil, status: .stale, error: nil),
            .rejected("v \"3\"\\é", "not-a-uuid\n", .invalidArgument("reports[2].location.latitude must be in [-90, 90] (got 91)\t\u{1}")),
            .rejected("", nil, .permissionDenied("a driver token may report only its own vehicle")),
        ]
        for count in 0...outcomes.count {
            let some = Array(outcomes.prefix(count))
            #expect(IngestJSON.resultBytes(some) == answer(some).compactBytes(), "\(count) outcomes")
        }
    }
}
