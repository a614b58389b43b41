/* The one interval/timeline module every analysis uses, so each definition
 * (union, intersection, gaps, windows) lives in one place.
 *
 * Intervals are half-open [s, e) in integer ns.  A "union" is a sorted array
 * of disjoint, non-touching intervals: overlapping or touching inputs are
 * merged (as HTA's merge_kernel_intervals does), so |union| never counts
 * overlapping work twice and never drops any. */
#ifndef FSDPA_UTIL_INTERVAL_H
#define FSDPA_UTIL_INTERVAL_H
#include <stddef.h>
#include <stdint.h>

typedef struct iv {
  int64_t s, e;
} iv;

/* Sort by start (then end).  Stable enough for our use; O(n log n). */
void iv_sort(iv *a, size_t n);
/* In place: sort then merge into a union; returns the new count.  Empty
 * intervals (e <= s) are dropped. */
size_t iv_union(iv *a, size_t n);
/* Merge already-sorted intervals (by start) into a union; returns count. */
size_t iv_union_sorted(iv *a, size_t n);
/* Total length of a union (or of any disjoint set). */
int64_t iv_total(const iv *a, size_t n);
/* |A ∩ B| for two unions. */
int64_t iv_intersect_len(const iv *a, size_t na, const iv *b, size_t nb);
/* A ∩ B into out (capacity na + nb suffices); returns count. */
size_t iv_intersect(const iv *a, size_t na, const iv *b, size_t nb, iv *out);
/* A − B into out (capacity na + nb suffices); returns count. */
size_t iv_subtract(const iv *a, size_t na, const iv *b, size_t nb, iv *out);
/* Clip a union to [t0, t1) in place; returns count. */
size_t iv_clip(iv *a, size_t n, int64_t t0, int64_t t1);
/* Length of a union inside [t0, t1) without modifying it (binary search). */
int64_t iv_len_in(const iv *a, size_t n, int64_t t0, int64_t t1);
/* Gaps of a union within [t0, t1): the complement, into out (capacity n+1);
 * returns count. */
size_t iv_gaps(const iv *a, size_t n, int64_t t0, int64_t t1, iv *out);
/* Clip one interval to a window: returns 0 if nothing is left. */
static inline int iv_clip1(iv *x, int64_t t0, int64_t t1) {
  if (x->s < t0) x->s = t0;
  if (x->e > t1) x->e = t1;
  return x->e > x->s;
}
#endif
