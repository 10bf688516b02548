import Foundation
import Geo
import JSON

extension FleetSimulator {
    /// Requests one new trip and gives it to a car: an idle one, or one finishing an exclusive trip
    /// (back-to-back), or, for a shared trip, one carrying a shared rider already. No car free: no trip.
    func createTrip() {
        let shared = random.chance(15)
        let intermediates = !shared && random.chance(30) ? random.between(1...2) : 0
        var chosen: Int?
        var joining = false
        if shared {
            let candidates = vehicles.indices.filter(canJoinShared)
            if !candidates.isEmpty { chosen = random.pick(candidates); joining = true }
        }
        if chosen == nil {
            let idle = vehicles.indices.filter { vehicles[$0].isIdle }
            if !idle.isEmpty { chosen = random.pick(idle) }
        }
        if chosen == nil && !shared {
            let finishing = vehicles.indices.filter(canTakeBackToBack)
            if !finishing.isEmpty { chosen = random.pick(finishing) }
        }
        guard let index = chosen else { return }
        let anchor = vehicles[index].stops.last?.node ?? vehicles[index].node
        let pickup = node(near: anchor, within: 4)
        let dropoff = node(awayFrom: pickup, atLeast: 5)
        let middle = (0..<intermediates).map { _ in node(near: random.chance(50) ? pickup : dropoff, within: 4) }
        tripCounter += 1
        let id = "\(options.runTag)-t\(String(format: "%05d", tripCounter))"
        var stops = [FleetStop(tripId: id, kind: .pickup, node: pickup)]
        stops += middle.enumerated().map { FleetStop(tripId: id, kind: .intermediate($0.offset), node: $0.element) }
        stops.append(FleetStop(tripId: id, kind: .dropoff, node: dropoff))
        guard RouteDirections.plan(router, from: anchor, stops: stops.map(\.node)) != nil else { return }
        var trip = FleetTrip(id: id, shared: shared, stops: stops, vehicle: index)
        if random.chance(7) { trip.cancelAt = now + random.between(30.0...240.0) }
        func point(_ node: Int) -> JSONValue { ["point": latLng(city.nodes[node])] }
        var body: [(String, JSONValue)] = [
            ("tripType", shared ? "SHARED" : "EXCLUSIVE"), ("pickupPoint", point(pickup)), ("dropoffPoint", point(dropoff)),
            ("numberOfPassengers", .number(JSONNumber(random.between(1...2)))), ("consumerId", .string("rider-\(options.runTag)-\(tripCounter)")),
        ]
        if !middle.isEmpty { body.append(("intermediateDestinations", .array(middle.map { point($0) }))) }
        lanes[index].append(FleetRequest(method: "POST", path: "\(base)/trips?tripId=\(id)", body: .object(JSONObject(body)), purpose: .createTrip(id)))
        trips[id] = trip
        summary.tripsCreated += 1
        if firstTrip == nil { firstTrip = id }
        if joining {
            // The new rider is picked up first, then the car goes on to the first rider's dropoff and then the new one's.
            vehicles[index].stops = [stops[0]] + vehicles[index].stops + [stops[stops.count - 1]]
            let waypoints: [JSONValue] = vehicles[index].stops.map { stop in
                ["location": point(stop.node), "tripId": .string(stop.tripId), "waypointType": .string(stop.waypointType)]
            }
            lanes[index].append(FleetRequest(method: "PUT", path: "\(base)/trips/\(id)?updateMask=vehicleId,vehicleWaypoints",
                                             body: ["vehicleId": .string(vehicles[index].id), "vehicleWaypoints": .array(waypoints)]))
            redirect(index)
        } else {
            vehicles[index].stops += stops
            lanes[index].append(FleetRequest(method: "PUT", path: "\(base)/trips/\(id)?updateMask=vehicleId", body: ["vehicleId": .string(vehicles[index].id)]))
        }
    }

    /// A car carrying one shared rider to their dropoff, and nobody else.
    func canJoinShared(_ index: Int) -> Bool {
        let vehicle = vehicles[index]
        guard vehicle.stops.count == 1, vehicle.dwellUntil == nil, vehicle.stops[0].kind == .dropoff,
              let trip = trips[vehicle.stops[0].tripId] else { return false }
        return trip.shared && trip.status == "ENROUTE_TO_DROPOFF"
    }

    /// A car on its way to an exclusive trip's dropoff with nothing queued after it.
    func canTakeBackToBack(_ index: Int) -> Bool {
        let vehicle = vehicles[index]
        guard vehicle.stops.count == 1, vehicle.stops[0].kind == .dropoff, let trip = trips[vehicle.stops[0].tripId] else { return false }
        return !trip.shared && trip.status == "ENROUTE_TO_DROPOFF"
    }

    /// A random intersection at most `blocks` rows and columns from `node`.
    func node(near node: Int, within blocks: Int) -> Int {
        let row = min(city.rows - 1, max(0, node / city.columns + random.between(-blocks...blocks)))
        let column = min(city.columns - 1, max(0, node % city.columns + random.between(-blocks...blocks)))
        return city.node(row: row, column: column)
    }

    /// A random intersection at least `blocks` blocks (rows plus columns) from `node`.
    func node(awayFrom node: Int, atLeast blocks: Int) -> Int {
        for _ in 0..<50 {
            let candidate = random.below(city.nodes.count)
            if abs(candidate / city.columns - node / city.columns) + abs(candidate % city.columns - node % city.columns) >= blocks { return candidate }
        }
        return city.node(row: node / city.columns < city.rows / 2 ? city.rows - 1 : 0, column: node % city.columns < city.columns / 2 ? city.columns - 1 : 0)
    }

    /// Riders whose cancel time has come cancel, if the car has not picked them up.
    func cancelDueTrips() {
        for id in trips.keys.sorted() {
            guard let trip = trips[id], let at = trip.cancelAt, at <= now, trip.status == "NEW" || trip.status == "ENROUTE_TO_PICKUP",
                  let index = trip.vehicle else { continue }
            setStatus(id, "CANCELED", lane: index)
            summary.tripsCanceled += 1
            let wasHeadingThere = vehicles[index].stops.first?.tripId == id
            vehicles[index].stops.removeAll { $0.tripId == id }
            if wasHeadingThere { redirect(index) }
        }
    }

    /// Makes a driving car replan at the end of the street piece it is on (its first stop changed).
    func redirect(_ index: Int) {
        guard var drive = vehicles[index].drive else { return }
        guard !drive.edges.isEmpty else {
            vehicles[index].drive?.end = .reroute(offRoute: false)
            return
        }
        let position = drive.position(city, at: now)
        drive.edges = Array(drive.edges[0...position.edge])
        drive.edgeEnds = Array(drive.edgeEnds[0...position.edge])
        drive.end = .reroute(offRoute: false)
        vehicles[index].drive = drive
    }

    /// Queues a status change of a trip on a vehicle's lane, and records it locally.
    func setStatus(_ tripId: String, _ status: String, index: Int? = nil, lane: Int) {
        trips[tripId]?.status = status
        if status == "COMPLETE" { summary.tripsCompleted += 1 }
        var mask = "tripStatus"
        var body: [(String, JSONValue)] = [("tripStatus", .string(status))]
        if let index {
            mask += ",intermediateDestinationIndex"
            body.append(("intermediateDestinationIndex", .number(JSONNumber(index))))
        }
        let purpose: FleetRequest.Purpose = status == "ENROUTE_TO_INTERMEDIATE_DESTINATION" ? .intermediateStatus(tripId) : .ordinary
        if status == "ENROUTE_TO_INTERMEDIATE_DESTINATION" { mask += ",intermediateDestinationsVersion" }
        lanes[lane].append(FleetRequest(method: "PUT", path: "\(base)/trips/\(tripId)?updateMask=\(mask)", body: .object(JSONObject(body)), purpose: purpose))
    }

    /// Queues the trip's route plan (`:planRoute`, the route-plan contract's body) from `node` through its stops still ahead.
    func planRoute(_ tripId: String, from node: Int, lane: Int) {
        guard summary.planRouteAvailable else { return }
        let stops = vehicles[lane].stops.filter { $0.tripId == tripId }
        guard !stops.isEmpty, let directions = RouteDirections.plan(router, from: node, stops: stops.map(\.node)) else { return }
        let token = "sim-\(tripId)-\(Int(now))"
        lanes[lane].append(FleetRequest(method: "POST", path: "\(base)/trips/\(tripId):planRoute",
                                        body: directions.planRouteBody(routeToken: token, intermediates: 0), purpose: .planRoute))
    }

    func latLng(_ point: LatLng) -> JSONValue {
        ["latitude": .number(JSONNumber(point.latitude) ?? JSONNumber(0)), "longitude": .number(JSONNumber(point.longitude) ?? JSONNumber(0))]
    }
}
