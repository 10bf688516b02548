#ifndef WAYMARK_ALLOCATOR_H
#define WAYMARK_ALLOCATOR_H

/// 1 when this process's `malloc` is jemalloc's (linked ahead of glibc's), else 0.
int waymark_allocator_is_jemalloc(void);

/// jemalloc's version as major * 10000 + minor * 100 + bugfix; 0 when `malloc` is not jemalloc's.
int waymark_allocator_jemalloc_version(void);

/// The number of arenas jemalloc was started with; 0 when `malloc` is not jemalloc's.
unsigned waymark_allocator_arenas(void);

/// Gives every jemalloc arena's unused pages back to the system at once (rather than after their
/// decay time); 1 when done, 0 when `malloc` is not jemalloc's.
int waymark_allocator_purge(void);

#endif
