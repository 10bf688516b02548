import EventStore
import Foundation
import JSON
import Journey
import Projections
import ReadModels
import ReadSide

/// The auditors' read side: a trip's or vehicle's history, event by event; a trip's journey view
/// and Trip resource as they were at a past instant (time travel); the route audit.
///
/// History and the route audit are for `server` and `auditor` tokens of the provider. Time travel
/// also lets the trip's own consumer look back (see `AuditService+TimeTravel.swift`).
package final class AuditService: Sendable {
    let store: EventStore
    /// The route audit projection's documents.
    let routeAudits: RouteAuditReader
    let clock: @Sendable () -> Timestamp
    /// The most events one time-travel read may fold; past it the read is refused before the
    /// vehicles' histories are read (see `AuditService+TimeTravel.swift`).
    let timeTravelMaxEvents: Int

    /// The default and the largest page of history.
    static let defaultPageSize = 100
    static let maximumPageSize = 1000
    /// About a week of one vehicle reporting every 3 s; a replay's time and memory grow with its events.
    package static let defaultTimeTravelMaxEvents = 200_000

    init(store: EventStore, routeAudits: RouteAuditReader, clock: @escaping @Sendable () -> Timestamp,
         timeTravelMaxEvents: Int = AuditService.defaultTimeTravelMaxEvents) {
        self.store = store
        self.routeAudits = routeAudits
        self.clock = clock
        self.timeTravelMaxEvents = timeTravelMaxEvents
    }

    // MARK: - History

    /// Whose history is read.
    enum Subject: Sendable, Hashable {
        case trip(String)
        case vehicle(String)
    }

    /// A history page request.
    struct HistoryRequest: Sendable {
        var provider: String
        var subject: Subject
        var filter = StreamFilter()
        var pageSize = AuditService.defaultPageSize
        var pageToken: String?
        /// Trips only: interleave the assigned vehicles' events while they served the trip.
        var includeVehicle = false
    }

    /// One history page: events in order and the token of the next page (empty on the last).
    struct HistoryPage: Sendable {
        var events: [RecordedEvent]
        var nextPageToken: String
    }

    /// Which stream, and which part of it, a page draws from.
    struct Slice: Sendable, Hashable {
        var streamId: String
        var window: StreamFilter
    }

    /// The stream id of a history subject.
    static func streamId(_ provider: String, _ subject: Subject) -> String {
        switch subject {
        case .trip(let id): "trip:\(provider)/\(id)"
        case .vehicle(let id): "vehicle:\(provider)/\(id)"
        }
    }

    /// A page of a stream's history (with `includeVehicle`, merged with the serving vehicles'
    /// events in global position order).
    ///
    /// Each part is read after its own cursor (a stream version), the parts are merged, and the
    /// page token carries every part's cursor, so a page costs one index range read per part
    /// however deep into the history it is.
    func history(_ request: HistoryRequest, caller: Principal) async throws(APIError) -> HistoryPage {
        try caller.requireProvider(request.provider)
        try caller.require([.server, .auditor], to: "read event history")
        let stream = Self.streamId(request.provider, request.subject)
        let scope = "history \(stream)\(request.includeVehicle ? " include=vehicle" : "")"
        var cursors: [Int64] = []
        if let token = request.pageToken {
            let text = try PageToken.decode(token, scope: scope)
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let version = Int64(part), version >= 0 else { throw .invalidArgument("pageToken is not a token this listing returned") }
                cursors.append(version)
            }
        }
        let version: Int64
        do { version = try await store.streamVersion(stream) } catch { throw APIError(error, doing: "read history of \(stream)") }
        guard version > 0 else { throw Self.notFound(request.provider, request.subject) }

        var slices = [Slice(streamId: stream, window: StreamFilter())]
        if request.includeVehicle, case .trip = request.subject {
            slices += try await vehicleWindows(stream, provider: request.provider)
        }
        guard cursors.count <= slices.count else { throw .invalidArgument("pageToken is not a token this listing returned") }
        cursors += Array(repeating: 0, count: slices.count - cursors.count)

        // Read a page's worth from every part, merge by global position, keep the first page.
        var candidates: [(slice: Int, event: RecordedEvent)] = []
        var fullParts: Set<Int> = []
        for (index, slice) in slices.enumerated() {
            let read: [RecordedEvent]
            do {
                read = try await store.readStream(slice.streamId, after: cursors[index], filter: request.filter.intersected(with: slice.window),
                                                  limit: request.pageSize)
            } catch {
                throw APIError(error, doing: "read history of \(slice.streamId)")
            }
            if read.count == request.pageSize { fullParts.insert(index) }
            candidates += read.map { (index, $0) }
        }
        candidates.sort { $0.event.globalPosition < $1.event.globalPosition }
        let taken = candidates.prefix(request.pageSize)
        for (slice, event) in taken { cursors[slice] = event.streamVersion }
        let takenFromFull = fullParts.contains { part in !candidates.dropFirst(taken.count).contains { $0.slice == part } }
        let more = candidates.count > taken.count || takenFromFull
        return HistoryPage(events: taken.map(\.event),
                           nextPageToken: more ? PageToken.encode(cursors.map(String.init).joined(separator: ","), scope: scope) : "")
    }

    /// The windows in which vehicles served the trip, from its own events: from each
    /// `TripVehicleAssigned` until the vehicle is unassigned or replaced, or the trip completes,
    /// is canceled or deleted (recorded times, inclusive); an open window has no end.
    func vehicleWindows(_ tripStream: String, provider: String) async throws(APIError) -> [Slice] {
        let events: [RecordedEvent]
        do { events = try await store.readWholeStream(tripStream) } catch { throw APIError(error, doing: "read \(tripStream)") }
        var windows: [Slice] = []
        var open: (vehicleId: String, from: Int64)?
        func close(at time: Int64) {
            if let current = open {
                windows.append(Slice(streamId: "vehicle:\(provider)/\(current.vehicleId)",
                                     window: StreamFilter(recordedFrom: current.from, recordedThrough: time)))
            }
            open = nil
        }
        for event in events {
            guard case .some(.success(let envelope)) = EnvelopeDecoder.decode(event), case .trip(_, _, let tripEvent) = envelope.event else { continue }
            switch tripEvent {
            case .vehicleAssigned(let assigned):
                close(at: event.recordedAtMicros)
                open = (assigned.vehicleId, event.recordedAtMicros)
            case .vehicleUnassigned, .completed, .canceled, .deleted:
                close(at: event.recordedAtMicros)
            default:
                break
            }
        }
        if let current = open {
            windows.append(Slice(streamId: "vehicle:\(provider)/\(current.vehicleId)", window: StreamFilter(recordedFrom: current.from)))
        }
        return windows
    }

    static func notFound(_ provider: String, _ subject: Subject) -> APIError {
        switch subject {
        case .trip(let id): .notFound("trip \(id) has no history (provider \(provider))")
        case .vehicle(let id): .notFound("vehicle \(id) has no history (provider \(provider))")
        }
    }

    /// Every type a history filter may name: the trip and vehicle events.
    static let knownTypes = Set(Trip.Event.allTypes + Vehicle.Event.allTypes)

    // MARK: - Route audit

    /// The route audit document of a trip (the `route_audit` read model, eventually consistent with writes).
    func routeAudit(provider: String, tripId: String, caller: Principal) async throws(APIError) -> JSONValue {
        try caller.requireProvider(provider)
        try caller.require([.server, .auditor], to: "read route audits")
        let document: JSONValue?
        do {
            document = try await routeAudits.audit(provider: provider, tripId: tripId)
        } catch {
            throw APIError(.unavailable, "could not read the route audit read model; retry", underlying: error)
        }
        guard let document else { throw .notFound("trip \(tripId) has no route audit (provider \(provider))") }
        return document
    }
}
