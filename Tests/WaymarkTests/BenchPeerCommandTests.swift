import Foundation
import Postgres
import Testing
import TestSupport

/// `waymark bench peer` checks its flags before it touches a database: every wrong flag is a usage
/// error (exit 2), while a good command line gets as far as connecting (exit 1 on a missing server).
@Suite(.timeLimit(.minutes(2))) struct BenchPeerCommandTests {
    /// A server that is not there: a command that got past its flags fails to connect (exit 1).
    static let nowhere = ["DATABASE_URL": "postgresql:///x?host=/nonexistent-wm-peer&port=1"]
    /// An executable and a file that exist, standing in for the venv's python and the peer script.
    static let existing = ["--python", "/bin/sh", "--script", #filePath]

    private func run(_ arguments: [String]) async throws -> (status: Int32, stderr: String) {
        let result = try await WaymarkBinary.run(["bench", "peer"] + arguments, environment: Self.nowhere)
        return (result.status, result.stderr)
    }

    @Test func anUnknownFlagIsAUsageErrorNamingIt() async throws {
        let result = try await run(["--bogus", "3"] + Self.existing)
        #expect(result.status == 2)
        #expect(result.stderr.contains("waymark bench peer: unknown flag --bogus"), "\(result.stderr)")
        #expect(result.stderr.contains("usage: waymark bench peer"))
    }

    @Test func anUnknownSwitchIsAUsageErrorNamingIt() async throws {
        let result = try await run(["--fast=yes"] + Self.existing)
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown flag --fast"), "\(result.stderr)")
    }

    @Test func aZeroOrNonNumericWriterCountIsAUsageError() async throws {
        for bad in ["0", "-1", "eight"] {
            let result = try await run(["--writers", bad] + Self.existing)
            #expect(result.status == 2, "--writers \(bad)")
            #expect(result.stderr.contains("--writers must be a positive whole number"), "--writers \(bad): \(result.stderr)")
        }
    }

    @Test func moreThanSixtyFourWritersIsAUsageError() async throws {
        let result = try await run(["--writers", "65"] + Self.existing)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--writers must be at most 64"))
    }

    @Test func badEventsOrSecondsAreUsageErrors() async throws {
        let events = try await run(["--events", "0"] + Self.existing)
        #expect(events.status == 2 && events.stderr.contains("--events must be a positive whole number"))
        let seconds = try await run(["--seconds", "1.5"] + Self.existing)
        #expect(seconds.status == 2 && seconds.stderr.contains("--seconds must be a positive whole number"))
    }

    @Test func anUnknownFormatIsAUsageError() async throws {
        let result = try await run(["--format", "html"] + Self.existing)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--format must be text or markdown"))
    }

    @Test func aMissingPythonPointsAtThePeerVenvScript() async throws {
        let result = try await run(["--python", "/nonexistent-wm/bin/python", "--script", #filePath])
        #expect(result.status == 2)
        #expect(result.stderr.contains("scripts/peer-venv.sh"))
    }

    @Test func aMissingPeerScriptIsAUsageError() async throws {
        let result = try await run(["--python", "/bin/sh", "--script", "/nonexistent-wm/peer_bench.py"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/nonexistent-wm/peer_bench.py"))
    }

    @Test func aStrayWordAfterPeerIsAUsageError() async throws {
        let result = try await run(["now"] + Self.existing)
        #expect(result.status == 2)
        #expect(result.stderr.contains("waymark bench peer: unexpected argument \"now\""), "\(result.stderr)")
    }

    @Test func goodFlagsGetAsFarAsConnectingToTheDatabase() async throws {
        let result = try await run(["--events", "10", "--seconds", "1", "--writers", "2", "--format", "markdown", "--keep"] + Self.existing)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("could not connect to PostgreSQL"))
    }
}
