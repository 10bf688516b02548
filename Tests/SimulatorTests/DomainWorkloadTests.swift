import Foundation
import JSON
import Journey
import Simulator
import Testing

/// The generated workloads are deterministic, append-ready and legal.
@Suite(.timeLimit(.minutes(2)))
struct DomainWorkloadTests {
    static let start = Timestamp(secondsSinceEpoch: 1_772_352_000)

    @Test func theSameSeedGivesTheSameEventsAndAnotherSeedDoesNot() {
        let a = DomainWorkload(seed: 7, provider: "acme", vehicles: 5, trips: 12, start: Self.start).commands()
        let b = DomainWorkload(seed: 7, provider: "acme", vehicles: 5, trips: 12, start: Self.start).commands()
        let c = DomainWorkload(seed: 8, provider: "acme", vehicles: 5, trips: 12, start: Self.start).commands()
        #expect(!a.isEmpty)
        #expect(a == b)
        #expect(a != c)
    }

    @Test func everyAppendContinuesItsStreamAndEveryPayloadDecodesAsItsDomainEvent() throws {
        var versions: [String: Int64] = [:]
        var ids: Set<UUID> = []
        var types: [String: Int] = [:]
        var tripStates: [String: Trip.State] = [:]
        var vehicleStates: [String: Vehicle.State] = [:]
        for command in DomainWorkload(seed: 42, provider: "acme", vehicles: 20, trips: 80, start: Self.start) {
            #expect(!command.appends.isEmpty)
            #expect(Set(command.appends.map(\.streamId)).count == command.appends.count, "one append per stream per command")
            for append in command.appends {
                #expect(append.expectedVersion == versions[append.streamId, default: 0], "\(append.streamId)")
                #expect(!append.events.isEmpty)
                versions[append.streamId, default: 0] += Int64(append.events.count)
                for event in append.events {
                    #expect(event.streamId == append.streamId && event.expectedVersion == append.expectedVersion)
                    #expect(ids.insert(event.id).inserted, "event ids are unique")
                    types[event.type, default: 0] += 1
                    let data = Data(event.data.compactBytes())
                    if append.streamId.hasPrefix("trip:acme/") {
                        let decoded = try Trip.Event.decode(type: event.type, data: data)
                        tripStates[append.streamId] = Trip.evolve(tripStates[append.streamId] ?? Trip.State(), with: decoded)
                    } else {
                        #expect(append.streamId.hasPrefix("vehicle:acme/"))
                        let decoded = try Vehicle.Event.decode(type: event.type, data: data)
                        vehicleStates[append.streamId] = Vehicle.evolve(vehicleStates[append.streamId] ?? Vehicle.State(), with: decoded)
                    }
                }
            }
        }
        #expect(tripStates.count == 80)
        #expect(vehicleStates.count == 20)
        #expect(tripStates.values.allSatisfy { !$0.exists || $0.status.isTerminal }, "every trip ends COMPLETE, CANCELED or deleted")
        #expect(tripStates.values.contains { !$0.exists })
        #expect(vehicleStates.values.allSatisfy { $0.exists }, "a deleted vehicle is registered again")
        #expect(tripStates.values.filter { $0.status == .complete }.count > 50)
        #expect(tripStates.values.contains { $0.status == .canceled })
        #expect(vehicleStates.values.allSatisfy { $0.currentTrips.isEmpty && $0.waypoints.isEmpty })
        // The workload exercises the interesting paths.
        for type in [Trip.Event.tripCreated, Trip.Event.tripVehicleAssigned, Trip.Event.tripRoutePlanned, Trip.Event.tripStatusChanged,
                     Trip.Event.tripCompleted, Trip.Event.tripCanceled, Trip.Event.tripRouteDestinationAdvanced,
                     Trip.Event.tripActualLocationRecorded, Trip.Event.tripRouteTokenExecutionReported,
                     Vehicle.Event.vehicleRegistered, Vehicle.Event.vehicleLocationReported, Vehicle.Event.vehicleStaleLocationRecorded,
                     Vehicle.Event.vehicleLocationHistoryRecorded, Vehicle.Event.vehicleRouteSegmentUpdated,
                     Vehicle.Event.vehicleRemainingRouteReported, Vehicle.Event.vehicleRouteFollowed, Vehicle.Event.vehicleWentOffRoute,
                     Vehicle.Event.vehicleTripAssigned, Vehicle.Event.vehicleTripWaypointsUpdated, Vehicle.Event.vehicleTripReleased,
                     Vehicle.Event.vehicleNavigationStatusChanged, Vehicle.Event.vehicleStateChanged, Vehicle.Event.vehicleRerouted,
                     Vehicle.Event.vehicleRejoinedRoute, Vehicle.Event.vehicleWaypointsReordered, Trip.Event.tripVehicleUnassigned,
                     Trip.Event.tripIntermediateDestinationsChanged, Trip.Event.tripDropoffPointSet,
                     Trip.Event.tripDeleted, Trip.Event.tripPickupPointSet, Vehicle.Event.vehicleAttributesSet,
                     Vehicle.Event.vehicleBackToBackEnabledChanged, Vehicle.Event.vehicleCapabilitiesChanged,
                     Vehicle.Event.vehicleLicensePlateSet, Vehicle.Event.vehicleDeleted] {
            #expect(types[type, default: 0] > 0, "no \(type) in the workload")
        }
    }

    @Test func aFloodHasExactlyTheRequestedNumberOfLegalEvents() throws {
        var count = 0
        var versions: [String: Int64] = [:]
        for command in DomainWorkloadFlood(seed: 1, provider: "bench", vehicles: 50, events: 5_000, start: Self.start) {
            for append in command.appends {
                #expect(append.expectedVersion == versions[append.streamId, default: 0])
                versions[append.streamId, default: 0] += Int64(append.events.count)
                for event in append.events {
                    _ = try Vehicle.Event.decode(type: event.type, data: Data(event.data.compactBytes()))
                    count += 1
                }
            }
        }
        #expect(count == 5_000)
        #expect(versions.count == 50)
    }
}
