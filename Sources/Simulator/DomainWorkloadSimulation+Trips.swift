import Geo
import Journey

extension DomainWorkloadSimulation {
    /// A rider requests a trip: created, perhaps completed with a dropoff or attributes, then dispatched.
    mutating func requestTrip() {
        let n = rides.count
        let id = DomainWorkload.tripId(n)
        rideIndex[id] = n
        rides.append(Ride(id: id, stream: DomainWorkload.tripStream(provider: provider, tripId: id)))
        let exclusive = rng.chance(65)
        let pickup = randomPoint()
        let dropoff = point(near: pickup, meters: 1_500...4_500)
        var intermediates: [TerminalLocation] = []
        if exclusive, rng.chance(40) {
            for i in 1...rng.between(1...3) {
                let along = Distance.interpolate(from: pickup, to: dropoff, fraction: Double(i) / 4)
                intermediates.append(TerminalLocation(point: point(near: along, meters: 100...600)))
            }
        }
        let withDropoff = rng.chance(85)
        let attributes = rng.chance(25) ? [Attribute(key: "channel", value: .string(rng.chance(50) ? "app" : "phone"))] : []
        runTrip(n, .createTrip(.init(
            tripId: id, tripType: exclusive ? .exclusive : .shared, pickup: TerminalLocation(point: pickup),
            dropoff: withDropoff ? TerminalLocation(point: dropoff) : nil, intermediateDestinations: intermediates,
            numberOfPassengers: rng.between(1...2), attributes: attributes), at: clock), "Trip.createTrip")
        if !withDropoff { runTrip(n, .setDropoffPoint(TerminalLocation(point: dropoff), at: clock), "Trip.setDropoffPoint") }
        if rng.chance(10) { runTrip(n, .setAttributes([Attribute(key: "priority", value: .number(Double(rng.between(1...3))))], at: clock), "Trip.setAttributes") }
        active.append(n)
        rides[n].waitingSince = clock
        // Some riders give up: most before pickup, a few mid-trip.
        if rng.chance(12) { rides[n].cancelAt = clock.adding(seconds: rng.between(30.0...900.0)) }
        dispatch()
    }

    /// Offers every waiting trip to nearby idle vehicles (and sometimes to busy ones: pooling, back-to-back).
    mutating func dispatch() {
        for r in active where rides[r].waitingSince != nil {
            guard let pickup = rides[r].state.pickup?.point else { continue }
            var candidates = cars.indices.filter { cars[$0].state.vehicleState == .online && cars[$0].state.currentTrips.isEmpty && cars[$0].phase != .offline }
            candidates.sort { (Distance.meters(cars[$0].position, pickup), $0) < (Distance.meters(cars[$1].position, pickup), $1) }
            candidates = Array(candidates.prefix(4))
            if rng.chance(35) {
                let busy = cars.indices.filter { cars[$0].state.vehicleState == .online && cars[$0].state.currentTrips.count == 1 }
                if !busy.isEmpty { candidates.insert(rng.pick(busy), at: 0) }
            }
            for c in candidates {
                let vehicle = cars[c].state
                if attemptTrip(r, .assignVehicle(vehicleId: vehicle.vehicleId, vehicle: vehicle, at: clock), "Trip.assignVehicle") {
                    rides[r].waitingSince = nil
                    if cars[c].phase == .idle { cars[c].nextActionAt = min(cars[c].nextActionAt, clock.adding(seconds: 2)) }
                    break
                }
            }
        }
    }

    /// Cancels trip `r` (planned cancellation or dispatch timeout) and frees its vehicle's leg.
    mutating func cancel(_ r: Int) {
        rides[r].cancelAt = nil
        rides[r].waitingSince = nil
        let vehicleId = rides[r].state.vehicleId
        let command: Trip.Command = rng.chance(50) ? .cancelTrip(at: clock) : .updateTripStatus(.canceled, at: clock)
        runTrip(r, command, "Trip.cancelTrip")
        if let vehicleId, let c = carIndex[vehicleId], cars[c].leg?.target.tripId == rides[r].id {
            stopLeg(c)
        }
    }

    /// Plans a route for trip `r` from `position`, with `firstLeg` as the path to its next stop,
    /// and reports how navigation applied the route token.
    mutating func planRoute(_ r: Int, firstLeg: [LatLng]) {
        let stops = rides[r].state.remainingWaypoints.map(\.location.point)
        var legs = [RoutePlan.Leg(encodedPolyline: Polyline.encode(firstLeg), distanceMeters: Int(Distance.pathLength(firstLeg)),
                                  durationSeconds: Int(Distance.pathLength(firstLeg) / 9))]
        for i in stops.indices.dropFirst() {
            let path = road(from: stops[i - 1], to: stops[i])
            legs.append(RoutePlan.Leg(encodedPolyline: Polyline.encode(path), distanceMeters: Int(Distance.pathLength(path)),
                                      durationSeconds: Int(Distance.pathLength(path) / 9)))
        }
        rides[r].planCount += 1
        let withToken = rng.chance(70)
        let plan = RoutePlan(
            destinations: stops.map { RoutePlan.Destination(point: $0) }, legs: legs,
            routeToken: withToken ? "rt-\(rides[r].id)-\(rides[r].planCount)" : nil,
            travelMode: rng.chance(90) ? .drive : .twoWheeler,
            routingPreference: withToken ? (rng.chance(80) ? .trafficAware : .trafficAwareOptimal) : .trafficUnaware)
        runTrip(r, .planRoute(plan, at: clock), "Trip.planRoute")
        if withToken {
            let status = rng.chance(70) ? RouteTokenExecutionStatus.tokenSuccessfullyApplied
                : rng.pick([.tokenAppliedWithLocationMismatch, .tokenIgnoredMalformed, .tokenIgnoredOther])
            runTrip(r, .reportRouteTokenExecution(status, resolved: nil, at: clock), "Trip.reportRouteTokenExecution")
        } else if rng.chance(30) {
            runTrip(r, .reportRouteTokenExecution(.noTokenProvided, resolved: nil, at: clock), "Trip.reportRouteTokenExecution")
        }
    }

    /// The vehicle reached the stop it drove to: the stop's trip moves to the arrival status
    /// (or COMPLETE at the dropoff) and the actual point is recorded.
    mutating func arrive(_ c: Int, at target: TripWaypoint) {
        guard let r = rideIndex[target.tripId] else { return }
        let trip = rides[r].state
        let stop = StopLocation(point: target.location.point, timestamp: clock)
        switch target.waypointType {
        case .pickup:
            runTrip(r, .updateTripStatus(.arrivedAtPickup, at: clock), "Trip.updateTripStatus")
            runTrip(r, .recordActualLocation(.pickupArrival, stop, at: clock), "Trip.recordActualLocation")
        case .intermediateDestination:
            let index = trip.intermediateDestinationIndex
            runTrip(r, .updateTripStatus(.arrivedAtIntermediateDestination, intermediateDestinationIndex: index, at: clock), "Trip.updateTripStatus")
            runTrip(r, .recordActualLocation(.intermediateDestinationArrival, intermediateDestinationIndex: index, stop, at: clock), "Trip.recordActualLocation")
        case .dropOff:
            runTrip(r, .updateTripStatus(.complete, at: clock), "Trip.updateTripStatus")
            runTrip(r, .recordActualLocation(.dropoff, stop, at: clock), "Trip.recordActualLocation")
        case .unknown:
            break
        }
    }

    /// The vehicle leaves an arrival stop of trip `r`: the actual point is recorded and the trip
    /// heads for its next stop (by `continueToNextDestination` or an explicit status).
    mutating func depart(_ r: Int) {
        let trip = rides[r].state
        guard trip.status.isArrival else { return }
        let here = StopLocation(point: cars[carIndex[trip.vehicleId ?? ""] ?? 0].position, timestamp: clock)
        if trip.status == .arrivedAtPickup {
            runTrip(r, .recordActualLocation(.pickup, here, at: clock), "Trip.recordActualLocation")
        } else {
            runTrip(r, .recordActualLocation(.intermediateDestination, intermediateDestinationIndex: trip.intermediateDestinationIndex, here, at: clock),
                    "Trip.recordActualLocation")
        }
        if rng.chance(50) {
            runTrip(r, .continueToNextDestination(at: clock), "Trip.continueToNextDestination")
            return
        }
        let next = trip.status == .arrivedAtPickup ? 0 : trip.intermediateDestinationIndex + 1
        if next < trip.intermediateDestinations.count {
            runTrip(r, .updateTripStatus(.enrouteToIntermediateDestination, intermediateDestinationIndex: next,
                                         intermediateDestinationsVersion: trip.intermediateDestinationsVersion, at: clock), "Trip.updateTripStatus")
        } else {
            runTrip(r, .updateTripStatus(.enrouteToDropoff, at: clock), "Trip.updateTripStatus")
        }
    }
}
