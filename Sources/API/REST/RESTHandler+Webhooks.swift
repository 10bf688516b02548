import HTTP
import JSON

extension RESTHandler {
    /// Answers a webhook route: server tokens of the provider only.
    func handleWebhook(_ route: WebhookRoute, _ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        var query = QueryParameters(request.query)
        let bearer = try Authenticator.bearerToken(request.header("authorization"))
        if ShareLinkToken.looksLikeLink(bearer) {
            _ = try api.riders.reader(token: bearer)
            throw .permissionDenied("a share-link token may only read its trip's journey")
        }
        let caller = try api.authenticator.verify(token: bearer)
        let webhooks = api.webhooks
        let result: JSONValue
        switch route {
        case .create(let provider):
            let id = try query.value("webhookId")
            try query.finish()
            let body = try Self.body(request)
            result = try await webhooks.create(provider: provider, webhookId: id, body: body, caller: caller)
        case .list(let provider):
            try query.finish()
            result = try await webhooks.list(provider: provider, caller: caller)
        case .get(let provider, let id):
            try query.finish()
            result = try await webhooks.get(provider: provider, id: id, caller: caller)
        case .delete(let provider, let id):
            try query.finish()
            try await webhooks.delete(provider: provider, id: id, caller: caller)
            result = .object(JSONObject())
        case .resume(let provider, let id):
            try query.finish()
            result = try await webhooks.resume(provider: provider, id: id, caller: caller)
        case .replay(let provider, let id):
            guard let text = try query.value("fromPosition") else { throw .invalidArgument("fromPosition is required (query parameter, a global position ≥ 1)") }
            guard let position = Int64(text), position >= 1 else {
                throw .invalidArgument("fromPosition must be a global position ≥ 1 (got \(String(text.prefix(32)).debugDescription))")
            }
            try query.finish()
            result = try await webhooks.replay(provider: provider, id: id, fromPosition: position, caller: caller)
        }
        return Self.json(result)
    }
}
