import EventStore
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct AppendTests {
    @Test func appendToANewStreamStartsAtVersionOneAndReadsBackInOrder() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            let result = try await store.append([event("A"), event("B"), event("C")], to: "trip:acme/t-1", expectedVersion: .noStream)
            #expect(result.firstVersion == 1 && result.lastVersion == 3)
            #expect(result.positions.count == 3 && result.positions == result.positions.sorted())
            let events = try await store.readStream("trip:acme/t-1")
            #expect(events.map(\.type) == ["A", "B", "C"])
            #expect(events.map(\.streamVersion) == [1, 2, 3])
            #expect(events.map(\.globalPosition) == result.positions)
            #expect(try await store.streamVersion("trip:acme/t-1") == 3)
            let backwards = try await store.readStreamBackwards("trip:acme/t-1", limit: 2)
            #expect(backwards.map(\.streamVersion) == [3, 2])
            await store.shutdown()
        }
    }

    @Test func appendWithStaleExpectedVersionThrowsConflictNamingBothVersions() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            _ = try await store.append([event(), event()], to: "trip:acme/t-1", expectedVersion: .noStream)
            do {
                _ = try await store.append([event()], to: "trip:acme/t-1", expectedVersion: .exact(1))
                Issue.record("a stale expected version must conflict")
            } catch let error as EventStoreError {
                #expect(error.code == .wrongExpectedVersion)
                #expect(error.message == "expected version 1 does not match stream version 2 (stream trip:acme/t-1)")
            }
            #expect(try await store.readStream("trip:acme/t-1").count == 2)
            _ = try await store.append([event()], to: "trip:acme/t-1", expectedVersion: .exact(2))
            #expect(try await store.streamVersion("trip:acme/t-1") == 3)
            await store.shutdown()
        }
    }

    @Test func noStreamOnAnExistingStreamThrowsConflictAndExactOnAMissingOneToo() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            _ = try await store.append([event()], to: "trip:acme/t-1", expectedVersion: .noStream)
            await #expect(throws: EventStoreError.self) {
                _ = try await store.append([event()], to: "trip:acme/t-1", expectedVersion: .noStream)
            }
            do {
                _ = try await store.append([event()], to: "trip:acme/missing", expectedVersion: .exact(3))
                Issue.record("exact version on a missing stream must conflict")
            } catch let error as EventStoreError {
                #expect(error.code == .wrongExpectedVersion)
                #expect(error.message.contains("the stream does not exist"))
            }
            #expect(try await store.streamVersion("trip:acme/missing") == 0)
            await store.shutdown()
        }
    }

    @Test(arguments: [ExpectedVersion.noStream, .any])
    func retryWithTheSameEventIdsReturnsTheOriginalPositionsAndWritesNothing(expected: ExpectedVersion) async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            let events = [event("A", ["x": 1]), event("B", ["x": 2])]
            let first = try await store.append(events, to: "trip:acme/t-1", expectedVersion: expected)
            // The retry carries new metadata (a new request id): still the same events.
            let retried = events.map { EventData(id: $0.id, type: $0.type, data: $0.data, metadata: ["request": "retry"]) }
            let second = try await store.append(retried, to: "trip:acme/t-1", expectedVersion: expected)
            #expect(second.deduplicated)
            #expect(second.positions == first.positions)
            #expect(second.firstVersion == 1 && second.lastVersion == 2)
            #expect(try await store.readStream("trip:acme/t-1").count == 2)
            await store.shutdown()
        }
    }

    @Test func sameEventIdWithADifferentPayloadIsRejected() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            let id = UUID()
            _ = try await store.append([event("A", ["x": 1], id: id)], to: "trip:acme/t-1", expectedVersion: .any)
            do {
                _ = try await store.append([event("A", ["x": 2], id: id)], to: "trip:acme/t-1", expectedVersion: .any)
                Issue.record("a reused id with another payload must be rejected")
            } catch let error as EventStoreError {
                #expect(error.code == .duplicateEventId)
                #expect(error.message.contains(id.uuidString.lowercased()))
            }
            // The same id in another stream is also a different event.
            await #expect(throws: EventStoreError.self) {
                _ = try await store.append([event("A", ["x": 1], id: id)], to: "trip:acme/t-2", expectedVersion: .any)
            }
            #expect(try await store.readStream("trip:acme/t-1").count == 1)
            #expect(try await store.streamVersion("trip:acme/t-2") == 0)
            await store.shutdown()
        }
    }

    @Test func aConflictInOneAppendOfABatchDoesNotFailTheOthers() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            _ = try await store.append([event()], to: "trip:acme/existing", expectedVersion: .noStream)
            let results = await store.appendBatch([
                StreamAppend(streamId: "vehicle:acme/v-1", expectedVersion: .any, events: [event("Loc"), event("Loc")]),
                StreamAppend(streamId: "trip:acme/existing", expectedVersion: .noStream, events: [event()]),
                StreamAppend(streamId: "trip:acme/new", expectedVersion: .noStream, events: [event()]),
                StreamAppend(streamId: "", expectedVersion: .any, events: [event()]),
            ])
            #expect(results.count == 4)
            #expect((try? results[0].get())?.lastVersion == 2)
            if case .failure(let error) = results[1] { #expect(error.code == .wrongExpectedVersion) } else { Issue.record("expected a conflict") }
            #expect((try? results[2].get())?.lastVersion == 1)
            if case .failure(let error) = results[3] { #expect(error.code == .invalidEvent) } else { Issue.record("expected invalid") }
            #expect(try await store.readStream("vehicle:acme/v-1").count == 2)
            #expect(try await store.readStream("trip:acme/existing").count == 1)
            await store.shutdown()
        }
    }

    @Test func concurrentAppendsWithExactVersionsToOneStreamNeverBothSucceed() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url, committers: 3)
            _ = try await store.append([event()], to: "trip:acme/t-1", expectedVersion: .noStream)
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask { (try? await store.append([event()], to: "trip:acme/t-1", expectedVersion: .exact(1))) != nil }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(try await store.streamVersion("trip:acme/t-1") == 2)
            await store.shutdown()
        }
    }

    @Test func concurrentSingleAppendsAreAllStoredWithDenseStreamVersions() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url, committers: 2)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<16 {
                    group.addTask {
                        for _ in 0..<25 { _ = try await store.append([event()], to: "vehicle:acme/v-\(writer % 4)", expectedVersion: .any) }
                    }
                }
                try await group.waitForAll()
            }
            for vehicle in 0..<4 {
                let versions = try await store.readStream("vehicle:acme/v-\(vehicle)").map(\.streamVersion)
                #expect(versions == Array(1...100))
            }
            await store.shutdown()
        }
    }

    @Test func malformedAppendsAreRejectedWithoutTouchingTheDatabase() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            let id = UUID()
            let bad: [(String, [EventData])] = [
                ("", [event()]),
                (String(repeating: "x", count: 600), [event()]),
                ("trip:acme/t-1", [event("")]),
                ("trip:acme/t-1", [event("A", id: id), event("B", id: id)]),
            ]
            for (stream, events) in bad {
                do {
                    _ = try await store.append(events, to: stream, expectedVersion: .any)
                    Issue.record("must reject stream \(stream.prefix(20))")
                } catch let error as EventStoreError {
                    #expect(error.code == .invalidEvent)
                }
            }
            #expect(try await store.readAll(after: .start).isEmpty)
            await store.shutdown()
        }
    }
}

@Suite(.timeLimit(.minutes(2))) struct AppendNotificationTests {
    /// The wake-up `NOTIFY` runs after the append's `COMMIT`, in a transaction of its own (inside
    /// the append's transaction it would hold PostgreSQL's global notify lock across the commit's
    /// WAL flush). So a notification that fails cannot undo or fail an append: the retry finds the
    /// events stored and answers with their positions. A channel name longer than PostgreSQL's 63
    /// bytes makes every `pg_notify` fail.
    @Test func anAppendIsStoredAndAcknowledgedWhenOnlyItsNotificationFails() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = EventStore(.init(conninfo: url, readPoolSize: 2, committers: 1, listen: false,
                                         notifyChannel: String(repeating: "n", count: 70)))
            let first = try await store.append([event("A")], to: "vehicle:acme/v-1", expectedVersion: .noStream)  // locking path
            let second = try await store.append([event("B")], to: "vehicle:acme/v-1", expectedVersion: .exact(1))  // one round trip
            let many = (0..<200).map { event("C\($0)") }
            let copied = try await store.append(many, to: "vehicle:acme/v-1", expectedVersion: .exact(2))  // COPY
            #expect(first.lastVersion == 1 && second.lastVersion == 2 && copied.lastVersion == 202)
            let stored = try await store.readStream("vehicle:acme/v-1")
            #expect(stored.map(\.streamVersion) == Array(1...202))
            #expect(stored.map(\.globalPosition) == first.positions + second.positions + copied.positions)
            #expect(HashChain.firstBreak(in: stored, previous: HashChain.genesis) == nil)
            await store.shutdown()
        }
    }
}

@Suite(.timeLimit(.minutes(2))) struct OneRoundTripTests {
    @Test func appendsToAStreamThisProcessWroteBeforeTakeTheOneRoundTripPath() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url, committers: 1)
            _ = try await store.append([event()], to: "vehicle:acme/v-1", expectedVersion: .any)
            #expect(store.appendStatistics.lockingGroups == 1 && store.appendStatistics.fastPathGroups == 0)
            for expected in 1...5 {
                _ = try await store.append([event()], to: "vehicle:acme/v-1", expectedVersion: .exact(Int64(expected)))
            }
            let stats = store.appendStatistics
            #expect(stats.fastPathGroups == 5)
            #expect(stats.lockingGroups == 1)
            let events = try await store.readStream("vehicle:acme/v-1")
            #expect(events.map(\.streamVersion) == Array(1...6))
            #expect(HashChain.firstBreak(in: events, previous: HashChain.genesis) == nil)
            await store.shutdown()
        }
    }

    @Test func aGroupOfHundredsOfEventsIsCopiedInWithPositionsIdsAndChainsLikeAnInsertedOne() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url, committers: 1)
            let streams = (0..<300).map { "vehicle:acme/v-\($0)" }
            // First appends create the streams (locking path); the second batch is one group of 600
            // events on cached heads: the COPY path.
            let created = await store.appendBatch(streams.map { StreamAppend(streamId: $0, expectedVersion: .noStream, events: [event("Loc", ["n": 0])]) })
            #expect(created.allSatisfy { (try? $0.get()) != nil })
            let fastBefore = store.appendStatistics.fastPathGroups
            // Data with the bytes COPY text must escape (backslash, tab, newline, carriage return).
            let batch = streams.enumerated().map { index, stream in
                StreamAppend(streamId: stream, expectedVersion: .exact(1), events: [
                    event("Loc", ["n": .number(JSONNumber(Int64(index))), "note": "a\\b\tc\nd\re"]), event("Loc", ["n": 1.50]),
                ])
            }
            let results = await store.appendBatch(batch).map { try? $0.get() }
            #expect(store.appendStatistics.fastPathGroups == fastBefore + 1)
            #expect(results.allSatisfy { $0?.lastVersion == 3 })
            let positions = results.flatMap { $0?.positions ?? [] }
            #expect(positions.count == 600 && positions == positions.sorted() && Set(positions).count == 600)
            #expect(Set(results.compactMap { $0?.transactionId }).count == 1)

            // The feed has the group in order, with the data as appended (in canonical form).
            // (Other tests' transactions on the cluster can hold the feed's horizon back a moment.)
            var feed: [RecordedEvent] = []
            let deadline = Date().addingTimeInterval(20)
            while feed.count < 900, Date() < deadline {
                let page = try await store.readAll(after: feed.last?.feedPosition ?? .start, limit: 1000)
                if page.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
                feed += page
            }
            let copied = Array(feed.dropFirst(300))
            #expect(copied.map(\.globalPosition) == positions)
            #expect(copied.first?.data["note"] == "a\\b\tc\nd\re")
            #expect(copied.last?.data["n"] == 1.5)
            for stream in streams.prefix(5) + streams.suffix(5) {
                let events = try await store.readStream(stream)
                #expect(events.map(\.streamVersion) == [1, 2, 3])
                #expect(HashChain.firstBreak(in: events, previous: HashChain.genesis) == nil)
            }
            // The ids are in event_ids: found by id, and a retry of the batch is deduplicated.
            let ids = batch.flatMap { $0.events.map(\.id) }
            #expect(try await store.readEvents(ids: ids).count == 600)
            let retried = await store.appendBatch(batch).map { try? $0.get() }
            #expect(retried.allSatisfy { $0?.deduplicated == true })
            #expect(retried.flatMap { $0?.positions ?? [] } == positions)
            #expect(try await store.streamVersion(streams[0]) == 3)
            await store.shutdown()
        }
    }

    @Test func anotherNodesAppendMakesTheCachedHeadStaleAndTheGroupIsRetriedOnTheLockingPath() async throws {
        try await TestDatabase.withTestDatabase { url in
            let nodeA = makeStore(url, committers: 1), nodeB = makeStore(url, committers: 1)
            _ = try await nodeA.append([event("A1")], to: "trip:acme/t-1", expectedVersion: .noStream)
            _ = try await nodeB.append([event("B2")], to: "trip:acme/t-1", expectedVersion: .exact(1))
            // Node A still believes the stream is at version 1.
            let appended = try await nodeA.append([event("A3")], to: "trip:acme/t-1", expectedVersion: .any)
            #expect(appended.firstVersion == 3)
            #expect(nodeA.appendStatistics.retries == 1)
            // With a stale cache, a stale expectation is still a conflict with the true version.
            switch await appendResult(nodeB, [event("B?")], to: "trip:acme/t-1", expectedVersion: .exact(2)) {
            case .success: Issue.record("exact(2) must conflict: the stream is at 3")
            case .failure(let error): #expect(error.message == "expected version 2 does not match stream version 3 (stream trip:acme/t-1)")
            }
            let events = try await nodeA.readStream("trip:acme/t-1")
            #expect(events.map(\.type) == ["A1", "B2", "A3"])
            #expect(HashChain.firstBreak(in: events, previous: HashChain.genesis) == nil)
            await nodeA.shutdown()
            await nodeB.shutdown()
        }
    }

    @Test func aConflictInAGroupOfManyHeadsLeavesTheOtherHeadsUpdatedAndChained() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url, committers: 1)
            let streams = (0..<200).map { "trip:acme/many-\($0)" }
            let created = await store.appendBatch(streams.map { StreamAppend(streamId: $0, expectedVersion: .noStream, events: [event("Made")]) })
            #expect(created.allSatisfy { (try? $0.get()) != nil })
            // One append expects the wrong version: the group goes the locking way and updates 199 heads at once.
            let second = await store.appendBatch(streams.enumerated().map { index, stream in
                StreamAppend(streamId: stream, expectedVersion: .exact(index == 7 ? 5 : 1), events: [event("Moved")])
            })
            #expect(second.enumerated().allSatisfy { index, result in index == 7 ? (try? result.get()) == nil : (try? result.get())?.lastVersion == 2 })
            // The heads are right: the next group passes its version checks on 200 heads (199 at 2, one at 1).
            let third = await store.appendBatch(streams.enumerated().map { index, stream in
                StreamAppend(streamId: stream, expectedVersion: .exact(index == 7 ? 1 : 2), events: [event("Again")])
            })
            #expect(third.allSatisfy { (try? $0.get()) != nil })
            for stream in [streams[0], streams[7], streams[199]] {
                let events = try await store.readStream(stream)
                #expect(events.map(\.type) == (stream == streams[7] ? ["Made", "Again"] : ["Made", "Moved", "Again"]))
                #expect(HashChain.firstBreak(in: events, previous: HashChain.genesis) == nil)
                #expect(try await store.streamVersion(stream) == Int64(events.count))
            }
            await store.shutdown()
        }
    }

    @Test func anIdempotentRetryOfACachedStreamIsRecognisedNotReportedAsAConflict() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url, committers: 1)
            let first = event("A")
            _ = try await store.append([first], to: "trip:acme/t-1", expectedVersion: .noStream)
            _ = try await store.append([event("B")], to: "trip:acme/t-1", expectedVersion: .exact(1))
            let retry = try await store.append([first], to: "trip:acme/t-1", expectedVersion: .noStream)
            #expect(retry.deduplicated && retry.lastVersion == 1)
            await store.shutdown()
        }
    }

    @Test func anEventGivenAsCanonicalBytesIsStoredAndHashedAsTheSameEventGivenAsAValue() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url, committers: 1)
            let value = try JSONValue.parse(#"{"b": [1.50, "x/\u00e9"], "a": {"z": 1e2, "y": null}}"#)
            let id = UUID()
            let asBytes = EventData(id: id, type: "ThingHappened", canonicalData: value.canonicalBytes(), metadata: ["source": "test"])
            let asValue = EventData(id: id, type: "ThingHappened", data: value, metadata: ["source": "test"])
            #expect(asBytes == asValue && asBytes.hashValue == asValue.hashValue && asBytes.data == value)
            let written = try await store.append([asBytes], to: "trip:acme/t-1", expectedVersion: .noStream)
            let stored = try #require(try await store.readStream("trip:acme/t-1").first)
            #expect(stored.data == value)
            #expect(stored.hash == HashChain.hash(of: stored, previous: HashChain.genesis))
            // The same event given as a value is a retry of the stored one.
            let retry = try await store.append([asValue], to: "trip:acme/t-1", expectedVersion: .noStream)
            #expect(retry.deduplicated && retry.positions == written.positions)
            await store.shutdown()
        }
    }
}
