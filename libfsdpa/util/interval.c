#include "util/interval.h"
#include <stdlib.h>
#include "util/sort.h"

#define IV_LESS(x, y) ((x)->s < (y)->s || ((x)->s == (y)->s && (x)->e < (y)->e))
FA_SORT_DEFINE(iv_sort_impl, iv, IV_LESS)

/* Traces are mostly sorted per track: the sort checks first, so the common
 * case is O(n). */
void iv_sort(iv *a, size_t n) { iv_sort_impl(a, n); }

size_t iv_union_sorted(iv *a, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (a[i].e <= a[i].s) continue;
    if (k && a[i].s <= a[k - 1].e) {
      if (a[i].e > a[k - 1].e) a[k - 1].e = a[i].e;
    } else {
      a[k++] = a[i];
    }
  }
  return k;
}

size_t iv_union(iv *a, size_t n) {
  iv_sort(a, n);
  return iv_union_sorted(a, n);
}

int64_t iv_total(const iv *a, size_t n) {
  int64_t t = 0;
  for (size_t i = 0; i < n; i++) t += a[i].e - a[i].s;
  return t;
}

/* First index >= i whose end is > t, in a union (ends increase).  Galloping
 * from i: O(1) when the answer is near, O(log distance) when far.  Analyses
 * intersect a small set (one unit, one step) with a whole-trace union over
 * and over; a plain merge walk made each call O(whole trace). */
static size_t skip_to_end_after(const iv *a, size_t i, size_t n, int64_t t) {
  if (i >= n || a[i].e > t) return i;
  size_t lo = i, hi, step = 1; /* a[lo].e <= t */
  for (;;) {
    hi = lo + step;
    if (hi >= n) {
      hi = n;
      break;
    }
    if (a[hi].e > t) break;
    lo = hi;
    step *= 2;
  }
  lo++; /* answer in [lo, hi] */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a[mid].e > t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

int64_t iv_intersect_len(const iv *a, size_t na, const iv *b, size_t nb) {
  size_t i = 0, j = 0;
  int64_t t = 0;
  while (i < na && j < nb) {
    if (a[i].e <= b[j].s) { /* nothing of b before a[i+..] can meet a[i] */
      i = skip_to_end_after(a, i + 1, na, b[j].s);
      continue;
    }
    if (b[j].e <= a[i].s) {
      j = skip_to_end_after(b, j + 1, nb, a[i].s);
      continue;
    }
    int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s;
    int64_t e = a[i].e < b[j].e ? a[i].e : b[j].e;
    if (e > s) t += e - s; /* empty inputs meet nothing */
    if (a[i].e < b[j].e) i++;
    else j++;
  }
  return t;
}

size_t iv_intersect(const iv *a, size_t na, const iv *b, size_t nb, iv *out) {
  size_t i = 0, j = 0, k = 0;
  while (i < na && j < nb) {
    if (a[i].e <= b[j].s) {
      i = skip_to_end_after(a, i + 1, na, b[j].s);
      continue;
    }
    if (b[j].e <= a[i].s) {
      j = skip_to_end_after(b, j + 1, nb, a[i].s);
      continue;
    }
    int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s;
    int64_t e = a[i].e < b[j].e ? a[i].e : b[j].e;
    if (e > s) out[k++] = (iv){s, e};
    if (a[i].e < b[j].e) i++;
    else j++;
  }
  return k;
}

size_t iv_subtract(const iv *a, size_t na, const iv *b, size_t nb, iv *out) {
  size_t j = 0, k = 0;
  for (size_t i = 0; i < na; i++) {
    int64_t s = a[i].s, e = a[i].e;
    j = skip_to_end_after(b, j, nb, s);
    size_t jj = j;
    while (jj < nb && b[jj].s < e) {
      if (b[jj].s > s) out[k++] = (iv){s, b[jj].s};
      if (b[jj].e > s) s = b[jj].e;
      if (s >= e) break;
      jj++;
    }
    if (s < e) out[k++] = (iv){s, e};
  }
  return k;
}

size_t iv_clip(iv *a, size_t n, int64_t t0, int64_t t1) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    iv x = a[i];
    if (iv_clip1(&x, t0, t1)) a[k++] = x;
  }
  return k;
}

/* first index whose end > t */
static size_t first_ending_after(const iv *a, size_t n, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a[mid].e > t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

int64_t iv_len_in(const iv *a, size_t n, int64_t t0, int64_t t1) {
  int64_t t = 0;
  for (size_t i = first_ending_after(a, n, t0); i < n && a[i].s < t1; i++) {
    iv x = a[i];
    if (iv_clip1(&x, t0, t1)) t += x.e - x.s;
  }
  return t;
}

size_t iv_gaps(const iv *a, size_t n, int64_t t0, int64_t t1, iv *out) {
  size_t k = 0;
  int64_t cur = t0;
  for (size_t i = first_ending_after(a, n, t0); i < n && a[i].s < t1; i++) {
    if (a[i].s > cur) out[k++] = (iv){cur, a[i].s};
    if (a[i].e > cur) cur = a[i].e;
  }
  if (cur < t1) out[k++] = (iv){cur, t1};
  return k;
}
