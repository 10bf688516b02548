#ifndef WAYMARK_CSPAWN_SHIM_H
#define WAYMARK_CSPAWN_SHIM_H
#include <spawn.h>

/* glibc (2.34+) declares this only under _GNU_SOURCE, which Swift's Glibc module is built without;
   the declaration is repeated here, unchanged, so Swift can call it. Used by Postgres.Subprocess so
   a spawned program inherits no descriptor beyond stdin, stdout and stderr. */
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

#endif
