/* Sorting without qsort's indirect comparator call and glibc's merge-sort
 * buffer: FA_SORT_DEFINE(name, T, LESS) defines
 *
 *   static void name(T *a, size_t n);
 *
 * an introsort (median-of-three quicksort, insertion sort below 16 items,
 * heapsort past 2 log2 n levels, so O(n log n) on any input, hostile traces
 * included) ordering by LESS(x, y), an expression on two `const T *`.  It is
 * not stable: LESS must be a total order on the items that can differ (ties
 * only between identical items), as every comparator it replaced was.  An
 * input already in order costs one pass. */
#ifndef FSDPA_UTIL_SORT_H
#define FSDPA_UTIL_SORT_H
#include <stddef.h>

#define FA_SORT_DEFINE(name, T, LESS)                                              \
  static void name##_ins(T *a, size_t n) {                                          \
    for (size_t i = 1; i < n; i++) {                                                \
      T x = a[i];                                                                   \
      size_t j = i;                                                                 \
      for (; j > 0 && LESS((&x), (&a[j - 1])); j--) a[j] = a[j - 1];                \
      a[j] = x;                                                                     \
    }                                                                               \
  }                                                                                 \
  static void name##_sift(T *a, size_t i, size_t n) {                               \
    T x = a[i];                                                                     \
    for (;;) {                                                                      \
      size_t c = 2 * i + 1;                                                         \
      if (c >= n) break;                                                            \
      if (c + 1 < n && LESS((&a[c]), (&a[c + 1]))) c++;                             \
      if (!LESS((&x), (&a[c]))) break;                                              \
      a[i] = a[c];                                                                  \
      i = c;                                                                        \
    }                                                                               \
    a[i] = x;                                                                       \
  }                                                                                 \
  static void name##_heap(T *a, size_t n) {                                         \
    for (size_t i = n / 2; i-- > 0;) name##_sift(a, i, n);                          \
    for (size_t e = n; e-- > 1;) {                                                  \
      T t = a[0];                                                                   \
      a[0] = a[e];                                                                  \
      a[e] = t;                                                                     \
      name##_sift(a, 0, e);                                                         \
    }                                                                               \
  }                                                                                 \
  static void name##_intro(T *a, size_t n, int depth) {                             \
    while (n > 16) {                                                                \
      if (depth-- == 0) {                                                           \
        name##_heap(a, n);                                                          \
        return;                                                                     \
      }                                                                             \
      size_t m = n / 2;                                                             \
      T t;                                                                          \
      /* median of first, middle, last into a[m] */                                \
      if (LESS((&a[m]), (&a[0]))) { t = a[m]; a[m] = a[0]; a[0] = t; }              \
      if (LESS((&a[n - 1]), (&a[m]))) {                                             \
        t = a[m]; a[m] = a[n - 1]; a[n - 1] = t;                                    \
        if (LESS((&a[m]), (&a[0]))) { t = a[m]; a[m] = a[0]; a[0] = t; }            \
      }                                                                             \
      T p = a[m];                                                                   \
      size_t i = 0, j = n - 1;                                                      \
      for (;;) {                                                                    \
        while (LESS((&a[i]), (&p))) i++;                                            \
        while (LESS((&p), (&a[j]))) j--;                                            \
        if (i >= j) break;                                                          \
        t = a[i]; a[i] = a[j]; a[j] = t;                                            \
        i++;                                                                        \
        j--;                                                                        \
      }                                                                             \
      /* [0, j] <= p <= [j + 1, n): recurse into the smaller side */                \
      size_t nl = j + 1, nr = n - j - 1;                                            \
      if (nl < nr) {                                                                \
        name##_intro(a, nl, depth);                                                 \
        a += nl;                                                                    \
        n = nr;                                                                     \
      } else {                                                                      \
        name##_intro(a + nl, nr, depth);                                            \
        n = nl;                                                                     \
      }                                                                             \
    }                                                                               \
    name##_ins(a, n);                                                               \
  }                                                                                 \
  static inline void name(T *a, size_t n) {                                         \
    size_t i = 1;                                                                   \
    while (i < n && !LESS((&a[i]), (&a[i - 1]))) i++;                               \
    if (i >= n) return;                                                             \
    int depth = 0;                                                                  \
    for (size_t k = n; k > 1; k >>= 1) depth += 2;                                  \
    name##_intro(a, n, depth);                                                      \
  }

#endif
