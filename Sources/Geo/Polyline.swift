/// Google's encoded polyline algorithm, at precision 5 (Routes API, Fleet Engine) or 6.
///
/// Each coordinate is rounded to `10^-precision` degrees and stored as the signed delta
/// from the previous point, zig-zag encoded in 5-bit chunks offset by 63 ('?'...'~').
/// Deltas are taken between rounded values, so rounding error never accumulates along a
/// path. `encode` never drops or merges points, even ones that round to the same value,
/// so traffic intervals indexing a path stay valid for its encoding.
package enum Polyline {
    /// Longest chunk run accepted for one value: 7 chunks = 35 bits, far above the
    /// 30 bits a valid delta at precision 6 can need, and far below Int overflow.
    private static let maxChunksPerValue = 7

    /// Encodes `points`, rounding each coordinate to `precision` decimal places.
    ///
    /// - Precondition: `precision` is 5 or 6 (a programming error otherwise, as the
    ///   precision is fixed by the wire format, not by input).
    package static func encode(_ points: [LatLng], precision: Int = 5) -> String {
        let factor = scale(precision)
        precondition(factor != nil, "polyline precision \(precision) is not supported (expected 5 or 6)")
        let scale = factor ?? 1e5
        var bytes: [UInt8] = []
        bytes.reserveCapacity(points.count * 2 * (precision + 1))
        var previousLatitude = 0
        var previousLongitude = 0
        for point in points {
            let latitude = Int((point.latitude * scale).rounded())
            let longitude = Int((point.longitude * scale).rounded())
            append(latitude - previousLatitude, to: &bytes)
            append(longitude - previousLongitude, to: &bytes)
            previousLatitude = latitude
            previousLongitude = longitude
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes an encoded polyline; the empty string is the empty path.
    ///
    /// Throws `.invalidPrecision` unless `precision` is 5 or 6; `.malformedPolyline` for a
    /// byte outside 63...126, a value whose last chunk is missing, an over-long value, or
    /// a latitude without its longitude; `.invalidLatitude` / `.invalidLongitude` when a
    /// decoded coordinate is out of range. It never returns a partial or garbage path.
    package static func decode(_ encoded: String, precision: Int = 5) throws(GeoError) -> [LatLng] {
        guard let scale = scale(precision) else {
            throw .invalidPrecision(precision)
        }
        var points: [LatLng] = []
        var latitude = 0
        var longitude = 0
        var reader = Reader(bytes: Array(encoded.utf8))
        while !reader.isAtEnd {
            let latitudeOffset = reader.offset
            latitude += try reader.nextValue()
            guard !reader.isAtEnd else {
                throw .malformedPolyline(
                    "polyline ends after the latitude starting at offset \(latitudeOffset); its longitude is missing"
                )
            }
            longitude += try reader.nextValue()
            let index = points.count
            let decodedLatitude = Double(latitude) / scale
            let decodedLongitude = Double(longitude) / scale
            guard (-90.0...90.0).contains(decodedLatitude) else {
                throw .invalidLatitude("decoded latitude \(decodedLatitude) is outside [-90, 90] at point \(index)")
            }
            guard (-180.0...180.0).contains(decodedLongitude) else {
                throw .invalidLongitude("decoded longitude \(decodedLongitude) is outside [-180, 180] at point \(index)")
            }
            points.append(LatLng(uncheckedLatitude: decodedLatitude, longitude: decodedLongitude))
        }
        return points
    }

    /// `10^precision` for the supported precisions, nil otherwise.
    private static func scale(_ precision: Int) -> Double? {
        switch precision {
        case 5: 1e5
        case 6: 1e6
        default: nil
        }
    }

    private static func append(_ value: Int, to bytes: inout [UInt8]) {
        var rest = value < 0 ? ~(value << 1) : value << 1
        while rest >= 0x20 {
            bytes.append(UInt8((0x20 | (rest & 0x1F)) + 63))
            rest >>= 5
        }
        bytes.append(UInt8(rest + 63))
    }

    /// Reads zig-zag values chunk by chunk, reporting byte offsets in errors.
    private struct Reader {
        let bytes: [UInt8]
        private(set) var offset = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { offset == bytes.count }

        mutating func nextValue() throws(GeoError) -> Int {
            let start = offset
            var result = 0
            var shift = 0
            for chunkNumber in 1...Polyline.maxChunksPerValue {
                guard offset < bytes.count else {
                    throw .malformedPolyline(
                        "polyline is truncated: the value starting at offset \(start) has no final chunk"
                    )
                }
                let byte = bytes[offset]
                guard (63...126).contains(byte) else {
                    throw .malformedPolyline(
                        "polyline byte \(Self.show(byte)) at offset \(offset) is outside '?'...'~' (63...126)"
                    )
                }
                offset += 1
                let chunk = Int(byte) - 63
                result |= (chunk & 0x1F) << shift
                shift += 5
                if chunk < 0x20 {
                    return result & 1 == 1 ? ~(result >> 1) : result >> 1
                }
                if chunkNumber == Polyline.maxChunksPerValue {
                    break
                }
            }
            throw .malformedPolyline(
                "polyline value starting at offset \(start) runs past \(Polyline.maxChunksPerValue) chunks"
            )
        }

        private static func show(_ byte: UInt8) -> String {
            let hex = "0x" + String(byte, radix: 16, uppercase: true)
            guard (32...126).contains(byte) else { return hex }
            return "'\(Character(Unicode.Scalar(byte)))' (\(hex))"
        }
    }
}
