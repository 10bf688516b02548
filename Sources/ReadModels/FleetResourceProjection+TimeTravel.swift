import JSON

extension FleetResourceProjection {
    /// The stored `Trip` resource of a trip as this fold has it, without draining (nil: unknown or deleted).
    ///
    /// For time travel: the API folds a trip's past events into a fresh projection in memory and
    /// reads the resource the live model would have stored at that point.
    package func tripResource(provider: String, tripId: String) -> JSONValue? {
        tripDocument(Self.tripKey(provider: provider, tripId: tripId))
    }
}
