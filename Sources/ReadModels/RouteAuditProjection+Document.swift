import Geo
import JSON
import Journey

extension RouteAuditProjection {
    private typealias J = FleetResourceJSON

    /// The audit document of one trip.
    ///
    /// Waymark's own shape, written with the Fleet Engine conventions (camelCase, RFC 3339 times,
    /// `"90s"` durations, enum names, absent values omitted), except that the yes/no facts an
    /// auditor asks about (`routeTokenPresent`, `tokenApplied`, `simplified`) are always written.
    /// Distances are whole meters, deviations tenths of meters. `distance` compares the first plan
    /// (the route the trip was quoted on) with the driven path. `lifecycle` appears once the trip id
    /// was created again after a deletion, `deleteTime` once the trip was deleted.
    static func auditDocument(_ key: String, _ record: AuditRecord) -> JSONValue {
        let driven = record.driven
        let planned = record.plan?.distanceMeters
        let drivenMeters = Int(driven.distanceMeters.rounded())
        return J.object([
            ("name", .string(key)),
            ("tripId", .string(record.tripId)),
            ("lifecycle", record.lifecycle.map(J.int)),
            ("vehicleId", J.string(record.vehicleId)),
            ("tripType", J.enumName(record.tripType, unless: .unknown)),
            ("tripStatus", J.enumName(record.status, unless: .unknown)),
            ("createTime", J.timestamp(record.createdAt)),
            ("startTime", record.startedAt.map(J.timestamp)),
            ("endTime", record.endedAt.map(J.timestamp)),
            ("deleteTime", record.deletedAt.map(J.timestamp)),
            ("plannedRoute", record.plan.map(plannedRoute)),
            ("planCount", record.planCount == 0 ? nil : J.int(record.planCount)),
            ("latestPlannedRoute", record.latestPlan.map(plannedRoute)),
            ("routeTokenExecution", record.tokenExecution.map(tokenExecution)),
            ("drivenPath", driven.reportCount == 0 ? nil : J.object([
                ("encodedPolyline", .string(Polyline.encode(driven.points))),
                ("distanceMeters", J.int(drivenMeters)),
                ("reportCount", J.int(driven.reportCount)),
                ("pointCount", J.int(driven.points.count)),
                ("simplified", .bool(driven.stride > 1)),
                ("firstReportTime", driven.firstReportAt.map(J.timestamp)),
                ("lastReportTime", driven.lastReportAt.map(J.timestamp)),
            ])),
            ("distance", J.object([
                ("plannedMeters", planned.map(J.int)),
                ("drivenMeters", driven.reportCount == 0 ? nil : J.int(drivenMeters)),
                ("differenceMeters", planned.flatMap { p in driven.reportCount == 0 ? nil : J.int(drivenMeters - p) }),
            ])),
            ("offRouteEpisodes", J.list(record.episodes.map(episode))),
            ("stops", J.list(record.stops.map(stop))),
        ])
    }

    private static func plannedRoute(_ planned: PlannedRoute) -> JSONValue {
        let plan = planned.plan
        return J.object([
            ("planTime", J.timestamp(planned.plannedAt)),
            ("legs", .array(zip(plan.destinations, plan.legs).map { destination, leg in
                J.object([
                    ("destination", J.latLng(destination.point)),
                    ("encodedPolyline", .string(leg.encodedPolyline)),
                    ("distanceMeters", leg.distanceMeters.map(J.int)),
                    ("duration", leg.durationSeconds.map(J.duration(seconds:))),
                ])
            })),
            ("distanceMeters", J.int(planned.distanceMeters)),
            ("duration", planned.durationSeconds.map(J.duration(seconds:))),
            ("routeTokenPresent", .bool(plan.routeToken != nil)),
            // With alternatives: which route is in force, of how many (absent for single-route plans).
            ("routeIndex", plan.routes == nil ? nil : J.int(plan.routeIndex)),
            ("routeCount", plan.routes == nil ? nil : J.int(plan.routeCount)),
            ("travelMode", J.enumName(plan.travelMode, unless: .unspecified)),
            ("routingPreference", J.enumName(plan.routingPreference, unless: .unspecified)),
            ("objectives", J.list(plan.objectives.map { .string($0.rawValue) })),
            ("requestedParameters", parameters(plan.requestedParameters)),
        ])
    }

    private static func tokenExecution(_ execution: TokenExecution) -> JSONValue {
        J.object([
            ("status", .string(execution.status.rawValue)),
            ("routeStatus", execution.routeStatus.map { .string($0.rawValue) }),
            ("tokenApplied", .bool(execution.tokenApplied)),
            ("reportedParameters", execution.reported.map(parameters)),
            ("resolvedParameters", parameters(execution.effective)),
            ("reportTime", J.timestamp(execution.reportedAt)),
        ])
    }

    private static func parameters(_ p: ResolvedRoutingParameters) -> JSONValue {
        J.object([
            ("travelMode", J.enumName(p.travelMode, unless: .unspecified)),
            ("avoidTolls", p.options.avoidTolls ? .bool(true) : nil),
            ("avoidHighways", p.options.avoidHighways ? .bool(true) : nil),
            ("avoidFerries", p.options.avoidFerries ? .bool(true) : nil),
            ("avoidTunnels", p.options.avoidTunnels ? .bool(true) : nil),
            ("avoidVignettes", J.list(p.options.avoidVignettes.map(JSONValue.string))),
            ("rerouteTimeToleranceSeconds", p.rerouteStrategy.timeToleranceSeconds.map(J.int)),
            ("rerouteStrategy", p.rerouteStrategy.basis.map { .string($0.rawValue) }),
        ])
    }

    private static func episode(_ e: OffRouteEpisode) -> JSONValue {
        J.object([
            ("startTime", J.timestamp(e.startedAt)),
            ("endTime", e.endedAt.map(J.timestamp)),
            ("duration", e.endedAt.map { J.duration(microseconds: $0.microsecondsSinceEpoch - e.startedAt.microsecondsSinceEpoch) }),
            ("startLocation", J.latLng(e.startLocation)),
            ("endLocation", e.endLocation.map(J.latLng)),
            ("maxDeviationMeters", tenths(e.maxDeviationMeters)),
            ("thresholdMeters", tenths(e.thresholdMeters)),
            ("resolution", J.string(e.resolution)),
        ])
    }

    private static func stop(_ s: Stop) -> JSONValue {
        J.object([
            ("waypointType", J.enumName(s.waypointType, unless: .unknown)),
            ("intermediateDestinationIndex", s.index.map(J.int)),
            ("location", J.latLng(s.point)),
            ("plannedArrivalTime", s.plannedArrival.map(J.timestamp)),
            ("actualArrivalTime", s.actualArrival.map(J.timestamp)),
            ("arrivalDelay", s.plannedArrival.flatMap { planned in
                s.actualArrival.map { J.duration(microseconds: $0.microsecondsSinceEpoch - planned.microsecondsSinceEpoch) }
            }),
            ("departureTime", s.departedAt.map(J.timestamp)),
        ])
    }

    private static func tenths(_ meters: Double) -> JSONValue {
        .number(J.decimal(units: Int64((meters * 10).rounded()), fractionDigits: 1))
    }
}
