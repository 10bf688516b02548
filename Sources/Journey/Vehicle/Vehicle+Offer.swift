extension Vehicle {
    /// A trip offered to the vehicle's driver, open until `expiresAt`.
    package struct TripOffer: Sendable, Hashable, Codable {
        package var tripId: String
        package var expiresAt: Timestamp
        package var offeredAt: Timestamp

        package init(tripId: String, expiresAt: Timestamp, offeredAt: Timestamp) {
            self.tripId = tripId
            self.expiresAt = expiresAt
            self.offeredAt = offeredAt
        }

        /// Whether the offer can no longer be accepted at `time`.
        package func isExpired(at time: Timestamp) -> Bool { time >= expiresAt }
    }

    /// The most offers a vehicle holds open at once.
    package static let maximumOpenOffers = 10

    static func decideOffer(tripId: String, trip: Trip.State?, expiresAt: Timestamp, at: Timestamp, state: State) throws(JourneyError) -> [Event] {
        try Identifier.validate(tripId, field: "tripId")
        guard let trip, trip.exists else {
            throw .notFound("trip to offer must exist (trip \(tripId) not found)")
        }
        guard !trip.status.isTerminal else {
            throw .failedPrecondition("a \(trip.status.rawValue) trip cannot be offered (trip \(tripId))")
        }
        if let assigned = trip.vehicleId {
            throw .failedPrecondition("trip is already assigned; only unassigned trips can be offered (trip \(tripId) vehicleId \(assigned))")
        }
        guard expiresAt > at else {
            throw .invalidArgument("expireTime must be in the future (got \(expiresAt.rfc3339), now \(at.rfc3339))")
        }
        guard state.vehicleState == .online else {
            throw .failedPrecondition("vehicle must be ONLINE to be offered trips (vehicle \(state.vehicleId) vehicleState \(state.vehicleState.rawValue))")
        }
        let open = state.offers.filter { $0.tripId != tripId && !$0.isExpired(at: at) }
        guard open.count < maximumOpenOffers else {
            throw .failedPrecondition("vehicle already has \(maximumOpenOffers) open offers (vehicle \(state.vehicleId))")
        }
        return [.tripOffered(.init(vehicleId: state.vehicleId, tripId: tripId, expiresAt: expiresAt, at: at))]
    }

    static func decideAnswer(tripId: String, accept: Bool, at: Timestamp, state: State) throws(JourneyError) -> [Event] {
        guard let offer = state.offers.first(where: { $0.tripId == tripId }) else {
            throw .notFound("no open offer of this trip to the vehicle (vehicle \(state.vehicleId), trip \(tripId))")
        }
        if accept, offer.isExpired(at: at) {
            throw .failedPrecondition("the offer expired and can no longer be accepted (vehicle \(state.vehicleId), trip \(tripId), expired \(offer.expiresAt.rfc3339))")
        }
        return [.tripOfferAnswered(.init(vehicleId: state.vehicleId, tripId: tripId, accepted: accept, expired: offer.isExpired(at: at), at: at))]
    }
}

extension Vehicle.Event {
    /// `VehicleTripOffered`: the driver was offered the trip until `expiresAt`.
    package struct TripOffered: Codable, Hashable, Sendable {
        package var vehicleId: String
        package var tripId: String
        package var expiresAt: Timestamp
        package var at: Timestamp

        package init(vehicleId: String, tripId: String, expiresAt: Timestamp, at: Timestamp) {
            self.vehicleId = vehicleId
            self.tripId = tripId
            self.expiresAt = expiresAt
            self.at = at
        }
    }

    /// `VehicleTripOfferAnswered`: the driver accepted or declined an offer (a decline may come
    /// after expiry, `expired` says so); an accepted offer's trip is assigned to the vehicle.
    package struct TripOfferAnswered: Codable, Hashable, Sendable {
        package var vehicleId: String
        package var tripId: String
        package var accepted: Bool
        package var expired: Bool
        package var at: Timestamp

        package init(vehicleId: String, tripId: String, accepted: Bool, expired: Bool = false, at: Timestamp) {
            self.vehicleId = vehicleId
            self.tripId = tripId
            self.accepted = accepted
            self.expired = expired
            self.at = at
        }
    }
}
