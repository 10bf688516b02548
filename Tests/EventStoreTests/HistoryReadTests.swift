import EventStore
import Foundation
import JSON
import Postgres
import Synchronization
import Testing
import TestSupport

/// `readStream(_:after:filter:limit:)`, `readWholeStream` and `eventCount`: a stream's history by version, type and recorded time.
@Suite(.timeLimit(.minutes(2))) struct HistoryReadTests {
    /// A store whose clock is set by the test (microseconds since the epoch).
    final class Clock: Sendable {
        let now = Mutex<Int64>(1_700_000_000_000_000)
        func set(_ micros: Int64) { now.withLock { $0 = micros } }
        func read() -> Int64 { now.withLock { $0 } }
    }

    func store(_ url: String, _ clock: Clock) -> EventStore {
        EventStore(.init(conninfo: url, readPoolSize: 2, committers: 1, listen: false, clock: { clock.read() }))
    }

    @Test func readsAfterAVersionFilterByTypeAndBoundByRecordedTimeInclusively() async throws {
        try await TestDatabase.withTestDatabase { url in
            let clock = Clock()
            let store = store(url, clock)
            let base: Int64 = 1_700_000_000_000_000
            for (i, type) in ["A", "B", "A", "C", "A"].enumerated() {
                clock.set(base + Int64(i) * 1_000_000)  // one event a second
                _ = try await store.append([event(type, ["i": .number(JSONNumber(i))])], to: "trip:acme/t-1", expectedVersion: .any)
            }
            _ = try await store.append([event("A")], to: "trip:acme/t-2", expectedVersion: .any)  // another stream: never returned

            let all = try await store.readStream("trip:acme/t-1", after: 0, filter: StreamFilter())
            #expect(all.map(\.streamVersion) == [1, 2, 3, 4, 5])
            #expect(all.map(\.recordedAtMicros) == (0..<5).map { base + Int64($0) * 1_000_000 })

            let after2 = try await store.readStream("trip:acme/t-1", after: 2, filter: StreamFilter(), limit: 2)
            #expect(after2.map(\.streamVersion) == [3, 4])

            let onlyA = try await store.readStream("trip:acme/t-1", after: 0, filter: StreamFilter(types: ["A"]))
            #expect(onlyA.map(\.streamVersion) == [1, 3, 5])
            let aOrC = try await store.readStream("trip:acme/t-1", after: 1, filter: StreamFilter(types: ["A", "C"]))
            #expect(aOrC.map(\.streamVersion) == [3, 4, 5])

            // Bounds are inclusive, to the microsecond.
            let window = StreamFilter(recordedFrom: base + 1_000_000, recordedThrough: base + 3_000_000)
            #expect(try await store.readStream("trip:acme/t-1", after: 0, filter: window).map(\.streamVersion) == [2, 3, 4])
            let justInside = StreamFilter(recordedFrom: base + 1_000_000, recordedThrough: base + 2_999_999)
            #expect(try await store.readStream("trip:acme/t-1", after: 0, filter: justInside).map(\.streamVersion) == [2, 3])
            let typedWindow = window.intersected(with: StreamFilter(types: ["A"]))
            #expect(try await store.readStream("trip:acme/t-1", after: 0, filter: typedWindow).map(\.streamVersion) == [3])

            // Empty filters read nothing (and ask nothing).
            #expect(try await store.readStream("trip:acme/t-1", after: 0, filter: StreamFilter(types: [])).isEmpty)
            #expect(try await store.readStream("trip:acme/t-1", after: 0, filter: StreamFilter(recordedFrom: base + 5, recordedThrough: base)).isEmpty)
            #expect(try await store.readStream("trip:acme/t-9", after: 0, filter: StreamFilter()).isEmpty)
            await store.shutdown()
        }
    }

    @Test func aVehicleStreamSpanningDailyPartitionsReadsInVersionOrderAndTheWindowSelectsItsDays() async throws {
        try await TestDatabase.withTestDatabase { url in
            let clock = Clock()
            let store = store(url, clock)
            let day: Int64 = 86_400_000_000
            let base: Int64 = 1_700_000_000_000_000
            for i in 0..<6 {
                clock.set(base + Int64(i) * day / 2)  // two events a day, over three days (three partitions)
                _ = try await store.append([event("VehicleLocationReported", ["i": .number(JSONNumber(i))])], to: "vehicle:acme/v-1", expectedVersion: .any)
            }
            let all = try await store.readWholeStream("vehicle:acme/v-1", pageSize: 4)
            #expect(all.map(\.streamVersion) == [1, 2, 3, 4, 5, 6])
            let middle = try await store.readStream("vehicle:acme/v-1", after: 0,
                                                    filter: StreamFilter(recordedFrom: base + day / 2, recordedThrough: base + 2 * day))
            #expect(middle.map(\.streamVersion) == [2, 3, 4, 5])
            let until = try await store.readWholeStream("vehicle:acme/v-1", filter: StreamFilter(recordedThrough: base + day), pageSize: 1)
            #expect(until.map(\.streamVersion) == [1, 2, 3])
            await store.shutdown()
        }
    }

    @Test func eventCountCountsWhatWasRecordedThroughTheInstantAndNotArchivedDays() async throws {
        try await TestDatabase.withTestDatabase { url in
            let clock = Clock()
            let store = store(url, clock)
            let day: Int64 = 86_400_000_000
            let base: Int64 = 1_700_000_000_000_000  // 2023-11-14T22:13:20Z: versions 1 | 2, 3 | 4, 5 | 6 by UTC day
            for i in 0..<6 {
                clock.set(base + Int64(i) * day / 2)
                _ = try await store.append([event("VehicleLocationReported")], to: "vehicle:acme/v-1", expectedVersion: .any)
            }
            clock.set(base + 3 * day)  // after the vehicle's: the store's clock never goes back
            _ = try await store.append([event("A"), event("B")], to: "trip:acme/t-1", expectedVersion: .any)

            #expect(try await store.eventCount("vehicle:acme/v-1", recordedThrough: base - 1) == 0)
            #expect(try await store.eventCount("vehicle:acme/v-1", recordedThrough: base) == 1)
            #expect(try await store.eventCount("vehicle:acme/v-1", recordedThrough: base + day) == 3)
            #expect(try await store.eventCount("vehicle:acme/v-1", recordedThrough: base + 10 * day) == 6)
            #expect(try await store.eventCount("trip:acme/t-1", recordedThrough: base + 3 * day - 1) == 0)
            #expect(try await store.eventCount("trip:acme/t-1", recordedThrough: base + 3 * day) == 2)
            #expect(try await store.eventCount("trip:acme/t-9", recordedThrough: base + 3 * day) == 0)

            // An archived day is gone from the count: it starts at the first version still stored.
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                let partition = try connection.query("SELECT tableoid::regclass::text FROM events WHERE stream_id = 'vehicle:acme/v-1' AND stream_version = 1")
                    .first?.string(0) ?? ""
                try #require(partition.hasPrefix("events_vehicle_"), "\(partition)")
                try connection.execute("DROP TABLE \(Connection.quoteIdentifier(partition))")
            }
            #expect(try await store.eventCount("vehicle:acme/v-1", recordedThrough: base) == 0)
            #expect(try await store.eventCount("vehicle:acme/v-1", recordedThrough: base + day) == 2)
            #expect(try await store.eventCount("vehicle:acme/v-1", recordedThrough: base + 10 * day) == 5)
            await store.shutdown()
        }
    }

    @Test func intersectingFiltersKeepsTheCommonTypesAndTheNarrowerRange() {
        let a = StreamFilter(types: ["A", "B"], recordedFrom: 10, recordedThrough: 100)
        let b = StreamFilter(types: ["B", "C"], recordedFrom: 20)
        let both = a.intersected(with: b)
        #expect(both.types == ["B"])
        #expect(both.recordedFrom == 20 && both.recordedThrough == 100)
        #expect(!both.isEmpty)
        #expect(a.intersected(with: StreamFilter(types: ["C"])).isEmpty)
        #expect(StreamFilter(recordedFrom: 5).intersected(with: StreamFilter(recordedThrough: 4)).isEmpty)
        #expect(StreamFilter().intersected(with: StreamFilter()) == StreamFilter())
    }
}
