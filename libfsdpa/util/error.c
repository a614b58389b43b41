#include "util/error.h"
#include "util/abi.h"
#include <stdarg.h>
#include <stdio.h>

/* Defaults for a caller of any release: at most the caller's `size` bytes
 * are written (see fsdpa.h, versioned structs). */
void fsdpa_error_init_sized(fsdpa_error *err, size_t size) {
  if (!err || size < sizeof(size_t)) return;
  fsdpa_error d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.input = d.offset = FSDPA_ABSENT;
  memcpy(err, &d, size < sizeof d ? size : sizeof d);
  err->size = size;
}

int err_clear(fsdpa_error *err) {
  if (!err) return 1;
  if (!ABI_OK(fsdpa_error, err)) return 0;
  fsdpa_error e;
  fsdpa_error_init(&e);
  ABI_OUT(fsdpa_error, err, &e);
  return 1;
}

fsdpa_status err_set(fsdpa_error *err, fsdpa_status st, int64_t input, int64_t offset, const char *fmt, ...) {
  if (!err || !ABI_OK(fsdpa_error, err)) return st;
  fsdpa_error e;
  fsdpa_error_init(&e);
  e.status = st;
  e.input = input;
  e.offset = offset;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e.message, sizeof e.message, fmt, ap);
  va_end(ap);
  ABI_OUT(fsdpa_error, err, &e);
  return st;
}
