import Journey

extension DomainWorkloadSimulation {
    /// After the last trip, the fleet's back office tidies up through the update and delete commands.
    ///
    /// Vehicles get merged or replaced attributes, license plates, a back-to-back switch or new
    /// capabilities; every seventh finished trip is deleted and every second of those is booked
    /// again under its id (its pickup moved, then canceled), so every trip stream still ends
    /// terminal or deleted; the first vehicle is deleted and registered again. Choices are made by
    /// index, values drawn from the seeded generator, so a workload always has them all (given a
    /// few trips and vehicles) and the commands before this phase are the same as without it.
    mutating func tidyUp() {
        for c in cars.indices {
            let state = cars[c].state
            if c % 4 == 1 {
                let value = Attribute.Value.string(rng.pick(["front", "rear", "none"]))
                runVehicle(c, .mergeAttributes([Attribute(key: "child_seat", value: value)], at: clock), "Vehicle.mergeAttributes")
            }
            if c % 9 == 4 {
                runVehicle(c, .setAttributes([Attribute(key: "fleet", value: .string("night"))], at: clock), "Vehicle.setAttributes")
            }
            if c % 3 == 0 {
                let plate = LicensePlate(countryCode: "DE", lastCharacter: rng.chance(80) ? String(rng.below(10)) : LicensePlate.noNumericValue)
                runVehicle(c, .setLicensePlate(plate, at: clock), "Vehicle.setLicensePlate")
            }
            if c % 5 == 2 {
                runVehicle(c, .setBackToBackEnabled(!state.backToBackEnabled, at: clock), "Vehicle.setBackToBackEnabled")
            }
            if c % 6 == 3 {
                let capacity = state.maximumCapacity == 4 ? 3 : state.maximumCapacity + 1
                runVehicle(c, .updateCapabilities(maximumCapacity: capacity, supportedTripTypes: nil, vehicleType: nil, at: clock), "Vehicle.updateCapabilities")
            }
        }
        for r in rides.indices where r % 7 == 3 && rides[r].state.status.isTerminal {
            runTrip(r, .deleteTrip(at: clock), "Trip.deleteTrip")
            guard r % 14 == 3 else { continue }
            let pickup = randomPoint()
            runTrip(r, .createTrip(.init(
                tripId: rides[r].id, tripType: .exclusive, pickup: TerminalLocation(point: pickup),
                dropoff: TerminalLocation(point: point(near: pickup, meters: 1_500...4_500))), at: clock), "Trip.createTrip")
            runTrip(r, .setPickupPoint(TerminalLocation(point: point(near: pickup, meters: 50...200)), at: clock), "Trip.setPickupPoint")
            runTrip(r, .cancelTrip(at: clock), "Trip.cancelTrip")
        }
        if let c = cars.indices.first, cars[c].state.currentTrips.isEmpty {
            let old = cars[c].state
            runVehicle(c, .deleteVehicle(at: clock), "Vehicle.deleteVehicle")
            runVehicle(c, .registerVehicle(.init(
                vehicleId: old.vehicleId, vehicleState: .offline, supportedTripTypes: old.supportedTripTypes,
                maximumCapacity: old.maximumCapacity, vehicleType: old.vehicleType), at: clock), "Vehicle.registerVehicle")
        }
    }
}
