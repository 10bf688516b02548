#ifndef WAYMARK_CLIBPQ_SHIM_H
#define WAYMARK_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
