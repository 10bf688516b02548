import Geo

extension LatLng {
    /// A trusted point for fixtures: `.at(38.5, -120.2)`.
    static func at(_ latitude: Double, _ longitude: Double) -> LatLng {
        LatLng(uncheckedLatitude: latitude, longitude: longitude)
    }
}

/// The `GeoError` inside a `DecodingError.dataCorrupted`, if that is what `error` is.
func underlyingGeoError(_ error: (any Error)?) -> GeoError? {
    guard case .dataCorrupted(let context)? = error as? DecodingError else { return nil }
    return context.underlyingError as? GeoError
}

/// `count` points along the equator from longitude 0, `spacing` metres apart.
func equatorPath(count: Int, spacing: Double) -> Path {
    var points: [LatLng] = []
    var point = LatLng.at(0, 0)
    for _ in 0..<count {
        points.append(point)
        point = Distance.destination(from: point, bearing: 90, meters: spacing)
    }
    return Path(points)
}
