/// The Routes API `TravelMode`; raw values are the proto enum names.
///
/// Route plans accept only DRIVE and TWO_WHEELER (route tokens exist only for those);
/// TRAVEL_MODE_UNSPECIFIED means DRIVE, as in the Routes API.
package enum TravelMode: String, Codable, Hashable, Sendable, CaseIterable {
    case unspecified = "TRAVEL_MODE_UNSPECIFIED"
    case drive = "DRIVE"
    case bicycle = "BICYCLE"
    case walk = "WALK"
    case twoWheeler = "TWO_WHEELER"
    case transit = "TRANSIT"

    /// Whether a route plan may use this mode (after normalizing UNSPECIFIED to DRIVE).
    package var isSupportedForRoutePlans: Bool { self == .drive || self == .twoWheeler || self == .unspecified }

    /// UNSPECIFIED resolved to DRIVE; every other mode unchanged.
    package var normalized: TravelMode { self == .unspecified ? .drive : self }
}
