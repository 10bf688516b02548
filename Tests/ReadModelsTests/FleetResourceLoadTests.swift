import JSON
import Journey
import ReadModels
import Testing

/// `load` restores exactly the state a fresh fold has, so a restart continues byte for byte.
@Suite struct FleetResourceLoadTests {
    @Test func loadThenContinueEqualsApplyAllAtEverySplitPoint() throws {
        let envelopes = try FleetScenario.completed().envelopes
        var all = ProjectionStore<FleetResourceProjection>()
        all.apply(envelopes)
        for split in 1..<envelopes.count {
            // given the documents written after the first `split` events
            var first = ProjectionStore<FleetResourceProjection>()
            first.apply(envelopes[..<split])
            // when a fresh projection loads them (in reverse, order must not matter) and continues
            var restarted = ProjectionStore<FleetResourceProjection>()
            restarted.projection.load(first.stored.reversed())
            restarted.documents = first.documents
            #expect(restarted.projection == first.projection, "state differs after load at split \(split)")
            restarted.apply(envelopes[split...])
            // then it holds the same documents as the projection that applied everything
            #expect(restarted.documents == all.documents, "documents differ at split \(split)")
            #expect(restarted.projection == all.projection, "state differs at split \(split)")
        }
    }

    @Test func continuingAfterLoadWritesTheSameBatchAsTheLiveProjection() throws {
        let envelopes = try FleetScenario.completed().envelopes
        let split = envelopes.count / 2
        var live = ProjectionStore<FleetResourceProjection>()
        live.apply(envelopes[..<split])
        var restarted = ProjectionStore<FleetResourceProjection>()
        restarted.projection.load(live.stored)
        // when both take the same next batch
        live.apply(envelopes[split...])
        restarted.apply(envelopes[split...])
        // then they write the same changes, in the same order, with the same bytes
        #expect(live.lastBatch.map(\.collection) == restarted.lastBatch.map(\.collection))
        #expect(live.lastBatch.map(\.key) == restarted.lastBatch.map(\.key))
        #expect(live.lastBatch.map { $0.document?.compactString } == restarted.lastBatch.map { $0.document?.compactString })
        #expect(!live.lastBatch.isEmpty)
    }

    @Test func drainWritesEachChangedDocumentOnceInCollectionAndKeyOrder() throws {
        var projection = FleetResourceProjection()
        for envelope in try FleetScenario.enrouteToPickup().envelopes { projection.apply(envelope) }
        let batch = projection.drainChanges()
        let addresses = batch.map { "\($0.collection)|\($0.key)" }
        #expect(addresses == [
            "trip_states|providers/acme/trips/t-1", "trips|providers/acme/trips/t-1",
            "vehicle_states|providers/acme/vehicles/v-1", "vehicles|providers/acme/vehicles/v-1",
        ])
        #expect(projection.drainChanges().isEmpty)
    }
}

/// The vehicle documents stored at every report are built by hand; they are byte for byte what
/// the generic encoder writes, so a rebuild or `verify-projections` finds no difference.
@Suite struct RecordDocumentTests {
    @Test(arguments: ["withVehicle", "enrouteToPickup", "completed", "offRouteTrip", "completedUpdatedAndDeleted", "lifecycles"])
    func vehicleRecordsOfEveryScenarioAreStoredAsTheGenericEncoderWritesThem(scenario: String) throws {
        let envelopes: [EventEnvelope] = switch scenario {
        case "withVehicle": try FleetScenario.withVehicle().envelopes
        case "enrouteToPickup": try FleetScenario.enrouteToPickup().envelopes
        case "completed": try FleetScenario.completed().envelopes
        case "offRouteTrip": try RouteAuditProjectionTests.offRouteTrip().envelopes
        case "completedUpdatedAndDeleted": try FleetScenario.completedUpdatedAndDeleted().envelopes
        default: try FleetScenario.lifecycles().envelopes
        }
        var fleet = FleetResourceProjection()
        var journey = JourneyViewProjection()
        var checked = 0
        for envelope in envelopes {
            fleet.apply(envelope)
            journey.apply(envelope)
            #expect(fleet.recordEncodingMismatches.isEmpty)
            #expect(journey.recordEncodingMismatches.isEmpty)
            checked += 1
        }
        #expect(checked == envelopes.count && checked > 0)
    }
}
