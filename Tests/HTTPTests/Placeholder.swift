import Testing
@testable import HTTP
@Suite struct HTTPPlaceholderTests { @Test func moduleBuilds() { #expect(Bool(true)) } }
