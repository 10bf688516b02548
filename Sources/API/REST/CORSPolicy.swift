import Foundation
import HTTP

/// Which other origins' browser apps may call the rider routes (`WAYMARK_CORS_ORIGINS`).
///
/// Only what a rider's app calls answers other origins: the journey and its stream, the rider's
/// trips, share and unshare, and reading the journey style. The fleet, driver, webhook and audit
/// APIs are server-to-server and never do. Tokens travel in `Authorization` or `access_token`,
/// never in cookies, so credentials are never allowed and `*` is safe to offer.
package struct CORSPolicy: Sendable, Equatable {
    /// Exact origins (`scheme://host[:port]`, lowercase), or every origin.
    package enum Origins: Sendable, Equatable {
        case listed(Set<String>)
        case any
    }

    /// nil: no cross-origin access (the default).
    package let origins: Origins?

    package static let off = CORSPolicy(origins: nil)

    package init(origins: Origins?) { self.origins = origins }

    /// Request headers a rider app may send.
    static let allowedHeaders = "Authorization, Content-Type, If-None-Match, Last-Event-ID, X-Request-Id"
    /// Response headers a rider app may read besides the simple ones.
    static let exposedHeaders = "ETag, Retry-After, X-Request-Id"
    /// How long a browser may cache a preflight's answer.
    static let maxAgeSeconds = 600

    /// Parses `*`, or a comma-separated list of origins such as `https://rides.example.com,http://localhost:3000`;
    /// an empty text is `off`.
    package static func parse(_ text: String) throws(SettingError) -> CORSPolicy {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if items.isEmpty { return .off }
        if items == ["*"] { return CORSPolicy(origins: .any) }
        var origins: Set<String> = []
        for item in items {
            guard let origin = Self.origin(item) else {
                throw SettingError("WAYMARK_CORS_ORIGINS must be * or a comma-separated list of origins like https://rides.example.com "
                    + "(scheme, host and optional port; no path), got \(String(item.prefix(100)).debugDescription)")
            }
            origins.insert(origin)
        }
        return CORSPolicy(origins: .listed(origins))
    }

    /// `item` as an origin the way browsers send it (lowercase, no default-less trailing slash), or nil.
    private static func origin(_ item: String) -> String? {
        let lower = item.lowercased()
        for scheme in ["https://", "http://"] where lower.hasPrefix(scheme) {
            let rest = lower.dropFirst(scheme.count)
            let host = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = host.first, !name.isEmpty,
                  name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
            else { return nil }
            if host.count == 2 {
                guard let port = Int(host[1]), (1...65535).contains(port), host[1].allSatisfy(\.isNumber) else { return nil }
            }
            return lower
        }
        return nil
    }

    /// The value of `Access-Control-Allow-Origin` for a request from `origin`; nil when it is not allowed.
    func allowedOrigin(_ origin: String?) -> String? {
        guard let origins, let origin else { return nil }
        switch origins {
        case .any: return "*"
        case .listed(let set): return set.contains(origin) ? origin : nil
        }
    }

    /// Adds the headers of an allowed cross-origin answer to `response`.
    func decorate(_ response: inout HTTPResponse, origin: String?) {
        guard let allowed = allowedOrigin(origin) else { return }
        response.headers.append(("Access-Control-Allow-Origin", allowed))
        response.headers.append(("Access-Control-Expose-Headers", Self.exposedHeaders))
        if allowed != "*" { response.headers.append(("Vary", "Origin")) }
    }

    /// The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`) for an operation
    /// allowing `methods`; nil when the origin is not allowed.
    func preflight(origin: String?, methods: [String]) -> HTTPResponse? {
        guard let allowed = allowedOrigin(origin) else { return nil }
        var headers: [(name: String, value: String)] = [
            ("Access-Control-Allow-Origin", allowed),
            ("Access-Control-Allow-Methods", methods.joined(separator: ", ")),
            ("Access-Control-Allow-Headers", Self.allowedHeaders),
            ("Access-Control-Max-Age", String(Self.maxAgeSeconds)),
        ]
        if allowed != "*" { headers.append(("Vary", "Origin")) }
        return HTTPResponse(status: 204, headers: headers)
    }

    /// A bad `WAYMARK_CORS_ORIGINS`.
    package struct SettingError: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }
}
