import Foundation
import Geo
import JSON

/// Drives a simulated fleet through a Waymark (or Fleet Engine) server's public HTTP API.
///
/// Vehicles come online at random intersections of a `SyntheticCity`, get trips (exclusive, with
/// intermediate stops, shared, back-to-back), drive the router's routes, report locations with
/// GPS noise, send route segments with traffic and ETAs, now and then leave the route and get
/// rerouted, pick up and drop off; some riders cancel. Simulated time advances by a fixed step
/// per tick (`FleetOptions.simulatedSecondsPerTick`), so a slow server slows the simulation down
/// instead of making it skip; with the same seed and answers the same requests go out.
///
/// Each tick sends one batch location report for the fleet and, per vehicle, its other requests
/// in order (vehicles in parallel). Everything is decided locally and assumed to succeed; a
/// failed request is counted as an error, never retried.
package actor FleetSimulator {
    package let options: FleetOptions
    package let city: SyntheticCity
    let router: CityRouter
    let transport: any FleetTransport
    let log: @Sendable (String) -> Void
    var random: SeededRandom
    var vehicles: [FleetVehicle] = []
    var trips: [String: FleetTrip] = [:]
    var summary = FleetSummary()
    /// Simulated seconds since the start.
    var now: Double = 0
    var tripDebt = 0.0
    var tripCounter = 0
    var lanes: [[FleetRequest]] = []
    var firstTrip: String?

    package init(options: FleetOptions, transport: any FleetTransport, log: @escaping @Sendable (String) -> Void) {
        self.options = options
        city = SyntheticCity(seed: options.seed)
        router = CityRouter(city: city)
        self.transport = transport
        self.log = log
        random = SeededRandom(seed: options.seed &* 0x2545_F491_4F6C_DD1D)
    }

    package var currentSummary: FleetSummary { summary }
    /// The first trip this run created (for a ready rider URL).
    package var firstTripId: String? { firstTrip }
    var base: String { "/v1/providers/\(options.provider)" }

    // MARK: - Run

    /// Brings the vehicles online, then ticks until `shouldStop` says so or, with `minutes`, until
    /// that much simulated time has passed and every trip has ended; then cancels what is still
    /// open and takes the vehicles offline. `progress` is called after every tick.
    package func run(shouldStop: @escaping @Sendable () -> Bool, progress: @escaping @Sendable (FleetSummary) -> Void) async -> FleetSummary {
        await start()
        let tick = Duration.milliseconds(Int64(options.tickSeconds * 1000))
        let clock = ContinuousClock()
        var next = clock.now
        let limit = options.minutes.map { $0 * 60 }
        while !shouldStop() {
            let creating = limit.map { now < $0 } ?? true
            if !creating && trips.values.allSatisfy(\.isTerminal) { break }
            // Trips still open long after the end (a car that cannot reach a stop) are canceled.
            if let limit, now > limit + 5400 { break }
            await step(creatingTrips: creating)
            progress(summary)
            next += tick
            if next > clock.now { try? await Task.sleep(until: next, clock: clock) } else { next = clock.now }
        }
        await finish()
        progress(summary)
        return summary
    }

    /// Sets the demo's journey style, creates the vehicles (or brings back those of an earlier
    /// run, canceling trips that run left open).
    func start() async {
        let style: JSONValue = [
            "polylines": [
                "ACTIVE_ROUTE": ["color": "#2F6FEB", "width": 6, "trafficEnabled": true,
                                 "trafficColors": ["SLOW": "#F5A623", "TRAFFIC_JAM": "#D0021B"]],
                "REMAINING_ROUTE": ["color": "#7FA7F5", "width": 4, "trafficEnabled": false],
            ],
            "markers": [
                "TRIP_VEHICLE": ["zIndex": 10, "flat": true],
                "TRIP_PICKUP_POINT": ["zIndex": 5], "TRIP_DROPOFF_POINT": ["zIndex": 4], "INTERMEDIATE_DESTINATION": ["zIndex": 3],
            ],
        ]
        await expect(transport.send("PUT", "\(base)/journeyStyle", body: style))
        for index in 0..<options.vehicles {
            let node = random.below(city.nodes.count)
            vehicles.append(FleetVehicle(id: String(format: "sim-v%03d", index + 1), node: node))
        }
        lanes = Array(repeating: [], count: vehicles.count)
        await withTaskGroup(of: Void.self) { group in
            for vehicle in vehicles { group.addTask { await self.bringOnline(vehicle) } }
        }
        summary.vehiclesOnline = vehicles.count
    }

    func bringOnline(_ vehicle: FleetVehicle) async {
        let location = locationJSON(city.nodes[vehicle.node], heading: 0, speed: 0)
        let created = await transport.send("POST", "\(base)/vehicles?vehicleId=\(vehicle.id)", body: [
            "vehicleState": "ONLINE", "supportedTripTypes": ["EXCLUSIVE", "SHARED"], "maximumCapacity": 4,
            "vehicleType": ["category": "AUTO"], "backToBackEnabled": true, "lastLocation": location,
        ])
        count(created)
        if created.isSuccess { return }
        guard created.status == 409 else { return record(created, "create vehicle \(vehicle.id)") }
        // A vehicle of an earlier run: online again, and whatever that run left open is canceled.
        await expect(transport.send("PUT", "\(base)/vehicles/\(vehicle.id)?updateMask=vehicleState,lastLocation",
                                    body: ["vehicleState": "ONLINE", "lastLocation": location]))
        let found = await transport.send("POST", "\(base)/trips:search", body: ["vehicleId": .string(vehicle.id), "activeTripsOnly": true])
        count(found)
        for trip in found.body["trips"]?.arrayValue ?? [] {
            guard let name = trip["name"]?.stringValue, let id = name.split(separator: "/").last else { continue }
            await expect(transport.send("PUT", "\(base)/trips/\(id)?updateMask=tripStatus", body: ["tripStatus": "CANCELED"]))
        }
    }

    /// Cancels every open trip and takes the vehicles offline.
    func finish() async {
        let open = trips.values.filter { !$0.isTerminal }.map(\.id).sorted()
        await withTaskGroup(of: Void.self) { group in
            for id in open {
                group.addTask { await self.expect(self.transport.send("PUT", "\(self.base)/trips/\(id)?updateMask=tripStatus", body: ["tripStatus": "CANCELED"])) }
            }
        }
        for id in open { trips[id]?.status = "CANCELED" }
        summary.tripsCanceled += open.count
        await withTaskGroup(of: Void.self) { group in
            for vehicle in vehicles {
                group.addTask { await self.expect(self.transport.send("PUT", "\(self.base)/vehicles/\(vehicle.id)?updateMask=vehicleState", body: ["vehicleState": "OFFLINE"])) }
            }
        }
        summary.vehiclesOnline = 0
        summary.tripsActive = 0
    }

    // MARK: - One tick

    /// Advances simulated time by one tick and sends what happened.
    func step(creatingTrips: Bool) async {
        let end = now + options.simulatedSecondsPerTick
        if creatingTrips {
            tripDebt += options.tripsPerMinute * options.simulatedSecondsPerTick / 60
            while tripDebt >= 1 {
                tripDebt -= 1
                createTrip()
            }
        }
        cancelDueTrips()
        var reports: [JSONValue] = []
        for index in vehicles.indices {
            advance(index, until: end)
            reports.append(report(index, at: end))
        }
        now = end
        summary.simulatedSeconds = now
        let batch = lanes
        let sent = reports
        lanes = Array(repeating: [], count: vehicles.count)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.sendReports(sent) }
            for lane in batch where !lane.isEmpty {
                group.addTask { for request in lane { await self.send(request) } }
            }
        }
        summary.tripsActive = trips.values.filter { !$0.isTerminal }.count
    }

    func sendReports(_ reports: [JSONValue]) async {
        let response = await transport.send("POST", "\(base)/vehicles:reportLocations", body: ["reports": .array(reports)])
        count(response)
        guard response.isSuccess else { return record(response, "report locations") }
        for result in response.body["results"]?.arrayValue ?? [] {
            if result["status"]?.stringValue == "REJECTED" { summary.errors[400, default: 0] += 1; log("location report rejected: \(result)") }
        }
        summary.locationReports += reports.count
    }

    func send(_ request: FleetRequest) async {
        if case .planRoute = request.purpose, !summary.planRouteAvailable { return }
        if request.path.hasPrefix("\(base)/trips/"),
           let id = request.path.dropFirst("\(base)/trips/".count).split(whereSeparator: { $0 == "?" || $0 == ":" }).first,
           trips[String(id)]?.failed == true { return }
        var body = request.body
        if case .intermediateStatus(let id) = request.purpose, case .object(var object)? = body {
            object["intermediateDestinationsVersion"] = trips[id]?.intermediateDestinationsVersion ?? .null
            body = .object(object)
        }
        let response = await transport.send(request.method, request.path, body: body)
        count(response)
        switch request.purpose {
        case .planRoute where response.status == 404 && response.body["error"]?["message"]?.stringValue?.contains("no operation") == true
            || response.status == 405:
            // 404 "no operation", or 405 from a server that knows the trip path but not this verb: not offered here.
            summary.planRouteAvailable = false
            log("this server does not offer :planRoute (\(response.status)); route plans are not sent")
        case .planRoute where response.isSuccess:
            summary.routesPlanned += 1
        case .createTrip(let id) where !response.isSuccess:
            record(response, "\(request.method) \(request.path)")
            // Never existed on the server: nothing to wait for, and the car forgets it.
            trips[id]?.status = "CANCELED"
            trips[id]?.failed = true
            summary.tripsCanceled += 1
            summary.tripsFailed += 1
            if let index = trips[id]?.vehicle {
                let wasHeadingThere = vehicles[index].stops.first?.tripId == id
                vehicles[index].stops.removeAll { $0.tripId == id }
                if wasHeadingThere { redirect(index) }
            }
        case .createTrip(let id):
            trips[id]?.intermediateDestinationsVersion = response.body["intermediateDestinationsVersion"]
        default:
            if !response.isSuccess { record(response, "\(request.method) \(request.path)") }
        }
    }

    func expect(_ response: FleetResponse) {
        count(response)
        if !response.isSuccess { record(response, "request") }
    }

    func count(_ response: FleetResponse) { summary.requests += 1 }

    func record(_ response: FleetResponse, _ what: String) {
        summary.errors[response.status, default: 0] += 1
        if summary.errorCount <= 20 {
            log("\(what): \(response.status == 0 ? "no answer" : String(response.status)) \(response.body.compactText.prefix(300))")
        }
    }
}

extension JSONValue {
    /// Compact JSON text (for log lines).
    var compactText: String { String(decoding: compactBytes(), as: UTF8.self) }
}
