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
    }

    private struct State {
        var requests: [String: UInt64] = [:]   // "route\u{1}method\u{1}status"
        var latency: [String: Histogram] = [:] // route
        var counters: [String: UInt64] = [:]   // name
    }

    private let state = Mutex(State())

    package init() {}

    /// Records one answered request.
    package func observe(route: String, method: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests["\(route)\u{1}\(method)\u{1}\(status)", default: 0] += 1
            var histogram = state.latency[route] ?? Histogram()
            for (i, bound) in Metrics.buckets.enumerated() where seconds <= bound { histogram.counts[i] += 1 }
            histogram.sum += seconds
            histogram.count += 1
            state.latency[route] = histogram
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
        for key in snapshot.requests.keys.sorted() {
            let parts = key.split(separator: "\u{1}", omittingEmptySubsequences: false)
            lines.append("waymark_http_requests_total{route=\"\(parts[0])\",method=\"\(parts[1])\",status=\"\(parts[2])\"} \(snapshot.requests[key]!)")
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
