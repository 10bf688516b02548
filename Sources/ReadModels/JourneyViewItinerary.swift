import Geo
import Journey

/// One of a trip's own stops, as the rider's view names it.
enum JourneyViewStop: Hashable, Sendable {
    case pickup
    case intermediateDestination(Int)
    case dropoff
}

/// ETAs and remaining distances from the serving vehicle to each of a trip's upcoming stops.
///
/// The vehicle drives its own waypoint list, which on shared and back-to-back trips holds
/// other trips' stops too. Those are hops of the chain (their time counts) but never leave
/// this type: the result is keyed by the trip's own stops only.
///
/// - Hop 0, vehicle → first waypoint: distance from the route segment still ahead (when the
///   segment leads there), else the reported remaining distance; time from the reported ETA,
///   except that once a location report arrives later than that ETA while the vehicle is
///   still short of the stop, the ETA becomes that report's time + the remaining distance at
///   the recent average speed. Without a report: report time + distance / speed. With the
///   vehicle standing at a stop it just reached, the planned leg from that stop is used.
/// - Later hops, stop → stop: the trip's planned leg between the two points (its distance and
///   duration, or duration from the average speed). No leg, no estimate: every later stop's
///   ETA and distance become unknown rather than invented.
struct JourneyViewItinerary: Sendable {
    /// ETA and remaining distance to one stop; nil parts are unknown.
    struct Estimate: Hashable, Sendable {
        var eta: Timestamp?
        var remainingMeters: Double?
    }

    /// Points closer than this are the same stop (plan destinations vs trip stops).
    static let samePlaceMeters = 50.0
    /// Slower than this (m/s) the vehicle counts as standing still, and speed gives no ETA.
    static let movingSpeed = 0.5

    /// The estimate for each upcoming (or just reached) stop of the trip.
    let estimates: [JourneyViewStop: Estimate]

    /// Estimates for `trip` served by `vehicle`; empty when there is no vehicle.
    init(trip: Trip.State, vehicle: JourneyViewVehicle?) {
        estimates = vehicle.map { Self.estimate(trip: trip, vehicle: $0) } ?? [:]
    }

    /// The trip's stops in order, each with its name in the view.
    static func stops(of trip: Trip.State) -> [(stop: JourneyViewStop, waypoint: TripWaypoint)] {
        var result: [(JourneyViewStop, TripWaypoint)] = []
        if let pickup = trip.pickup {
            result.append((.pickup, TripWaypoint(tripId: trip.tripId, waypointType: .pickup, location: pickup)))
        }
        for (i, stop) in trip.intermediateDestinations.enumerated() {
            result.append((.intermediateDestination(i), TripWaypoint(tripId: trip.tripId, waypointType: .intermediateDestination, location: stop)))
        }
        if let dropoff = trip.dropoff {
            result.append((.dropoff, TripWaypoint(tripId: trip.tripId, waypointType: .dropOff, location: dropoff)))
        }
        return result
    }

    /// The stop the vehicle stands at (ARRIVED_AT_PICKUP / _INTERMEDIATE_DESTINATION), if any.
    static func reachedStop(of trip: Trip.State) -> JourneyViewStop? {
        guard trip.status.isArrival else { return nil }
        return stops(of: trip).dropFirst(trip.passedWaypointCount).first?.stop
    }

    private static func estimate(trip: Trip.State, vehicle: JourneyViewVehicle) -> [JourneyViewStop: Estimate] {
        let remaining = Array(stops(of: trip).dropFirst(trip.passedWaypointCount))
        guard !remaining.isEmpty else { return [:] }
        var result: [JourneyViewStop: Estimate] = [:]

        // The vehicle's own order when it agrees with the trip; else the trip's stops alone.
        let waypoints = vehicle.vehicle.waypoints
        let ours = waypoints.filter { $0.tripId == trip.tripId }
        var chain: [(stop: JourneyViewStop?, waypoint: TripWaypoint)]
        if !ours.isEmpty, ours == remaining.map(\.waypoint), let last = waypoints.lastIndex(where: { $0.tripId == trip.tripId }) {
            var next = 0
            chain = waypoints[...last].map { waypoint in
                guard waypoint.tripId == trip.tripId else { return (nil, waypoint) }
                defer { next += 1 }
                return (remaining[next].stop, waypoint)
            }
        } else {
            chain = remaining.map { ($0.stop, $0.waypoint) }
        }

        // Standing at a stop: it is reached (distance 0, no ETA) and the chain starts there.
        var standingAt: LatLng?
        if let reached = reachedStop(of: trip), let index = chain.firstIndex(where: { $0.stop == reached }) {
            result[reached] = Estimate(eta: nil, remainingMeters: 0)
            standingAt = chain[index].waypoint.location.point
            chain.removeFirst(index + 1)
        }
        guard let first = chain.first else { return result }

        let speed = vehicle.averageSpeed.flatMap { $0 >= movingSpeed ? $0 : nil }
        let locationTime = vehicle.vehicle.lastLocation?.serverTime
        let report = vehicle.remainingRoute.flatMap { report in
            report.target == first.waypoint || (report.target == nil && waypoints.isEmpty) ? report : nil
        }

        // Hop 0.
        var meters: Double?
        var eta: Timestamp?
        if let onSegment = vehicle.segmentRemainingMeters(to: first.waypoint) {
            meters = onSegment
        } else if let reported = report?.distanceMeters {
            meters = Double(reported)
        }
        if let reportedEta = report?.eta {
            eta = reportedEta
            if let locationTime, locationTime > reportedEta {
                let ahead = meters.flatMap { m in speed.map { m / $0 } } ?? 0
                eta = roundedUp(locationTime.adding(seconds: ahead))
            }
        } else if standingAt == nil, let meters, let speed, let locationTime {
            eta = roundedUp(locationTime.adding(seconds: meters / speed))
        }
        // No segment or report for this hop: the planned leg from where the vehicle stands or is.
        let origin = standingAt ?? vehicle.vehicle.lastLocation?.location
        if eta == nil || meters == nil, let origin, let plan = trip.routePlan,
           let leg = plannedLeg(from: origin, to: first.waypoint.location.point, in: plan, speed: speed) {
            if meters == nil { meters = leg.meters }
            let now = [locationTime, trip.lastUpdatedAt].compactMap { $0 }.max()
            if eta == nil, let seconds = leg.seconds, let now { eta = roundedUp(now.adding(seconds: seconds)) }
        }
        if let stop = first.stop { result[stop] = Estimate(eta: eta, remainingMeters: meters) }

        // Later hops along the plan.
        for (previous, hop) in zip(chain, chain.dropFirst()) {
            let leg = trip.routePlan.flatMap {
                plannedLeg(from: previous.waypoint.location.point, to: hop.waypoint.location.point, in: $0, speed: speed)
            }
            meters = meters.flatMap { m in leg.map { m + $0.meters } }
            eta = eta.flatMap { t in leg?.seconds.map { roundedUp(t.adding(seconds: $0)) } }
            if let stop = hop.stop { result[stop] = Estimate(eta: eta, remainingMeters: meters) }
        }
        return result
    }

    /// The planned leg from `a` to `b`: a leg whose polyline starts at `a` and whose destination is `b`.
    ///
    /// Its length is the leg's `distanceMeters` or else its polyline's length; its time the
    /// leg's `durationSeconds` or else length / `speed`. Coincident points are a zero hop.
    static func plannedLeg(from a: LatLng, to b: LatLng, in plan: RoutePlan, speed: Double?) -> (meters: Double, seconds: Double?)? {
        if Distance.meters(a, b) < 1 { return (0, 0) }
        for (leg, destination) in zip(plan.legs, plan.destinations) where Distance.meters(destination.point, b) <= samePlaceMeters {
            let path = legPath(leg)
            guard let start = path.points.first, Distance.meters(start, a) <= samePlaceMeters else { continue }
            let meters = leg.distanceMeters.map(Double.init) ?? path.length
            let seconds = leg.durationSeconds.map(Double.init) ?? speed.map { meters / $0 }
            return (meters, seconds)
        }
        return nil
    }

    /// A leg's decoded polyline, from the shared cache; empty when it does not decode (plans are validated on the way in).
    static func legPath(_ leg: RoutePlan.Leg) -> Path {
        do {
            return try PathCache.shared.path(leg.encodedPolyline).path
        } catch {
            return Path([])
        }
    }

    /// `time` rounded up to the whole second: computed ETAs are stable and never earlier than computed.
    static func roundedUp(_ time: Timestamp) -> Timestamp {
        let micros = time.microsecondsSinceEpoch
        let remainder = ((micros % 1_000_000) + 1_000_000) % 1_000_000
        return remainder == 0 ? time : Timestamp(microsecondsSinceEpoch: micros - remainder + 1_000_000)
    }
}
