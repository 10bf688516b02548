/// The webhook operations, recognized from method and path before the rider and Fleet Engine routes.
///
/// Kept apart from `Route` so each surface stays in its own file; `RESTHandler` tries this first.
enum WebhookRoute: Sendable, Hashable {
    /// `POST /v1/providers/{p}/webhooks`
    case create(provider: String)
    /// `GET /v1/providers/{p}/webhooks`
    case list(provider: String)
    /// `GET /v1/providers/{p}/webhooks/{id}`
    case get(provider: String, id: String)
    /// `DELETE /v1/providers/{p}/webhooks/{id}`
    case delete(provider: String, id: String)
    /// `POST /v1/providers/{p}/webhooks/{id}:resume`
    case resume(provider: String, id: String)
    /// `POST /v1/providers/{p}/webhooks/{id}:replay?fromPosition=N`
    case replay(provider: String, id: String)

    /// The operation name, used as the `route` label in metrics.
    var label: String {
        switch self {
        case .create: "CreateWebhook"
        case .list: "ListWebhooks"
        case .get: "GetWebhook"
        case .delete: "DeleteWebhook"
        case .resume: "ResumeWebhook"
        case .replay: "ReplayWebhook"
        }
    }

    var hasBody: Bool {
        if case .create = self { return true }
        return false
    }

    /// The route for a request; nil when the path is not a webhook path.
    static func match(method: String, path: String) throws(APIError) -> WebhookRoute? {
        // Every request passes here first: look at the bytes for `{p}/webhooks` before making a
        // String of each segment.
        guard path.utf8.starts(with: "/v1/providers/".utf8) else { return nil }
        let rest = path.utf8.dropFirst("/v1/providers/".utf8.count)
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let tail = rest[rest.index(after: slash)...]
        guard tail.starts(with: "webhooks".utf8), tail.count == 8 || tail.dropFirst(8).first == UInt8(ascii: "/") else { return nil }
        let segments = path.dropFirst("/v1/providers/".count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard segments.count == 2 || segments.count == 3, !segments[0].isEmpty, segments[1] == "webhooks" else { return nil }
        let provider = segments[0]
        func only(_ allowed: [String: WebhookRoute]) throws(APIError) -> WebhookRoute {
            if let route = allowed[method] { return route }
            if method == "HEAD", let route = allowed["GET"] { return route }
            throw APIError(.methodNotAllowed, "\(method) is not allowed on \(path) (allowed: \(allowed.keys.sorted().joined(separator: ", ")))")
        }
        if segments.count == 2 { return try only(["POST": .create(provider: provider), "GET": .list(provider: provider)]) }
        let id = segments[2]
        guard !id.isEmpty else { return nil }
        for (suffix, make) in [(":resume", WebhookRoute.resume), (":replay", WebhookRoute.replay)] where id.hasSuffix(suffix) && id.count > suffix.count {
            return try only(["POST": make(provider, String(id.dropLast(suffix.count)))])
        }
        return try only(["GET": .get(provider: provider, id: id), "DELETE": .delete(provider: provider, id: id)])
    }
}
