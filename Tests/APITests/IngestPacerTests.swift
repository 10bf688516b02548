@testable import API
import EventStore
import Testing

/// Which position a paced batch waits for: the end of the oldest batch after which at most the
/// bound of events were appended on this node.
@Suite struct IngestPacerTests {
    static func pacer(_ bound: Int) -> IngestPacer { IngestPacer(maximumBacklog: bound, timeout: .seconds(1), waiters: []) }
    static func position(_ transaction: UInt64, _ global: Int64) -> FeedPosition { FeedPosition(transactionId: transaction, globalPosition: global) }

    @Test func aBatchWaitsForTheEndOfTheOldestBatchAfterWhichAtMostTheBoundWasAppended() {
        let pacer = Self.pacer(100)
        #expect(pacer.target() == nil, "nothing appended")
        pacer.appended(50, through: Self.position(1, 50))
        #expect(pacer.target() == nil, "50 events behind at most: under the bound")
        pacer.appended(100, through: Self.position(2, 150))
        #expect(pacer.target() == Self.position(1, 50), "after the first batch came 100 events")
        pacer.appended(100, through: Self.position(3, 250))
        #expect(pacer.target() == Self.position(2, 150))
        #expect(pacer.markCount == 2, "the first batch's end is no longer needed")
    }

    @Test func aBatchCommittedAfterOneThatEndsLaterIsCountedWithThatOne() {
        let pacer = Self.pacer(100)
        pacer.appended(150, through: Self.position(3, 150))
        pacer.appended(60, through: Self.position(2, 210))  // an earlier transaction that committed later
        // 210 appended: every mark with at most 100 after it must be applied. The late batch's
        // events sit before (3, 150) in feed order, so that position covers them.
        #expect(pacer.target() == Self.position(3, 150))
        pacer.appended(100, through: Self.position(4, 310))
        #expect(pacer.target() == Self.position(3, 150), "210 appended through (3, 150), 100 after it")
    }

    @Test func smallBatchesShareMarksAndOffPacesNothing() {
        let pacer = Self.pacer(256 * 10)  // marks at least 10 events apart
        for n in 1...5_000 { pacer.appended(1, through: Self.position(UInt64(n), Int64(n))) }
        // 5,000 appended: the wait is for the mark at or just after the 2,440th event (never an
        // earlier one, which would let the backlog pass the bound), and about 256 marks are kept.
        let target = pacer.target()
        #expect(target.map { $0 >= Self.position(2_440, 2_440) && $0 < Self.position(2_450, 2_450) } == true, "\(String(describing: target))")
        #expect(pacer.markCount <= 300, "\(pacer.markCount) marks for 2,560 one-event batches")
        let off = Self.pacer(0)
        off.appended(1_000_000, through: Self.position(1, 1_000_000))
        #expect(off.target() == nil && off.markCount == 0)
    }
}
