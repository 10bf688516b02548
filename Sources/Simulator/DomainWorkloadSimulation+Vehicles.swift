import Geo
import Journey

extension DomainWorkloadSimulation {
    /// Registers every vehicle (some ONLINE at once, the others OFFLINE then switched ONLINE)
    /// and sends each one's first location.
    mutating func registerFleet() {
        let categories: [VehicleType.Category] = [.auto, .taxi, .taxi, .auto]
        for c in cars.indices {
            let types: [TripType] = [[.exclusive], [.shared], [.exclusive, .shared], [.shared, .exclusive]][c % 4]
            let online = rng.chance(50)
            runVehicle(c, .registerVehicle(.init(
                vehicleId: cars[c].id, vehicleState: online ? .online : .offline, supportedTripTypes: types,
                maximumCapacity: rng.between(2...4), vehicleType: VehicleType(category: categories[c % 4]),
                attributes: c % 5 == 0 ? [Attribute(key: "accessible", value: .bool(true))] : [],
                backToBackEnabled: c % 3 == 0), at: clock), "Vehicle.registerVehicle")
            if !online { runVehicle(c, .setVehicleState(.online, at: clock), "Vehicle.setVehicleState") }
            cars[c].position = randomPoint()
            report(c, at: cars[c].position, heading: rng.between(0.0...359.0), speed: 0)
            cars[c].nextActionAt = clock.adding(seconds: rng.between(1.0...30.0))
        }
    }

    /// The vehicle's next move, by phase.
    mutating func act(_ c: Int) {
        switch cars[c].phase {
        case .offline:
            runVehicle(c, .setVehicleState(.online, at: clock), "Vehicle.setVehicleState")
            cars[c].phase = .idle
            cars[c].nextActionAt = clock.adding(seconds: 2)
            dispatch()
        case .idle:
            if let target = cars[c].state.waypoints.first {
                startLeg(c, to: target)
                return
            }
            report(c, at: cars[c].position, heading: rng.between(0.0...359.0), speed: 0)
            if cars[c].state.currentTrips.isEmpty, rng.chance(4) {
                runVehicle(c, .setVehicleState(.offline, at: clock), "Vehicle.setVehicleState")
                runVehicle(c, .setNavigationStatus(.noGuidance, at: clock), "Vehicle.setNavigationStatus")
                cars[c].phase = .offline
                cars[c].nextActionAt = clock.adding(seconds: rng.between(120.0...420.0))
            } else {
                cars[c].nextActionAt = clock.adding(seconds: rng.between(reportInterval) * 6)
            }
        case .driving:
            drive(c)
        case .dwelling:
            if let target = cars[c].leg?.target, let r = rideIndex[target.tripId] { depart(r) }
            stopLeg(c)
            cars[c].nextActionAt = clock.adding(seconds: 1)
        }
    }

    /// Ends the current leg; the vehicle idles until its next action.
    mutating func stopLeg(_ c: Int) {
        cars[c].leg = nil
        cars[c].detour = 0
        cars[c].phase = .idle
        cars[c].nextActionAt = min(cars[c].nextActionAt, clock.adding(seconds: 2))
    }

    /// Starts driving to the vehicle's first waypoint: the trip heads for it, its route is
    /// planned (or the planned leg reused), and the vehicle follows it with a route segment,
    /// navigation status and remaining distance.
    mutating func startLeg(_ c: Int, to first: TripWaypoint) {
        var target = first
        // Pooled SHARED trips: sometimes pick up the next rider before dropping off the current one.
        if rng.chance(30), let reordered = pooledReorder(cars[c].state.waypoints),
           attemptVehicle(c, .reorderWaypoints(reordered, at: clock), "Vehicle.reorderWaypoints") {
            target = reordered[0]
        }
        if let r = rideIndex[target.tripId], rides[r].state.status.isArrival { depart(r) }
        guard let waypoint = cars[c].state.waypoints.first, let r = rideIndex[waypoint.tripId] else { return stopLeg(c) }
        target = waypoint
        if rides[r].state.status == .new { runTrip(r, .updateTripStatus(.enrouteToPickup, at: clock), "Trip.updateTripStatus") }
        let trip = rides[r].state
        let remaining = trip.remainingWaypoints.map(\.location.point)
        var path: [LatLng]?
        if let plan = trip.routePlan, plan.destinations.dropFirst(trip.activeDestinationIndex).map(\.point) == remaining,
           trip.activeDestinationIndex < plan.legs.count,
           let planned = try? Polyline.decode(plan.legs[trip.activeDestinationIndex].encodedPolyline),
           let start = planned.first, Distance.meters(start, cars[c].position) < 150 {
            path = planned
        }
        if path == nil {
            let fresh = road(from: cars[c].position, to: target.location.point)
            planRoute(r, firstLeg: fresh)
            path = fresh
        }
        let legPath = path!
        let encoded = Polyline.encode(legPath)
        runVehicle(c, .followRoute(tripId: trip.tripId, encodedPath: encoded, at: clock), "Vehicle.followRoute")
        runVehicle(c, .updateRouteSegment(encodedPath: encoded, traffic: traffic(points: legPath.count), endPoint: target, at: clock),
                   "Vehicle.updateRouteSegment")
        runVehicle(c, .setNavigationStatus(.enrouteToDestination, at: clock), "Vehicle.setNavigationStatus")
        let leg = Leg(target: target, path: Path(legPath), speed: rng.between(7.0...14.0), lastMove: clock)
        runVehicle(c, .reportRemainingRoute(remainingDistanceMeters: Int(leg.path.length), etaToFirstWaypoint: nil,
                                            remainingTimeSeconds: Int(leg.path.length / leg.speed), at: clock), "Vehicle.reportRemainingRoute")
        cars[c].leg = leg
        cars[c].phase = .driving
        cars[c].nextActionAt = clock.adding(seconds: rng.between(reportInterval))
    }

    /// The waypoints with another SHARED trip's pickup moved to the front, if the first two
    /// trips are SHARED (each trip's own order is kept).
    func pooledReorder(_ waypoints: [TripWaypoint]) -> [TripWaypoint]? {
        guard let first = waypoints.first, rides[rideIndex[first.tripId] ?? 0].state.tripType == .shared,
              let i = waypoints.firstIndex(where: { $0.tripId != first.tripId && $0.waypointType == .pickup }),
              let r = rideIndex[waypoints[i].tripId], rides[r].state.tripType == .shared
        else { return nil }
        var reordered = waypoints
        reordered.insert(reordered.remove(at: i), at: 0)
        return reordered
    }

    /// Moves the vehicle along its leg and reports where it is, with the odd stale report,
    /// offline backlog, detour, route segment and remaining-route update; arrives at the end.
    mutating func drive(_ c: Int) {
        guard var leg = cars[c].leg else { return stopLeg(c) }
        guard cars[c].state.waypoints.first == leg.target else { return stopLeg(c) }  // the plan changed under the vehicle
        if rng.chance(20), let reordered = pooledReorder(cars[c].state.waypoints),
           attemptVehicle(c, .reorderWaypoints(reordered, at: clock), "Vehicle.reorderWaypoints") {
            return stopLeg(c)  // a pooled rider is picked up first
        }
        let seconds = clock.seconds(since: leg.lastMove)
        leg.traveled += leg.speed * seconds * rng.between(0.6...1.1)
        leg.lastMove = clock
        leg.reports += 1
        if leg.traveled >= leg.path.length {
            cars[c].position = leg.target.location.point
            cars[c].leg = leg
            report(c, at: cars[c].position, heading: rng.between(0.0...359.0), speed: 0)
            runVehicle(c, .setNavigationStatus(.arrivedAtDestination, at: clock), "Vehicle.setNavigationStatus")
            arrive(c, at: leg.target)
            let dropoff = leg.target.waypointType == .dropOff
            cars[c].phase = dropoff ? .idle : .dwelling
            if dropoff { cars[c].leg = nil }
            cars[c].nextActionAt = clock.adding(seconds: dropoff ? rng.between(2.0...6.0) : rng.between(15.0...60.0))
            return
        }
        let onPath = leg.path.point(atDistance: leg.traveled)
        let ahead = leg.path.point(atDistance: leg.traveled + 10)
        let heading = Distance.initialBearing(from: onPath, to: ahead)
        cars[c].position = Self.rounded(onPath)
        var reported = onPath
        if cars[c].detour > 0 {
            reported = Distance.destination(from: onPath, bearing: (heading + 90).truncatingRemainder(dividingBy: 360), meters: cars[c].detourOffset)
        }
        reported = Distance.destination(from: reported, bearing: rng.between(0.0...359.0), meters: rng.between(0.0...6.0))
        report(c, at: Self.rounded(reported), heading: heading, speed: leg.speed)
        if cars[c].detour > 0 {
            cars[c].detour -= 1
            if cars[c].detour == 0, rng.chance(50) {
                // Navigation gives up on the plan and computes a new route from where the vehicle is.
                let fresh = road(from: Self.rounded(reported), to: leg.target.location.point)
                runVehicle(c, .updateRouteSegment(encodedPath: Polyline.encode(fresh), traffic: traffic(points: fresh.count),
                                                  endPoint: leg.target, at: clock), "Vehicle.updateRouteSegment")
                leg.path = Path(fresh)
                leg.traveled = 0
                cars[c].position = fresh[0]
            }
        } else if rng.chance(3) {
            cars[c].detour = rng.between(3...5)
            cars[c].detourOffset = rng.between(120.0...250.0)
        }
        let remaining = max(0, leg.path.length - leg.traveled)
        if leg.reports % 3 == 0 {
            let eta = clock.adding(seconds: remaining / leg.speed)
            runVehicle(c, .reportRemainingRoute(remainingDistanceMeters: Int(remaining), etaToFirstWaypoint: rng.chance(50) ? eta : nil,
                                                remainingTimeSeconds: rng.chance(50) ? Int(remaining / leg.speed) : nil, at: clock),
                       "Vehicle.reportRemainingRoute")
        }
        if leg.reports % 7 == 0, cars[c].detour == 0 {
            let rest = remainingPath(leg)
            runVehicle(c, .updateRouteSegment(encodedPath: Polyline.encode(rest), traffic: traffic(points: rest.count), endPoint: leg.target, at: clock),
                       "Vehicle.updateRouteSegment")
        }
        cars[c].leg = leg
        cars[c].nextActionAt = clock.adding(seconds: rng.between(reportInterval))
        if let r = rideIndex[leg.target.tripId] { tripAsides(c, r) }
    }

    /// Occasional changes to the trip being driven to: new intermediate stops before pickup,
    /// or the vehicle taken off the trip (which then waits for another).
    private mutating func tripAsides(_ c: Int, _ r: Int) {
        let trip = rides[r].state
        guard trip.status == .enrouteToPickup else { return }
        if trip.tripType == .exclusive, !trip.intermediateDestinations.isEmpty, rng.chance(3), let dropoff = trip.dropoff?.point {
            let stops = (1...rng.between(1...2)).map { _ in TerminalLocation(point: point(near: dropoff, meters: 300...1_200)) }
            runTrip(r, .setIntermediateDestinations(stops, at: clock), "Trip.setIntermediateDestinations")
        } else if rng.below(250) == 0 {
            runTrip(r, .unassignVehicle(at: clock), "Trip.unassignVehicle")
            rides[r].waitingSince = clock
            stopLeg(c)
            dispatch()
        }
    }

    /// The part of the leg still ahead, from the vehicle's position.
    private func remainingPath(_ leg: Leg) -> [LatLng] {
        let cumulative = leg.path.cumulativeDistances
        var points = [Self.rounded(leg.path.point(atDistance: leg.traveled))]
        for (i, d) in cumulative.enumerated() where d > leg.traveled { points.append(leg.path.points[i]) }
        if points.count < 2 { points.append(leg.target.location.point) }
        return points
    }

    /// Reports a location: now and then stale (device time in the past) or with an offline backlog.
    mutating func report(_ c: Int, at position: LatLng, heading: Double, speed: Double) {
        var deviceTime = clock
        if rng.chance(4), cars[c].state.lastLocation != nil { deviceTime = clock.adding(seconds: -rng.between(60.0...180.0)) }
        var location = VehicleLocation(location: position, updateTime: deviceTime, heading: heading.truncatingRemainder(dividingBy: 360),
                                       speed: speed, locationSensor: rng.chance(90) ? .gps : .network)
        if rng.chance(60) { location.latlngAccuracy = rng.between(3.0...25.0) }
        var past: [VehicleLocation] = []
        if rng.chance(3) {
            for k in (1...rng.between(2...4)).reversed() {
                past.append(VehicleLocation(location: point(near: position, meters: 20...200), updateTime: clock.adding(seconds: -Double(k) * 20),
                                            locationSensor: .gps))
            }
        }
        runVehicle(c, .reportLocation(location, pastLocations: past, at: clock), "Vehicle.reportLocation")
    }
}
