import Geo
import Testing

@Suite struct PolylineTests {
    /// The worked example from Google's "Encoded Polyline Algorithm Format" page.
    static let googlePoints = [LatLng.at(38.5, -120.2), .at(40.7, -120.95), .at(43.252, -126.453)]
    static let googleEncoded = "_p~iF~ps|U_ulLnnqC_mqNvxq`@"

    /// Zig-zag + 5-bit chunk encoding of raw integers, written independently of `Polyline`.
    static func encodeRaw(_ values: [Int]) -> String {
        var out = ""
        for value in values {
            var rest = value < 0 ? ~(value << 1) : value << 1
            while rest >= 0x20 {
                out.append(Character(Unicode.Scalar(UInt8((0x20 | (rest & 0x1F)) + 63))))
                rest >>= 5
            }
            out.append(Character(Unicode.Scalar(UInt8(rest + 63))))
        }
        return out
    }

    @Test func googleDocumentationExampleEncodesToThePublishedString() {
        #expect(Polyline.encode(Self.googlePoints) == Self.googleEncoded)
    }

    @Test func googleDocumentationExampleDecodesToThePublishedPoints() throws {
        let decoded = try Polyline.decode(Self.googleEncoded)
        try #require(decoded.count == 3)
        for (point, expected) in zip(decoded, Self.googlePoints) {
            #expect(abs(point.latitude - expected.latitude) < 1e-9)
            #expect(abs(point.longitude - expected.longitude) < 1e-9)
        }
    }

    @Test func emptyPathAndEmptyStringMapToEachOther() throws {
        #expect(Polyline.encode([]) == "")
        #expect(try Polyline.decode("") == [])
        #expect(try Polyline.decode("", precision: 6) == [])
    }

    @Test(arguments: [5, 6])
    func singlePointRoundTrips(precision: Int) throws {
        let point = LatLng.at(-33.86882, 151.209296)
        let decoded = try Polyline.decode(Polyline.encode([point], precision: precision), precision: precision)
        try #require(decoded.count == 1)
        let step = precision == 5 ? 1e-5 : 1e-6
        #expect(abs(decoded[0].latitude - point.latitude) <= step / 2 + 1e-12)
        #expect(abs(decoded[0].longitude - point.longitude) <= step / 2 + 1e-12)
    }

    @Test(arguments: [5, 6])
    func randomPathsRoundTripWithinHalfAUnitOfPrecision(precision: Int) throws {
        var generator = RouteGenerator(seed: 0x5EED_0000 + UInt64(precision))
        let step = precision == 5 ? 1e-5 : 1e-6
        for _ in 0..<250 {
            var points = generator.path(pointCount: 0...60, steps: 0...5_000).points
            // Include the extreme corners now and then.
            if Bool.random(using: &generator.random) { points.append(.at(-90, 180)); points.append(.at(90, -180)) }
            let encoded = Polyline.encode(points, precision: precision)
            let decoded = try Polyline.decode(encoded, precision: precision)
            try #require(decoded.count == points.count)
            for (got, want) in zip(decoded, points) {
                #expect(abs(got.latitude - want.latitude) <= step / 2 + 1e-12)
                #expect(abs(got.longitude - want.longitude) <= step / 2 + 1e-12)
            }
            #expect(Polyline.encode(decoded, precision: precision) == encoded)
        }
    }

    @Test func precisionSixEncodesSixDecimalPlaces() throws {
        let point = LatLng.at(38.123456, -120.654321)
        let decoded = try Polyline.decode(Polyline.encode([point], precision: 6), precision: 6)
        #expect(decoded == [point])
        #expect(try Polyline.decode(Polyline.encode([point], precision: 5)) == [.at(38.12346, -120.65432)])
    }

    @Test func roundingDoesNotAccumulateAlongALongPath() throws {
        // 2 000 steps of 0.000004°: each rounds to 0, but the running position must not drift.
        let points = (0..<2_000).map { LatLng.at(Double($0) * 0.000004, 0) }
        let decoded = try Polyline.decode(Polyline.encode(points))
        #expect(decoded.count == points.count)
        #expect(abs((decoded.last?.latitude ?? 0) - 7.996e-3) <= 0.5e-5 + 1e-12)
    }

    @Test func pointsThatRoundToTheSameValueAreKept() throws {
        let points = [LatLng.at(1, 1), .at(1.0000001, 1), .at(1, 1.0000002)]
        #expect(try Polyline.decode(Polyline.encode(points)).count == 3)
    }

    @Test(arguments: [
        "_p~iF~ps|U_ulLnnqC_mqNvxq`",  // last value's final chunk missing
        "_p~iF~ps|U_ulLnnqC_mqN",  // latitude without longitude
        "_",  // a lone continuation chunk
        "~~~~~~~~~~~~~~~~?",  // a value far longer than any coordinate needs
    ])
    func truncatedOrOverlongInputIsMalformed(encoded: String) {
        let error = #expect(throws: GeoError.self) { try Polyline.decode(encoded) }
        #expect(error?.code == .malformedPolyline)
    }

    @Test(arguments: [
        "_p~iF ~ps|U",  // space (32)
        "_p~iF~ps|U\n",  // newline
        "_p~iF~ps|U\u{7F}",  // DEL (127)
        ">>",  // '>' (62), just below the alphabet
        "_p~iF~ps|é",  // non-ASCII
        "hello, world",  // garbage
    ])
    func bytesOutsideTheAlphabetAreMalformedAndNamed(encoded: String) {
        let error = #expect(throws: GeoError.self) { try Polyline.decode(encoded) }
        #expect(error?.code == .malformedPolyline)
        #expect(error?.message.contains("outside") == true)
        #expect(error?.message.contains("offset") == true)
    }

    @Test func decodedLatitudeOutOfRangeIsRejected() {
        let encoded = Self.encodeRaw([4_000_000, 0, 5_500_000, 0])  // 40°, then 95°
        let error = #expect(throws: GeoError.self) { try Polyline.decode(encoded) }
        #expect(error?.code == .invalidLatitude)
        #expect(error?.message.contains("95.0") == true)
        #expect(error?.message.contains("point 1") == true)
    }

    @Test func decodedLongitudeOutOfRangeIsRejected() {
        let encoded = Self.encodeRaw([0, -18_000_001])
        let error = #expect(throws: GeoError.self) { try Polyline.decode(encoded) }
        #expect(error?.code == .invalidLongitude)
        #expect(error?.message.contains("-180.00001") == true)
    }

    @Test func exactBoundsDecodeAtBothPrecisions() throws {
        #expect(try Polyline.decode(Self.encodeRaw([9_000_000, -18_000_000])) == [.at(90, -180)])
        #expect(try Polyline.decode(Self.encodeRaw([-90_000_000, 180_000_000]), precision: 6) == [.at(-90, 180)])
    }

    @Test(arguments: [0, 4, 7, -5])
    func unsupportedPrecisionIsRejectedNamingIt(precision: Int) {
        let error = #expect(throws: GeoError.self) { try Polyline.decode(Self.googleEncoded, precision: precision) }
        #expect(error?.code == .invalidPrecision)
        #expect(error?.message.contains("\(precision)") == true)
    }
}
