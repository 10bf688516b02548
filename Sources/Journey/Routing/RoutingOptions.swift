/// Route modifiers a plan asks for and a token execution resolves.
///
/// `avoidVignettes` lists CLDR two-letter region codes (e.g. `CH`, `AT`) whose toll vignettes
/// the route avoids, as in the Navigation SDK's resolved route-token parameters.
package struct RoutingOptions: Codable, Hashable, Sendable {
    package var avoidTolls: Bool
    package var avoidHighways: Bool
    package var avoidFerries: Bool
    package var avoidTunnels: Bool
    package var avoidVignettes: [String]

    package init(avoidTolls: Bool = false, avoidHighways: Bool = false, avoidFerries: Bool = false, avoidTunnels: Bool = false, avoidVignettes: [String] = []) {
        self.avoidTolls = avoidTolls
        self.avoidHighways = avoidHighways
        self.avoidFerries = avoidFerries
        self.avoidTunnels = avoidTunnels
        self.avoidVignettes = avoidVignettes
    }

    /// Nothing avoided.
    package static let none = RoutingOptions()

    /// Only what survives a token that was not applied: tolls, highways and ferries.
    package var basic: RoutingOptions {
        RoutingOptions(avoidTolls: avoidTolls, avoidHighways: avoidHighways, avoidFerries: avoidFerries)
    }

    /// Throws `INVALID_ARGUMENT` naming `field` unless every vignette region is a unique
    /// two-letter upper-case region code.
    package func validate(field: String) throws(JourneyError) {
        var seen: Set<String> = []
        for (i, code) in avoidVignettes.enumerated() {
            let letters = Array(code.unicodeScalars)
            guard letters.count == 2, letters.allSatisfy({ $0.value >= 65 && $0.value <= 90 }) else {
                throw .invalidArgument("\(field).avoidVignettes[\(i)] must be a two-letter CLDR region code such as \"CH\" (got \"\(code)\")")
            }
            guard seen.insert(code).inserted else {
                throw .invalidArgument("\(field).avoidVignettes must not repeat a region (got \"\(code)\" twice)")
            }
        }
    }
}
