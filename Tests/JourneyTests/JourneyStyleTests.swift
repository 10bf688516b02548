import JSON
import Journey
import Testing

/// The journey-style aggregate and its validation.
@Suite struct JourneyStyleTests {
    typealias F = Fixtures

    static let style = JourneyStyle.Options(
        markers: ["TRIP_VEHICLE": .init(groundAnchor: .init(x: 0.5, y: 1), visible: true, icon: "https://cdn.example.com/car.png", zIndex: 2, flat: true)],
        polylines: ["ACTIVE_ROUTE": .init(color: "#4285F4", width: 8, trafficEnabled: true, trafficColors: ["SLOW": "#FFA500CC"])])

    @Test func aValidStyleIsSetAtTheNextVersion() throws {
        let events = try JourneyStyle.decide(.setStyle(Self.style, expectedVersion: nil, at: F.t(0)), state: JourneyStyle.State())
        #expect(events == [.set(.init(version: 1, options: Self.style, at: F.t(0)))])
        let state = events.reduce(JourneyStyle.State()) { JourneyStyle.evolve($0, with: $1) }
        #expect(state.version == 1 && state.options == Self.style && state.updateTime == F.t(0))
        // The same style again is no change; another one is version 2.
        #expect(try JourneyStyle.decide(.setStyle(Self.style, expectedVersion: nil, at: F.t(1)), state: state) == [])
        let next = try JourneyStyle.decide(.setStyle(JourneyStyle.Options(), expectedVersion: 1, at: F.t(2)), state: state)
        #expect(next == [.set(.init(version: 2, options: JourneyStyle.Options(), at: F.t(2)))])
    }

    @Test func aStaleExpectedVersionIsAborted() {
        expectRejection(.aborted, mentioning: ["0", "3"]) {
            try JourneyStyle.decide(.setStyle(Self.style, expectedVersion: 3, at: F.t(0)), state: JourneyStyle.State())
        }
    }

    @Test func invalidValuesAreRejectedNamingTheirPath() {
        func reject(_ options: JourneyStyle.Options, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
            expectRejection(.invalidArgument, mentioning: fragments, sourceLocation: sourceLocation) {
                try JourneyStyle.decide(.setStyle(options, expectedVersion: nil, at: F.t(0)), state: JourneyStyle.State())
            }
        }
        reject(.init(polylines: ["ACTIVE_ROUTE": .init(color: "#12345G")]), ["journeyStyle.polylines.ACTIVE_ROUTE.color", "#RRGGBB"])
        reject(.init(polylines: ["ACTIVE_ROUTE": .init(color: "4285F4")]), ["color"])
        reject(.init(polylines: ["ACTIVE_ROUTE": .init(width: 0)]), ["width", "0"])
        reject(.init(polylines: ["ACTIVE_ROUTE": .init(width: 100.01)]), ["width"])
        reject(.init(polylines: ["ACTIVE_ROUTE": .init(width: .nan)]), ["width"])
        reject(.init(polylines: ["ACTIVE_ROUTE": .init(trafficColors: ["FAST": "#000000"])]), ["trafficColors", "FAST"])
        reject(.init(polylines: ["ACTIVE_ROUTE": .init(trafficColors: ["SLOW": "#0000"])]), ["trafficColors.SLOW"])
        reject(.init(polylines: ["ROUTE": .init()]), ["ROUTE", "ACTIVE_ROUTE"])
        reject(.init(markers: ["CAR": .init()]), ["CAR", "TRIP_VEHICLE"])
        reject(.init(markers: ["TRIP_VEHICLE": .init(groundAnchor: .init(x: -0.01, y: 0.5))]), ["groundAnchor.x", "[0, 1]"])
        reject(.init(markers: ["TRIP_VEHICLE": .init(groundAnchor: .init(x: 0.5, y: 1.01))]), ["groundAnchor.y"])
        reject(.init(markers: ["TRIP_VEHICLE": .init(icon: "javascript:alert(1)")]), ["icon", "http"])
        reject(.init(markers: ["TRIP_VEHICLE": .init(icon: "https://")]), ["icon"])
        reject(.init(markers: ["TRIP_VEHICLE": .init(icon: "https://example.com/" + String(repeating: "a", count: 2100))]), ["icon", "2048"])
        reject(.init(markers: ["TRIP_VEHICLE": .init(zIndex: Int(Int32.max) + 1)]), ["zIndex"])
    }

    @Test func theStyleJSONListsTypesInViewOrderAndDefaultsTrafficEnabledToFalse() {
        let options = JourneyStyle.Options(
            markers: ["TRIP_VEHICLE": .init(visible: false), "TRIP_PICKUP_POINT": .init(zIndex: 1)],
            polylines: ["REMAINING_ROUTE": .init(color: "#000000")])
        #expect(options.json.compactString
                == ##"{"markers":{"TRIP_PICKUP_POINT":{"zIndex":1},"TRIP_VEHICLE":{"visible":false}},"polylines":{"REMAINING_ROUTE":{"color":"#000000","trafficEnabled":false}}}"##)
    }

    @Test func eventsRoundTripThroughTheirStoredJSON() throws {
        let event = JourneyStyle.Event.set(.init(version: 4, options: Self.style, at: F.t(9)))
        #expect(try JourneyStyle.Event.decode(type: event.type, data: try event.encodePayload()) == event)
        #expect(event.type == "JourneyStyleSet")
    }
}
