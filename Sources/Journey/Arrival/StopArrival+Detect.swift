import Geo

extension StopArrival {
    /// Folds one event of the vehicle's stream into the detector: the new state and the arrival
    /// facts it establishes (in order). Pure: the same events give the same answer.
    package static func detect(_ state: State, with event: Vehicle.Event, vehicleId: String, options: Options) -> (State, [Event]) {
        var s = state
        switch event {
        case .tripAssigned(let e): s.serve(e.waypoints)
        case .tripWaypointsUpdated(let e): s.serve(e.waypoints)
        case .tripReleased(let e): s.serve(e.waypoints)
        case .waypointsReordered(let e): s.serve(e.waypoints)
        case .locationReported(let e):
            return s.observe(e.location, vehicleId: vehicleId, options: options)
        default:
            // Stale reports (VehicleStaleLocationRecorded) and backlogs of past locations never count.
            break
        }
        return (s, [])
    }
}

extension StopArrival.State {
    /// Takes the vehicle's new waypoint list: the stops it serves, each with its index in its trip.
    mutating func serve(_ waypoints: [TripWaypoint]) {
        var byTrip: [String: [TripWaypoint]] = [:]
        var order: [String] = []
        for waypoint in waypoints {
            if byTrip[waypoint.tripId] == nil { order.append(waypoint.tripId) }
            byTrip[waypoint.tripId, default: []].append(waypoint)
        }
        var stops: [StopArrival.Stop] = []
        for tripId in order {
            let remaining = byTrip[tripId]!
            let known = tripWaypoints[tripId] ?? []
            // Remaining waypoints are the tail of the trip's list: those before the first remaining
            // one were passed. A waypoint the detector never saw (new destinations) extends the list.
            let offset = known.firstIndex(of: remaining[0]) ?? max(0, known.count - remaining.count)
            tripWaypoints[tripId] = Array(known.prefix(offset)) + remaining
            for (i, waypoint) in remaining.enumerated() {
                stops.append(StopArrival.Stop(tripId: tripId, waypointIndex: offset + i, waypointType: waypoint.waypointType,
                                              location: waypoint.location.point))
            }
        }
        for tripId in tripWaypoints.keys where byTrip[tripId] == nil { tripWaypoints[tripId] = nil }
        self.stops = stops
        // A stop no longer served ends its dwell; an arrived visit stays open until the vehicle leaves.
        let served = Set(stops.map(\.key))
        visits = visits.filter { served.contains($0.key) || $0.value.arrivedTime != nil }
    }

    /// Uses one accepted location report.
    mutating func observe(_ location: VehicleLocation, vehicleId: String, options: StopArrival.Options) -> (Self, [StopArrival.Event]) {
        guard let time = location.deviceTime else { return (self, []) }
        if let last = lastDeviceTime, time <= last { return (self, []) }  // out of order or repeated: never counts
        if let accuracy = location.latlngAccuracy, accuracy > options.maximumAccuracyMeters { return (self, []) }
        lastDeviceTime = time
        var events: [StopArrival.Event] = []
        let position = location.location
        // Open visits first: leaving, or the dwell completing.
        for key in visits.keys.sorted() {
            guard var visit = visits[key] else { continue }
            let distance = Distance.meters(position, visit.stop.location)
            if let arrivedTime = visit.arrivedTime {
                if distance > options.exitRadiusMeters {
                    events.append(.left(.init(tripId: visit.stop.tripId, vehicleId: vehicleId, waypointIndex: visit.stop.waypointIndex,
                                              waypointType: visit.stop.waypointType, stopLocation: visit.stop.location, vehicleLocation: position,
                                              distanceMeters: Self.rounded(distance), arrivalTime: arrivedTime, leftTime: time, visit: visit.number)))
                    visits[key] = nil
                }
            } else if distance > options.radiusMeters {
                visits[key] = nil  // left the fence before the dwell was over: start again
            } else if time.seconds(since: visit.enteredTime) >= options.dwellSeconds {
                let number = (arrivals[key] ?? 0) + 1
                arrivals[key] = number
                visit.arrivedTime = time
                visit.number = number
                visits[key] = visit
                events.append(.arrived(.init(tripId: visit.stop.tripId, vehicleId: vehicleId, waypointIndex: visit.stop.waypointIndex,
                                             waypointType: visit.stop.waypointType, stopLocation: visit.stop.location, vehicleLocation: position,
                                             distanceMeters: Self.rounded(distance), enteredTime: visit.enteredTime, arrivalTime: time, visit: number,
                                             radiusMeters: options.radiusMeters, dwellSeconds: options.dwellSeconds)))
            }
        }
        // Then stops the vehicle just entered.
        for stop in stops where visits[stop.key] == nil && Distance.meters(position, stop.location) <= options.radiusMeters {
            visits[stop.key] = StopArrival.Visit(stop: stop, enteredTime: time, arrivedTime: nil, number: 0)
        }
        return (self, events)
    }

    /// Distances are recorded to the centimetre, so payloads do not carry floating-point noise.
    static func rounded(_ meters: Double) -> Double { (meters * 100).rounded() / 100 }
}
