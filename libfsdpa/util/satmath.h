/* Saturating int64 sums for totals of trace-supplied values (bytes).  Each
 * value the store keeps is bounded (STORE_MAX_BYTES), but a sum of many is
 * not: a hostile trace must give a clamped total, never signed overflow. */
#ifndef FSDPA_UTIL_SATMATH_H
#define FSDPA_UTIL_SATMATH_H
#include <stdint.h>

static inline int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN + 1; /* INT64_MIN is FSDPA_ABSENT */
}

#endif
