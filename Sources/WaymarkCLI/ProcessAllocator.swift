import Allocator
import HTTP

/// The allocator that serves this process's memory: jemalloc, linked by `Sources/Allocator`, or
/// glibc's should jemalloc not have taken `malloc` over (then glibc's is tuned as before).
package enum ProcessAllocator {
    /// Asked once: which library serves `malloc` is settled when the process is loaded.
    package static let isJemalloc = waymark_allocator_is_jemalloc() == 1

    /// "jemalloc 5.3.0, 1 arena", or glibc's, for the startup log.
    package static var description: String {
        guard isJemalloc else { return "glibc malloc (jemalloc is not serving malloc)" }
        let version = Int(waymark_allocator_jemalloc_version())
        let arenas = waymark_allocator_arenas()
        return "jemalloc \(version / 10000).\(version / 100 % 100).\(version % 100), \(arenas) arena\(arenas == 1 ? "" : "s")"
    }

    /// Gives free heap pages back to the kernel now: jemalloc's purge, or glibc's `malloc_trim`.
    package static func releaseFreeMemory() {
        if isJemalloc {
            waymark_allocator_purge()
        } else {
            MallocArenas.trim()
        }
    }
}
