/* Saturating int64 arithmetic on trace-supplied values.  Each byte count the
 * store keeps is bounded (STORE_MAX_BYTES), but a sum of many is not, and
 * ids (correlation ids) are not bounded at all: a hostile trace must give a
 * clamped result, never signed overflow. */
#ifndef FSDPA_UTIL_SATMATH_H
#define FSDPA_UTIL_SATMATH_H
#include <stdint.h>

static inline int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN + 1; /* INT64_MIN is FSDPA_ABSENT */
}

static inline int64_t sat_sub(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  return b < 0 ? INT64_MAX : INT64_MIN + 1;
}

#endif
