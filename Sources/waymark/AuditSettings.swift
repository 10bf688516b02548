import API
import EventStore
import Foundation
import WaymarkCLI

/// Audit settings of `waymark serve` (signed roots, time travel), read once from the environment.
///
/// `WAYMARK_AUDIT_KEY` is the HMAC key (its UTF-8 bytes); unset or empty, no roots are written
/// and `waymark verify` checks chains only. `WAYMARK_AUDIT_ROOT_EVERY` (default 1000) events
/// make a root; `WAYMARK_AUDIT_ROOT_SECONDS` (default 60) is the longest wait before a root
/// covers fewer. `WAYMARK_TIME_TRAVEL_MAX_EVENTS` (default 200,000) is the most events one
/// `asOf` read may replay: a long-lived vehicle's whole history is read and folded in memory.
struct AuditSettings {
    var key: [UInt8]?
    var every: Int
    var seconds: Int
    var timeTravelMaxEvents: Int

    static func load(_ environment: [String: String]) throws -> AuditSettings {
        let every = try wholeSetting(environment, "WAYMARK_AUDIT_ROOT_EVERY", 1...1_000_000, default: 1000, of: "events")
        let seconds = try wholeSetting(environment, "WAYMARK_AUDIT_ROOT_SECONDS", 1...86_400, default: 60, of: "seconds")
        let timeTravel = try wholeSetting(environment, "WAYMARK_TIME_TRAVEL_MAX_EVENTS", 1...100_000_000,
                                          default: AuditService.defaultTimeTravelMaxEvents, of: "events")
        return AuditSettings(key: AuditCommands.auditKey(environment), every: every, seconds: seconds, timeTravelMaxEvents: timeTravel)
    }

    /// The background writer of signed roots, or nil (and a log line saying so) without a key.
    func writer(store: EventStore, logger: Logger) -> AuditRootWriter? {
        guard let key else {
            logger.info("WAYMARK_AUDIT_KEY is not set: no signed audit roots are written")
            return nil
        }
        logger.info("signed audit roots every \(every) events or \(seconds) s")
        return AuditRootWriter(pool: store.pool, key: key, every: every, interval: .seconds(seconds)) { logger.warning($0) }
    }
}
