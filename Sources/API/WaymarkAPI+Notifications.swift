import ReadModels

extension WaymarkAPI {
    /// The collections whose changes projection `name`'s runner announces to other nodes
    /// (`ProjectionRunner.Options.notifyCollections`): what another node pushes to its clients.
    ///
    /// Only the journey projection: riders' views and share links, which `JourneyHub` pushes over
    /// SSE and long polls. The other read models are read on request, and the driver feed's streams
    /// re-read their document every 200 ms on any node.
    package static func notifiedCollections(_ name: String) -> Set<String> {
        switch name {
        case JourneyViewProjection.name: [JourneyViewProjection.viewsCollection, JourneyViewProjection.sharesCollection]
        default: []
        }
    }
}
