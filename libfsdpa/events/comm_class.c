/* The classification of communication kernels (comm_class.h). */
#include "events/comm_class.h"
#include "events/classify.h"
#include "util/sort.h"
#include <fnmatch.h>
#include <string.h>

const char *store_comm_pattern(const store *s, size_t i) {
  if (i >= s->ncomm_pats) return NULL;
  const char *p = s->comm_pats;
  while (i--) p += strlen(p) + 1;
  return p;
}

/* A stretch of time on one track covered by communication ops, named by the
 * op that opened it (the outermost). */
typedef struct cover {
  uint32_t track, name;
  int64_t s, e;
} cover;

#define COVER_LESS(x, y) \
  ((x)->track != (y)->track ? (x)->track < (y)->track \
   : (x)->s != (y)->s       ? (x)->s < (y)->s \
   : (x)->e != (y)->e       ? (x)->e > (y)->e \
                            : (x)->name < (y)->name)
FA_SORT_DEFINE(cover_sort, cover, COVER_LESS)

/* Collect the NC_COMM_OP records of `vec` and merge them per track into
 * disjoint covers.  Returns the count in *n (0 allowed), -1 on failure. */
static int covers_build(fa_alloc *a, const store *s, const fa_vec *vec, cover **out, size_t *n, size_t *cap) {
  size_t m = 0;
  *out = NULL;
  *n = *cap = 0;
  for (size_t i = 0; i < vec->len; i++)
    if (store_name_info(s, STORE_REC(vec, i)->name) & NC_COMM_OP) m++;
  if (!m) return 0;
  cover *c = fa_malloc(a, m * sizeof *c);
  if (!c) return -1;
  size_t k = 0;
  for (size_t i = 0; i < vec->len; i++) {
    const ev_rec *r = STORE_REC(vec, i);
    if (store_name_info(s, r->name) & NC_COMM_OP) c[k++] = (cover){r->track, r->name, r->ts, r->end};
  }
  cover_sort(c, m);
  size_t w = 0;
  for (size_t i = 0; i < m; i++) {
    if (w && c[w - 1].track == c[i].track && c[i].s <= c[w - 1].e) {
      if (c[i].e > c[w - 1].e) c[w - 1].e = c[i].e;
      continue;
    }
    c[w++] = c[i];
  }
  *out = c;
  *n = w;
  *cap = m;
  return 0;
}

/* The cover on `track` holding [t0, t1], or NULL. */
static const cover *cover_find(const cover *c, size_t n, uint32_t track, int64_t t0, int64_t t1) {
  size_t lo = 0, hi = n;  /* first cover after (track, t0) */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c[mid].track < track || (c[mid].track == track && c[mid].s <= t0)) lo = mid + 1;
    else hi = mid;
  }
  if (!lo) return NULL;
  const cover *x = &c[lo - 1];
  return x->track == track && x->s <= t0 && t1 <= x->e ? x : NULL;
}

/* User patterns are matched once per name: memo[name] = pattern index + 1,
 * 0 no match, UINT32_MAX not looked at yet. */
static uint32_t user_match(const store *s, uint32_t *memo, uint32_t name) {
  if (memo[name] == UINT32_MAX) {
    memo[name] = 0;
    const char *str = store_name(s, name);
    const char *p = s->comm_pats;
    for (size_t i = 0; i < s->ncomm_pats; i++, p += strlen(p) + 1)
      if (fnmatch(p, str, 0) == 0) {
        memo[name] = (uint32_t)i + 1;
        break;
      }
  }
  return memo[name];
}

int comm_classify(fa_alloc *a, const store *s, store_views *v) {
  size_t ng = s->gpu.len, nnames = intern_count(&s->names);
  cover *cc = NULL, *gc = NULL;
  size_t ncc = 0, ccap = 0, ngc = 0, gcap = 0;
  uint32_t *memo = NULL;
  int rc = -1;
  if (ng && !(v->comm = fa_calloc(a, ng * sizeof(uint32_t)))) return -1;
  v->ncomm_alloc = ng;
  v->bytes += ng * sizeof(uint32_t);
  if (covers_build(a, s, &s->cpu, &cc, &ncc, &ccap)) goto done;
  if (covers_build(a, s, &s->gannot, &gc, &ngc, &gcap)) goto done;
  if (s->ncomm_pats && nnames) {
    if (!(memo = fa_malloc(a, nnames * sizeof(uint32_t)))) goto done;
    memset(memo, 0xff, nnames * sizeof(uint32_t));
  }
  for (size_t i = 0; i < ng; i++) {
    const ev_rec *r = STORE_REC(&s->gpu, i);
    if (r->kind != RK_KERNEL) continue;
    uint32_t info = store_name_info(s, r->name);
    if (info & NC_COMM) {
      v->comm[i] = comm_code(COMM_BY_NAME, (uint32_t)store_name_family(s, r->name));
      continue;
    }
    uint32_t u = memo ? user_match(s, memo, r->name) : 0;
    if (u) {
      v->comm[i] = comm_code(COMM_BY_USER, u - 1);
      continue;
    }
    if (info & NC_GEMM) continue;
    const cover *x = NULL;
    if (ncc && r->corr != FSDPA_ABSENT) {
      uint32_t rt = store_runtime_for_corr(v, r->corr);
      if (rt != UINT32_MAX) {
        const ev_rec *l = STORE_REC(&s->rt, rt);
        x = cover_find(cc, ncc, l->track, l->ts, l->ts);
      }
    }
    if (!x && ngc) x = cover_find(gc, ngc, r->track, r->ts, r->end);
    if (x) v->comm[i] = comm_code(COMM_BY_PROVENANCE, x->name);
  }
  rc = 0;
done:
  fa_free(a, cc, ccap * sizeof(cover));
  fa_free(a, gc, gcap * sizeof(cover));
  fa_free(a, memo, nnames * sizeof(uint32_t));
  return rc;
}

const char *comm_code_family(const store *s, uint32_t code, size_t *len) {
  uint32_t val = comm_value(code);
  const char *f;
  switch (comm_rule(code)) {
    case COMM_BY_NAME: f = comm_family_name((int)val); break;
    case COMM_BY_USER: f = store_comm_pattern(s, val); break;
    case COMM_BY_PROVENANCE: f = store_name(s, val); break;
    default: f = NULL; break;
  }
  if (!f) f = "";
  *len = strlen(f);
  return f;
}
