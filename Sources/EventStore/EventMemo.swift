import Synchronization

/// Work derived from one stored event, done once and shared by every reader holding the same copy.
///
/// The node's projection runners read the feed through one `FeedCache`, so they hold the same
/// `RecordedEvent`s, and each used to decode every event's payload into its domain event again:
/// four runners, four decodes of each location report. The first reader keeps what it derived
/// here and the others take it. What is kept must depend on the event alone (a pure function of
/// it), so whichever reader makes it, every reader gets the same value.
///
/// One slot: a second kind of value would replace the first.
package final class EventMemo: Sendable {
    private let slot = Mutex<(any Sendable)?>(nil)

    package init() {}

    /// The value kept here when it is a `Value`, else `make()`'s, kept for the next reader. Two
    /// readers that ask at once may both make it; they make the same value.
    package func value<Value: Sendable>(_ make: () -> Value) -> Value {
        // Unwrapped first: an empty slot cast to an optional `Value` would pass as nil.
        if let kept = slot.withLock({ $0 }), let value = kept as? Value { return value }
        let made = make()
        slot.withLock { $0 = made }
        return made
    }
}
