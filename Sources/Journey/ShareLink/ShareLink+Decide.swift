extension ShareLink {
    /// Decides the events of a command, or why it is rejected. Pure: time and ids come in the command.
    ///
    /// Creating needs a fresh id, an expiry after `at` and at most 24 h ahead, and room under
    /// `maximumLiveLinks`. Revoking names known links (already revoked ones are skipped, so a
    /// repeat is a no-op) or, with no names, every link not yet revoked; nothing to revoke is no event.
    package static func decide(_ command: Command, state: State) throws(JourneyError) -> [Event] {
        switch command {
        case .createLink(let tripId, let linkId, let expireTime, let at):
            guard !linkId.isEmpty else { throw .invalidArgument("a share link needs an id") }
            guard state.links[linkId] == nil else {
                throw .alreadyExists("share link \(linkId) already exists (trip \(tripId))")
            }
            guard expireTime > at else {
                throw .invalidArgument("a share link must expire after it is created (expireTime \(expireTime.rfc3339), now \(at.rfc3339))")
            }
            guard expireTime.microsecondsSinceEpoch - at.microsecondsSinceEpoch <= maximumLifetimeSeconds * 1_000_000 else {
                throw .invalidArgument("a share link may live at most \(maximumLifetimeSeconds) s (expireTime \(expireTime.rfc3339), now \(at.rfc3339))")
            }
            let live = state.liveLinkIds(at: at).count
            guard live < maximumLiveLinks else {
                throw .failedPrecondition("trip \(tripId) already has \(live) live share links (at most \(maximumLiveLinks)); revoke some first")
            }
            return [.created(.init(tripId: tripId, linkId: linkId, expireTime: expireTime, at: at))]
        case .revokeLinks(let tripId, let linkIds, let at):
            let targets: [String]
            if let linkIds {
                for id in linkIds where state.links[id] == nil {
                    throw .notFound("share link \(id) not found (trip \(tripId))")
                }
                targets = Array(Set(linkIds.filter { state.links[$0]?.revoked == false })).sorted()
            } else {
                targets = state.links.filter { !$0.value.revoked }.keys.sorted()
            }
            guard !targets.isEmpty else { return [] }
            return [.revoked(.init(tripId: tripId, linkIds: targets, at: at))]
        }
    }

    /// Applies one event. Total and pure.
    package static func evolve(_ state: State, with event: Event) -> State {
        var s = state
        switch event {
        case .created(let e):
            s.tripId = e.tripId
            s.links[e.linkId] = Link(expireTime: e.expireTime)
        case .revoked(let e):
            for id in e.linkIds { s.links[id]?.revoked = true }
        }
        return s
    }
}
