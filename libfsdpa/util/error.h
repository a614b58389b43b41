/* The error channel of calls without a single context (fsdpa_error, see
 * fsdpa.h): set on failure, cleared on entry. */
#ifndef FSDPA_UTIL_ERROR_H
#define FSDPA_UTIL_ERROR_H
#include "fsdpa/fsdpa.h"

/* Clear at the start of a call (NULL or a too-small struct: nothing).
 * Returns 0 when err is non-NULL but its size is below the first size. */
int err_clear(fsdpa_error *err);
/* Fill err (if any) and return st, for tail calls. */
fsdpa_status err_set(fsdpa_error *err, fsdpa_status st, int64_t input, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#endif
