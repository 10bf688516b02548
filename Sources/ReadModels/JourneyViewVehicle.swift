import Geo
import JSON
import Journey

/// What the journey view keeps about one vehicle between events.
///
/// The domain's `Vehicle.State` (last accepted location, remaining waypoints across all its
/// trips, off-route flag) plus what only journey sharing needs: the latest route segment with
/// its traffic and how far along it the vehicle has been snapped, a few recent positions for
/// the average speed, and the last reported remaining distance / ETA together with the
/// waypoint it was reported for. Stored as a "state" document, so `load` rebuilds it exactly.
struct JourneyViewVehicle: Codable, Hashable, Sendable {
    /// Where the vehicle was last placed on its route segment (a `SnappedPoint` minus its
    /// off-route distance, stored so the active route is trimmed identically after `load`).
    struct Snap: Codable, Hashable, Sendable {
        var point: LatLng
        var segmentIndex: Int
        var fraction: Double
        var distanceAlong: Double

        /// The snapped point as Geo's type, for `trimmed(at:)` and `Traffic.trim`.
        var snappedPoint: SnappedPoint {
            SnappedPoint(point: point, segmentIndex: segmentIndex, fraction: fraction, distanceAlong: distanceAlong, distanceOff: 0)
        }
    }

    /// The latest `VehicleRouteSegmentUpdated`: the driver's path to its next waypoint.
    struct Segment: Codable, Hashable, Sendable {
        var encodedPath: String
        var traffic: [TrafficSpeedInterval]
        var endPoint: TripWaypoint?
        var at: Timestamp
        /// The last snap onto this path; nil until a position within the snap radius is seen.
        var snap: Snap?

        /// The decoded path, indexed for snapping, from the shared cache; empty when the stored
        /// text does not decode (the domain rejects such paths).
        var indexedPath: IndexedPath {
            do {
                return try PathCache.shared.path(encodedPath)
            } catch {
                return IndexedPath(Path([]))
            }
        }

        /// The decoded path.
        var path: Path { indexedPath.path }
    }

    /// One accepted position, for the recent average speed.
    struct Sample: Codable, Hashable, Sendable {
        var point: LatLng
        var time: Timestamp
    }

    /// The latest `VehicleRemainingRouteReported`, tied to the waypoint it was about.
    struct RemainingRoute: Codable, Hashable, Sendable {
        var distanceMeters: Int?
        var eta: Timestamp?
        /// The vehicle's first waypoint when the report arrived; the report applies only while it still is.
        var target: TripWaypoint?
        var at: Timestamp
    }

    /// Positions farther than this from the segment do not move the snap (the default off-route threshold).
    static let snapRadiusMeters = Vehicle.Policy.default.offRouteThresholdMeters
    /// Samples older than this (before the newest one) do not count towards the average speed.
    static let speedWindowSeconds = 120.0
    /// At most this many recent samples are kept.
    static let maximumSamples = 6

    /// The domain's view of the vehicle.
    var vehicle = Vehicle.State()
    /// The current route segment, if any was reported.
    var segment: Segment?
    /// Recent accepted positions, oldest first.
    var samples: [Sample] = []
    /// The last remaining-route report, if any.
    var remainingRoute: RemainingRoute?

    /// An unknown vehicle.
    init() {}

    /// `providers/{provider}/vehicles/{vehicleId}`: the key of its state document.
    static func key(provider: String, vehicleId: String) -> String {
        "providers/\(provider)/vehicles/\(vehicleId)"
    }

    /// Folds one vehicle event in.
    mutating func apply(_ event: Vehicle.Event) {
        let firstWaypointBefore = vehicle.waypoints.first
        vehicle = Vehicle.evolve(vehicle, with: event)
        switch event {
        case .locationReported(let e):
            let time = e.location.deviceTime ?? e.at
            samples.append(Sample(point: e.location.location, time: time))
            samples.removeAll { time.seconds(since: $0.time) > Self.speedWindowSeconds }
            if samples.count > Self.maximumSamples { samples.removeFirst(samples.count - Self.maximumSamples) }
            snapToSegment(e.location.location)
        case .routeSegmentUpdated(let e):
            segment = Segment(encodedPath: e.encodedPath, traffic: e.traffic, endPoint: e.endPoint, at: e.at, snap: nil)
            if let location = vehicle.lastLocation?.location { snapToSegment(location) }
        case .remainingRouteReported(let e):
            remainingRoute = RemainingRoute(
                distanceMeters: e.remainingDistanceMeters, eta: e.etaToFirstWaypoint,
                target: vehicle.waypoints.first, at: e.at)
        case .tripAssigned, .tripWaypointsUpdated, .tripReleased, .waypointsReordered:
            // A report about a waypoint the vehicle no longer heads for first is dropped.
            if vehicle.waypoints.first != firstWaypointBefore, remainingRoute?.target == firstWaypointBefore {
                remainingRoute = nil
            }
        case .registered, .stateChanged, .staleLocationRecorded, .locationHistoryRecorded, .navigationStatusChanged,
             .routeFollowed, .wentOffRoute, .rejoinedRoute, .rerouted, .attributesSet, .backToBackEnabledChanged,
             .capabilitiesChanged, .licensePlateSet, .tripOffered, .tripOfferAnswered:
            break
        case .deleted:
            // Nothing of a deleted vehicle carries over to one registered again under its id.
            self = JourneyViewVehicle()
        }
    }

    /// Moves the snap forward along the segment (never back), unless `location` is off the route.
    private mutating func snapToSegment(_ location: LatLng) {
        guard var current = segment else { return }
        let route = current.indexedPath
        guard route.path.points.count > 1,
              let snapped = route.snap(location, notBefore: current.snap?.distanceAlong ?? 0),
              snapped.distanceOff <= Self.snapRadiusMeters
        else { return }
        current.snap = Snap(point: snapped.point, segmentIndex: snapped.segmentIndex, fraction: snapped.fraction, distanceAlong: snapped.distanceAlong)
        segment = current
    }

    /// Metres per second over the recent samples; the last report's own speed when they span
    /// less than a second; nil when neither is known.
    var averageSpeed: Double? {
        if let first = samples.first, let last = samples.last {
            let elapsed = last.time.seconds(since: first.time)
            if elapsed >= 1 {
                var meters = 0.0
                for (a, b) in zip(samples, samples.dropFirst()) { meters += Distance.meters(a.point, b.point) }
                return meters / elapsed
            }
        }
        return vehicle.lastLocation?.speed
    }

    /// Metres left on the segment ahead of the vehicle, when the segment leads to `target`.
    ///
    /// The segment leads to `target` when its end point names it (same trip, type and place),
    /// or, without an end point, when the path ends within the snap radius of it.
    func segmentRemainingMeters(to target: TripWaypoint) -> Double? {
        guard let segment else { return nil }
        let path = segment.path
        guard let last = path.points.last else { return nil }
        if let end = segment.endPoint {
            guard end.tripId == target.tripId, end.waypointType == target.waypointType,
                  Distance.meters(end.location.point, target.location.point) <= Self.snapRadiusMeters
            else { return nil }
        } else {
            guard Distance.meters(last, target.location.point) <= Self.snapRadiusMeters else { return nil }
        }
        return max(0, path.length - (segment.snap?.distanceAlong ?? 0))
    }
}

extension JourneyViewVehicle {
    /// This state as `JSONValueEncoder` encodes it, built directly (see `RecordJSON`): it is
    /// stored again at every location report.
    var recordValue: JSONValue {
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(4)
        if let remainingRoute { members.append(("remainingRoute", RecordJSON.generic(remainingRoute))) }
        members.append(("samples", .array(samples.map { sample in
            .object(JSONObject([("point", RecordJSON.latLng(sample.point)), ("time", .string(sample.time.rfc3339))]))
        })))
        if let segment { members.append(("segment", RecordJSON.generic(segment))) }
        members.append(("vehicle", vehicle.recordValue))
        return .object(JSONObject(members))
    }
}

extension JourneyViewVehicle {
    /// ``recordValue``'s canonical bytes, written without building it.
    var recordBytes: [UInt8] {
        var writer = CanonicalJSONWriter(capacity: 1280)
        writer.beginObject()
        if let remainingRoute { writer.key("remainingRoute"); writer.value(RecordJSON.generic(remainingRoute)) }
        writer.key("samples")
        writer.beginArray()
        for sample in samples {
            writer.beginObject()
            writer.key("point")
            RecordJSON.writeLatLng(sample.point, to: &writer)
            writer.key("time")
            writer.plainString(sample.time.appendRFC3339)
            writer.endObject()
        }
        writer.endArray()
        if let segment { writer.key("segment"); writer.value(RecordJSON.generic(segment)) }
        writer.key("vehicle")
        vehicle.writeRecord(to: &writer)
        writer.endObject()
        return writer.bytes
    }
}
