import Foundation
import JSON
import Journey

/// What the command layer needs to know about an aggregate: its fold and its event coding.
protocol Aggregate {
    associatedtype State: Sendable
    associatedtype Event: Sendable
    /// `trip` or `vehicle`, for messages.
    static var kind: String { get }
    static var initial: State { get }
    static func evolve(_ state: State, with event: Event) -> State
    static func decode(type: String, json: JSONValue) throws(JourneyError) -> Event
    static func type(of event: Event) -> String
    /// The event's payload as the JSON value to append (see `EventJSON.encodeValue`).
    static func payload(of event: Event) throws(JourneyError) -> JSONValue
    /// The payload's canonical bytes when the event writes them directly (see
    /// `Vehicle.Event.canonicalPayload`), else nil and the payload goes as `payload(of:)`.
    static func canonicalPayload(of event: Event) -> [UInt8]?
    /// Whether the event changes nothing of the aggregate's resource but a vehicle's
    /// `lastLocation` (see `VehicleService.locationAnswer`); false for every trip event.
    static func changesOnlyLocation(_ event: Event) -> Bool
    /// Caches committed states in `repository`'s cache of this kind.
    static func remember(_ states: [(stream: String, loaded: Loaded<State>)], in repository: AggregateRepository)
}

extension Aggregate {
    static func canonicalPayload(of event: Event) -> [UInt8]? { nil }
    /// Kinds the repository does not cache (share links, journey styles) are read from their streams.
    static func remember(_ states: [(stream: String, loaded: Loaded<State>)], in repository: AggregateRepository) {}
}

/// The trip aggregate for the command layer.
enum TripAggregate: Aggregate {
    static let kind = "trip"
    static var initial: Trip.State { Trip.State() }
    static func evolve(_ state: Trip.State, with event: Trip.Event) -> Trip.State { Trip.evolve(state, with: event) }
    static func decode(type: String, json: JSONValue) throws(JourneyError) -> Trip.Event { try Trip.Event.decode(type: type, json: json) }
    static func type(of event: Trip.Event) -> String { event.type }
    static func payload(of event: Trip.Event) throws(JourneyError) -> JSONValue { try event.encodePayloadValue() }
    static func changesOnlyLocation(_ event: Trip.Event) -> Bool { false }
    static func remember(_ states: [(stream: String, loaded: Loaded<Trip.State>)], in repository: AggregateRepository) {
        repository.rememberTrips(states)
    }
}

/// The vehicle aggregate for the command layer.
enum VehicleAggregate: Aggregate {
    static let kind = "vehicle"
    static var initial: Vehicle.State { Vehicle.State() }
    static func evolve(_ state: Vehicle.State, with event: Vehicle.Event) -> Vehicle.State { Vehicle.evolve(state, with: event) }
    static func decode(type: String, json: JSONValue) throws(JourneyError) -> Vehicle.Event { try Vehicle.Event.decode(type: type, json: json) }
    static func type(of event: Vehicle.Event) -> String { event.type }
    static func payload(of event: Vehicle.Event) throws(JourneyError) -> JSONValue { try event.encodePayloadValue() }
    static func canonicalPayload(of event: Vehicle.Event) -> [UInt8]? { event.canonicalPayload }
    static func remember(_ states: [(stream: String, loaded: Loaded<Vehicle.State>)], in repository: AggregateRepository) {
        repository.rememberVehicles(states)
    }

    /// Location events: the fleet projection renders none of what they change but `lastLocation`
    /// (see `FleetResourceProjection.vehicleDocumentBytes`).
    static func changesOnlyLocation(_ event: Vehicle.Event) -> Bool {
        switch event {
        case .locationReported, .staleLocationRecorded, .locationHistoryRecorded, .wentOffRoute, .rejoinedRoute: true
        default: false
        }
    }
}
