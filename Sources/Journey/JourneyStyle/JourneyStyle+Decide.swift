extension JourneyStyle {
    /// Decides the events of a command, or why it is rejected. Pure.
    ///
    /// The options must validate; an `expectedVersion` other than the current one is ABORTED; a
    /// style equal to the current one is no event (the version does not move).
    package static func decide(_ command: Command, state: State) throws(JourneyError) -> [Event] {
        switch command {
        case .setStyle(let options, let expectedVersion, let at):
            try options.validate()
            if let expectedVersion, expectedVersion != state.version {
                throw .aborted("the journey style is at version \(state.version), not the expected \(expectedVersion); read it again")
            }
            guard options != state.options else { return [] }
            return [.set(.init(version: state.version + 1, options: options, at: at))]
        }
    }

    /// Applies one event. Total and pure.
    package static func evolve(_ state: State, with event: Event) -> State {
        var s = state
        switch event {
        case .set(let e):
            s.version = e.version
            s.options = e.options
            s.updateTime = e.at
        }
        return s
    }
}
