import Foundation
import Journey
import Signing

/// The event ids of one location report: stable, so a retried report maps to the same ids.
///
/// One report can make several events (`VehicleLocationHistoryRecorded` for `pastLocations`, then
/// `VehicleLocationReported` or `VehicleStaleLocationRecorded`, then possibly `VehicleWentOffRoute`
/// or `VehicleRejoinedRoute`). The report's **primary** event, the location event (or the history
/// event of a report with only `pastLocations`), is stored under the report's id itself; every other
/// event under an id derived from the report's id and the event type (each type occurs at most once
/// per report): the first 16 bytes of SHA-256("waymark.report-event" ‖ report id ‖ type), marked as
/// an RFC 9562 version 8 UUID. So the report's id always names the event that tells its status.
enum ReportEventIds {
    /// Ids for `events`, decided for the report `reportId`, in order.
    static func assign(_ events: [Vehicle.Event], reportId: UUID) -> [UUID] {
        let primary = primaryIndex(events)
        return events.indices.map { index in index == primary ? reportId : derived(reportId, type: events[index].type) }
    }

    /// The index of the report's primary event, nil when there is none.
    static func primaryIndex(_ events: [Vehicle.Event]) -> Int? {
        events.firstIndex { event in
            switch event {
            case .locationReported, .staleLocationRecorded: true
            default: false
            }
        } ?? events.firstIndex { event in
            if case .locationHistoryRecorded = event { return true }
            return false
        }
    }

    /// The status a report's primary event stands for, nil when `type` is not a report's primary event.
    static func status(ofPrimaryType type: String) -> LocationIngestService.Status? {
        switch type {
        case Vehicle.Event.vehicleLocationReported, Vehicle.Event.vehicleLocationHistoryRecorded: .accepted
        case Vehicle.Event.vehicleStaleLocationRecorded: .stale
        default: nil
        }
    }

    static func derived(_ reportId: UUID, type: String) -> UUID {
        var input = Array("waymark.report-event".utf8)
        withUnsafeBytes(of: reportId.uuid) { input.append(contentsOf: $0) }
        input.append(contentsOf: type.utf8)
        var b = Digest.sha256(input)
        b[6] = (b[6] & 0x0F) | 0x80  // version 8
        b[8] = (b[8] & 0x3F) | 0x80  // RFC 9562 variant
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
