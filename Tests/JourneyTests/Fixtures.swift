import Geo
import Journey
import Testing

/// Fixed clock, places and builders shared by the Journey tests.
enum Fixtures {
    /// 2026-03-01T08:00:00Z.
    static let t0 = Timestamp(secondsSinceEpoch: 1_772_352_000)

    /// `t0` plus `seconds`.
    static func t(_ seconds: Double) -> Timestamp { t0.adding(seconds: seconds) }

    static func point(_ lat: Double, _ lng: Double) -> LatLng { LatLng(uncheckedLatitude: lat, longitude: lng) }

    static let pickup = TerminalLocation(point: point(52.5200, 13.4050))
    static let stop1 = TerminalLocation(point: point(52.5250, 13.4100))
    static let stop2 = TerminalLocation(point: point(52.5300, 13.4150))
    static let dropoff = TerminalLocation(point: point(52.5400, 13.4250))

    /// A straight path due east along latitude 52.52, about 680 m per 0.01° of longitude.
    static let eastPath = [point(52.52, 13.40), point(52.52, 13.41), point(52.52, 13.42), point(52.52, 13.43)]
    static let eastPolyline = Polyline.encode(eastPath)
    /// A path due north from the start of `eastPath`.
    static let northPolyline = Polyline.encode([point(52.52, 13.40), point(52.53, 13.40), point(52.54, 13.40)])
}

/// Folds trip events into a state.
func givenTrip(_ events: [Trip.Event]) -> Trip.State {
    events.reduce(Trip.State()) { Trip.evolve($0, with: $1) }
}

/// Folds vehicle events into a state.
func givenVehicle(_ events: [Vehicle.Event]) -> Vehicle.State {
    events.reduce(Vehicle.State()) { Vehicle.evolve($0, with: $1) }
}

/// Expects `body` to be rejected with a `JourneyError` of `code`.
func expectRejection<R>(
    _ code: JourneyError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> R
) {
    do {
        let result = try body()
        Issue.record("expected \(code.statusName) (\(code)) but the command succeeded with \(result)", sourceLocation: sourceLocation)
    } catch let error as JourneyError {
        #expect(error.code == code, "got \(error.code): \(error.message)", sourceLocation: sourceLocation)
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a JourneyError but got \(error)", sourceLocation: sourceLocation)
    }
}

/// Expects `body` to be rejected with `code` and a message that mentions every fragment
/// (the rule and the values, as STYLE.md asks).
func expectRejection<R>(
    _ code: JourneyError.Code,
    mentioning fragments: [String],
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> R
) {
    do {
        let result = try body()
        Issue.record("expected \(code.statusName) (\(code)) but the command succeeded with \(result)", sourceLocation: sourceLocation)
    } catch {
        guard let error = error as? JourneyError else {
            Issue.record("expected a JourneyError but got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, "got \(error.code): \(error.message)", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(error.message.contains(fragment), "message \"\(error.message)\" does not mention \"\(fragment)\"", sourceLocation: sourceLocation)
        }
    }
}

/// Builders of trip events and vehicle states with fixed values.
enum TripFixtures {
    static func created(
        _ tripId: String = "t-1",
        type: TripType = .exclusive,
        dropoff: TerminalLocation? = Fixtures.dropoff,
        intermediates: [TerminalLocation] = [],
        passengers: Int = 1,
        at: Timestamp = Fixtures.t0
    ) -> Trip.Event {
        .created(.init(
            tripId: tripId, tripType: type, pickup: Fixtures.pickup, dropoff: dropoff,
            intermediateDestinations: intermediates, intermediateDestinationsVersion: at,
            numberOfPassengers: passengers, attributes: [], at: at))
    }

    static func assigned(_ state: Trip.State, vehicleId: String = "v-1", backToBack: Bool = false, at: Timestamp = Fixtures.t(10)) -> Trip.Event {
        .vehicleAssigned(.init(
            tripId: state.tripId, vehicleId: vehicleId, tripType: state.tripType, status: state.status,
            numberOfPassengers: state.numberOfPassengers, waypoints: state.remainingWaypoints, backToBack: backToBack, at: at))
    }

    static func status(_ from: TripStatus, _ to: TripStatus, index: Int? = nil, tripId: String = "t-1", vehicleId: String? = "v-1", at: Timestamp) -> Trip.Event {
        .statusChanged(.init(tripId: tripId, vehicleId: vehicleId, from: from, to: to, intermediateDestinationIndex: index, at: at))
    }

    /// A created trip assigned to v-1 (its events).
    static func assignedTrip(
        _ tripId: String = "t-1", type: TripType = .exclusive, intermediates: [TerminalLocation] = [], passengers: Int = 1
    ) -> [Trip.Event] {
        let created = created(tripId, type: type, intermediates: intermediates, passengers: passengers)
        return [created, assigned(givenTrip([created]))]
    }

    /// An ONLINE vehicle state.
    static func vehicle(
        _ vehicleId: String = "v-1",
        state: VehicleState = .online,
        types: [TripType] = [.exclusive, .shared],
        capacity: Int = 4,
        backToBack: Bool = false,
        currentTrips: [Vehicle.CurrentTrip] = []
    ) -> Vehicle.State {
        var s = givenVehicle([.registered(.init(
            vehicleId: vehicleId, vehicleState: state, supportedTripTypes: types, maximumCapacity: capacity,
            vehicleType: VehicleType(category: .auto), attributes: [], backToBackEnabled: backToBack, at: Fixtures.t0))])
        s.currentTrips = currentTrips
        return s
    }
}
