internal import CMicroHTTPD

/// glibc's malloc arenas, limited for a server with many threads (libmicrohttpd's, the Swift
/// executor's, libpq's): by default glibc may create up to 8 arenas per core, and each keeps its
/// own partly used pages.
package enum MallocArenas {
    /// Limits malloc to `arenas` arenas; call before threads start. False if glibc refused.
    @discardableResult
    package static func limit(to arenas: Int32) -> Bool {
        waymark_limit_malloc_arenas(arenas) == 1
    }

    /// Serves allocations of `bytes` or more with a mapping of their own, returned to the kernel
    /// when freed, and keeps that threshold fixed (glibc otherwise raises it to the largest block
    /// freed, up to 32 MiB, and large short-lived buffers then land in the arenas). False if
    /// glibc refused.
    @discardableResult
    package static func mapAllocations(from bytes: Int32) -> Bool {
        waymark_set_malloc_mmap_threshold(bytes) == 1
    }

    /// Gives the free pages of every arena back to the kernel (`malloc_trim(0)`), also those in
    /// the middle of an arena, which glibc otherwise keeps. True if some memory was released.
    @discardableResult
    package static func trim() -> Bool {
        waymark_malloc_trim() == 1
    }
}
