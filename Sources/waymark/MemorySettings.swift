import API
import Foundation
import HTTP
import WaymarkCLI

/// Memory settings of `waymark serve`: the command side's aggregate cache, libmicrohttpd's
/// per-connection pool, and the allocator's (jemalloc's, or glibc's arenas should it serve malloc).
struct MemorySettings {
    /// `WAYMARK_AGGREGATE_CACHE`: Trip and Vehicle states cached per kind by the command side
    /// (least recently used evicted; a miss reloads the stream from the event store).
    var aggregateCache: Int
    /// `WAYMARK_CONNECTION_MEMORY_BYTES`: libmicrohttpd's memory pool per connection (request
    /// headers must fit in it; larger headers are answered 431).
    var connectionMemoryBytes: Int
    /// `WAYMARK_MALLOC_TRIM_SECONDS`: how often free heap pages are given back to the kernel
    /// (jemalloc's purge, or glibc's `malloc_trim`); 0 turns it off.
    var mallocTrimSeconds: Int = 10

    static func load(_ environment: [String: String]) throws -> MemorySettings {
        let cache = try wholeSetting(environment, "WAYMARK_AGGREGATE_CACHE", 1...10_000_000, default: WaymarkAPI.defaultAggregateCache)
        let pool = try wholeSetting(environment, "WAYMARK_CONNECTION_MEMORY_BYTES", 8192...(1 << 20),
                                    default: HTTPServer.Configuration.defaultConnectionMemoryBytes, of: "bytes")
        let trimText = environment["WAYMARK_MALLOC_TRIM_SECONDS"] ?? "10"
        guard let trim = Int(trimText), (0...3600).contains(trim) else {
            throw UsageError("WAYMARK_MALLOC_TRIM_SECONDS must be a whole number of seconds from 0 (off) to 3600, got \(trimText.debugDescription)")
        }
        return MemorySettings(aggregateCache: cache, connectionMemoryBytes: pool, mallocTrimSeconds: trim)
    }

    /// Arenas glibc's malloc may create when `MALLOC_ARENA_MAX` is not set. By default it makes up
    /// to 8 per core, and each thread that allocates (MHD's, the Swift executor's, libpq's) may
    /// keep its own partly empty arena: two hold the fragmentation down at no measured cost here.
    static let defaultMallocArenas: Int32 = 2

    /// From this size glibc's malloc maps each allocation on its own when
    /// `MALLOC_MMAP_THRESHOLD_` is not set: 128 KiB, glibc's own starting value, kept fixed.
    static let defaultMallocMmapThreshold: Int32 = 128 * 1024

    /// When glibc's malloc serves the process (jemalloc did not take it over): limits its arenas
    /// unless `MALLOC_ARENA_MAX` is set, and fixes its mmap threshold unless
    /// `MALLOC_MMAP_THRESHOLD_` is set (glibc reads those itself). Call before the server's threads
    /// start. jemalloc's own options are in `Sources/Allocator`.
    ///
    /// The fixed threshold keeps a projection batch's statements, a feed page and a large request's
    /// body (hundreds of KB to megabytes, freed within milliseconds) out of the arenas, where
    /// glibc's sliding threshold would otherwise put them after the first few were freed, and where
    /// their pages stay resident between long-lived records (`bench memory`: peak 347.6 MB with
    /// glibc's default, 322.5 MB with the threshold fixed at 128 KiB, one run each).
    static func limitMallocArenas(_ environment: [String: String]) {
        guard !ProcessAllocator.isJemalloc else { return }
        if environment["MALLOC_ARENA_MAX"] == nil { MallocArenas.limit(to: defaultMallocArenas) }
        if environment["MALLOC_MMAP_THRESHOLD_"] == nil { MallocArenas.mapAllocations(from: defaultMallocMmapThreshold) }
    }

    /// Starts a thread that trims the heap every `mallocTrimSeconds` (none when 0).
    ///
    /// glibc returns freed memory to the kernel only from the top of an arena; pages freed in the
    /// middle (a projection batch's statements, a finished request's JSON) stay resident. Trimming
    /// walks the arenas and releases them (`madvise`): a few milliseconds on its own thread, never
    /// on the request or executor threads. jemalloc gives pages back after their decay time, but
    /// only when the process allocates: the purge covers an idle server.
    func startHeapTrimming() {
        guard mallocTrimSeconds > 0 else { return }
        let interval = TimeInterval(mallocTrimSeconds)
        let thread = Thread {
            while true {
                Thread.sleep(forTimeInterval: interval)
                ProcessAllocator.releaseFreeMemory()
            }
        }
        thread.name = "waymark-heap-trim"
        thread.start()
    }
}
