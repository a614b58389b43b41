#include "util/error.h"
#include "util/abi.h"
#include <stdarg.h>
#include <stdio.h>

void fsdpa_error_init(fsdpa_error *err) {
  if (!err) return;
  memset(err, 0, sizeof *err);
  err->size = sizeof *err;
  err->input = err->offset = FSDPA_ABSENT;
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
