import EventStore
import Foundation

extension WebhookDispatcher {
    /// Prometheus lines for every subscription this node knows (delivery state as last read or written).
    package func metricLines() -> [String] {
        let statuses = self.statuses
        var lines = ["# HELP waymark_webhook_dispatcher_owner Whether this node delivers webhooks (one node holds the lock).",
                     "# TYPE waymark_webhook_dispatcher_owner gauge", "waymark_webhook_dispatcher_owner \(isOwner ? 1 : 0)"]
        guard !statuses.isEmpty else { return lines }
        func labels(_ s: Status) -> String {
            "provider=\"\(Self.escape(s.subscription.provider))\",webhook=\"\(Self.escape(s.subscription.id))\""
        }
        let series: [(String, String, String, (Status) -> String)] = [
            ("waymark_webhook_position", "gauge", "Global position of the last event the subscription handled.", { String($0.subscription.checkpoint.globalPosition) }),
            ("waymark_webhook_lag_seconds", "gauge", "Age of the oldest event waiting for delivery (0 when caught up).", { Metrics.format($0.lagSeconds) }),
            ("waymark_webhook_paused", "gauge", "1 while the subscription is paused after repeated failures.", { $0.subscription.paused ? "1" : "0" }),
            ("waymark_webhook_consecutive_failures", "gauge", "Failed attempts of the event delivery is stuck on.", { String($0.subscription.consecutiveFailures) }),
            ("waymark_webhook_delivered_events_total", "counter", "Events answered 2xx, over the subscription's life.", { String($0.subscription.deliveredEvents) }),
            ("waymark_webhook_attempts_total", "counter", "Delivery attempts made by this node.", { String($0.attempts) }),
            ("waymark_webhook_failed_attempts_total", "counter", "Failed delivery attempts made by this node.", { String($0.failedAttempts) }),
        ]
        for (name, type, help, value) in series {
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) \(type)"]
            for status in statuses { lines.append("\(name){\(labels(status))} \(value(status))") }
        }
        return lines
    }

    static func escape(_ label: String) -> String {
        label.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
