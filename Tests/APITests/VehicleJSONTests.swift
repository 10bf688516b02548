import JSON
import Journey
import Testing
@testable import API

/// UpdateVehicle bodies read into changes: the body's `lastLocation` is read once, applied when
/// masked, and checked (but not applied) when it is not.
@Suite struct VehicleJSONTests {
    static let body: JSONValue = try! JSONValue.parse(Array("""
        {"lastLocation":{"location":{"latitude":52.52,"longitude":13.405},"heading":90,"speed":8.5,"updateTime":"2024-05-01T12:00:00.500Z"},
         "vehicleState":"ONLINE"}
        """.utf8))

    @Test func updateWithLastLocationMaskedAppliesExactlyTheBodysLocation() throws {
        let request = try VehicleJSON.update(Self.body, mask: ["lastLocation"], provider: "acme", vehicleId: "v-1")
        let expected = try FleetEngineValues.vehicleLocation(Self.body["lastLocation"]!, at: "vehicle.lastLocation")
        #expect(request.changes == [.location(expected, pastLocations: [])])
        #expect(expected.heading == 90 && expected.speed == 8.5)
    }

    @Test func updateWithLastLocationUnmaskedDoesNotApplyIt() throws {
        let request = try VehicleJSON.update(Self.body, mask: ["vehicle_state"], provider: "acme", vehicleId: "v-1")
        #expect(request.changes == [.vehicleState(.online)])
    }

    @Test func updateRefusesABadLastLocationEvenWhenItIsNotMasked() {
        let bad = try! JSONValue.parse(Array(#"{"lastLocation":{"location":{"latitude":52,"longitude":190}},"vehicleState":"ONLINE"}"#.utf8))
        for mask in [["lastLocation"], ["vehicleState"]] {
            #expect(throws: APIError.self) { try VehicleJSON.update(bad, mask: mask, provider: "acme", vehicleId: "v-1") }
            do {
                _ = try VehicleJSON.update(bad, mask: mask, provider: "acme", vehicleId: "v-1")
            } catch {
                #expect(error.code == .invalidArgument && error.message.contains("vehicle.lastLocation"), "\(error.message)")
            }
        }
    }
}
