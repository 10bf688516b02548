import Geo
import Journey
import ReadModels

extension VehicleService {
    /// CreateVehicle: the registration, plus a first location when the body has one.
    package struct CreateRequest: Sendable {
        package var provider: String
        package var register: Vehicle.RegisterVehicle
        package var lastLocation: VehicleLocation?

        package init(provider: String, register: Vehicle.RegisterVehicle, lastLocation: VehicleLocation? = nil) {
            self.provider = provider
            self.register = register
            self.lastLocation = lastLocation
        }
    }

    /// One masked field (or group of fields that travel together) of UpdateVehicle.
    package enum Change: Sendable, Hashable {
        case vehicleState(VehicleState)
        case location(VehicleLocation?, pastLocations: [VehicleLocation])
        case routeSegment(encodedPath: String, traffic: [TrafficSpeedInterval], endPoint: TripWaypoint?)
        case remainingRoute(distanceMeters: Int?, eta: Timestamp?, remainingTimeSeconds: Int?)
        case navigationStatus(NavigationStatus)
        case waypoints([TripWaypoint])
        case attributes([Attribute])
        case backToBackEnabled(Bool)
        case capabilities(maximumCapacity: Int?, supportedTripTypes: [TripType]?, vehicleType: VehicleType?)
        case licensePlate(LicensePlate?)
    }

    /// UpdateVehicle.
    package struct UpdateRequest: Sendable {
        package var provider: String
        package var vehicleId: String
        package var changes: [Change]

        package init(provider: String, vehicleId: String, changes: [Change]) {
            self.provider = provider
            self.vehicleId = vehicleId
            self.changes = changes
        }
    }

    /// ListVehicles (reference §1.2).
    package struct ListRequest: Sendable {
        package var provider: String
        package var pageSize = 100
        package var pageToken: String?
        package var minimumCapacity: Int?
        package var tripTypes: [TripType] = []
        package var maximumStalenessMicros: Int64?
        package var vehicleTypeCategories: [VehicleType.Category] = []
        /// `key:value` terms, all required.
        package var requiredAttributes: [String] = []
        /// Each entry `k1:v1|k2:v2`: at least one term of every entry.
        package var requiredOneOfAttributes: [String] = []
        /// Each entry `k1:v1|k2:v2`: every term of at least one entry.
        package var requiredOneOfAttributeSets: [String] = []
        package var vehicleState: VehicleState?
        package var onTripOnly = false
        /// AIP-160: `attributes.<key> = "<value>"` terms joined by AND.
        package var filter: String?
        package var viewport: (low: LatLng, high: LatLng)?

        package init(provider: String) { self.provider = provider }
    }

    /// SearchVehicles (reference §1.2); only the straight-line pickup order is served.
    package struct SearchRequest: Sendable {
        package var provider: String
        package var pickupPoint: LatLng
        package var dropoffPoint: LatLng?
        package var pickupRadiusMeters: Int
        package var count: Int
        package var minimumCapacity: Int
        package var tripTypes: [TripType]
        package var maximumStalenessMicros: Int64?
        package var vehicleTypes: [VehicleType.Category]
        package var requiredAttributes: [Attribute] = []
        package var requiredOneOfAttributes: [[Attribute]] = []
        package var requiredOneOfAttributeSets: [[Attribute]] = []
        package var orderBy: String
        package var includeBackToBack = false
        package var tripId: String?
        package var currentTripsPresent = "CURRENT_TRIPS_PRESENT_UNSPECIFIED"
        package var filter: String?

        package init(provider: String, pickupPoint: LatLng, pickupRadiusMeters: Int, count: Int, minimumCapacity: Int,
                     tripTypes: [TripType], vehicleTypes: [VehicleType.Category], orderBy: String) {
            self.provider = provider
            self.pickupPoint = pickupPoint
            self.pickupRadiusMeters = pickupRadiusMeters
            self.count = count
            self.minimumCapacity = minimumCapacity
            self.tripTypes = tripTypes
            self.vehicleTypes = vehicleTypes
            self.orderBy = orderBy
        }
    }
}
