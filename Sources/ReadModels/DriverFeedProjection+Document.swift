import Geo
import JSON
import Journey

extension DriverFeedProjection {
    /// The feed document of one vehicle (members in a fixed order; absent parts left out).
    ///
    /// `{"vehicle","tripId","navigationStatus","currentStep","nextStep","nextStop","tripRemaining",
    /// "offers","messages","version","updateTime"}`; a step is `{"maneuver","instruction","lanes",
    /// "distanceMeters","durationSeconds","rounded":{"distance":{"value","unit"},"minutes"}}`, for
    /// the current step measured to its maneuver point, for the next step its own length.
    func feedDocument(_ key: String, _ vehicle: VehicleRecord) -> JSONValue {
        var members: [(String, JSONValue)] = [("vehicle", .string(key))]
        if let tripId = vehicle.activeTripId,
           let trip = trips[FleetResourceProjection.tripKey(provider: vehicle.provider, tripId: tripId)] {
            members.append(("tripId", .string(tripId)))
            members += guidanceMembers(trip, vehicle)
        }
        if vehicle.navigationStatus != .unknown { members.append(("navigationStatus", .string(vehicle.navigationStatus.rawValue))) }
        members.append(("offers", .array(vehicle.offers.map { offer in
            .object(JSONObject([("tripId", .string(offer.tripId)), ("expireTime", .string(offer.expireTime.rfc3339)),
                                ("offerTime", .string(offer.offerTime.rfc3339))]))
        })))
        members.append(("messages", .array(vehicle.messages.map { message in
            .object(JSONObject([("text", .string(message.text)), ("tripId", .string(message.tripId)), ("time", .string(message.time.rfc3339))]))
        })))
        members.append(("version", .number(JSONNumber(vehicle.version))))
        if let time = vehicle.updateTime { members.append(("updateTime", .string(time.rfc3339))) }
        return .object(JSONObject(members))
    }

    /// currentStep, nextStep, nextStop and tripRemaining for the trip being served, from its plan.
    private func guidanceMembers(_ trip: TripRecord, _ vehicle: VehicleRecord) -> [(String, JSONValue)] {
        guard let plan = trip.plan, !trip.status.isTerminal, plan.legs.indices.contains(trip.activeDestinationIndex),
              plan.destinations.indices.contains(trip.activeDestinationIndex) else { return [] }
        let index = trip.activeDestinationIndex
        let leg = plan.legs[index]
        let stop = plan.destinations[index].point
        let progress = DriverGuidance.progress(on: leg, stop: stop, position: vehicle.location)
        var members: [(String, JSONValue)] = []
        let moving = progress.metersToStop >= 0.5
        if let current = progress.current, let meters = progress.metersToManeuver, let seconds = progress.secondsToManeuver {
            members.append(("currentStep", Self.step(current, leg: leg, meters: meters, seconds: seconds, moving: moving)))
        }
        if let next = progress.next {
            let length: (Double, Double) = switch next {
            case .step(let i): (Double(leg.steps![i].distanceMeters), Double(leg.steps![i].durationSeconds))
            case .destination: (0, 0)
            }
            members.append(("nextStep", Self.step(next, leg: leg, meters: length.0, seconds: length.1, moving: length.0 > 0)))
        }
        var nextStop: [(String, JSONValue)] = [("destinationIndex", .number(JSONNumber(index)))]
        let stopIndex = trip.planStopOffset + index
        if trip.stops.indices.contains(stopIndex) {
            nextStop.append(("waypointType", .string(trip.stops[stopIndex].waypointType.rawValue)))
            nextStop.append(("stopNumber", .number(JSONNumber(stopIndex + 1))))
            nextStop.append(("stopCount", .number(JSONNumber(trip.stops.count))))
        }
        nextStop.append(("location", FleetResourceJSON.latLng(stop)))
        nextStop += Self.measures(meters: progress.metersToStop, seconds: progress.secondsToStop, moving: moving)
        members.append(("nextStop", .object(JSONObject(nextStop))))
        var meters = progress.metersToStop
        var seconds = progress.secondsToStop
        for later in plan.legs.dropFirst(index + 1) {
            meters += Double(later.distanceMeters ?? Int(((try? PathCache.shared.path(later.encodedPolyline))?.path.length ?? 0).rounded()))
            seconds += Double(later.durationSeconds ?? later.staticDurationSeconds ?? 0)
        }
        members.append(("tripRemaining", .object(JSONObject(Self.measures(meters: meters, seconds: seconds, moving: meters >= 0.5)))))
        return members
    }

    private static func step(_ maneuver: DriverGuidance.Maneuver, leg: RoutePlan.Leg, meters: Double, seconds: Double, moving: Bool) -> JSONValue {
        var members: [(String, JSONValue)]
        switch maneuver {
        case .step(let i):
            let step = leg.steps![i]
            members = [("stepIndex", .number(JSONNumber(i))), ("maneuver", .string(step.maneuver.rawValue)), ("instruction", .string(step.instruction))]
            if let lanes = step.lanes { members.append(("lanes", .bool(lanes))) }
        case .destination(let side):
            members = [("maneuver", .string(side.maneuverName)), ("instruction", .string(side.instruction))]
        }
        members += measures(meters: meters, seconds: seconds, moving: moving)
        return .object(JSONObject(members))
    }

    /// `distanceMeters`, `durationSeconds` (nearest whole) and their `rounded` display values.
    static func measures(meters: Double, seconds: Double, moving: Bool) -> [(String, JSONValue)] {
        let distance = DisplayRounding.distance(meters: meters)
        let roundedValue: JSONValue = JSONNumber(lexeme: distance.value).map(JSONValue.number) ?? .string(distance.value)
        return [
            ("distanceMeters", .number(JSONNumber(DisplayRounding.nearest(meters)))),
            ("durationSeconds", .number(JSONNumber(DisplayRounding.nearest(seconds)))),
            ("rounded", .object(JSONObject([
                ("distance", .object(JSONObject([("value", roundedValue), ("unit", .string(distance.unit))]))),
                ("minutes", .number(JSONNumber(DisplayRounding.minutes(seconds: seconds, moving: moving)))),
            ]))),
        ]
    }
}
