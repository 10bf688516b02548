import JSON
import Journey

/// GetTrip / GetVehicle responses made from the stored documents of `FleetResourceProjection`.
///
/// Both trip views come from the one stored document: the SDK view is the document without
/// `vehicleWaypoints` (never returned by GetTrip, reference §3.3), the JOURNEY_SHARING_V1S view
/// keeps only the fields that view populates. Pure functions: the request's "if changed since"
/// versions and the response time (for `remainingTimeToFirstWaypoint`) are parameters. Member
/// order is the stored order, with `remainingTimeToFirstWaypoint` after `etaToFirstWaypoint`
/// and `view` before `attributes` (proto field order).
package enum FleetResourceViews {
    /// GetTrip's "omit unless changed since" parameters; a sub-field is left out when its version
    /// in the document is not later than the one given (exclusive minimum, reference §3.2).
    package struct TripVersions: Sendable, Hashable {
        package var currentRouteSegmentVersion: Timestamp?
        package var currentRouteSegmentTrafficVersion: Timestamp?
        package var remainingWaypointsRouteVersion: Timestamp?

        package init(
            currentRouteSegmentVersion: Timestamp? = nil,
            currentRouteSegmentTrafficVersion: Timestamp? = nil,
            remainingWaypointsRouteVersion: Timestamp? = nil
        ) {
            self.currentRouteSegmentVersion = currentRouteSegmentVersion
            self.currentRouteSegmentTrafficVersion = currentRouteSegmentTrafficVersion
            self.remainingWaypointsRouteVersion = remainingWaypointsRouteVersion
        }
    }

    /// GetVehicle's "omit unless changed since" parameters.
    package struct VehicleVersions: Sendable, Hashable {
        package var currentRouteSegmentVersion: Timestamp?
        package var waypointsVersion: Timestamp?

        package init(currentRouteSegmentVersion: Timestamp? = nil, waypointsVersion: Timestamp? = nil) {
            self.currentRouteSegmentVersion = currentRouteSegmentVersion
            self.waypointsVersion = waypointsVersion
        }
    }

    /// The fields JOURNEY_SHARING_V1S populates (reference §3.3), `view` added by the function.
    package static let journeySharingTripFields: Set<String> = [
        "name", "vehicleId", "tripStatus", "tripType", "numberOfPassengers", "pickupPoint", "actualPickupPoint",
        "pickupTime", "intermediateDestinations", "intermediateDestinationsVersion", "intermediateDestinationIndex",
        "dropoffPoint", "actualDropoffPoint", "dropoffTime", "remainingWaypoints", "lastLocation",
    ]

    /// Per-waypoint fields covered by `remainingWaypointsRouteVersion`.
    static let waypointRouteFields: Set<String> = ["pathToWaypoint", "encodedPathToWaypoint", "trafficToWaypoint"]

    /// Vehicle fields Fleet Engine accepts on input but never returns.
    package static let vehicleInputOnlyFields: Set<String> = ["currentRouteSegmentTraffic", "remainingTimeSeconds"]

    /// GetTrip with `view` SDK (or unspecified): everything but `vehicleWaypoints`.
    ///
    /// With `now`, `remainingTimeToFirstWaypoint` is `etaToFirstWaypoint − now` (never negative).
    package static func sdkTrip(_ document: JSONValue, since versions: TripVersions = TripVersions(), now: Timestamp? = nil) -> JSONValue {
        guard case .object(let trip) = document else { return document }
        let skipSegment = unchanged(trip["currentRouteSegmentVersion"], since: versions.currentRouteSegmentVersion)
        let skipTraffic = unchanged(trip["currentRouteSegmentTrafficVersion"], since: versions.currentRouteSegmentTrafficVersion)
        let skipRoutes = unchanged(trip["remainingWaypointsRouteVersion"], since: versions.remainingWaypointsRouteVersion)
        var members: [(String, JSONValue)] = []
        for (key, value) in trip {
            switch key {
            case "vehicleWaypoints":
                continue
            case "route" where skipSegment, "currentRouteSegment" where skipSegment, "currentRouteSegmentEndPoint" where skipSegment:
                continue
            case "currentRouteSegmentTraffic" where skipTraffic:
                continue
            case "remainingWaypoints" where skipRoutes:
                members.append((key, mapWaypoints(value) { $0.keeping { !waypointRouteFields.contains($0.key) } }))
            case "attributes":
                members.append(("view", "SDK"))
                members.append((key, value))
                continue
            default:
                members.append((key, value))
            }
            if key == "etaToFirstWaypoint", let now, case .string(let text) = value, let eta = Timestamp(rfc3339: text) {
                let remaining = max(0, eta.microsecondsSinceEpoch - now.microsecondsSinceEpoch)
                members.append(("remainingTimeToFirstWaypoint", FleetResourceJSON.duration(microseconds: remaining)))
            }
        }
        if !trip.containsKey("attributes") { members.append(("view", "SDK")) }
        return .object(JSONObject(members))
    }

    /// GetTrip with `view` JOURNEY_SHARING_V1S: only the fields that view populates.
    ///
    /// Remaining waypoints keep their path (`pathToWaypoint`), traffic and per-stop ETA, distance
    /// and duration, but lose the SDK-only encoded paths (`encodedPathToWaypoint`, also inside
    /// `trafficToWaypoint`). Like Fleet Engine, other trips' stops of a pooled or back-to-back
    /// vehicle stay in `remainingWaypoints`; the rider-facing journey view redacts them.
    package static func journeySharingTrip(_ document: JSONValue) -> JSONValue {
        guard case .object(let trip) = document else { return document }
        var members: [(String, JSONValue)] = []
        for (key, value) in trip where journeySharingTripFields.contains(key) {
            if key == "remainingWaypoints" {
                members.append((key, mapWaypoints(value, stripEncodedPaths)))
            } else {
                members.append((key, value))
            }
        }
        members.append(("view", "JOURNEY_SHARING_V1S"))
        return .object(JSONObject(members))
    }

    /// GetVehicle: the stored document without input-only fields, and without the route segment
    /// or waypoints when they have not changed since the versions given.
    package static func vehicle(_ document: JSONValue, since versions: VehicleVersions = VehicleVersions()) -> JSONValue {
        guard case .object(let vehicle) = document else { return document }
        let skipSegment = unchanged(vehicle["currentRouteSegmentVersion"], since: versions.currentRouteSegmentVersion)
        let skipWaypoints = unchanged(vehicle["waypointsVersion"], since: versions.waypointsVersion)
        var members: [(String, JSONValue)] = []
        for (key, value) in vehicle where !vehicleInputOnlyFields.contains(key) {
            if skipSegment, key == "currentRouteSegment" || key == "currentRouteSegmentEndPoint" { continue }
            if skipWaypoints, key == "waypoints" { continue }
            members.append((key, value))
        }
        return .object(JSONObject(members))
    }

    /// Whether a stored version is not later than the caller's (so the data is unchanged for it).
    private static func unchanged(_ stored: JSONValue?, since given: Timestamp?) -> Bool {
        guard let given else { return false }
        guard case .string(let text)? = stored, let version = Timestamp(rfc3339: text) else { return true }
        return version <= given
    }

    private static func mapWaypoints(_ value: JSONValue, _ transform: (JSONObject) -> JSONObject) -> JSONValue {
        guard case .array(let waypoints) = value else { return value }
        return .array(waypoints.map { waypoint in
            guard case .object(let object) = waypoint else { return waypoint }
            return .object(transform(object))
        })
    }

    private static func stripEncodedPaths(_ waypoint: JSONObject) -> JSONObject {
        var result = waypoint.keeping { $0.key != "encodedPathToWaypoint" }
        if case .object(var traffic)? = result["trafficToWaypoint"] {
            traffic.removeValue(forKey: "encodedPathToWaypoint")
            result["trafficToWaypoint"] = .object(traffic)
        }
        return result
    }
}

extension JSONObject {
    /// The members for which `isIncluded` holds, in order.
    fileprivate func keeping(_ isIncluded: (Element) -> Bool) -> JSONObject {
        JSONObject(self.filter(isIncluded).map { ($0.key, $0.value) })
    }
}
