import Foundation
import Geo
import JSON
import Journey
import Simulator
import Testing

/// The arrival detector: geofence + dwell on device time, from one vehicle's events.
@Suite struct StopArrivalTests {
    static let start = Timestamp(secondsSinceEpoch: 1_800_000_000)
    static let pickup = LatLng(uncheckedLatitude: 52.5000, longitude: 13.4000)
    static let middle = LatLng(uncheckedLatitude: 52.5100, longitude: 13.4000)
    static let dropoff = LatLng(uncheckedLatitude: 52.5200, longitude: 13.4000)
    /// Another trip's pickup on the way, which the vehicle passes and briefly stops in without arriving.
    static let other = LatLng(uncheckedLatitude: 52.5150, longitude: 13.4000)

    static func waypoint(_ trip: String, _ type: WaypointType, _ point: LatLng) -> TripWaypoint {
        TripWaypoint(tripId: trip, waypointType: type, location: TerminalLocation(point: point))
    }

    static let allWaypoints = [
        waypoint("t-1", .pickup, pickup), waypoint("t-1", .intermediateDestination, middle),
        waypoint("t-2", .pickup, other), waypoint("t-1", .dropOff, dropoff),
    ]

    static func assigned(_ waypoints: [TripWaypoint]) -> Vehicle.Event {
        .tripAssigned(.init(vehicleId: "v-1", tripId: "t-1", tripType: .shared, numberOfPassengers: 1, waypoints: waypoints, at: start))
    }

    static func updated(_ waypoints: [TripWaypoint], at seconds: Double) -> Vehicle.Event {
        .tripWaypointsUpdated(.init(vehicleId: "v-1", tripId: "t-1", tripStatus: .enrouteToIntermediateDestination, waypoints: waypoints,
                                    at: start.adding(seconds: seconds)))
    }

    static func report(_ point: LatLng, at seconds: Double, accuracy: Double? = 8) -> Vehicle.Event {
        let time = start.adding(seconds: seconds)
        return .locationReported(.init(vehicleId: "v-1", location: VehicleLocation(location: point, updateTime: time, latlngAccuracy: accuracy),
                                       currentTripIds: ["t-1"], offRouteReportCount: 0, at: time))
    }

    /// `point` moved by up to `meters` in a random direction.
    static func noisy(_ point: LatLng, _ meters: Double, _ random: inout SeededRandom) -> LatLng {
        Distance.destination(from: point, bearing: random.between(0.0...360.0), meters: random.between(0.0...meters))
    }

    /// Runs events through the detector.
    static func run(_ events: [Vehicle.Event], options: StopArrival.Options = .init(), from state: StopArrival.State = .init())
        -> (StopArrival.State, [StopArrival.Event]) {
        var state = state
        var facts: [StopArrival.Event] = []
        for event in events {
            let (next, new) = StopArrival.detect(state, with: event, vehicleId: "v-1", options: options)
            state = next
            facts += new
        }
        return (state, facts)
    }

    /// A drive north from 600 m before the pickup to past the drop-off: reports every 2 s with GPS
    /// noise, a 60 s stop at the pickup (with a 65 m outlier), 30 s at the intermediate stop,
    /// a drive through the other trip's pickup fence with a 12 s halt inside it, 40 s at the drop-off.
    static func scriptedDrive(seed: UInt64) -> [Vehicle.Event] {
        var random = SeededRandom(seed: seed)
        var events: [Vehicle.Event] = [assigned(allWaypoints)]
        var t = 0.0
        var position = Distance.destination(from: pickup, bearing: 180, meters: 600)
        func drive(to target: LatLng, speed: Double = 10) {
            while Distance.meters(position, target) > speed * 2 {
                position = Distance.destination(from: position, bearing: Distance.initialBearing(from: position, to: target), meters: speed * 2)
                t += 2
                events.append(report(noisy(position, 8, &random), at: t))
            }
            position = target
        }
        func wait(_ seconds: Double, at point: LatLng, noise: Double = 10) {
            let end = t + seconds
            while t < end {
                t += 2
                events.append(report(noisy(point, noise, &random), at: t))
            }
        }
        drive(to: pickup)
        wait(30, at: pickup)
        events.append(report(Distance.destination(from: pickup, bearing: 90, meters: 65), at: t + 1))  // one outlier past the radius
        t += 1
        wait(30, at: pickup)
        events.append(updated(Array(allWaypoints.dropFirst()), at: t))  // the driver marks the pickup done
        drive(to: middle)
        wait(30, at: middle)
        drive(to: Distance.destination(from: other, bearing: 180, meters: 20))
        wait(12, at: Distance.destination(from: other, bearing: 180, meters: 20), noise: 5)  // a red light inside the fence
        drive(to: dropoff)
        wait(40, at: dropoff)
        drive(to: Distance.destination(from: dropoff, bearing: 0, meters: 300))
        return events
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func aScriptedDriveWithGPSNoiseArrivesOncePerStopAndNeverAtAStopItOnlyPassed(seed: UInt64) {
        let (_, facts) = Self.run(Self.scriptedDrive(seed: seed))
        let arrivals = facts.compactMap { if case .arrived(let a) = $0 { a } else { nil } }
        let departures = facts.compactMap { if case .left(let l) = $0 { l } else { nil } }
        #expect(arrivals.map { "\($0.tripId)#\($0.waypointIndex)" } == ["t-1#0", "t-1#1", "t-1#2"], "\(facts)")
        #expect(arrivals.map(\.waypointType) == [.pickup, .intermediateDestination, .dropOff])
        #expect(departures.map { "\($0.tripId)#\($0.waypointIndex)" } == ["t-1#0", "t-1#1", "t-1#2"])
        for arrival in arrivals {
            #expect(arrival.distanceMeters <= 50)
            #expect(arrival.arrivalTime.seconds(since: arrival.enteredTime) >= 20)
            #expect(arrival.visit == 1)
            #expect(arrival.radiusMeters == 50 && arrival.dwellSeconds == 20)
        }
        for (arrival, departure) in zip(arrivals, departures) {
            #expect(departure.arrivalTime == arrival.arrivalTime)
            #expect(departure.leftTime > arrival.arrivalTime)
            #expect(departure.distanceMeters > StopArrival.Options().exitRadiusMeters)
        }
    }

    @Test func outOfOrderAndStaleReportsNeverProduceAnArrival() {
        let far = Distance.destination(from: Self.pickup, bearing: 180, meters: 500)
        var events: [Vehicle.Event] = [Self.assigned(Self.allWaypoints), Self.report(far, at: 100)]
        // Older reports at the pickup, spanning more than the dwell: all earlier than the last one used.
        for seconds in stride(from: 10.0, through: 90, by: 5) { events.append(Self.report(Self.pickup, at: seconds)) }
        // A stale report the vehicle aggregate set aside.
        events.append(.staleLocationRecorded(.init(vehicleId: "v-1", location: VehicleLocation(location: Self.pickup, updateTime: Self.start),
                                                   lastAcceptedUpdateTime: Self.start.adding(seconds: 100), at: Self.start.adding(seconds: 101))))
        // A backlog of past locations at the stop.
        events.append(.locationHistoryRecorded(.init(vehicleId: "v-1", locations: [VehicleLocation(location: Self.pickup, updateTime: Self.start.adding(seconds: 50))],
                                                     at: Self.start.adding(seconds: 101))))
        // Repeated device times inside the fence do not add up to a dwell either.
        events.append(Self.report(Self.pickup, at: 110))
        events.append(Self.report(Self.pickup, at: 110))
        events.append(Self.report(Self.pickup, at: 110))
        let (_, facts) = Self.run(events)
        #expect(facts == [])
        // In device order, the same stay is an arrival.
        let (_, later) = Self.run(events + [Self.report(Self.pickup, at: 131)])
        #expect(later.count == 1)
    }

    @Test func inaccurateReportsAndShortStaysAreNotArrivals() {
        var events: [Vehicle.Event] = [Self.assigned(Self.allWaypoints)]
        for seconds in stride(from: 0.0, through: 60, by: 5) { events.append(Self.report(Self.pickup, at: seconds, accuracy: 500)) }
        #expect(Self.run(events).1 == [], "reports with 500 m accuracy are ignored")
        events = [Self.assigned(Self.allWaypoints)]
        for seconds in stride(from: 100.0, through: 118, by: 2) { events.append(Self.report(Self.pickup, at: seconds)) }
        events.append(Self.report(Distance.destination(from: Self.pickup, bearing: 0, meters: 55), at: 120))  // out before the dwell
        for seconds in stride(from: 122.0, through: 140, by: 2) { events.append(Self.report(Self.pickup, at: seconds)) }
        #expect(Self.run(events).1 == [], "two 18 s stays split by a report outside are not one 40 s stay")
    }

    @Test func aVehicleAlreadyInsideWhenAssignedArrivesAfterTheDwell() {
        var events: [Vehicle.Event] = [Self.report(Self.pickup, at: 0), Self.assigned(Self.allWaypoints)]
        for seconds in stride(from: 5.0, through: 30, by: 5) { events.append(Self.report(Self.pickup, at: seconds)) }
        let (_, facts) = Self.run(events)
        guard case .arrived(let arrival) = facts.first else { Issue.record("no arrival: \(facts)"); return }
        #expect(facts.count == 1)
        #expect(arrival.enteredTime == Self.start.adding(seconds: 5))
        #expect(arrival.arrivalTime == Self.start.adding(seconds: 25))
    }

    @Test func leavingAndComingBackIsASecondVisitAndRadiusAndDwellComeFromTheOptions() {
        let options = StopArrival.Options(radiusMeters: 20, dwellSeconds: 10)
        var events: [Vehicle.Event] = [Self.assigned(Self.allWaypoints)]
        for seconds in stride(from: 0.0, through: 10, by: 5) { events.append(Self.report(Distance.destination(from: Self.pickup, bearing: 0, meters: 15), at: seconds)) }
        events.append(Self.report(Distance.destination(from: Self.pickup, bearing: 0, meters: 45), at: 15))
        for seconds in stride(from: 20.0, through: 30, by: 5) { events.append(Self.report(Self.pickup, at: seconds)) }
        let (_, facts) = Self.run(events, options: options)
        #expect(facts.map(\.type) == ["VehicleArrivedNearStop", "VehicleLeftStop", "VehicleArrivedNearStop"])
        if case .arrived(let second) = facts.last { #expect(second.visit == 2 && second.radiusMeters == 20 && second.dwellSeconds == 10) }
    }

    @Test func theStateSurvivesJSONSoAResumedDetectorDecidesExactlyAsAnUninterruptedOne() throws {
        let events = Self.scriptedDrive(seed: 9)
        let (_, whole) = Self.run(events)
        var facts: [StopArrival.Event] = []
        var state = StopArrival.State()
        for chunk in stride(from: 0, to: events.count, by: 17) {
            let stored = try JSONValueEncoder().encode(state)
            let restored = try JSONValueDecoder().decode(StopArrival.State.self, from: try JSONValue.parse(stored.compactBytes()))
            let (next, new) = Self.run(Array(events[chunk..<min(chunk + 17, events.count)]), from: restored)
            state = next
            facts += new
        }
        #expect(facts == whole)
        #expect(whole.count == 6)
    }

    @Test func arrivalEventsRoundTripThroughTheirStoredJSON() throws {
        let (_, facts) = Self.run(Self.scriptedDrive(seed: 3))
        for fact in facts {
            let json = try fact.encodePayloadValue()
            #expect(try StopArrival.Event.decode(type: fact.type, json: json) == fact)
            #expect(json["tripId"] == "t-1" && json["vehicleId"] == "v-1")
        }
        #expect(throws: JourneyError.self) { try StopArrival.Event.decode(type: "VehicleTeleported", json: [:]) }
    }
}
