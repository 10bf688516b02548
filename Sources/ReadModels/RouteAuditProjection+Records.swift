import Geo
import Journey

extension RouteAuditProjection {
    /// Everything the audit of one trip keeps; stored as-is in `audit_states` so `load` restores it exactly.
    struct AuditRecord: Codable, Hashable, Sendable {
        var provider: String
        var tripId: String
        var tripType: TripType
        var status: TripStatus = .new
        /// The trip's `intermediateDestinationIndex` (stop next or at).
        var intermediateIndex: Int = 0
        var vehicleId: String?
        var createdAt: Timestamp
        /// First assignment to a vehicle.
        var startedAt: Timestamp?
        /// COMPLETE or CANCELED.
        var endedAt: Timestamp?
        var stops: [Stop]
        /// The first plan: the route the trip was quoted on.
        var plan: PlannedRoute?
        /// The plan in force, when the trip was planned again.
        var latestPlan: PlannedRoute?
        var planCount: Int = 0
        var tokenExecution: TokenExecution?
        var driven = DrivenPath()
        var episodes: [OffRouteEpisode] = []
        /// When the trip was deleted (`TripDeleted`); the audit is kept.
        var deletedAt: Timestamp?
        /// Which lifecycle of the trip id this is, once the id was created again after a
        /// deletion (1, 2, ...); nil while the id has had one lifecycle only.
        var lifecycle: Int?

        init(provider: String, created: Trip.Event.Created, at: Timestamp) {
            self.provider = provider
            self.tripId = created.tripId
            self.tripType = created.tripType
            self.createdAt = at
            self.stops = [Stop(waypointType: .pickup, point: created.pickup.point)]
                + created.intermediateDestinations.enumerated().map { Stop(waypointType: .intermediateDestination, index: $0.offset, point: $0.element.point) }
                + (created.dropoff.map { [Stop(waypointType: .dropOff, point: $0.point)] } ?? [])
        }
    }

    /// One stop of the trip with its planned and actual times.
    struct Stop: Codable, Hashable, Sendable {
        var waypointType: WaypointType
        var index: Int?
        var point: LatLng
        /// From the plan in force when it was set: plan time plus the legs' durations.
        var plannedArrival: Timestamp?
        /// When the trip status reached ARRIVED_AT_* (or COMPLETE) for this stop.
        var actualArrival: Timestamp?
        /// When the status left the arrival at this stop.
        var departedAt: Timestamp?

        init(waypointType: WaypointType, index: Int? = nil, point: LatLng) {
            self.waypointType = waypointType
            self.index = index
            self.point = point
        }
    }

    /// A route plan as audited: its legs and what was asked of the routing engine.
    struct PlannedRoute: Codable, Hashable, Sendable {
        var plannedAt: Timestamp
        var plan: RoutePlan

        /// Planned length: the legs' distances, or their polylines' lengths where a leg has none.
        var distanceMeters: Int {
            plan.legs.reduce(0) { total, leg in
                total + (leg.distanceMeters ?? Int(((try? PathCache.shared.path(leg.encodedPolyline))?.path.length ?? 0).rounded()))
            }
        }

        /// Planned driving time, when every leg has one.
        var durationSeconds: Int? {
            plan.legs.reduce(Optional(0)) { total, leg in
                guard let total, let seconds = leg.durationSeconds else { return nil }
                return total + seconds
            }
        }
    }

    /// The last route token execution report.
    struct TokenExecution: Codable, Hashable, Sendable {
        var status: RouteTokenExecutionStatus
        var tokenApplied: Bool
        var reported: ResolvedRoutingParameters?
        var effective: ResolvedRoutingParameters
        var reportedAt: Timestamp
        /// The navigation app's route status, when reported.
        var routeStatus: RouteStatus? = nil
    }

    /// The path driven by the trip's vehicle, from its accepted location reports.
    ///
    /// The distance sums every accepted report. The kept points are capped: every `stride`-th
    /// report is kept, and when more than `maximumDrivenPoints` are kept every other one is
    /// dropped and the stride doubles, so the polyline stays bounded and evenly thinned; the
    /// latest report is always drawn at the end.
    struct DrivenPath: Codable, Hashable, Sendable {
        var kept: [LatLng] = []
        var last: LatLng?
        var reportCount = 0
        var stride = 1
        var distanceMeters = 0.0
        var firstReportAt: Timestamp?
        var lastReportAt: Timestamp?

        mutating func append(_ point: LatLng, at: Timestamp, maximumPoints: Int) {
            if let last { distanceMeters += Distance.meters(last, point) }
            if reportCount % stride == 0 {
                kept.append(point)
                if kept.count > maximumPoints {
                    kept = kept.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
                    stride *= 2
                }
            }
            reportCount += 1
            last = point
            if firstReportAt == nil { firstReportAt = at }
            lastReportAt = at
        }

        /// The drawn points: the kept ones plus the latest report.
        var points: [LatLng] {
            guard let last, kept.last != last else { return kept }
            return kept + [last]
        }
    }

    /// A stretch of the trip driven away from the planned route.
    struct OffRouteEpisode: Codable, Hashable, Sendable {
        var startedAt: Timestamp
        var startLocation: LatLng
        var thresholdMeters: Double
        var maxDeviationMeters: Double
        var endedAt: Timestamp?
        var endLocation: LatLng?
        /// REJOINED, REROUTED, ROUTE_REPLACED or TRIP_RELEASED.
        var resolution: String?
    }
}
