/// A point on the Earth as WGS 84 degrees, always finite and in range.
///
/// Mirrors `google.type.LatLng`: latitude in [-90, 90], longitude in [-180, 180]. Every
/// public way in (the throwing initializer and `Decodable`) validates; the unchecked
/// initializer is for values computed inside Geo or read back from trusted storage.
/// JSON shape is Fleet Engine's: `{"latitude": 38.5, "longitude": -120.2}`. As in proto3
/// JSON, a missing field decodes as 0 (proto3 omits zero values when encoding).
package struct LatLng: Hashable, Sendable, Codable {
    /// Degrees north of the equator, in [-90, 90].
    package let latitude: Double
    /// Degrees east of Greenwich, in [-180, 180].
    package let longitude: Double

    /// Creates a validated point.
    ///
    /// Throws `.notFinite` for NaN or ±infinity, `.invalidLatitude` / `.invalidLongitude`
    /// for values out of range. The message names the offending value only.
    package init(latitude: Double, longitude: Double) throws(GeoError) {
        try Self.validate(latitude: latitude, longitude: longitude, context: "")
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Creates a point without validation, for trusted internal values.
    ///
    /// The caller guarantees both values are finite and in range; debug builds assert it.
    package init(uncheckedLatitude latitude: Double, longitude: Double) {
        assert(latitude.isFinite && (-90...90).contains(latitude), "latitude \(latitude) out of range")
        assert(longitude.isFinite && (-180...180).contains(longitude), "longitude \(longitude) out of range")
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Checks one coordinate pair; `context` (e.g. " at point 3") is appended to messages.
    static func validate(latitude: Double, longitude: Double, context: String) throws(GeoError) {
        guard latitude.isFinite else {
            throw .notFinite("latitude must be finite, got \(latitude)\(context)")
        }
        guard longitude.isFinite else {
            throw .notFinite("longitude must be finite, got \(longitude)\(context)")
        }
        guard (-90.0...90.0).contains(latitude) else {
            throw .invalidLatitude("latitude \(latitude) is outside [-90, 90]\(context)")
        }
        guard (-180.0...180.0).contains(longitude) else {
            throw .invalidLongitude("longitude \(longitude) is outside [-180, 180]\(context)")
        }
    }

    private enum CodingKeys: String, CodingKey {
        case latitude
        case longitude
    }

    /// Decodes `{"latitude": .., "longitude": ..}` and validates it.
    ///
    /// A bad value throws `DecodingError.dataCorrupted` whose `underlyingError` is the
    /// `GeoError`, so JSON layers keep the coding path and callers can still read the code.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let latitude = try container.decodeIfPresent(Double.self, forKey: .latitude) ?? 0
        let longitude = try container.decodeIfPresent(Double.self, forKey: .longitude) ?? 0
        do {
            try Self.validate(latitude: latitude, longitude: longitude, context: "")
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: container.codingPath,
                    debugDescription: error.message,
                    underlyingError: error
                )
            )
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Encodes both fields, zeros included.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
    }
}
