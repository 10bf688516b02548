import API
import Foundation
import WaymarkCLI

/// `waymark token`: mints a bearer JWT for the API, signed HS256 with the server's secret (`JWTSecret`).
///
/// Prints the token alone on one line so scripts can capture it:
/// `TOKEN=$(waymark token --role server --provider acme)`.
enum TokenCommand {
    static let spec = CommandSpec(
        name: "token", synopsis: "--role R --provider P [--trip T] [--vehicle V] [--consumer C] [--ttl SECONDS]",
        summary: """
            Prints a bearer JWT for the API alone on one line, signed HS256 with WAYMARK_JWT_SECRET (or
            WAYMARK_JWT_SECRET_FILE) as raw bytes: TOKEN=$(waymark token --role server --provider acme).
            """,
        flags: [
            .value("role", "R", "server, driver, consumer or auditor (required)"),
            .value("provider", "P", "the provider the token is for (required)"),
            .value("trip", "T", "the trip a consumer token may read"),
            .value("vehicle", "V", "the driver's vehicle (required for driver)"),
            .value("consumer", "C", "the rider a consumer token stands for (a consumer token needs --trip or --consumer)"),
            .value("ttl", "SECONDS", "how long the token is valid (3600, at most 3600)"),
        ])

    static func run(_ arguments: [String], environment: [String: String]) throws {
        let flags = try Flags(arguments, for: spec)
        guard let secret = try JWTSecret.configured(environment) else {
            throw UsageError("WAYMARK_JWT_SECRET (or WAYMARK_JWT_SECRET_FILE) must be set to the server's signing secret (the token is signed with it as raw bytes)")
        }
        guard let roleName = flags.value("role"), let role = Principal.Role(rawValue: roleName) else {
            throw UsageError("--role must be one of server, driver, consumer, auditor")
        }
        guard let provider = flags.value("provider"), !provider.isEmpty else { throw UsageError("--provider is required") }
        let ttl = try flags.int("ttl", default: 3600)
        guard ttl <= 3600 else { throw UsageError("--ttl must be at most 3600 seconds (the server refuses tokens valid longer), got \(ttl)") }
        if role == .driver, flags.value("vehicle") == nil { throw UsageError("a driver token needs --vehicle") }
        if role == .consumer, flags.value("trip") == nil, flags.value("consumer") == nil {
            throw UsageError("a consumer token needs --trip or --consumer")
        }
        let token = Authenticator.mint(secret: secret, role: role, provider: provider, tripId: flags.value("trip"),
                                       vehicleId: flags.value("vehicle"), consumerId: flags.value("consumer"),
                                       issuedAt: Int64(Date().timeIntervalSince1970), ttl: Int64(ttl))
        printOut(token)
    }
}
