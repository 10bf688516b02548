import EventStore
import Foundation
import JSON
import Journey
import Signing

/// The webhook endpoints' logic: subscriptions of a provider, their status, resume and replay.
///
/// Only server tokens of the provider may use it (a webhook carries every matching event of the
/// fleet, and its secret). The dispatcher on this node is poked after each change.
package final class WebhookService: Sendable {
    package let dispatcher: WebhookDispatcher
    let subscriptions: WebhookStore

    init(store: EventStore, options: WebhookDispatcher.Options) {
        dispatcher = WebhookDispatcher(store: store, options: options)
        subscriptions = WebhookStore(pool: store.pool)
    }

    /// Every event type a subscription may name in `eventTypes`.
    package static let knownEventTypes: Set<String> = Set(Trip.Event.allTypes + Vehicle.Event.allTypes + StopArrival.Event.allTypes)

    static func authorize(_ caller: Principal, provider: String) throws(APIError) {
        try caller.require([.server], to: "manage webhooks")
        try caller.requireProvider(provider)
    }

    /// `POST /v1/providers/{p}/webhooks[?webhookId=]`.
    func create(provider: String, webhookId: String?, body: JSONValue, caller: Principal) async throws(APIError) -> JSONValue {
        try Self.authorize(caller, provider: provider)
        let id = webhookId ?? UUID().uuidString.lowercased()
        do { try Identifier.validate(id, field: "webhookId") } catch { throw APIError(error) }
        let subscription = try WebhookJSON.subscription(body, provider: provider, id: id)
        _ = try await WebhookTarget.resolve(subscription.url, allowPrivate: dispatcher.options.allowPrivate)
        let stored: WebhookSubscription?
        do {
            stored = try await subscriptions.create(subscription)
        } catch {
            throw APIError(.internal, "storing the webhook subscription failed", underlying: error)
        }
        guard let stored else { throw APIError(.alreadyExists, "webhook \(id) already exists (provider \(provider))") }
        dispatcher.poke()
        return try await render(stored)
    }

    func list(provider: String, caller: Principal) async throws(APIError) -> JSONValue {
        try Self.authorize(caller, provider: provider)
        let all: [WebhookSubscription]
        do { all = try await subscriptions.list(provider: provider) } catch {
            throw APIError(.internal, "reading webhook subscriptions failed", underlying: error)
        }
        var rendered: [JSONValue] = []
        for subscription in all { rendered.append(try await render(subscription)) }
        return .object(JSONObject([("webhooks", .array(rendered))]))
    }

    func get(provider: String, id: String, caller: Principal) async throws(APIError) -> JSONValue {
        try Self.authorize(caller, provider: provider)
        return try await render(try await find(provider: provider, id: id))
    }

    func delete(provider: String, id: String, caller: Principal) async throws(APIError) {
        try Self.authorize(caller, provider: provider)
        let deleted: Bool
        do { deleted = try await subscriptions.delete(provider: provider, id: id) } catch {
            throw APIError(.internal, "deleting the webhook subscription failed", underlying: error)
        }
        guard deleted else { throw .notFound("webhook \(id) does not exist (provider \(provider))") }
        dispatcher.poke()
    }

    func resume(provider: String, id: String, caller: Principal) async throws(APIError) -> JSONValue {
        try Self.authorize(caller, provider: provider)
        let resumed: WebhookSubscription?
        do { resumed = try await subscriptions.resume(provider: provider, id: id) } catch {
            throw APIError(.internal, "resuming the webhook subscription failed", underlying: error)
        }
        guard let resumed else { throw .notFound("webhook \(id) does not exist (provider \(provider))") }
        dispatcher.poke()
        return try await render(resumed)
    }

    func replay(provider: String, id: String, fromPosition: Int64, caller: Principal) async throws(APIError) -> JSONValue {
        try Self.authorize(caller, provider: provider)
        let replayed: WebhookSubscription?
        do { replayed = try await subscriptions.replay(provider: provider, id: id, fromPosition: fromPosition) } catch {
            throw APIError(.internal, "replaying the webhook subscription failed", underlying: error)
        }
        guard let replayed else { throw .notFound("webhook \(id) does not exist (provider \(provider))") }
        dispatcher.poke()
        return try await render(replayed)
    }

    private func find(provider: String, id: String) async throws(APIError) -> WebhookSubscription {
        let found: WebhookSubscription?
        do { found = try await subscriptions.get(provider: provider, id: id) } catch {
            throw APIError(.internal, "reading the webhook subscription failed", underlying: error)
        }
        guard let found else { throw .notFound("webhook \(id) does not exist (provider \(provider))") }
        return found
    }

    /// The stored row with this node's live figures (lag in seconds while this node delivers).
    private func render(_ subscription: WebhookSubscription) async throws(APIError) -> JSONValue {
        let head: Int64
        do { head = try await subscriptions.headPosition() } catch {
            throw APIError(.internal, "reading the head of the log failed", underlying: error)
        }
        let live = dispatcher.status(provider: subscription.provider, id: subscription.id)
        let lagSeconds = live.flatMap { $0.subscription.generation == subscription.generation ? $0.lagSeconds : nil }
        return WebhookJSON.render(subscription, head: head, lagSeconds: lagSeconds)
    }
}
