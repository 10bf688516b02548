#ifndef WAYMARK_CCURL_SHIM_H
#define WAYMARK_CCURL_SHIM_H
#include <curl/curl.h>
#include <netdb.h>
#include <sys/socket.h>
#include <arpa/inet.h>

/* Swift cannot call C variadic functions, and curl_easy_setopt / curl_easy_getinfo are variadic.
   These typed, non-variadic wrappers are the only shims; the HTTP module is their one caller. */

static inline CURLcode waymark_curl_setopt_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode waymark_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode waymark_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
  return curl_easy_setopt(handle, option, value);
}

/* The body-size limit is a curl_off_t, which is not a long on every platform. */
static inline CURLcode waymark_curl_setopt_postfieldsize(CURL *handle, long long size) {
  return curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) size);
}

typedef size_t (*waymark_curl_write_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode waymark_curl_setopt_write(CURL *handle, waymark_curl_write_callback callback, void *context) {
  CURLcode code = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
  if (code != CURLE_OK) return code;
  return curl_easy_setopt(handle, CURLOPT_WRITEDATA, context);
}

typedef int (*waymark_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);

/* Installs a progress callback (called about once a second, and on activity); a non-zero return aborts the transfer. */
static inline CURLcode waymark_curl_setopt_progress(CURL *handle, waymark_curl_progress_callback callback, void *context) {
  CURLcode code = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
  if (code != CURLE_OK) return code;
  code = curl_easy_setopt(handle, CURLOPT_XFERINFODATA, context);
  if (code != CURLE_OK) return code;
  return curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
}

static inline CURLcode waymark_curl_response_code(CURL *handle, long *code) {
  return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

#endif
