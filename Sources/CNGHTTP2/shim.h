// libnghttp2 (Debian: libnghttp2-dev), owned by the GRPC module only.
// Nothing to shim: the callbacks and data providers import as C function pointers.
#include <nghttp2/nghttp2.h>
