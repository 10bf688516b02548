import Foundation
import Geo
import Journey

/// Where a vehicle stands on a planned leg, for the driver feed: the step whose maneuver comes
/// next, the distance and time to it, and what is left of the leg. Pure.
///
/// A step's maneuver is performed where the step starts. The vehicle's position is snapped onto
/// every step's polyline and the nearest step (the earliest on a tie) is the one being driven,
/// step `k`; the current step is then `k + 1`, whose maneuver point is the end of step `k`, and
/// the distance to it is step `k`'s `distanceMeters` times the part of its polyline still ahead
/// (time likewise from its duration). After the last step comes the destination itself.
package enum DriverGuidance {
    /// The next maneuver of a leg: a step of the plan, or arriving at the destination.
    package enum Maneuver: Hashable, Sendable {
        case step(Int)
        case destination(DestinationSide)
    }

    /// On which side of the road the stop lies, seen in the direction of travel.
    package enum DestinationSide: String, Hashable, Sendable {
        case ahead, left, right

        /// The Navigation SDK's maneuver name for the destination.
        package var maneuverName: String {
            switch self {
            case .ahead: "DESTINATION"
            case .left: "DESTINATION_LEFT"
            case .right: "DESTINATION_RIGHT"
            }
        }

        /// What the dashboard says.
        package var instruction: String {
            switch self {
            case .ahead: "Your destination is ahead"
            case .left: "Your destination is on your left"
            case .right: "Your destination is on your right"
            }
        }
    }

    /// The vehicle's progress on one leg.
    package struct Progress: Hashable, Sendable {
        /// The next maneuver; nil when the leg has no steps.
        package var current: Maneuver?
        /// The maneuver after it, if any.
        package var next: Maneuver?
        /// Meters and seconds to the current maneuver's point (nil without steps).
        package var metersToManeuver: Double?
        package var secondsToManeuver: Double?
        /// Meters and seconds left on the leg, to its stop.
        package var metersToStop: Double
        package var secondsToStop: Double
    }

    /// Within this angle (degrees) of the direction of travel, a stop is "ahead".
    static let aheadDegrees = 30.0
    /// A stop this close (meters) to the end of the path is "ahead".
    static let aheadMeters = 3.0

    /// The progress on `leg` at `position` (nil position: at the leg's start); `stop` is the leg's destination.
    package static func progress(on leg: RoutePlan.Leg, stop: LatLng, position: LatLng?) -> Progress {
        let legPath = indexedPath(leg.encodedPolyline)
        let steps = leg.steps ?? []
        let paths = steps.map { indexedPath($0.encodedPolyline) }
        guard !steps.isEmpty else {
            let ahead = fractionAhead(on: legPath, position: position)
            let meters = Double(leg.distanceMeters ?? Int(legPath.path.length.rounded())) * ahead
            let seconds = Double(leg.durationSeconds ?? leg.staticDurationSeconds ?? 0) * ahead
            return Progress(current: nil, next: nil, metersToManeuver: nil, secondsToManeuver: nil, metersToStop: meters, secondsToStop: seconds)
        }
        var onStep = 0
        if let position {
            var best = Double.infinity
            for (i, path) in paths.enumerated() {
                // A step whose bound cannot beat the best is not snapped: its snap could not either.
                guard path.lowerBound(to: position) < best, let snapped = path.snap(position), snapped.distanceOff < best else { continue }
                best = snapped.distanceOff
                onStep = i
            }
        }
        let ahead = fractionAhead(on: paths[onStep], position: position)
        let toManeuverMeters = Double(steps[onStep].distanceMeters) * ahead
        let toManeuverSeconds = Double(steps[onStep].durationSeconds) * ahead
        let later = steps.dropFirst(onStep + 1)
        let metersToStop = toManeuverMeters + Double(later.reduce(0) { $0 + $1.distanceMeters })
        let secondsToStop = toManeuverSeconds + Double(later.reduce(0) { $0 + $1.durationSeconds })
        let side = destinationSide(path: paths.last.map(\.path.points) ?? legPath.path.points, stop: stop)
        func maneuver(_ index: Int) -> Maneuver? {
            if index < steps.count { return .step(index) }
            if index == steps.count { return .destination(side) }
            return nil
        }
        return Progress(current: maneuver(onStep + 1), next: maneuver(onStep + 2), metersToManeuver: toManeuverMeters,
                        secondsToManeuver: toManeuverSeconds, metersToStop: metersToStop, secondsToStop: secondsToStop)
    }

    /// The part of `path` still ahead of `position`'s snap, 0...1 (1 with no position or a zero-length path).
    static func fractionAhead(on path: IndexedPath, position: LatLng?) -> Double {
        guard let position, path.path.length > 0, let snapped = path.snap(position) else { return 1 }
        return min(1, max(0, 1 - snapped.distanceAlong / path.path.length))
    }

    /// A polyline from the shared cache; empty when it does not decode (plans are validated on the way in).
    static func indexedPath(_ encoded: String) -> IndexedPath {
        (try? PathCache.shared.path(encoded)) ?? IndexedPath(Path([]))
    }

    /// The side of the road `stop` lies on at the end of `path`, from the direction of its last segment.
    package static func destinationSide(path: [LatLng], stop: LatLng) -> DestinationSide {
        guard let end = path.last, let before = path.dropLast().last(where: { $0 != end }) else { return .ahead }
        guard Distance.meters(end, stop) > aheadMeters else { return .ahead }
        // Local east/north metres around the end point.
        let scale = cos(end.latitude * .pi / 180)
        let dx = (end.longitude - before.longitude) * scale, dy = end.latitude - before.latitude
        let sx = (stop.longitude - end.longitude) * scale, sy = stop.latitude - end.latitude
        let angle = atan2(dx * sy - dy * sx, dx * sx + dy * sy) * 180 / .pi
        if abs(angle) <= aheadDegrees { return .ahead }
        return angle > 0 ? .left : .right
    }
}
