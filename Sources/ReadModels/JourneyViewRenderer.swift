import Geo
import JSON
import Journey

/// Builds the rider's journey view JSON (without `version` and `updateTime`) from the trip,
/// its serving vehicle and the previous view.
///
/// Pure and deterministic: members in a fixed order, coordinates rounded to 1e-7 degrees,
/// distances to whole metres, polylines encoded at precision 5, every field present (`null`
/// when unknown). Privacy: only this trip's stops become markers; the vehicle's other
/// waypoints reach the view only as points of the route lines and through the ETAs, never
/// with a trip id. While no vehicle serves the trip, the vehicle marker and the active route
/// are the previous view's, frozen and hidden, so nothing the vehicle does afterwards (such
/// as driving to its next rider) reaches this view.
enum JourneyViewRenderer {
    /// A vehicle report older than this (against the trip's newest event time) is stale.
    static let staleAfterSeconds = 60.0

    /// The view's content: `name`, `tripStatus`, `markers`, `polylines`, `nextStop`,
    /// `dropoffEta`, `remainingDistanceToDropoffMeters`, `styleVersion`.
    ///
    /// `previous` is the previous view's content; it is read only when no vehicle serves the trip
    /// (its vehicle marker and active route are then kept, frozen and hidden).
    static func content(trip state: JourneyViewTrip, vehicle: JourneyViewVehicle?, previous: () -> JSONObject?, styleVersion: Int64 = 0) -> JSONObject {
        let trip = state.trip
        let serving = state.servingVehicleKey != nil ? vehicle : nil
        let previous = serving == nil ? previous() : nil
        let itinerary = JourneyViewItinerary(trip: trip, vehicle: serving)
        let stops = JourneyViewItinerary.stops(of: trip)
        let passed = trip.passedWaypointCount
        let reached = JourneyViewItinerary.reachedStop(of: trip)

        var markers: [JSONValue] = []
        markers.append(stopMarker(.pickup, point: trip.pickup?.point, passed: passed > 0, itinerary: itinerary))
        for (i, stop) in trip.intermediateDestinations.enumerated() {
            markers.append(stopMarker(.intermediateDestination(i), point: stop.point, passed: passed > 1 + i, itinerary: itinerary))
        }
        markers.append(stopMarker(.dropoff, point: trip.dropoff?.point, passed: trip.status.isTerminal, itinerary: itinerary))
        markers.append(vehicleMarker(serving: serving, newest: state.newestEventAt, previous: previous))

        // The stop the rider waits for next: the one the vehicle stands at, else the first not passed.
        let next = reached.flatMap { r in stops.first { $0.stop == r } } ?? stops.dropFirst(passed).first

        var polylines: [JSONValue] = []
        if let active = activeRoute(serving: serving, previous: previous) { polylines.append(active) }
        if let next, let remaining = remainingRoute(trip: trip, from: next.waypoint.location.point) { polylines.append(remaining) }

        let dropoff = itinerary.estimates[.dropoff]
        return JSONObject([
            ("name", .string(JourneyViewTrip.key(provider: state.provider, tripId: trip.tripId))),
            ("tripStatus", .string(trip.status.rawValue)),
            ("markers", .array(markers)),
            ("polylines", .array(polylines)),
            ("nextStop", next.map { nextStop($0.stop, itinerary: itinerary) } ?? .null),
            ("dropoffEta", time(dropoff?.eta)),
            ("remainingDistanceToDropoffMeters", meters(dropoff?.remainingMeters)),
            ("styleVersion", .number(JSONNumber(styleVersion))),
        ])
    }

    /// A stop marker; hidden once passed (or when its place is unknown).
    private static func stopMarker(_ stop: JourneyViewStop, point: LatLng?, passed: Bool, itinerary: JourneyViewItinerary) -> JSONValue {
        let estimate = passed ? nil : itinerary.estimates[stop]
        var members: [(String, JSONValue)] = [("type", .string(markerType(stop)))]
        if case .intermediateDestination(let index) = stop { members.append(("index", .number(JSONNumber(index)))) }
        members += [
            ("position", position(point)),
            ("visible", .bool(point != nil && !passed)),
            ("eta", time(estimate?.eta)),
            ("remainingDistanceMeters", meters(estimate?.remainingMeters)),
        ]
        return .object(JSONObject(members))
    }

    /// The vehicle marker: live while it serves the trip, else the previous one hidden.
    private static func vehicleMarker(serving: JourneyViewVehicle?, newest: Timestamp?, previous: JSONObject?) -> JSONValue {
        guard let serving else {
            // Rebuilt field by field: a loaded previous view may have another member order or number spelling.
            let frozen = previous?["markers"]?.arrayValue?.last { $0["type"]?.stringValue == "TRIP_VEHICLE" }
            return .object(JSONObject([
                ("type", .string("TRIP_VEHICLE")),
                ("position", position(frozen?["position"].flatMap(point))),
                ("heading", frozen?["heading"]?.int64Value.map { .number(JSONNumber($0)) } ?? .null),
                ("visible", .bool(false)),
                ("locationUpdateTime", frozen?["locationUpdateTime"]?.stringValue.map(JSONValue.string) ?? .null),
                ("stale", frozen?["stale"]?.boolValue.map(JSONValue.bool) ?? .null),
                ("staleTime", frozen?["staleTime"]?.stringValue.map(JSONValue.string) ?? .null),
            ]))
        }
        let location = serving.vehicle.lastLocation
        var stale = JSONValue.null
        var staleTime: Timestamp?
        if let reportedAt = location?.serverTime ?? location?.updateTime {
            // Judged here against the trip's events (a rebuild renders the same); readers judge
            // it again by the clock against `staleTime` (`JourneySnapshot.seen(at:)`).
            stale = .bool((newest ?? reportedAt).seconds(since: reportedAt) > staleAfterSeconds)
            staleTime = reportedAt.adding(seconds: staleAfterSeconds)
        }
        return vehicleMarker(location: location, visible: location != nil, stale: stale, staleTime: staleTime)
    }

    private static func vehicleMarker(location: VehicleLocation?, visible: Bool, stale: JSONValue, staleTime: Timestamp?) -> JSONValue {
        let heading: JSONValue = location?.heading.map { .number(JSONNumber(Int($0.rounded()) % 360)) } ?? .null
        return .object(JSONObject([
            ("type", .string("TRIP_VEHICLE")),
            ("position", position(location?.location)),
            ("heading", heading),
            ("visible", .bool(visible)),
            ("locationUpdateTime", time(location?.updateTime)),
            ("stale", stale),
            ("staleTime", time(staleTime)),
        ]))
    }

    /// ACTIVE_ROUTE: the vehicle's segment ahead of its snapped position, traffic re-indexed.
    ///
    /// Absent until a serving vehicle reports a segment; after service ends, the previous one hidden.
    private static func activeRoute(serving: JourneyViewVehicle?, previous: JSONObject?) -> JSONValue? {
        guard let serving else {
            let frozen = previous?["polylines"]?.arrayValue?.first { $0["type"]?.stringValue == "ACTIVE_ROUTE" }
            guard let frozen, let encoded = frozen["encodedPath"]?.stringValue else { return nil }
            let points: [LatLng]
            do {
                points = try Polyline.decode(encoded)
            } catch {
                return nil
            }
            let traffic = (frozen["trafficIntervals"]?.arrayValue ?? []).compactMap { interval -> TrafficInterval? in
                guard let start = interval["startIndex"]?.int64Value, let end = interval["endIndex"]?.int64Value,
                      let speed = interval["speed"]?.stringValue.flatMap(TrafficSpeed.init(rawValue:)), speed != .noData
                else { return nil }
                do {
                    return try TrafficInterval(startIndex: Int(start), endIndex: Int(end), speed: speed)
                } catch {
                    return nil
                }
            }
            return polyline("ACTIVE_ROUTE", points: points, traffic: traffic, visible: false)
        }
        guard let segment = serving.segment else { return nil }
        let path = segment.path
        guard path.points.count > 1 else { return nil }
        let intervals = segment.traffic.compactMap { interval -> TrafficInterval? in
            do {
                return try TrafficInterval(startIndex: interval.startIndex, endIndex: interval.endIndex, speed: speed(interval.speed))
            } catch {
                return nil
            }
        }
        let trimmed: Path
        let traffic: [TrafficInterval]
        if let snap = segment.snap?.snappedPoint {
            trimmed = path.trimmed(at: snap)
            traffic = Traffic.trim(intervals, of: path, at: snap)
        } else {
            trimmed = path
            traffic = intervals
        }
        return polyline("ACTIVE_ROUTE", points: trimmed.points, traffic: traffic, visible: true)
    }

    /// REMAINING_ROUTE: the planned legs from `start` (the next stop) to the dropoff, with the
    /// plan's traffic speed intervals where its legs have them (NO_DATA elsewhere).
    ///
    /// Needs a plan with a destination at `start` followed later by one at the dropoff; absent
    /// otherwise (never invented), and absent once the next stop is the dropoff itself.
    private static func remainingRoute(trip: Trip.State, from start: LatLng) -> JSONValue? {
        guard let plan = trip.routePlan, let dropoff = trip.dropoff?.point, plan.legs.count == plan.destinations.count else { return nil }
        let near = { (a: LatLng, b: LatLng) in Distance.meters(a, b) <= JourneyViewItinerary.samePlaceMeters }
        guard let from = plan.destinations.firstIndex(where: { near($0.point, start) }),
              let to = plan.destinations.lastIndex(where: { near($0.point, dropoff) }), to > from
        else { return nil }
        var points: [LatLng] = []
        var traffic: [TrafficInterval] = []
        for leg in plan.legs[(from + 1)...to] {
            let legPoints = JourneyViewItinerary.legPath(leg).points
            let joined = points.last.map { $0 == legPoints.first } == true
            // The plan's traffic readings (Routes API speed intervals), re-indexed onto the joined path.
            let offset = joined ? points.count - 1 : points.count
            for interval in leg.speedIntervals ?? [] {
                guard let speed = TrafficSpeed(rawValue: interval.speed.rawValue),
                      let shifted = try? TrafficInterval(startIndex: offset + interval.startIndex, endIndex: offset + interval.endIndex, speed: speed)
                else { continue }
                traffic.append(shifted)
            }
            points += joined ? Array(legPoints.dropFirst()) : legPoints
        }
        guard points.count > 1 else { return nil }
        return polyline("REMAINING_ROUTE", points: points, traffic: traffic, visible: true)
    }

    /// A polyline object; stretches without a reading are filled in as NO_DATA.
    private static func polyline(_ type: String, points: [LatLng], traffic: [TrafficInterval], visible: Bool) -> JSONValue {
        let rounded = points.map(rounded)
        var intervals: [JSONValue] = []
        var cursor = 0
        let last = rounded.count - 1
        func add(_ start: Int, _ end: Int, _ speed: TrafficSpeed) {
            intervals.append(.object(JSONObject([
                ("startIndex", .number(JSONNumber(start))),
                ("endIndex", .number(JSONNumber(end))),
                ("speed", .string(speed.rawValue)),
            ])))
        }
        for interval in traffic where interval.endIndex <= last && interval.startIndex >= cursor {
            if cursor < interval.startIndex { add(cursor, interval.startIndex, .noData) }
            add(interval.startIndex, interval.endIndex, interval.speed)
            cursor = interval.endIndex
        }
        if cursor < last { add(cursor, last, .noData) }
        return .object(JSONObject([
            ("type", .string(type)),
            ("encodedPath", .string(Polyline.encode(rounded, precision: 5))),
            ("visible", .bool(visible)),
            ("trafficIntervals", .array(intervals)),
        ]))
    }

    private static func nextStop(_ stop: JourneyViewStop, itinerary: JourneyViewItinerary) -> JSONValue {
        let estimate = itinerary.estimates[stop]
        let type: String
        var index = JSONValue.null
        switch stop {
        case .pickup: type = "PICKUP"
        case .intermediateDestination(let i): type = "INTERMEDIATE_DESTINATION"; index = .number(JSONNumber(i))
        case .dropoff: type = "DROPOFF"
        }
        return .object(JSONObject([
            ("type", .string(type)),
            ("index", index),
            ("eta", time(estimate?.eta)),
            ("remainingDistanceMeters", meters(estimate?.remainingMeters)),
        ]))
    }

    private static func markerType(_ stop: JourneyViewStop) -> String {
        switch stop {
        case .pickup: "TRIP_PICKUP_POINT"
        case .intermediateDestination: "INTERMEDIATE_DESTINATION"
        case .dropoff: "TRIP_DROPOFF_POINT"
        }
    }

    /// Journey's stored speed as Geo's.
    private static func speed(_ speed: TrafficSpeedInterval.Speed) -> TrafficSpeed {
        switch speed {
        case .noData: .noData
        case .normal: .normal
        case .slow: .slow
        case .trafficJam: .trafficJam
        }
    }

    /// A point rounded to 1e-7 degrees.
    static func rounded(_ point: LatLng) -> LatLng {
        LatLng(uncheckedLatitude: (point.latitude * 1e7).rounded() / 1e7, longitude: (point.longitude * 1e7).rounded() / 1e7)
    }

    private static func position(_ point: LatLng?) -> JSONValue {
        guard let point else { return .null }
        let r = rounded(point)
        return .object(JSONObject([
            ("latitude", JSONNumber(r.latitude).map(JSONValue.number) ?? .null),
            ("longitude", JSONNumber(r.longitude).map(JSONValue.number) ?? .null),
        ]))
    }

    /// A point back from a `position` object; nil for `null` or anything out of range.
    private static func point(_ value: JSONValue) -> LatLng? {
        guard let latitude = value["latitude"]?.doubleValue, let longitude = value["longitude"]?.doubleValue else { return nil }
        do {
            return try LatLng(latitude: latitude, longitude: longitude)
        } catch {
            return nil
        }
    }

    private static func meters(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .number(JSONNumber(Int(value.rounded())))
    }

    private static func time(_ value: Timestamp?) -> JSONValue {
        value.map { .string($0.rfc3339) } ?? .null
    }
}
