#ifndef WAYMARK_CMICROHTTPD_SHIM_H
#define WAYMARK_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>
/* Glibc's Swift module does not cover epoll/eventfd; the HTTP module uses them to notice clients
   that hang up while their stream connection is suspended (MHD does not poll those). */
#include <sys/epoll.h>
#include <sys/eventfd.h>
/* mallopt is not in Glibc's Swift module. */
#include <malloc.h>

/* Limits glibc's malloc to `arenas` arenas (M_ARENA_MAX); returns 1 on success. */
static inline int
waymark_limit_malloc_arenas(int arenas) {
  return mallopt(M_ARENA_MAX, arenas);
}

/* Serves allocations of `bytes` and more with their own mmap (M_MMAP_THRESHOLD, which also stops
   glibc from raising the threshold by itself); returns 1 on success. */
static inline int
waymark_set_malloc_mmap_threshold(int bytes) {
  return mallopt(M_MMAP_THRESHOLD, bytes);
}

/* Returns free memory of every malloc arena to the kernel (malloc_trim); 1 if some was released. */
static inline int
waymark_malloc_trim(void) {
  return malloc_trim(0);
}

/* Swift cannot call C variadic functions, and MHD_start_daemon, MHD_get_connection_info and
   MHD_get_daemon_info are variadic. These non-variadic wrappers are the only shims: the
   Clang importer compiles header inline functions itself, so no C target is needed. */

/* Starts a daemon bound to `address` with the options the HTTP module uses. Optional options
   (a thread pool when `thread_pool_size` > 1, a per-connection memory pool of
   `connection_memory_limit` bytes when it is not 0, a logger when `logger` is not NULL) go through one
   MHD_OPTION_ARRAY, so a single variadic call covers every combination. */
static inline struct MHD_Daemon *
waymark_mhd_start(unsigned int flags, uint16_t port, const struct sockaddr *address,
                  MHD_AccessHandlerCallback handler, void *handler_cls,
                  MHD_RequestCompletedCallback completed, void *completed_cls,
                  unsigned int thread_pool_size, unsigned int connection_limit,
                  unsigned int connection_timeout_seconds, size_t connection_memory_limit,
                  unsigned int per_ip_connection_limit,
                  MHD_LogCallback logger, void *logger_cls) {
  struct MHD_OptionItem options[11];
  int count = 0;
  options[count++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, (void *) address };
  options[count++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t) completed, completed_cls };
  options[count++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, connection_limit, NULL };
  options[count++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds, NULL };
  if (thread_pool_size > 1)
    options[count++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size, NULL };
  if (connection_memory_limit > 0)
    options[count++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t) connection_memory_limit, NULL };
  if (per_ip_connection_limit > 0)
    options[count++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_connection_limit, NULL };
  if (logger != NULL)
    options[count++] = (struct MHD_OptionItem){ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t) logger, logger_cls };
  options[count++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
  return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                          MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/* The port the daemon is bound to (useful after binding port 0), or 0 if unknown. */
static inline uint16_t
waymark_mhd_bound_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

/* The client's address as text (IPv4 dotted or IPv6) into `buffer`; 1 on success, 0 if unknown. */
static inline int
waymark_mhd_client_address(struct MHD_Connection *connection, char *buffer, socklen_t size) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == NULL || info->client_addr == NULL) return 0;
  const struct sockaddr *address = info->client_addr;
  if (address->sa_family == AF_INET)
    return inet_ntop(AF_INET, &((const struct sockaddr_in *) address)->sin_addr, buffer, size) != NULL;
  if (address->sa_family == AF_INET6)
    return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) address)->sin6_addr, buffer, size) != NULL;
  return 0;
}

/* The socket of a connection, or -1. */
static inline int
waymark_mhd_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info == NULL ? -1 : info->connect_fd;
}

#endif
