/* The numbers the engines reduce to: the fixed gap-length histogram,
 * percentiles by selection, and the few heaviest ranges kept for findings. */
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include <stdlib.h>

const int64_t lg_edges[FSDPA_GAP_EDGES] = {
    1000,     2000,     5000,     10000,     20000,     50000,     100000,
    200000,   500000,   1000000,  2000000,   5000000,   10000000,  20000000,
    50000000, 100000000, 200000000, 500000000, 1000000000};

int lg_bin(int64_t v) {
  int lo = 0, hi = FSDPA_GAP_EDGES;  /* number of edges <= v */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (lg_edges[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static void swap_i64(int64_t *a, size_t i, size_t j) {
  int64_t t = a[i];
  a[i] = a[j];
  a[j] = t;
}

static int cmp_i64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return a < b ? -1 : a > b;
}

/* k-th smallest (0-based), reordering a: quickselect with a three-way
 * partition (gap lengths repeat a lot); after 64 rounds without converging
 * (adversarial input) the rest is sorted, so the worst case stays
 * O(n log n). */
static int64_t select_k(int64_t *a, size_t n, size_t k) {
  size_t lo = 0, hi = n;
  for (int round = 0; hi - lo > 16; round++) {
    if (round == 64) {
      qsort(a + lo, hi - lo, sizeof *a, cmp_i64);
      return a[k];
    }
    int64_t x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1];
    int64_t piv = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
    size_t lt = lo, i = lo, gt = hi;
    while (i < gt) {
      if (a[i] < piv) swap_i64(a, lt++, i++);
      else if (a[i] > piv) swap_i64(a, i, --gt);
      else i++;
    }
    if (k < lt) hi = lt;
    else if (k >= gt) lo = gt;
    else return piv;
  }
  for (size_t i = lo + 1; i < hi; i++)
    for (size_t j = i; j > lo && a[j - 1] > a[j]; j--) swap_i64(a, j - 1, j);
  return a[k];
}

static size_t pct_index(size_t n, int p) {
  size_t rank = ((size_t)p * n + 99) / 100;  /* ceil(p·n/100), >= 1 for n >= 1 */
  return rank ? rank - 1 : 0;
}

int64_t lg_pct(int64_t *a, size_t n, int p) { return select_k(a, n, pct_index(n, p)); }

/* select_k(k) leaves a[0..k) <= a[k] <= a[k+1..n), so a higher rank lies in
 * a[k..n). */
void lg_p50_90_99(int64_t *a, size_t n, int64_t *p50, int64_t *p90, int64_t *p99) {
  size_t k50 = pct_index(n, 50), k90 = pct_index(n, 90), k99 = pct_index(n, 99);
  *p50 = select_k(a, n, k50);
  *p90 = select_k(a + k50, n - k50, k90 - k50);
  *p99 = select_k(a + k90, n - k90, k99 - k90);
}

int64_t lg_max_i64(const int64_t *a, size_t n) {
  int64_t m = a[0];
  for (size_t i = 1; i < n; i++)
    if (a[i] > m) m = a[i];
  return m;
}

int64_t lg_min_i64(const int64_t *a, size_t n) {
  int64_t m = a[0];
  for (size_t i = 1; i < n; i++)
    if (a[i] < m) m = a[i];
  return m;
}

/* Per-stream data is mostly in order already (FIFO streams); check first. */
void lg_sort_i64(int64_t *a, size_t n) {
  for (size_t i = 1; i < n; i++) {
    if (a[i - 1] > a[i]) {
      qsort(a, n, sizeof *a, cmp_i64);
      return;
    }
  }
}

void lg_top_add(lg_top *t, int64_t s, int64_t e, int64_t w) {
  int i;
  if (t->n < LG_TOP) i = t->n++;
  else if (t->w[LG_TOP - 1] >= w) return;
  else i = LG_TOP - 1;
  t->r[i] = (iv){s, e};
  t->w[i] = w;
  while (i > 0 && t->w[i - 1] < t->w[i]) {
    iv r = t->r[i];
    int64_t x = t->w[i];
    t->r[i] = t->r[i - 1];
    t->w[i] = t->w[i - 1];
    t->r[i - 1] = r;
    t->w[i - 1] = x;
    i--;
  }
}
