import EventStore
import Foundation

/// Signed-root settings of `waymark serve`, read once from the environment.
///
/// `WAYMARK_AUDIT_KEY` is the HMAC key (its UTF-8 bytes); unset or empty, no roots are written
/// and `waymark verify` checks chains only. `WAYMARK_AUDIT_ROOT_EVERY` (default 1000) events
/// make a root; `WAYMARK_AUDIT_ROOT_SECONDS` (default 60) is the longest wait before a root
/// covers fewer.
struct AuditSettings {
    var key: [UInt8]?
    var every: Int
    var seconds: Int

    static func load(_ environment: [String: String]) throws -> AuditSettings {
        let every = try wholeSetting(environment, "WAYMARK_AUDIT_ROOT_EVERY", 1...1_000_000, default: 1000, of: "events")
        let seconds = try wholeSetting(environment, "WAYMARK_AUDIT_ROOT_SECONDS", 1...86_400, default: 60, of: "seconds")
        return AuditSettings(key: AuditCommands.auditKey(environment), every: every, seconds: seconds)
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
