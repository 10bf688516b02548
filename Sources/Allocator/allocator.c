// The process's memory allocator: jemalloc, linked ahead of glibc so that it serves every malloc
// of the process (the Swift runtime's, Foundation's, libpq's and libmicrohttpd's too).
//
// Why: request handling, the committers and the projection runners allocate and free many small
// objects from several threads at once, and glibc's allocator spent about 8% of the ingest
// benchmark's CPU in its own bookkeeping (chunk consolidation and unlinking). The measurements are
// in docs/performance-notes.md.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <jemalloc/jemalloc.h>

#include "allocator.h"

// jemalloc reads this symbol of the executable before the first allocation; `MALLOC_CONF` in the
// environment still overrides it. Chosen with `waymark bench memory` beside `waymark bench ingest`
// (docs/performance-notes.md):
// - narenas:1 rather than jemalloc's four per core: every arena keeps partly used pages of its own
//   (the memory benchmark's peak: 303.8 MB with jemalloc's defaults, 290.5 MB with two arenas);
//   the threads' own caches keep the one arena's lock rarely taken.
// - tcache_max:4096: a thread caches freed blocks of up to 4 KiB, not 32 KiB; larger blocks go
//   back to the arena (283.0 MB with both settings, against 271.6 MB with glibc's allocator).
// - dirty_decay_ms:1000, muzzy_decay_ms:0: freed pages go back to the system after a second
//   rather than ten, so a burst does not leave the resident size high.
const char *malloc_conf = "narenas:1,tcache_max:4096,dirty_decay_ms:1000,muzzy_decay_ms:0";

int waymark_allocator_is_jemalloc(void) {
    Dl_info info;
    void *symbol = dlsym(RTLD_DEFAULT, "malloc");
    if (symbol == NULL || dladdr(symbol, &info) == 0 || info.dli_fname == NULL) return 0;
    return strstr(info.dli_fname, "jemalloc") != NULL;
}

int waymark_allocator_jemalloc_version(void) {
    if (!waymark_allocator_is_jemalloc()) return 0;
    return JEMALLOC_VERSION_MAJOR * 10000 + JEMALLOC_VERSION_MINOR * 100 + JEMALLOC_VERSION_BUGFIX;
}

unsigned waymark_allocator_arenas(void) {
    if (!waymark_allocator_is_jemalloc()) return 0;
    unsigned arenas = 0;
    size_t size = sizeof(arenas);
    if (mallctl("opt.narenas", &arenas, &size, NULL, 0) != 0) return 0;
    return arenas;
}

int waymark_allocator_purge(void) {
    if (!waymark_allocator_is_jemalloc()) return 0;
    // "arena.<MALLCTL_ARENAS_ALL>.purge": every arena's unused dirty pages back to the system.
    char name[64];
    snprintf(name, sizeof(name), "arena.%u.purge", (unsigned)MALLCTL_ARENAS_ALL);
    return mallctl(name, NULL, NULL, NULL, 0) == 0;
}
