import Testing
@testable import API
@Suite struct APIPlaceholderTests { @Test func moduleBuilds() { #expect(Bool(true)) } }
