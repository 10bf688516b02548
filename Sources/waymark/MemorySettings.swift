import API
import Foundation
import HTTP

/// Memory settings of `waymark serve`: the command side's aggregate cache, libmicrohttpd's
/// per-connection pool, and glibc's malloc arenas.
struct MemorySettings {
    /// `WAYMARK_AGGREGATE_CACHE`: Trip and Vehicle states cached per kind by the command side
    /// (least recently used evicted; a miss reloads the stream from the event store).
    var aggregateCache: Int
    /// `WAYMARK_CONNECTION_MEMORY_BYTES`: libmicrohttpd's memory pool per connection (request
    /// headers must fit in it; larger headers are answered 431).
    var connectionMemoryBytes: Int

    static func load(_ environment: [String: String]) throws -> MemorySettings {
        let cacheText = environment["WAYMARK_AGGREGATE_CACHE"] ?? String(WaymarkAPI.defaultAggregateCache)
        guard let cache = Int(cacheText), (1...10_000_000).contains(cache) else {
            throw UsageError("WAYMARK_AGGREGATE_CACHE must be a whole number from 1 to 10000000, got \(cacheText.debugDescription)")
        }
        let poolText = environment["WAYMARK_CONNECTION_MEMORY_BYTES"] ?? String(HTTPServer.Configuration.defaultConnectionMemoryBytes)
        guard let pool = Int(poolText), (8192...(1 << 20)).contains(pool) else {
            throw UsageError("WAYMARK_CONNECTION_MEMORY_BYTES must be a whole number of bytes from 8192 to 1048576, got \(poolText.debugDescription)")
        }
        return MemorySettings(aggregateCache: cache, connectionMemoryBytes: pool)
    }

    /// Arenas glibc's malloc may create when `MALLOC_ARENA_MAX` is not set. By default it makes up
    /// to 8 per core, and each thread that allocates (MHD's, the Swift executor's, libpq's) may
    /// keep its own partly empty arena: two hold the fragmentation down at no measured cost here.
    static let defaultMallocArenas: Int32 = 2

    /// Limits glibc's malloc arenas unless `MALLOC_ARENA_MAX` is set (glibc reads that itself).
    /// Call before the server's threads start.
    static func limitMallocArenas(_ environment: [String: String]) {
        guard environment["MALLOC_ARENA_MAX"] == nil else { return }
        MallocArenas.limit(to: defaultMallocArenas)
    }
}
