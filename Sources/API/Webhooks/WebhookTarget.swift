import Foundation
import HTTP

/// A webhook URL checked for shape and for where it points.
///
/// A webhook must not become a way into the fleet's own network: a URL whose host is, or resolves
/// to, a loopback, private, link-local or otherwise internal address is refused unless private
/// targets are allowed (`WAYMARK_WEBHOOKS_ALLOW_PRIVATE=true`, for tests and closed networks).
/// The check is made when a subscription is created and again before every delivery, and the
/// delivery connects to the address that passed (no second lookup a DNS answer could change).
package struct WebhookTarget: Sendable, Hashable {
    package let url: String
    package let host: String
    /// The address the delivery connects to.
    package let address: String

    /// Checks the URL's form only (scheme, host, no credentials); throws INVALID_ARGUMENT naming the problem.
    static func validateForm(_ url: String) throws(APIError) -> String {
        guard url.utf8.count <= 2048 else { throw .invalidArgument("url must be at most 2048 bytes") }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw .invalidArgument("url is not a valid URL: \(url.prefix(100).debugDescription)")
        }
        guard scheme == "http" || scheme == "https" else { throw .invalidArgument("url must be http or https (got \(scheme))") }
        guard let host = components.host, !host.isEmpty else { throw .invalidArgument("url has no host") }
        guard components.user == nil, components.password == nil else { throw .invalidArgument("url must not carry credentials (user:password@)") }
        guard components.fragment == nil else { throw .invalidArgument("url must not have a fragment") }
        return host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// Resolves the host and applies the address rule. `allowPrivate` admits internal addresses.
    static func resolve(_ url: String, allowPrivate: Bool) async throws(APIError) -> WebhookTarget {
        let host = try validateForm(url)
        let result: Result<[String], HTTPError>
        if AddressScope(host) != .invalid {
            result = .success([host])
        } else {
            result = await withCheckedContinuation { continuation in
                // getaddrinfo blocks: on a thread of its own, not the cooperative pool.
                Thread { continuation.resume(returning: Result { () throws(HTTPError) in try HTTPClient.resolve(host: host) }) }.start()
            }
        }
        let addresses: [String]
        switch result {
        case .success(let found): addresses = found
        case .failure(let error): throw .invalidArgument("url host \(host) does not resolve (\(error.message))")
        }
        guard let first = addresses.first else { throw .invalidArgument("url host \(host) does not resolve") }
        if !allowPrivate, let inside = addresses.first(where: { AddressScope($0) != .public }) {
            throw .invalidArgument("url host \(host) resolves to \(inside), a loopback, private or link-local address; webhooks may only call public addresses")
        }
        return WebhookTarget(url: url, host: host, address: first)
    }
}
