import HTTP
import JSON

/// The webhook operations: server tokens of the provider only (the service checks).
extension OperationTable {
    static var webhooks: [APIOperation] {
        [
            APIOperation("CreateWebhook", "POST", "/v1/providers/{provider}/webhooks", access: .token) { input throws(APIError) in
                let id = try input.query.value("webhookId")
                try input.query.finish()
                let body = try RESTHandler.body(input.request)
                return RESTHandler.json(try await input.api.webhooks.create(provider: input.path.provider, webhookId: id, body: body, caller: input.caller))
            },
            APIOperation("ListWebhooks", "GET", "/v1/providers/{provider}/webhooks", access: .token) { input throws(APIError) in
                try input.query.finish()
                return RESTHandler.json(try await input.api.webhooks.list(provider: input.path.provider, caller: input.caller))
            },
            APIOperation("GetWebhook", "GET", "/v1/providers/{provider}/webhooks/{id}", access: .token) { input throws(APIError) in
                try input.query.finish()
                return RESTHandler.json(try await input.api.webhooks.get(provider: input.path.provider, id: input.path.id, caller: input.caller))
            },
            APIOperation("DeleteWebhook", "DELETE", "/v1/providers/{provider}/webhooks/{id}", access: .token) { input throws(APIError) in
                try input.query.finish()
                try await input.api.webhooks.delete(provider: input.path.provider, id: input.path.id, caller: input.caller)
                return RESTHandler.json(.object(JSONObject()))
            },
            APIOperation("ResumeWebhook", "POST", "/v1/providers/{provider}/webhooks/{id}:resume", access: .token) { input throws(APIError) in
                try input.query.finish()
                return RESTHandler.json(try await input.api.webhooks.resume(provider: input.path.provider, id: input.path.id, caller: input.caller))
            },
            APIOperation("ReplayWebhook", "POST", "/v1/providers/{provider}/webhooks/{id}:replay", access: .token) { input throws(APIError) in
                guard let text = try input.query.value("fromPosition") else { throw .invalidArgument("fromPosition is required (query parameter, a global position ≥ 1)") }
                guard let position = Int64(text), position >= 1 else {
                    throw .invalidArgument("fromPosition must be a global position ≥ 1 (got \(String(text.prefix(32)).debugDescription))")
                }
                try input.query.finish()
                return RESTHandler.json(try await input.api.webhooks.replay(provider: input.path.provider, id: input.path.id, fromPosition: position, caller: input.caller))
            },
        ]
    }
}
