import Foundation
import Synchronization

/// Request counters and latency histograms, rendered in the Prometheus text format.
///
/// One lock guards plain dictionaries: recording is a few hash lookups, far below a request's
/// cost. Gauges that belong to other components (projection lag, open streams) are read at
/// render time through `gauges`.
package final class Metrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct Histogram {
        var counts = [UInt64](repeating: 0, count: Metrics.buckets.count)
        var sum = 0.0
        var count: UInt64 = 0

        mutating func record(_ seconds: Double) {
            for (i, bound) in Metrics.buckets.enumerated() where seconds <= bound { counts[i] += 1 }
            sum += seconds
            count += 1
        }
    }

    /// One request counter's labels (a struct, so recording builds no string).
    private struct RequestKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    private struct State {
        var requests: [RequestKey: UInt64] = [:]
        var latency: [String: Histogram] = [:] // route
        var counters: [String: UInt64] = [:]   // name
    }

    private let state = Mutex(State())

    package init() {}

    /// Records one answered request.
    package func observe(route: String, method: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests[RequestKey(route: route, method: method, status: status), default: 0] += 1
            // In place: no copy of the bucket array per request.
            state.latency[route, default: Histogram()].record(seconds)
        }
    }

    /// Adds to a named counter (e.g. events appended by the API).
    package func add(_ name: String, _ amount: UInt64) {
        state.withLock { $0.counters[name, default: 0] += amount }
    }

    /// The exposition text; `gauges` adds lines rendered by the caller (already formatted).
    package func render(extra: [String] = []) -> String {
        let snapshot = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP waymark_http_requests_total HTTP requests answered, by operation, method and status.")
        lines.append("# TYPE waymark_http_requests_total counter")
        for key in snapshot.requests.keys.sorted(by: { ($0.route, $0.method, String($0.status)) < ($1.route, $1.method, String($1.status)) }) {
            lines.append("waymark_http_requests_total{route=\"\(key.route)\",method=\"\(key.method)\",status=\"\(key.status)\"} \(snapshot.requests[key]!)")
        }
        lines.append("# HELP waymark_http_request_duration_seconds Time from request to response, by operation.")
        lines.append("# TYPE waymark_http_request_duration_seconds histogram")
        for route in snapshot.latency.keys.sorted() {
            let histogram = snapshot.latency[route]!
            for (i, bound) in Metrics.buckets.enumerated() {
                lines.append("waymark_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(Self.format(bound))\"} \(histogram.counts[i])")
            }
            lines.append("waymark_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(histogram.count)")
            lines.append("waymark_http_request_duration_seconds_sum{route=\"\(route)\"} \(Self.format(histogram.sum))")
            lines.append("waymark_http_request_duration_seconds_count{route=\"\(route)\"} \(histogram.count)")
        }
        for name in snapshot.counters.keys.sorted() {
            lines.append("# TYPE \(name) counter")
            lines.append("\(name) \(snapshot.counters[name]!)")
        }
        lines += extra
        return lines.joined(separator: "\n") + "\n"
    }

    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
