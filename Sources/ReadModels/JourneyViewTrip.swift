import Journey

/// What the journey view keeps about one trip between events.
///
/// The trip part is the domain's own `Trip.State`, folded with `Trip.evolve`, so "which stops
/// are passed" means exactly what it means to `decide`. Only `newestEventAt` is added: the
/// projection's clock for this trip (the latest `recordedAt` of any event that reached its
/// view), against which the vehicle's staleness is measured. Stored as a "state" document, so
/// `load` rebuilds it exactly.
struct JourneyViewTrip: Codable, Hashable, Sendable {
    /// The provider the trip belongs to.
    var provider: String
    /// The trip as the domain sees it.
    var trip: Trip.State
    /// The newest event time seen for this trip (trip events and fanned-out vehicle events).
    var newestEventAt: Timestamp?
    /// When the trip became COMPLETE or CANCELED (the event's `recordedAt`); nil while it is not.
    var endedAt: Timestamp?

    /// An empty trip awaiting its `TripCreated`.
    init(provider: String, tripId: String) {
        self.provider = provider
        self.trip = Trip.State()
        self.trip.tripId = tripId
    }

    /// `providers/{provider}/trips/{tripId}`: the view's name and both documents' key.
    static func key(provider: String, tripId: String) -> String {
        "providers/\(provider)/trips/\(tripId)"
    }

    /// The key of the vehicle serving the trip, when one is assigned and the trip is not terminal.
    ///
    /// Only a serving vehicle's events reach the view; before assignment and after completion,
    /// cancellation or unassignment the rider sees nothing the vehicle does.
    var servingVehicleKey: String? {
        guard let vehicleId = trip.vehicleId, !trip.status.isTerminal else { return nil }
        return JourneyViewVehicle.key(provider: provider, vehicleId: vehicleId)
    }

    /// Folds one trip event in and advances the trip's clock.
    mutating func apply(_ event: Trip.Event, recordedAt: Timestamp) {
        let wasTerminal = trip.status.isTerminal
        trip = Trip.evolve(trip, with: event)
        observe(recordedAt)
        if trip.status.isTerminal, !wasTerminal { endedAt = recordedAt }
        if !trip.status.isTerminal { endedAt = nil }
    }

    /// The rider the trip names through its `consumerId` attribute, as `providers/{p}/consumers/{c}`.
    var riderKey: String? {
        guard let consumerId = JourneyViewTrip.consumerId(of: trip.attributes) else { return nil }
        return JourneyViewShares.riderKey(provider: provider, consumerId: consumerId)
    }

    /// The string value of the `consumerId` attribute, when there is a non-empty one.
    static func consumerId(of attributes: [Attribute]) -> String? {
        for attribute in attributes where attribute.key == "consumerId" {
            if case .string(let value) = attribute.value, !value.isEmpty { return value }
        }
        return nil
    }

    /// Advances the trip's clock to `time` if it is newer (events may carry older times).
    mutating func observe(_ time: Timestamp) {
        if newestEventAt.map({ time > $0 }) ?? true { newestEventAt = time }
    }
}
