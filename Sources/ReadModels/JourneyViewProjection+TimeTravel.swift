extension JourneyViewProjection {
    /// Whether rider `consumerId` is the rider of the trip in this fold (its `consumerId` attribute).
    ///
    /// For time travel: a consumer token naming a rider may read the trip's past journey when the
    /// trip was that rider's at the instant asked about.
    package func isRider(_ consumerId: String, of tripId: String, provider: String) -> Bool {
        riders[JourneyViewShares.riderKey(provider: provider, consumerId: consumerId)]?.contains(tripId) == true
    }
}
