/* Buffers handed to the caller (released with fsdpa_free(), which has no
 * context): a header before the data remembers the allocator callbacks and
 * the size, so the buffer outlives the context that made it. */
#ifndef FSDPA_UTIL_OUTBUF_H
#define FSDPA_UTIL_OUTBUF_H
#include <stddef.h>
#include "util/alloc.h"
/* Copy n bytes (plus a NUL) into a caller-owned buffer; NULL on failure. */
char *outbuf_dup(fa_alloc *a, const char *data, size_t n);
/* n bytes (uninitialised, aligned for any type) released by fsdpa_free(). */
void *outbuf_alloc(fa_alloc *a, size_t n);
#endif
