import JSON
import EventStore
import Foundation
import Journey

/// One webhook subscription as stored: where to deliver, which events, and how far delivery got.
package struct WebhookSubscription: Sendable, Hashable {
    package var provider: String
    package var id: String
    package var url: String
    /// The HMAC key for `Waymark-Signature`; never rendered in an answer.
    package var secret: String
    /// Deliver only these event types (empty: every type).
    package var eventTypes: [String]
    /// Deliver only events of these trips (their `trip:` and `arrival:` streams, and arrivals naming them).
    package var tripIds: [String]
    /// Deliver only events of these vehicles (their `vehicle:` streams, and arrivals naming them).
    package var vehicleIds: [String]
    package var createdAtMicros: Int64
    /// The last event handled (delivered or filtered out).
    package var checkpoint: FeedPosition
    /// Bumped by every change made through the API; the dispatcher's writes are guarded by it.
    package var generation: Int64
    package var paused: Bool
    /// Failed attempts of the event delivery is stuck on (0 while deliveries succeed).
    package var consecutiveFailures: Int
    package var lastError: String?
    package var lastAttemptAtMicros: Int64?
    package var lastDeliveredAtMicros: Int64?
    package var deliveredEvents: Int64

    /// The stream categories a webhook may carry. Share-link streams are left out on purpose: they
    /// hold link tokens, which must reach only the people a trip was shared with.
    static let deliveredCategories: Set<String> = ["trip", "vehicle", "arrival"]

    /// A trip's moves to COMPLETE and CANCELED are stored as events of their own; a subscriber to
    /// `TripStatusChanged` asked for every status change, so it hears them too.
    static let statusEndings: Set<String> = [Trip.Event.tripCompleted, Trip.Event.tripCanceled]

    /// Whether `event` is one this subscription delivers.
    package func matches(_ event: RecordedEvent) -> Bool {
        guard let colon = event.streamId.firstIndex(of: ":") else { return false }
        let category = event.streamId[..<colon]
        let rest = event.streamId[event.streamId.index(after: colon)...]
        guard let slash = rest.firstIndex(of: "/"), Self.deliveredCategories.contains(String(category)) else { return false }
        guard rest[..<slash] == provider[...] else { return false }
        let id = String(rest[rest.index(after: slash)...])
        if !eventTypes.isEmpty && !eventTypes.contains(event.type)
            && !(Self.statusEndings.contains(event.type) && eventTypes.contains(Trip.Event.tripStatusChanged)) { return false }
        if tripIds.isEmpty && vehicleIds.isEmpty { return true }
        switch category {
        case "trip": return tripIds.contains(id)
        case "vehicle": return vehicleIds.contains(id)
        default:
            if tripIds.contains(id) { return true }
            if let vehicle = event.data["vehicleId"]?.stringValue { return vehicleIds.contains(vehicle) }
            return false
        }
    }
}
