import Foundation
import Geo
import JSON

extension FleetSimulator {
    /// Plays one vehicle's life up to `end`: dwells end, drives arrive or reroute, new drives start.
    func advance(_ index: Int, until end: Double) {
        while true {
            if let until = vehicles[index].dwellUntil {
                guard until <= end else { break }
                vehicles[index].dwellUntil = nil
                depart(index, at: until)
                continue
            }
            if let drive = vehicles[index].drive {
                let finish = drive.finishTime
                guard finish <= end else { break }
                vehicles[index].node = drive.edges.last.map { city.edges[$0].to } ?? drive.startNode
                vehicles[index].drive = nil
                switch drive.end {
                case .arrive:
                    arrive(index, at: finish)
                case .reroute(let offRoute):
                    if offRoute {
                        summary.reroutes += 1
                        lanes[index].append(FleetRequest(method: "PUT", path: "\(base)/vehicles/\(vehicles[index].id)?updateMask=navigationStatus",
                                                         body: ["navigationStatus": "OFF_ROUTE"]))
                    }
                    headToFirstStop(index, at: finish, rerouted: true)
                }
                continue
            }
            if !vehicles[index].stops.isEmpty {
                headToFirstStop(index, at: max(now, 0), rerouted: false)
                if vehicles[index].drive == nil { break }  // first stop unreachable: its trip was canceled
                continue
            }
            break
        }
        if let drive = vehicles[index].drive, end - vehicles[index].lastETAUpdate >= 30, case .arrive = drive.end {
            vehicles[index].lastETAUpdate = end
            let position = drive.position(city, at: end)
            let remainingSeconds = max(0, drive.finishTime - end)
            var meters = drive.edges[(position.edge + 1)...].reduce(0) { $0 + city.edges[$1].lengthMeters }
            meters += Distance.meters(position.point, city.nodes[city.edges[drive.edges[position.edge]].to])
            lanes[index].append(FleetRequest(method: "PUT",
                                             path: "\(base)/vehicles/\(vehicles[index].id)?updateMask=remainingDistanceMeters,etaToFirstWaypoint,remainingTimeSeconds",
                                             body: remainingJSON(meters: meters, seconds: remainingSeconds)))
        }
    }

    /// Starts driving to the first stop; a trip not yet started moves to ENROUTE_TO_PICKUP and gets its route plan.
    func headToFirstStop(_ index: Int, at time: Double, rerouted: Bool) {
        guard let stop = vehicles[index].stops.first else {
            lanes[index].append(FleetRequest(method: "PUT", path: "\(base)/vehicles/\(vehicles[index].id)?updateMask=navigationStatus",
                                             body: ["navigationStatus": "NO_GUIDANCE"]))
            return
        }
        let from = vehicles[index].node
        guard let edges = router.route(from: from, to: stop.node) else {
            log("no route from intersection \(from) to \(stop.node): trip \(stop.tripId) is canceled")
            setStatus(stop.tripId, "CANCELED", lane: index)
            summary.tripsCanceled += 1
            vehicles[index].stops.removeAll { $0.tripId == stop.tripId }
            return
        }
        if trips[stop.tripId]?.status == "NEW" {
            setStatus(stop.tripId, "ENROUTE_TO_PICKUP", lane: index)
            planRoute(stop.tripId, from: from, lane: index)
        } else if rerouted {
            planRoute(stop.tripId, from: from, lane: index)
        }
        var driven = edges
        var end = FleetDrive.End.arrive
        // Now and then the driver misses a turn: drives one street piece off the route, then gets rerouted.
        if !rerouted, edges.count >= 3, random.chance(12) {
            let k = random.between(1...(edges.count - 2))
            let corner = city.edges[edges[k - 1]].to
            let back = city.edges[edges[k - 1]].from
            let wrong = city.outgoing[corner].filter { $0 != edges[k] && city.edges[$0].to != back }
            if !wrong.isEmpty {
                driven = Array(edges[0..<k]) + [random.pick(wrong)]
                end = .reroute(offRoute: true)
            }
        }
        vehicles[index].drive = FleetDrive(city: city, from: from, edges: driven, at: time, end: end)
        vehicles[index].plannedEdges = edges
        vehicles[index].plannedFrom = from
        vehicles[index].lastETAUpdate = time
        guard !edges.isEmpty else { return }
        let points = router.points(of: edges, from: from)
        let encoded = Polyline.encode(points)
        var stretches: [JSONValue] = []
        var offset = 0.0
        for edgeIndex in edges {
            let edge = city.edges[edgeIndex]
            let reading = edge.speedReading
            if reading != "NORMAL", Int(edge.lengthMeters) > 1 {
                stretches.append(["style": .string(reading == "TRAFFIC_JAM" ? "TRAFFIC_JAM" : "SLOWER_TRAFFIC"),
                                  "offsetMeters": .number(JSONNumber(Int(offset.rounded(.up)))), "lengthMeters": .number(JSONNumber(Int(edge.lengthMeters) - 1))])
            }
            offset += edge.lengthMeters
        }
        let seconds = edges.reduce(0) { $0 + city.edges[$1].seconds }
        var body = remainingJSON(meters: edges.reduce(0) { $0 + city.edges[$1].lengthMeters }, seconds: seconds)
        if case .object(var object) = body {
            object["currentRouteSegment"] = .string(encoded)
            object["currentRouteSegmentTraffic"] = ["trafficRendering": ["roadStretch": .array(stretches)]]
            object["currentRouteSegmentEndPoint"] = ["location": ["point": latLng(city.nodes[stop.node])], "tripId": .string(stop.tripId),
                                                     "waypointType": .string(stop.waypointType)]
            object["navigationStatus"] = "ENROUTE_TO_DESTINATION"
            body = .object(object)
        }
        let mask = "currentRouteSegment,currentRouteSegmentTraffic,currentRouteSegmentEndPoint,remainingDistanceMeters,etaToFirstWaypoint,remainingTimeSeconds,navigationStatus"
        lanes[index].append(FleetRequest(method: "PUT", path: "\(base)/vehicles/\(vehicles[index].id)?updateMask=\(mask)", body: body))
    }

    /// The car reached its first stop: the trip's status says so, and the car dwells a little.
    func arrive(_ index: Int, at time: Double) {
        let stop = vehicles[index].stops.removeFirst()
        switch stop.kind {
        case .pickup: setStatus(stop.tripId, "ARRIVED_AT_PICKUP", lane: index)
        case .intermediate(let n): setStatus(stop.tripId, "ARRIVED_AT_INTERMEDIATE_DESTINATION", index: n, lane: index)
        case .dropoff: setStatus(stop.tripId, "COMPLETE", lane: index)
        }
        vehicles[index].visited = stop
        vehicles[index].dwellUntil = time + (stop.kind == .dropoff ? random.between(10.0...25.0) : random.between(20.0...50.0))
    }

    /// The car leaves a stop: that trip moves on to its next stop, and the car heads for its own next one.
    func depart(_ index: Int, at time: Double) {
        if let visited = vehicles[index].visited, let trip = trips[visited.tripId], !trip.isTerminal,
           let next = vehicles[index].stops.first(where: { $0.tripId == visited.tripId }) {
            switch next.kind {
            case .pickup: break
            case .intermediate(let n): setStatus(trip.id, "ENROUTE_TO_INTERMEDIATE_DESTINATION", index: n, lane: index)
            case .dropoff: setStatus(trip.id, "ENROUTE_TO_DROPOFF", lane: index)
            }
        }
        vehicles[index].visited = nil
        if !vehicles[index].stops.isEmpty { headToFirstStop(index, at: time, rerouted: false) }
    }

    /// One entry of the batch location report: where the car is at `time`, with a few metres of GPS noise.
    func report(_ index: Int, at time: Double) -> JSONValue {
        var point = city.nodes[vehicles[index].node]
        var speed = 0.0
        if let drive = vehicles[index].drive, !drive.edges.isEmpty {
            let position = drive.position(city, at: time)
            point = position.point
            vehicles[index].heading = position.heading
            speed = city.edges[drive.edges[position.edge]].lengthMeters / city.edges[drive.edges[position.edge]].seconds * 3.6
        }
        let noise = (random.unit() + random.unit() + random.unit() - 1.5) * 4
        let direction = random.between(0.0...360.0)
        let noisy = Distance.destination(from: point, bearing: direction, meters: abs(noise))
        return ["vehicleId": .string(vehicles[index].id), "location": locationJSON(noisy, heading: vehicles[index].heading, speed: speed)]
    }

    func locationJSON(_ point: LatLng, heading: Double, speed: Double) -> JSONValue {
        let degrees = Int((heading.truncatingRemainder(dividingBy: 360) + 360).rounded()) % 360
        return ["location": latLng(point), "heading": .number(JSONNumber(degrees)), "speedKmph": .number(JSONNumber(Int(speed.rounded())))]
    }

    /// Remaining distance and time to the first stop, with the ETA in wall-clock time (simulated seconds scaled by the speedup).
    func remainingJSON(meters: Double, seconds: Double) -> JSONValue {
        let eta = Date().addingTimeInterval(seconds / options.speedup)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return ["remainingDistanceMeters": .number(JSONNumber(Int(meters.rounded()))), "etaToFirstWaypoint": .string(formatter.string(from: eta)),
                "remainingTimeSeconds": .number(JSONNumber(max(0, Int((seconds / options.speedup).rounded()))))]
    }
}
