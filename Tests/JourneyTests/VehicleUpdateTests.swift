import Journey
import Testing

/// UpdateVehicle (attributes, back-to-back, capabilities, license plate), UpdateVehicleAttributes
/// and DeleteVehicle, given/when/then.
@Suite("Vehicle: attributes")
struct VehicleAttributesTests {
    static let a = Attribute(key: "a", value: .string("1"))
    static let b = Attribute(key: "b", value: .bool(true))
    static let c = Attribute(key: "c", value: .number(3))

    /// A registered vehicle with attributes a, b, c.
    static let given = givenVehicle([.registered(.init(
        vehicleId: "v-1", vehicleState: .online, supportedTripTypes: [.exclusive], maximumCapacity: 4,
        vehicleType: VehicleType(category: .auto), attributes: [a, b, c], backToBackEnabled: false, at: Fixtures.t0))])

    @Test func settingAttributesReplacesTheWholeList() throws {
        let replacement = [Attribute(key: "z", value: .string("last")), Self.a]
        let events = try Vehicle.decide(.setAttributes(replacement, at: Fixtures.t(5)), state: Self.given)
        #expect(events == [.attributesSet(.init(vehicleId: "v-1", attributes: replacement, merged: false, at: Fixtures.t(5)))])
        #expect(Vehicle.evolve(Self.given, with: events[0]).attributes == replacement)
    }

    @Test func settingAnEmptyListClearsTheAttributes() throws {
        let events = try Vehicle.decide(.setAttributes([], at: Fixtures.t(5)), state: Self.given)
        #expect(events == [.attributesSet(.init(vehicleId: "v-1", attributes: [], merged: false, at: Fixtures.t(5)))])
    }

    @Test func settingTheSameAttributesAgainYieldsNoEvents() throws {
        #expect(try Vehicle.decide(.setAttributes([Self.a, Self.b, Self.c], at: Fixtures.t(5)), state: Self.given) == [])
    }

    @Test func settingInvalidAttributesFailsWithInvalidArgument() {
        let many = (0...100).map { Attribute(key: "k\($0)", value: .string("v")) }
        expectRejection(.invalidArgument, mentioning: ["at most 100", "101"]) { try Vehicle.decide(.setAttributes(many, at: Fixtures.t(5)), state: Self.given) }
        expectRejection(.invalidArgument, mentioning: ["unique", "\"a\""]) {
            try Vehicle.decide(.setAttributes([Self.a, Attribute(key: "a", value: .bool(false))], at: Fixtures.t(5)), state: Self.given)
        }
        expectRejection(.invalidArgument, mentioning: ["':'", "x:y"]) {
            try Vehicle.decide(.setAttributes([Attribute(key: "x:y", value: .bool(false))], at: Fixtures.t(5)), state: Self.given)
        }
        expectRejection(.invalidArgument, mentioning: ["256", "257"]) {
            try Vehicle.decide(.setAttributes([Attribute(key: "k", value: .string(String(repeating: "x", count: 255)))], at: Fixtures.t(5)), state: Self.given)
        }
    }

    @Test func mergingAttributesUpdatesExistingKeysInPlaceAndAppendsNewOnes() throws {
        let b2 = Attribute(key: "b", value: .bool(false))
        let d = Attribute(key: "d", value: .string("new"))
        let events = try Vehicle.decide(.mergeAttributes([d, b2], at: Fixtures.t(5)), state: Self.given)
        #expect(events == [.attributesSet(.init(vehicleId: "v-1", attributes: [Self.a, b2, Self.c, d], merged: true, at: Fixtures.t(5)))])
        #expect(Vehicle.evolve(Self.given, with: events[0]).attributes == [Self.a, b2, Self.c, d])
    }

    @Test func mergingAValueOfAnotherTypeReplacesIt() throws {
        let a2 = Attribute(key: "a", value: .number(1))
        let events = try Vehicle.decide(.mergeAttributes([a2], at: Fixtures.t(5)), state: Self.given)
        #expect(events == [.attributesSet(.init(vehicleId: "v-1", attributes: [a2, Self.b, Self.c], merged: true, at: Fixtures.t(5)))])
    }

    @Test func mergingValuesAlreadyPresentYieldsNoEvents() throws {
        #expect(try Vehicle.decide(.mergeAttributes([Self.c, Self.a], at: Fixtures.t(5)), state: Self.given) == [])
    }

    @Test func mergingAnEmptyListFailsWithInvalidArgument() {
        expectRejection(.invalidArgument, mentioning: ["attributes is required", "v-1"]) {
            try Vehicle.decide(.mergeAttributes([], at: Fixtures.t(5)), state: Self.given)
        }
    }

    @Test func mergingDuplicateOrInvalidKeysFailsWithInvalidArgument() {
        expectRejection(.invalidArgument, mentioning: ["unique", "\"d\""]) {
            try Vehicle.decide(.mergeAttributes([Attribute(key: "d", value: .bool(true)), Attribute(key: "d", value: .bool(false))], at: Fixtures.t(5)), state: Self.given)
        }
        expectRejection(.invalidArgument, mentioning: ["key is required"]) {
            try Vehicle.decide(.mergeAttributes([Attribute(key: "", value: .bool(true))], at: Fixtures.t(5)), state: Self.given)
        }
    }

    @Test func mergingPastAHundredAttributesFailsWithInvalidArgument() throws {
        // given three attributes, merging 97 new keys reaches the limit and 98 passes it
        let new = (0..<98).map { Attribute(key: "k\($0)", value: .string("v")) }
        let events = try Vehicle.decide(.mergeAttributes(Array(new.prefix(97)), at: Fixtures.t(5)), state: Self.given)
        #expect(events.count == 1)
        #expect(Vehicle.evolve(Self.given, with: events[0]).attributes.count == 100)
        expectRejection(.invalidArgument, mentioning: ["at most 100", "101", "v-1"]) {
            try Vehicle.decide(.mergeAttributes(new, at: Fixtures.t(5)), state: Self.given)
        }
    }
}

@Suite("Vehicle: back-to-back and capabilities")
struct VehicleCapabilitiesTests {
    /// ONLINE, EXCLUSIVE and SHARED, capacity 4, AUTO, back-to-back off.
    static let given = givenVehicle([VehicleFixtures.registered(backToBack: false)])

    @Test func enablingBackToBackRecordsTheChangeAndIgnoresRepeats() throws {
        let events = try Vehicle.decide(.setBackToBackEnabled(true, at: Fixtures.t(5)), state: Self.given)
        #expect(events == [.backToBackEnabledChanged(.init(vehicleId: "v-1", backToBackEnabled: true, at: Fixtures.t(5)))])
        let enabled = givenVehicle([VehicleFixtures.registered(backToBack: false)] + events)
        #expect(enabled.backToBackEnabled)
        #expect(try Vehicle.decide(.setBackToBackEnabled(true, at: Fixtures.t(6)), state: enabled) == [])
        #expect(try Vehicle.decide(.setBackToBackEnabled(false, at: Fixtures.t(6)), state: Self.given) == [])
    }

    @Test func enablingBackToBackLetsASecondExclusiveTripBeAssigned() throws {
        // given a vehicle serving exclusive trip t-1, back-to-back off
        var vehicleEvents = [VehicleFixtures.registered(backToBack: false)]
        vehicleEvents += try Vehicle.decide(.syncTrip(givenTrip(TripFixtures.assignedTrip()), at: Fixtures.t(11)), state: givenVehicle(vehicleEvents))
        let second = givenTrip([TripFixtures.created("t-2")])
        expectRejection(.failedPrecondition, mentioning: ["backToBackEnabled is false"]) {
            try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: givenVehicle(vehicleEvents), at: Fixtures.t(12)), state: second)
        }
        // when back-to-back is enabled
        vehicleEvents += try Vehicle.decide(.setBackToBackEnabled(true, at: Fixtures.t(13)), state: givenVehicle(vehicleEvents))
        // then the second trip can be assigned
        let assigned = try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: givenVehicle(vehicleEvents), at: Fixtures.t(14)), state: second)
        guard case .vehicleAssigned(let e) = assigned.first else { Issue.record("no assignment: \(assigned)"); return }
        #expect(e.backToBack)
    }

    @Test func updatingCapabilitiesRecordsTheFullResultingValues() throws {
        let events = try Vehicle.decide(.updateCapabilities(maximumCapacity: 6, supportedTripTypes: nil, vehicleType: nil, at: Fixtures.t(5)), state: Self.given)
        #expect(events == [.capabilitiesChanged(.init(
            vehicleId: "v-1", maximumCapacity: 6, supportedTripTypes: [.exclusive, .shared], vehicleType: VehicleType(category: .auto), at: Fixtures.t(5)))])
        let all = try Vehicle.decide(.updateCapabilities(
            maximumCapacity: 2, supportedTripTypes: [.shared], vehicleType: VehicleType(category: .twoWheeler), at: Fixtures.t(6)), state: Self.given)
        #expect(all == [.capabilitiesChanged(.init(
            vehicleId: "v-1", maximumCapacity: 2, supportedTripTypes: [.shared], vehicleType: VehicleType(category: .twoWheeler), at: Fixtures.t(6)))])
        let state = Vehicle.evolve(Self.given, with: all[0])
        #expect(state.maximumCapacity == 2 && state.supportedTripTypes == [.shared] && state.vehicleType.category == .twoWheeler)
    }

    @Test func updatingCapabilitiesToTheCurrentValuesYieldsNoEvents() throws {
        #expect(try Vehicle.decide(.updateCapabilities(
            maximumCapacity: 4, supportedTripTypes: [.exclusive, .shared], vehicleType: VehicleType(category: .auto), at: Fixtures.t(5)), state: Self.given) == [])
        #expect(try Vehicle.decide(.updateCapabilities(maximumCapacity: nil, supportedTripTypes: nil, vehicleType: VehicleType(category: .auto), at: Fixtures.t(5)), state: Self.given) == [])
    }

    @Test func reorderingSupportedTripTypesIsAChange() throws {
        let events = try Vehicle.decide(.updateCapabilities(maximumCapacity: nil, supportedTripTypes: [.shared, .exclusive], vehicleType: nil, at: Fixtures.t(5)), state: Self.given)
        #expect(events.count == 1)
    }

    @Test func updatingCapabilitiesWithoutAnyFieldFailsWithInvalidArgument() {
        expectRejection(.invalidArgument, mentioning: ["maximumCapacity, supportedTripTypes or vehicleType is required", "v-1"]) {
            try Vehicle.decide(.updateCapabilities(maximumCapacity: nil, supportedTripTypes: nil, vehicleType: nil, at: Fixtures.t(5)), state: Self.given)
        }
    }

    @Test func updatingCapabilitiesWithInvalidValuesFailsWithInvalidArgument() {
        expectRejection(.invalidArgument, mentioning: ["maximumCapacity must be at least 1", "0"]) {
            try Vehicle.decide(.updateCapabilities(maximumCapacity: 0, supportedTripTypes: nil, vehicleType: nil, at: Fixtures.t(5)), state: Self.given)
        }
        expectRejection(.invalidArgument, mentioning: ["supportedTripTypes is required"]) {
            try Vehicle.decide(.updateCapabilities(maximumCapacity: nil, supportedTripTypes: [], vehicleType: nil, at: Fixtures.t(5)), state: Self.given)
        }
        expectRejection(.invalidArgument, mentioning: ["only SHARED or EXCLUSIVE", "UNKNOWN_TRIP_TYPE"]) {
            try Vehicle.decide(.updateCapabilities(maximumCapacity: nil, supportedTripTypes: [.unknown], vehicleType: nil, at: Fixtures.t(5)), state: Self.given)
        }
        expectRejection(.invalidArgument, mentioning: ["must not repeat", "SHARED"]) {
            try Vehicle.decide(.updateCapabilities(maximumCapacity: nil, supportedTripTypes: [.shared, .shared], vehicleType: nil, at: Fixtures.t(5)), state: Self.given)
        }
        expectRejection(.invalidArgument, mentioning: ["vehicleType.category is required", "UNKNOWN"]) {
            try Vehicle.decide(.updateCapabilities(maximumCapacity: nil, supportedTripTypes: nil, vehicleType: VehicleType(category: .unknown), at: Fixtures.t(5)), state: Self.given)
        }
    }

    @Test func aValidFieldDoesNotExcuseAnInvalidOne() {
        expectRejection(.invalidArgument, mentioning: ["maximumCapacity"]) {
            try Vehicle.decide(.updateCapabilities(maximumCapacity: -1, supportedTripTypes: [.shared], vehicleType: VehicleType(category: .taxi), at: Fixtures.t(5)), state: Self.given)
        }
    }
}

@Suite("Vehicle: license plate")
struct VehicleLicensePlateTests {
    static let plate = LicensePlate(countryCode: "DE", lastCharacter: "7")
    static let given = givenVehicle([VehicleFixtures.registered()])

    @Test func registeringWithALicensePlateRecordsItOnVehicleRegistered() throws {
        let command = Vehicle.Command.registerVehicle(.init(
            vehicleId: "v-1", supportedTripTypes: [.exclusive], maximumCapacity: 4, vehicleType: VehicleType(category: .taxi),
            licensePlate: LicensePlate(countryCode: "IN", lastCharacter: "")), at: Fixtures.t0)
        let events = try Vehicle.decide(command, state: Vehicle.State())
        // an empty lastCharacter (proto3's "unset") is stored as absent
        #expect(events == [.registered(.init(
            vehicleId: "v-1", vehicleState: .offline, supportedTripTypes: [.exclusive], maximumCapacity: 4,
            vehicleType: VehicleType(category: .taxi), attributes: [], backToBackEnabled: false,
            licensePlate: LicensePlate(countryCode: "IN"), at: Fixtures.t0))])
        #expect(givenVehicle(events).licensePlate == LicensePlate(countryCode: "IN"))
    }

    @Test func registeringWithAnInvalidLicensePlateFailsWithInvalidArgument() {
        let command = Vehicle.Command.registerVehicle(.init(
            vehicleId: "v-1", supportedTripTypes: [.exclusive], maximumCapacity: 4, vehicleType: VehicleType(category: .taxi),
            licensePlate: LicensePlate(countryCode: "de")), at: Fixtures.t0)
        expectRejection(.invalidArgument, mentioning: ["licensePlate.countryCode", "\"de\""]) { try Vehicle.decide(command, state: Vehicle.State()) }
    }

    @Test func settingALicensePlateRecordsVehicleLicensePlateSetAndIgnoresRepeats() throws {
        let events = try Vehicle.decide(.setLicensePlate(Self.plate, at: Fixtures.t(5)), state: Self.given)
        #expect(events == [.licensePlateSet(.init(vehicleId: "v-1", licensePlate: Self.plate, at: Fixtures.t(5)))])
        let state = Vehicle.evolve(Self.given, with: events[0])
        #expect(state.licensePlate == Self.plate)
        #expect(try Vehicle.decide(.setLicensePlate(Self.plate, at: Fixtures.t(6)), state: state) == [])
    }

    @Test func clearingTheLicensePlateRecordsANilPlateOnce() throws {
        let state = Vehicle.evolve(Self.given, with: .licensePlateSet(.init(vehicleId: "v-1", licensePlate: Self.plate, at: Fixtures.t(5))))
        let events = try Vehicle.decide(.setLicensePlate(nil, at: Fixtures.t(6)), state: state)
        #expect(events == [.licensePlateSet(.init(vehicleId: "v-1", licensePlate: nil, at: Fixtures.t(6)))])
        #expect(try Vehicle.decide(.setLicensePlate(nil, at: Fixtures.t(6)), state: Self.given) == [])
    }

    @Test(arguments: [("US", nil), ("IN", "4"), ("DE", "-1"), ("GB", "X"), ("FR", "0")] as [(String, String?)])
    func validLicensePlatesAreAccepted(countryCode: String, lastCharacter: String?) throws {
        let plate = LicensePlate(countryCode: countryCode, lastCharacter: lastCharacter)
        #expect(try plate.validated(field: "licensePlate") == plate)
    }

    @Test(arguments: [("us", nil), ("USA", nil), ("", nil), ("U1", nil), ("ÄB", nil), ("DE", "12"), ("DE", "-"), ("DE", " "), ("DE", "-2")] as [(String, String?)])
    func invalidLicensePlatesFailWithInvalidArgument(countryCode: String, lastCharacter: String?) {
        let plate = LicensePlate(countryCode: countryCode, lastCharacter: lastCharacter)
        expectRejection(.invalidArgument, mentioning: ["licensePlate."]) { try Vehicle.decide(.setLicensePlate(plate, at: Fixtures.t(5)), state: Self.given) }
    }
}

@Suite("Vehicle: delete")
struct VehicleDeleteTests {
    static let registered = VehicleFixtures.registered()

    @Test func deletingAVehicleWithoutTripsRecordsVehicleDeleted() throws {
        let events = try Vehicle.decide(.deleteVehicle(at: Fixtures.t(5)), state: givenVehicle([Self.registered]))
        #expect(events == [.deleted(.init(vehicleId: "v-1", at: Fixtures.t(5)))])
        let state = givenVehicle([Self.registered] + events)
        #expect(!state.exists)
        var expected = Vehicle.State()
        expected.vehicleId = "v-1"
        #expect(state == expected)
    }

    @Test func deletingAVehicleWithCurrentTripsFailsWithFailedPreconditionNamingThem() throws {
        var events = try VehicleFixtures.withTrip(givenTrip(TripFixtures.assignedTrip("t-1", type: .shared)))
        events += try Vehicle.decide(.syncTrip(givenTrip(TripFixtures.assignedTrip("t-2", type: .shared)), at: Fixtures.t(12)), state: givenVehicle(events))
        let state = givenVehicle(events)
        expectRejection(.failedPrecondition, mentioning: ["current trips", "v-1", "t-1", "t-2"]) { try Vehicle.decide(.deleteVehicle(at: Fixtures.t(20)), state: state) }
    }

    @Test func aVehicleWhoseTripsWereReleasedCanBeDeleted() throws {
        var tripEvents = TripFixtures.assignedTrip()
        var events = try VehicleFixtures.withTrip(givenTrip(tripEvents))
        tripEvents.append(.canceled(.init(tripId: "t-1", vehicleId: "v-1", from: .new, at: Fixtures.t(20))))
        events += try Vehicle.decide(.syncTrip(givenTrip(tripEvents), at: Fixtures.t(20)), state: givenVehicle(events))
        #expect(try Vehicle.decide(.deleteVehicle(at: Fixtures.t(30)), state: givenVehicle(events)) == [.deleted(.init(vehicleId: "v-1", at: Fixtures.t(30)))])
    }

    @Test func deletingAnUnknownOrDeletedVehicleFailsWithNotFound() {
        expectRejection(.notFound, mentioning: ["not found"]) { try Vehicle.decide(.deleteVehicle(at: Fixtures.t(5)), state: Vehicle.State()) }
        let deleted = givenVehicle([Self.registered, .deleted(.init(vehicleId: "v-1", at: Fixtures.t(5)))])
        expectRejection(.notFound, mentioning: ["v-1", "not found"]) { try Vehicle.decide(.deleteVehicle(at: Fixtures.t(6)), state: deleted) }
        expectRejection(.notFound, mentioning: ["v-1"]) { try Vehicle.decide(.setVehicleState(.offline, at: Fixtures.t(6)), state: deleted) }
    }

    @Test func aDeletedVehicleCannotTakeATrip() {
        let deleted = givenVehicle([Self.registered, .deleted(.init(vehicleId: "v-1", at: Fixtures.t(5)))])
        expectRejection(.notFound, mentioning: ["v-1"]) {
            try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: deleted, at: Fixtures.t(6)), state: givenTrip([TripFixtures.created()]))
        }
    }

    @Test func aDeletedVehicleCanBeRegisteredAgainOnTheSameStream() throws {
        // given a vehicle with a plate, attributes and back-to-back on, then deleted
        let history: [Vehicle.Event] = [
            Self.registered,
            .licensePlateSet(.init(vehicleId: "v-1", licensePlate: LicensePlate(countryCode: "DE", lastCharacter: "7"), at: Fixtures.t(1))),
            .attributesSet(.init(vehicleId: "v-1", attributes: [Attribute(key: "old", value: .bool(true))], merged: true, at: Fixtures.t(2))),
            .deleted(.init(vehicleId: "v-1", at: Fixtures.t(5))),
        ]
        // when it is registered again
        let produced = try Vehicle.decide(VehicleFixtures.register(capacity: 2, category: .bicycle), state: givenVehicle(history))
        // then it starts afresh
        #expect(produced == [.registered(.init(
            vehicleId: "v-1", vehicleState: .offline, supportedTripTypes: [.exclusive], maximumCapacity: 2,
            vehicleType: VehicleType(category: .bicycle), attributes: [], backToBackEnabled: false, at: Fixtures.t0))])
        #expect(givenVehicle(history + produced) == givenVehicle(produced))
    }
}

@Suite("Vehicle: sync of deleted trips")
struct VehicleDeletedTripSyncTests {
    static func deleted(_ tripId: String = "t-1") -> Trip.State {
        givenTrip([TripFixtures.created(tripId), .deleted(.init(tripId: tripId, status: .new, at: Fixtures.t(5)))])
    }

    @Test func syncingADeletedTripTheVehicleDoesNotListYieldsNoEvents() throws {
        #expect(try Vehicle.decide(.syncTrip(Self.deleted(), at: Fixtures.t(20)), state: givenVehicle([VehicleFixtures.registered()])) == [])
    }

    @Test func syncingADeletedTripTheVehicleStillListsReleasesIt() throws {
        // given a vehicle whose sync of t-1's unassignment never happened
        var events = try VehicleFixtures.withTrip(givenTrip(TripFixtures.assignedTrip("t-1")))
        events += try Vehicle.decide(.syncTrip(givenTrip(TripFixtures.assignedTrip("t-2")), at: Fixtures.t(12)), state: givenVehicle(events))
        let t2Waypoints = givenVehicle(events).waypoints.filter { $0.tripId == "t-2" }
        // when the deleted trip is synced
        let released = try Vehicle.decide(.syncTrip(Self.deleted(), at: Fixtures.t(20)), state: givenVehicle(events))
        // then the vehicle lets it go, keeping the other trip's waypoints
        #expect(released == [.tripReleased(.init(vehicleId: "v-1", tripId: "t-1", reason: .deleted, waypoints: t2Waypoints, at: Fixtures.t(20)))])
        #expect(givenVehicle(events + released).currentTripIds == ["t-2"])
    }
}
