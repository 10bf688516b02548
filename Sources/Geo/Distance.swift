import Foundation

/// Great-circle geometry on a sphere of radius 6 371 008.8 m (the IUGG mean Earth radius).
///
/// Haversine distances differ from the WGS 84 ellipsoid by up to about 0.5 %, which is
/// well inside what journey sharing needs. All functions are pure and deterministic.
package enum Distance {
    /// Mean Earth radius in metres used by every function here.
    package static let earthRadius = 6_371_008.8

    /// Great-circle (haversine) distance in metres between two points.
    package static func meters(_ a: LatLng, _ b: LatLng) -> Double {
        earthRadius * angle(a, b)
    }

    /// Sum of the distances between consecutive points; 0 for fewer than two points.
    package static func pathLength(_ points: [LatLng]) -> Double {
        cumulative(points).last ?? 0
    }

    /// Distance from the first point to each point along the path: `[0, d01, d01+d12, ...]`.
    ///
    /// Same count as `points`; empty for an empty path.
    package static func cumulative(_ points: [LatLng]) -> [Double] {
        guard var previous = points.first else { return [] }
        var result: [Double] = []
        result.reserveCapacity(points.count)
        var total = 0.0
        result.append(total)
        for point in points.dropFirst() {
            total += meters(previous, point)
            result.append(total)
            previous = point
        }
        return result
    }

    /// Initial great-circle bearing from `from` towards `to`, degrees clockwise from north in [0, 360).
    ///
    /// 0 when the points coincide.
    package static func initialBearing(from: LatLng, to: LatLng) -> Double {
        let phi1 = radians(from.latitude)
        let phi2 = radians(to.latitude)
        let deltaLambda = radians(to.longitude - from.longitude)
        let y = sin(deltaLambda) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(deltaLambda)
        guard x != 0 || y != 0 else { return 0 }
        var bearing = degrees(atan2(y, x))
        if bearing < 0 { bearing += 360 }
        return bearing >= 360 ? 0 : bearing
    }

    /// The point reached by travelling `meters` along a great circle from `from` with the
    /// given initial bearing (degrees clockwise from north).
    package static func destination(from: LatLng, bearing: Double, meters: Double) -> LatLng {
        let delta = meters / earthRadius
        let theta = radians(bearing)
        let phi1 = radians(from.latitude)
        let lambda1 = radians(from.longitude)
        let sinPhi2 = sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta)
        let phi2 = asin(min(1, max(-1, sinPhi2)))
        let lambda2 = lambda1 + atan2(
            sin(theta) * sin(delta) * cos(phi1),
            cos(delta) - sin(phi1) * sinPhi2
        )
        return point(phi: phi2, lambda: lambda2)
    }

    /// The point a `fraction` (0...1) of the way from `a` to `b` along their great circle.
    ///
    /// Returns `a` and `b` exactly at 0 and 1. Distances are linear in `fraction`:
    /// `meters(a, result) == fraction * meters(a, b)` up to rounding. For (near-)antipodal
    /// points, where the great circle is undefined, it returns the nearer endpoint.
    package static func interpolate(from a: LatLng, to b: LatLng, fraction: Double) -> LatLng {
        if fraction <= 0 { return a }
        if fraction >= 1 { return b }
        let delta = angle(a, b)
        let sinDelta = sin(delta)
        guard delta > 1e-15, sinDelta > 1e-12 else { return fraction < 0.5 ? a : b }
        let weightA = sin((1 - fraction) * delta) / sinDelta
        let weightB = sin(fraction * delta) / sinDelta
        let (ax, ay, az) = vector(a)
        let (bx, by, bz) = vector(b)
        let x = weightA * ax + weightB * bx
        let y = weightA * ay + weightB * by
        let z = weightA * az + weightB * bz
        return point(phi: atan2(z, (x * x + y * y).squareRoot()), lambda: atan2(y, x))
    }

    /// Central angle in radians between two points (haversine form, stable at small angles).
    static func angle(_ a: LatLng, _ b: LatLng) -> Double {
        let phi1 = radians(a.latitude)
        let phi2 = radians(b.latitude)
        let sinHalfDeltaPhi = sin((phi2 - phi1) / 2)
        let sinHalfDeltaLambda = sin(radians(b.longitude - a.longitude) / 2)
        let h = sinHalfDeltaPhi * sinHalfDeltaPhi + cos(phi1) * cos(phi2) * sinHalfDeltaLambda * sinHalfDeltaLambda
        return 2 * asin(min(1, h.squareRoot()))
    }

    static func radians(_ degrees: Double) -> Double {
        degrees * .pi / 180
    }

    static func degrees(_ radians: Double) -> Double {
        radians * 180 / .pi
    }

    private static func vector(_ p: LatLng) -> (Double, Double, Double) {
        let phi = radians(p.latitude)
        let lambda = radians(p.longitude)
        return (cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
    }

    /// A point from radians, longitude wrapped into [-180, 180] and both clamped against rounding.
    private static func point(phi: Double, lambda: Double) -> LatLng {
        let latitude = min(90, max(-90, degrees(phi)))
        var longitude = degrees(lambda).truncatingRemainder(dividingBy: 360)
        if longitude > 180 { longitude -= 360 }
        if longitude < -180 { longitude += 360 }
        return LatLng(uncheckedLatitude: latitude, longitude: min(180, max(-180, longitude)))
    }
}
