/// What a planned route optimizes for, in the Routes API's route-label vocabulary.
///
/// `DEFAULT_ROUTE` is the fastest route; `FUEL_EFFICIENT` and `SHORTER_DISTANCE` are the Routes
/// API's reference routes (`requestedReferenceRoutes`). Raw values are those label names.
package enum RoutingObjective: String, Codable, Hashable, Sendable, CaseIterable {
    case defaultRoute = "DEFAULT_ROUTE"
    case fuelEfficient = "FUEL_EFFICIENT"
    case shorterDistance = "SHORTER_DISTANCE"
}
