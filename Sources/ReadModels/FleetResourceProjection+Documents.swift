import Geo
import JSON
import Journey

extension FleetResourceProjection {
    private typealias J = FleetResourceJSON

    /// The stored `Trip` resource (SDK view, every field, `vehicleWaypoints` included); nil for an unknown trip.
    ///
    /// Members follow the proto's field order. `pickupTime` / `dropoffTime` are the actual times
    /// once they happened (the provider's `actual*Point.timestamp`, else the recorded time of the
    /// status change), before that the ETA of the trip's own stop in `remainingWaypoints`.
    /// `remainingTimeToFirstWaypoint` and `view` depend on the request and are added by `FleetResourceViews`.
    func tripDocument(_ key: String) -> JSONValue? {
        guard let record = trips[key], record.state.exists else { return nil }
        let state = record.state
        let derived = derive(key) ?? TripDerived()
        func eta(of type: WaypointType) -> Timestamp? {
            derived.remainingWaypoints.indices
                .first { derived.remainingWaypoints[$0].tripId == state.tripId && derived.remainingWaypoints[$0].waypointType == type }
                .flatMap { derived.metrics[$0].eta }
        }
        let pickupTime = record.pickedUpAt.map { state.actualPickupPoint?.timestamp ?? $0 } ?? eta(of: .pickup)
        let dropoffTime = record.droppedOffAt.map { state.actualDropoffPoint?.timestamp ?? $0 } ?? eta(of: .dropOff)
        let first = derived.metrics.first
        let segment = derived.segment
        return J.object([
            ("name", .string(key)),
            ("vehicleId", J.string(state.vehicleId)),
            ("tripStatus", J.enumName(state.status, unless: .unknown)),
            ("tripType", J.enumName(state.tripType, unless: .unknown)),
            ("pickupPoint", state.pickup.map(J.terminalLocation)),
            ("actualPickupPoint", state.actualPickupPoint.map(J.stopLocation)),
            ("actualPickupArrivalPoint", state.actualPickupArrivalPoint.map(J.stopLocation)),
            ("pickupTime", pickupTime.map(J.timestamp)),
            ("intermediateDestinations", J.list(state.intermediateDestinations.map(J.terminalLocation))),
            ("intermediateDestinationsVersion", state.intermediateDestinationsVersion.map(J.timestamp)),
            ("intermediateDestinationIndex", state.intermediateDestinationIndex == 0 ? nil : J.int(state.intermediateDestinationIndex)),
            ("actualIntermediateDestinationArrivalPoints", J.list(Self.byIndex(state.actualIntermediateDestinationArrivalPoints))),
            ("actualIntermediateDestinations", J.list(Self.byIndex(state.actualIntermediateDestinations))),
            ("dropoffPoint", state.dropoff.map(J.terminalLocation)),
            ("actualDropoffPoint", state.actualDropoffPoint.map(J.stopLocation)),
            ("dropoffTime", dropoffTime.map(J.timestamp)),
            ("remainingWaypoints", J.list(zip(derived.remainingWaypoints, derived.metrics).map { Self.waypoint($0, $1, paths: true) })),
            ("vehicleWaypoints", J.list(derived.vehicleWaypoints.map(J.waypoint))),
            ("route", segment == nil || derived.segmentPath.isEmpty ? nil : J.path(derived.segmentPath)),
            ("currentRouteSegment", segment.map { .string($0.encodedPath) }),
            ("currentRouteSegmentVersion", record.currentRouteSegmentVersion.map(J.timestamp)),
            ("currentRouteSegmentTraffic", segment.flatMap { J.consumableTraffic($0.traffic, encodedPath: $0.encodedPath) }),
            ("currentRouteSegmentTrafficVersion", record.currentRouteSegmentTrafficVersion.map(J.timestamp)),
            ("currentRouteSegmentEndPoint", segment == nil ? nil : derived.remainingWaypoints.first.map(J.waypoint)),
            ("remainingDistanceMeters", first?.distanceMeters.map(J.int)),
            ("etaToFirstWaypoint", first?.eta.map(J.timestamp)),
            ("remainingWaypointsVersion", record.remainingWaypointsVersion.map(J.timestamp)),
            ("remainingWaypointsRouteVersion", record.remainingWaypointsRouteVersion.map(J.timestamp)),
            ("numberOfPassengers", state.numberOfPassengers == 0 ? nil : J.int(state.numberOfPassengers)),
            ("lastLocation", derived.lastLocation.map(J.vehicleLocation)),
            ("attributes", J.list(state.attributes.map(J.tripAttribute))),
        ])
    }

    /// The stored `Vehicle` resource as its canonical bytes; nil for an unknown vehicle.
    ///
    /// Route fields are the vehicle's own reports as written by UpdateVehicle (reference §2.2),
    /// including the input-only `currentRouteSegmentTraffic` (as road stretches) and
    /// `remainingTimeSeconds`, which `FleetResourceViews.vehicle` leaves out of responses.
    /// `waypoints` carry distance, ETA and duration where known, never paths.
    ///
    /// Rewritten at every location report, so written straight to canonical bytes, members in key
    /// order, as the vehicle's record is: building the value tree and sorting its members was a
    /// fifth of the fleet runner's time. The members that are rarely there and nested (attributes,
    /// plate, route, waypoints) are built as values with the same `FleetResourceJSON` encoders as
    /// the Trip and written in place. Proto3 defaults are left out as `FleetResourceJSON.object` does.
    func vehicleDocumentBytes(_ key: String) -> [UInt8]? {
        guard let vehicle = vehicles[key], vehicle.state.exists else { return nil }
        let state = vehicle.state
        let segment = vehicle.routeSegment
        var w = CanonicalJSONWriter()
        w.beginObject()
        if !state.attributes.isEmpty { w.key("attributes"); w.value(.array(state.attributes.map(J.vehicleAttribute))) }
        if state.backToBackEnabled { w.key("backToBackEnabled"); w.bool(true) }
        if let segment {
            w.key("currentRouteSegment")
            w.string(segment.encodedPath)
            if let end = segment.endPoint { w.key("currentRouteSegmentEndPoint"); w.value(J.waypoint(end)) }
            if let traffic = Self.trafficPolylineData(segment) { w.key("currentRouteSegmentTraffic"); w.value(traffic) }
        }
        if let version = vehicle.currentRouteSegmentVersion { w.key("currentRouteSegmentVersion"); w.plainString(version.appendRFC3339) }
        if !state.currentTripIds.isEmpty {
            w.key("currentTrips")
            w.beginArray()
            for trip in state.currentTripIds { w.string(trip) }
            w.endArray()
        }
        if let eta = vehicle.remainingRoute?.eta { w.key("etaToFirstWaypoint"); w.plainString(eta.appendRFC3339) }
        if let location = state.lastLocation { w.key("lastLocation"); Self.writeVehicleLocation(location, to: &w) }
        if let plate = state.licensePlate { w.key("licensePlate"); w.value(J.licensePlate(plate)) }
        if state.maximumCapacity != 0 { w.key("maximumCapacity"); w.integer(state.maximumCapacity) }
        w.key("name")
        w.string(key)
        if state.navigationStatus != .unknown { w.key("navigationStatus"); w.string(state.navigationStatus.rawValue) }
        if let meters = vehicle.remainingRoute?.distanceMeters { w.key("remainingDistanceMeters"); w.integer(meters) }
        if let seconds = vehicle.remainingRoute?.remainingTimeSeconds { w.key("remainingTimeSeconds"); w.integer(seconds) }
        let tripTypes = state.supportedTripTypes.filter { $0 != .unknown }
        if !tripTypes.isEmpty {
            w.key("supportedTripTypes")
            w.beginArray()
            for type in tripTypes { w.string(type.rawValue) }
            w.endArray()
        }
        if state.vehicleState != .unknown { w.key("vehicleState"); w.string(state.vehicleState.rawValue) }
        w.key("vehicleType")
        w.beginObject()
        if state.vehicleType.category != .unknown { w.key("category"); w.string(state.vehicleType.category.rawValue) }
        w.endObject()
        if !state.waypoints.isEmpty {
            let metrics = metrics(for: state.waypoints, provider: vehicle.provider, vehicle: vehicle, listed: true)
            w.key("waypoints")
            w.value(.array(zip(state.waypoints, metrics).map { Self.waypoint($0, $1, paths: false) }))
        }
        if let version = vehicle.waypointsVersion { w.key("waypointsVersion"); w.plainString(version.appendRFC3339) }
        w.endObject()
        return w.bytes
    }

    /// `FleetResourceJSON.vehicleLocation`, written canonically in place.
    private static func writeVehicleLocation(_ location: VehicleLocation, to w: inout CanonicalJSONWriter) {
        func number(_ name: StaticString, _ value: Double?) {
            guard let number = value.flatMap(JSONNumber.init) else { return }
            w.key(name)
            w.value(.number(number))
        }
        w.beginObject()
        if let heading = location.heading { w.key("heading"); w.integer(Int(heading.rounded()) % 360) }
        number("headingAccuracy", location.headingAccuracy)
        if let snapped = location.isRoadSnapped { w.key("isRoadSnapped"); w.bool(snapped) }
        number("latlngAccuracy", location.latlngAccuracy)
        w.key("location")
        w.beginObject()
        let latitude = Int64((location.location.latitude * 1e7).rounded()), longitude = Int64((location.location.longitude * 1e7).rounded())
        if latitude != 0 { w.key("latitude"); w.decimal(units: latitude, fractionDigits: J.coordinateFractionDigits) }
        if longitude != 0 { w.key("longitude"); w.decimal(units: longitude, fractionDigits: J.coordinateFractionDigits) }
        w.endObject()
        if let sensor = location.locationSensor, sensor != .unknown { w.key("locationSensor"); w.string(sensor.rawValue) }
        if let time = location.serverTime { w.key("serverTime"); w.plainString(time.appendRFC3339) }
        number("speed", location.speed)
        number("speedAccuracy", location.speedAccuracy)
        if let time = location.updateTime { w.key("updateTime"); w.plainString(time.appendRFC3339) }
        w.endObject()
    }

    /// A `TripWaypoint` with what is known about reaching it; paths only when asked for.
    private static func waypoint(_ waypoint: TripWaypoint, _ metrics: WaypointMetrics, paths: Bool) -> JSONValue {
        J.object(J.waypointMembers(waypoint) + [
            ("pathToWaypoint", paths && !metrics.path.isEmpty ? J.path(metrics.path) : nil),
            ("encodedPathToWaypoint", paths ? J.string(metrics.encodedPath) : nil),
            ("trafficToWaypoint", paths ? metrics.encodedPath.flatMap { J.consumableTraffic(metrics.traffic, encodedPath: $0) } : nil),
            ("distanceMeters", metrics.distanceMeters.map(J.int)),
            ("eta", metrics.eta.map(J.timestamp)),
            ("duration", metrics.durationSeconds.map(J.duration(seconds:))),
        ])
    }

    /// Recorded stop locations in index order (the list loses gaps, as the proto's repeated field does).
    private static func byIndex(_ points: [Int: StopLocation]) -> [JSONValue] {
        points.sorted { $0.key < $1.key }.map { J.stopLocation($0.value) }
    }

    /// `TrafficPolylineData` (`trafficRendering.roadStretch`): the segment's slow and jammed
    /// intervals as road stretches in meters along the path; nil when there are none.
    private static func trafficPolylineData(_ segment: RouteSegment) -> JSONValue? {
        let path = Self.path(segment.encodedPath)
        let intervals = segment.traffic.compactMap { interval -> TrafficInterval? in
            guard let speed = TrafficSpeed(rawValue: interval.speed.rawValue) else { return nil }
            return try? TrafficInterval(startIndex: interval.startIndex, endIndex: interval.endIndex, speed: speed)
        }
        let stretches = Traffic.roadStretches(from: intervals, along: path)
        guard !stretches.isEmpty else { return nil }
        let rendered = stretches.map { stretch in
            J.object([
                ("style", .string(stretch.style.rawValue)),
                ("offsetMeters", stretch.offsetMeters == 0 ? nil : J.int(stretch.offsetMeters)),
                ("lengthMeters", J.int(stretch.lengthMeters)),
            ])
        }
        return J.object([("trafficRendering", J.object([("roadStretch", .array(rendered))]))])
    }
}
