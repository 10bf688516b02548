import API
import Foundation

/// Limits of `waymark serve` for many and slow clients: the per-stream buffer, open streams per
/// token and per client address, connections per client address, and the process's
/// file-descriptor limit. 0 turns a cap off (behind a proxy every client has the proxy's address).
package struct StreamLimits {
    /// `WAYMARK_STREAM_BUFFER_BYTES`: the most unsent bytes a stream (SSE) holds for a client that
    /// does not read; past it the stream is dropped (`waymark_http_streams_dropped_total`).
    package var streamBufferBytes: Int
    /// `WAYMARK_STREAMS_PER_TOKEN` (100) and `WAYMARK_STREAMS_PER_ADDRESS` (1000): open SSE streams.
    package var quota: StreamQuota.Limits
    /// `WAYMARK_HTTP_MAX_CONNECTIONS_PER_ADDRESS` (1024): HTTP connections one address may hold.
    package var connectionsPerAddress: Int

    package static let defaultStreamBufferBytes = 1 << 20

    package static func load(_ environment: [String: String]) throws -> StreamLimits {
        let bytes = try wholeSetting(environment, "WAYMARK_STREAM_BUFFER_BYTES", 4096...(1 << 30), default: defaultStreamBufferBytes, of: "bytes")
        let perToken = try wholeSetting(environment, "WAYMARK_STREAMS_PER_TOKEN", 0...1_000_000, default: 100, of: "streams")
        let perAddress = try wholeSetting(environment, "WAYMARK_STREAMS_PER_ADDRESS", 0...1_000_000, default: 1000, of: "streams")
        let connections = try wholeSetting(environment, "WAYMARK_HTTP_MAX_CONNECTIONS_PER_ADDRESS", 0...1_000_000, default: 1024, of: "connections")
        return StreamLimits(streamBufferBytes: bytes, quota: StreamQuota.Limits(perToken: perToken, perAddress: perAddress),
                            connectionsPerAddress: connections)
    }

    /// Raises the soft limit on open files to the hard limit (every stream and connection is a
    /// descriptor; the usual soft limit of 1024 is below a few thousand riders). Returns the
    /// limit in effect afterwards, and whether raising failed.
    package static func raiseOpenFileLimit() -> (limit: UInt64, raised: Bool, failed: Bool) {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return (0, false, true) }
        guard limits.rlim_cur < limits.rlim_max else { return (UInt64(limits.rlim_cur), false, false) }
        let before = limits.rlim_cur
        limits.rlim_cur = limits.rlim_max
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return (UInt64(before), false, true) }
        return (UInt64(limits.rlim_cur), true, false)
    }
}
