/// The journey-style aggregate: a provider's default style for riders' maps.
///
/// A namespace with `State`, `Command`, `Event` and the pure `decide` / `evolve`. Stream id:
/// `style:{provider}/journey`. Each accepted change is a whole new `Options` value and moves
/// `version` up by one; the journey view of every trip of the provider carries that version
/// (`styleVersion`), so riders' apps know when to fetch the style again.
package enum JourneyStyle {
    /// The marker types a style may name: the journey view's marker `type`s.
    package static let markerTypes = ["TRIP_PICKUP_POINT", "INTERMEDIATE_DESTINATION", "TRIP_DROPOFF_POINT", "TRIP_VEHICLE"]
    /// The polyline types a style may name: the journey view's polyline `type`s.
    package static let polylineTypes = ["ACTIVE_ROUTE", "REMAINING_ROUTE"]
    /// The traffic speeds a polyline style may color: the journey view's traffic interval `speed`s.
    package static let speeds = ["NO_DATA", "NORMAL", "SLOW", "TRAFFIC_JAM"]

    /// The current style of a provider.
    package struct State: Sendable, Hashable {
        /// Accepted changes so far; 0 while the provider has never set a style.
        package var version: Int64 = 0
        package var options: Options?
        package var updateTime: Timestamp?

        package init() {}
    }

    /// What a caller asks of the stream.
    package enum Command: Sendable, Hashable {
        /// Replaces the style. With `expectedVersion`, only if the style is still at that version.
        case setStyle(Options, expectedVersion: Int64?, at: Timestamp)
    }
}
