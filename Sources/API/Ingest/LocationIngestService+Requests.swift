import Foundation
import Journey

extension LocationIngestService {
    /// One location report of a batch, as read from the request.
    package struct Report: Sendable, Hashable {
        package var vehicleId: String
        /// The client's id for the report; the report's location event is stored under it, so a
        /// retry with the same id is recognized. Nil: the server picks one (and retries are not safe).
        package var eventId: UUID?
        /// The vehicle's current location (Fleet Engine's `lastLocation`).
        package var location: VehicleLocation?
        /// Earlier locations the device buffered (Fleet Engine's `pastLocations`).
        package var pastLocations: [VehicleLocation]

        package init(vehicleId: String, eventId: UUID? = nil, location: VehicleLocation?, pastLocations: [VehicleLocation] = []) {
            self.vehicleId = vehicleId
            self.eventId = eventId
            self.location = location
            self.pastLocations = pastLocations
        }
    }

    /// A report slot of the request: a readable report, or one that could not be read (it is
    /// rejected on its own, with what the request named it, and never fails its neighbours).
    package enum Entry: Sendable {
        case report(Report)
        case unreadable(vehicleId: String, eventId: String?, error: APIError)
    }

    /// What happened to one report.
    package enum Status: String, Sendable, Hashable {
        /// Recorded, and the vehicle's current location now (or recorded history only).
        case accepted = "ACCEPTED"
        /// Recorded, but older than the vehicle's last location, which it does not replace.
        case stale = "STALE"
        /// Not recorded; `Outcome.error` says why.
        case rejected = "REJECTED"
    }

    /// The answer for one report, in request order.
    package struct Outcome: Sendable {
        package var vehicleId: String
        /// The event id the report is stored under (lowercase), or the id the client sent with a
        /// rejected report; nil for a rejected report that came without one.
        package var eventId: String?
        package var status: Status
        package var error: APIError?

        static func rejected(_ vehicleId: String, _ eventId: String?, _ error: APIError) -> Outcome {
            Outcome(vehicleId: vehicleId, eventId: eventId, status: .rejected, error: error)
        }
    }
}
