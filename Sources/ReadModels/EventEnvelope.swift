import Journey

/// A domain event as a projection sees it: the decoded event plus where and when it was stored.
///
/// Projections are pure functions of these: any time they need comes from `recordedAt` (server
/// time of the append), never from a clock, so a rebuild reproduces the live model byte for byte.
package struct EventEnvelope: Sendable {
    /// `trip:{provider}/{tripId}`, `vehicle:{provider}/{vehicleId}`, `share:{provider}/{tripId}` or `style:{provider}/journey`.
    package let streamId: String
    package let streamVersion: Int64
    package let globalPosition: Int64
    /// When the store recorded the event (server time).
    package let recordedAt: Timestamp
    package let event: DomainEvent

    package init(streamId: String, streamVersion: Int64, globalPosition: Int64, recordedAt: Timestamp, event: DomainEvent) {
        self.streamId = streamId
        self.streamVersion = streamVersion
        self.globalPosition = globalPosition
        self.recordedAt = recordedAt
        self.event = event
    }
}

/// The decoded event of a trip, vehicle, share-link or journey-style stream.
package enum DomainEvent: Sendable {
    case trip(provider: String, tripId: String, Trip.Event)
    case vehicle(provider: String, vehicleId: String, Vehicle.Event)
    /// A trip's share links (`share:{provider}/{tripId}`).
    case share(provider: String, tripId: String, ShareLink.Event)
    /// A provider's journey style (`style:{provider}/journey`).
    case style(provider: String, JourneyStyle.Event)
}
