import Foundation
import Geo
import Testing

@Suite struct LatLngTests {
    @Test(arguments: [(-90.0, -180.0), (90.0, 180.0), (0.0, 0.0), (-0.0, -0.0), (38.5, -120.2)])
    func coordinatesOnOrInsideTheBoundsAreAccepted(latitude: Double, longitude: Double) throws {
        let point = try LatLng(latitude: latitude, longitude: longitude)
        #expect(point.latitude == latitude)
        #expect(point.longitude == longitude)
    }

    @Test(arguments: [90.000001, -90.000001, 91, -1000])
    func latitudeOutsideMinus90To90IsRejectedNamingTheValue(latitude: Double) {
        let error = #expect(throws: GeoError.self) { try LatLng(latitude: latitude, longitude: 0) }
        #expect(error?.code == .invalidLatitude)
        #expect(error?.message.contains("\(latitude)") == true)
    }

    @Test(arguments: [180.000001, -180.000001, 360, -540])
    func longitudeOutsideMinus180To180IsRejectedNamingTheValue(longitude: Double) {
        let error = #expect(throws: GeoError.self) { try LatLng(latitude: 0, longitude: longitude) }
        #expect(error?.code == .invalidLongitude)
        #expect(error?.message.contains("\(longitude)") == true)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteLatitudeIsRejectedAsNotFinite(value: Double) {
        let error = #expect(throws: GeoError.self) { try LatLng(latitude: value, longitude: 0) }
        #expect(error?.code == .notFinite)
        #expect(error?.message.contains("latitude") == true)
        #expect(error?.message.contains("\(value)") == true)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteLongitudeIsRejectedAsNotFinite(value: Double) {
        let error = #expect(throws: GeoError.self) { try LatLng(latitude: 0, longitude: value) }
        #expect(error?.code == .notFinite)
        #expect(error?.message.contains("longitude") == true)
        #expect(error?.message.contains("\(value)") == true)
    }

    @Test func errorMessageNamesOnlyTheOffendingHalfOfThePair() {
        let error = #expect(throws: GeoError.self) { try LatLng(latitude: 123.25, longitude: 12.3456789) }
        #expect(error?.message.contains("123.25") == true)
        #expect(error?.description.contains("12.3456789") == false)
        #expect(error?.description.hasPrefix("GeoError.invalidLatitude: ") == true)
    }

    @Test func encodesAsFleetEngineLatLngJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(LatLng.at(38.5, -120.25))
        #expect(String(decoding: data, as: UTF8.self) == #"{"latitude":38.5,"longitude":-120.25}"#)
    }

    @Test func decodingRoundTripsExactly() throws {
        let original = LatLng.at(-33.868820, 151.209296)
        let decoded = try JSONDecoder().decode(LatLng.self, from: JSONEncoder().encode(original))
        #expect(decoded == original)
    }

    @Test func decodingTreatsAMissingFieldAsZeroLikeProto3JSON() throws {
        let decoded = try JSONDecoder().decode(LatLng.self, from: Data(#"{"longitude":12.5}"#.utf8))
        #expect(decoded == LatLng.at(0, 12.5))
    }

    @Test(arguments: [
        (#"{"latitude":90.5,"longitude":0}"#, GeoError.Code.invalidLatitude),
        (#"{"latitude":-91,"longitude":0}"#, .invalidLatitude),
        (#"{"latitude":0,"longitude":180.5}"#, .invalidLongitude),
        (#"{"latitude":0,"longitude":-200}"#, .invalidLongitude),
    ])
    func decodingRejectsBadCoordinatesWithTheGeoErrorUnderneath(json: String, code: GeoError.Code) {
        let error = #expect(throws: DecodingError.self) { try JSONDecoder().decode(LatLng.self, from: Data(json.utf8)) }
        #expect(underlyingGeoError(error)?.code == code)
    }

    @Test(arguments: [#"{"latitude":"nan","longitude":0}"#, #"{"latitude":0,"longitude":"-inf"}"#])
    func decodingRejectsNonFiniteCoordinatesEvenWhenTheDecoderAllowsThem(json: String) {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let error = #expect(throws: DecodingError.self) { try decoder.decode(LatLng.self, from: Data(json.utf8)) }
        #expect(underlyingGeoError(error)?.code == .notFinite)
    }

    @Test func uncheckedInitializerKeepsValuesAsGiven() {
        let point = LatLng(uncheckedLatitude: 12.5, longitude: -3.25)
        #expect(point.latitude == 12.5 && point.longitude == -3.25)
    }
}
