import JSON
import Journey
import Testing
@testable import API

/// `:reportRouteTokenExecution` bodies in Waymark's flat shape and in the Navigation SDK's names.
@Suite struct TokenReportJSONTests {
    static func report(_ text: String) throws -> RoutePlanJSON.TokenReport {
        try RoutePlanJSON.tokenReport(try JSONValue.parse(Array(text.utf8)))
    }

    static func rejection(_ text: String) -> String? {
        do {
            _ = try report(text)
            return nil
        } catch let error as APIError {
            return error.code == .invalidArgument ? error.message : "\(error.code): \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    @Test func theSDKsNestedDetailsAreReadLikeTheFlatShape() throws {
        let flat = try Self.report("""
            {"routeStatus":"OK","routeTokenExecutionStatus":"TOKEN_SUCCESSFULLY_APPLIED",
             "resolvedParameters":{"travelMode":"DRIVE","avoidTolls":true,"rerouteStrategy":{"timeToleranceSeconds":60}}}
            """)
        let nested = try Self.report("""
            {"routeStatus":"OK","routeTokenExecutionDetails":{"tokenExecutionStatus":"TOKEN_SUCCESSFULLY_APPLIED",
             "resolvedParameters":{"travelMode":"DRIVE","avoidTolls":true,"rerouteStrategy":{"timeToleranceSeconds":60}}}}
            """)
        #expect(nested.status == .tokenSuccessfullyApplied && nested.routeStatus == flat.routeStatus)
        #expect(nested.resolved == flat.resolved && flat.resolved?.options.avoidTolls == true)
        #expect(flat.resolved?.rerouteStrategy.timeToleranceSeconds == 60)
        let flatSDKName = try Self.report(#"{"tokenExecutionStatus":"TOKEN_APPLIED_WITH_LOCATION_MISMATCH"}"#)
        #expect(flatSDKName.status == .tokenAppliedWithLocationMismatch && flatSDKName.resolved == nil)
    }

    @Test func enumsAreReadAsTheIOSSDKSpellsThemAndByNumber() throws {
        let spelled = try Self.report("""
            {"routeStatus":"networkError","routeTokenExecutionDetails":{"tokenExecutionStatus":"tokenIgnoredMalformed",
             "resolvedParameters":{"travelMode":"twoWheeler","rerouteStrategy":"bestBasedOnTokenParameters"}}}
            """)
        #expect(spelled.status == .tokenIgnoredMalformed && spelled.routeStatus == .networkError)
        #expect(spelled.resolved?.travelMode == .twoWheeler)
        #expect(spelled.resolved?.rerouteStrategy == RerouteStrategy(basis: .bestBasedOnTokenParameters))
        // The SDK's numbering: 2 is TOKEN_SUCCESSFULLY_APPLIED, reroute strategy 1 is BEST_BASED_ON_TOKEN_PARAMETERS.
        let numbered = try Self.report(#"{"tokenExecutionStatus":2,"resolvedParameters":{"rerouteStrategy":1}}"#)
        #expect(numbered.status == .tokenSuccessfullyApplied)
        #expect(numbered.resolved?.rerouteStrategy.basis == .bestBasedOnTokenParameters)
        let both = try Self.report(#"{"tokenExecutionStatus":"NO_TOKEN_PROVIDED","resolvedParameters":{"rerouteStrategy":{"basis":"UNKNOWN","timeToleranceSeconds":0}}}"#)
        #expect(both.resolved?.rerouteStrategy == RerouteStrategy(timeToleranceSeconds: 0, basis: .unknown))
    }

    @Test func aStatusGivenTwiceOrNotAtAllAndUnknownNamesAreRefused() {
        #expect(Self.rejection(#"{"routeStatus":"OK"}"#)?.contains("routeTokenExecutionStatus") == true)
        #expect(Self.rejection(#"{"routeTokenExecutionDetails":{}}"#)?.contains("required") == true)
        let twice = Self.rejection(#"{"routeTokenExecutionStatus":"UNKNOWN","routeTokenExecutionDetails":{"tokenExecutionStatus":"UNKNOWN"}}"#)
        #expect(twice?.contains("given 2 times") == true, "\(twice ?? "accepted")")
        let parametersTwice = Self.rejection(#"{"tokenExecutionStatus":"UNKNOWN","resolvedParameters":{},"routeTokenExecutionDetails":{"resolvedParameters":{}}}"#)
        #expect(parametersTwice?.contains("resolvedParameters is given twice") == true, "\(parametersTwice ?? "accepted")")
        let stray = Self.rejection(#"{"routeTokenExecutionDetails":{"tokenExecutionStatus":"UNKNOWN","extra":1}}"#)
        #expect(stray?.contains("extra") == true, "\(stray ?? "accepted")")
        let badStrategy = Self.rejection(#"{"tokenExecutionStatus":"UNKNOWN","resolvedParameters":{"rerouteStrategy":"fastest"}}"#)
        #expect(badStrategy?.contains("resolvedParameters.rerouteStrategy") == true && badStrategy?.contains("BEST_BASED_ON_TOKEN_PARAMETERS") == true,
                "\(badStrategy ?? "accepted")")
        let badNested = Self.rejection(#"{"routeTokenExecutionDetails":{"tokenExecutionStatus":"TOKEN_LOST"}}"#)
        #expect(badNested?.contains("routeTokenExecutionDetails.tokenExecutionStatus") == true, "\(badNested ?? "accepted")")
        #expect(Self.rejection(#"{"tokenExecutionStatus":"Token_Lost"}"#) != nil)
    }
}
