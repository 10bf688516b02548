/// The Navigation SDK's route token execution status; raw values in Fleet Engine enum style.
package enum RouteTokenExecutionStatus: String, Codable, Hashable, Sendable, CaseIterable {
    case unknown = "UNKNOWN"
    case noTokenProvided = "NO_TOKEN_PROVIDED"
    case tokenSuccessfullyApplied = "TOKEN_SUCCESSFULLY_APPLIED"
    case tokenAppliedWithLocationMismatch = "TOKEN_APPLIED_WITH_LOCATION_MISMATCH"
    case tokenIgnoredMalformed = "TOKEN_IGNORED_MALFORMED"
    case tokenIgnoredOther = "TOKEN_IGNORED_OTHER"
}

/// Routing parameters as the routing engine actually applied them.
package struct ResolvedRoutingParameters: Codable, Hashable, Sendable {
    package var travelMode: TravelMode
    package var options: RoutingOptions
    package var rerouteStrategy: RerouteStrategy

    package init(travelMode: TravelMode, options: RoutingOptions = .none, rerouteStrategy: RerouteStrategy = .default) {
        self.travelMode = travelMode
        self.options = options
        self.rerouteStrategy = rerouteStrategy
    }

    /// What survives when the token was not applied: travel mode and avoid
    /// tolls/highways/ferries; tunnels, vignettes and the reroute strategy fall back to defaults.
    package var keptWithoutToken: ResolvedRoutingParameters {
        ResolvedRoutingParameters(travelMode: travelMode, options: options.basic, rerouteStrategy: .default)
    }
}

/// How the driver's navigation applied a trip's route token.
package struct RouteTokenExecution: Codable, Hashable, Sendable {
    /// What the SDK reported.
    package var status: RouteTokenExecutionStatus
    /// The parameters in force after the report (see `Trip.Event.RouteTokenExecutionReported`).
    package var effectiveParameters: ResolvedRoutingParameters
    /// The navigation app's route status, when it reported one.
    package var routeStatus: RouteStatus?

    package init(status: RouteTokenExecutionStatus, effectiveParameters: ResolvedRoutingParameters, routeStatus: RouteStatus? = nil) {
        self.status = status
        self.effectiveParameters = effectiveParameters
        self.routeStatus = routeStatus
    }

    /// Whether navigation guides along the plan: a report without an error route status.
    package var guiding: Bool { routeStatus?.isOK ?? true }

    /// Whether the token itself was honoured.
    package var tokenApplied: Bool { status == .tokenSuccessfullyApplied }
}
