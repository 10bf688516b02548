import Foundation
import WaymarkCLI

/// The HS256 signing secret, from `WAYMARK_JWT_SECRET` or the file `WAYMARK_JWT_SECRET_FILE` names.
///
/// Read once, here, by the commands that sign or verify (serve, token, simulate). A secret is
/// never logged or echoed. It must be at least 32 bytes: RFC 7518 §3.2 asks an HS256 key to be at
/// least as long as the hash, and a short one can be guessed offline from any token it signed.
/// Setting both variables is refused, so it is never unclear which secret signs. The file form
/// (Docker and Kubernetes secrets) ignores line ends at its end, as `echo` and editors add them.
enum JWTSecret {
    static let minimumBytes = 32

    /// The configured secret, or nil when neither variable is set.
    static func configured(_ environment: [String: String]) throws -> [UInt8]? {
        let inline = environment["WAYMARK_JWT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
        let file = environment["WAYMARK_JWT_SECRET_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        let secret: [UInt8]
        switch (inline, file) {
        case (nil, nil):
            return nil
        case (_?, _?):
            throw UsageError("set WAYMARK_JWT_SECRET or WAYMARK_JWT_SECRET_FILE, not both")
        case (let text?, nil):
            secret = Array(text.utf8)
        case (nil, let path?):
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw UsageError("WAYMARK_JWT_SECRET_FILE names \(path.debugDescription), which cannot be read")
            }
            var bytes = [UInt8](contents)
            while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { bytes.removeLast() }
            secret = bytes
        }
        let name = inline == nil ? "WAYMARK_JWT_SECRET_FILE's secret" : "WAYMARK_JWT_SECRET"
        guard secret.count >= minimumBytes else {
            throw UsageError("\(name) is \(secret.count) bytes; HS256 needs at least \(minimumBytes) (e.g. `openssl rand -hex 32`)")
        }
        return secret
    }
}
