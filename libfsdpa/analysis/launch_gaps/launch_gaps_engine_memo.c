/* Launch gaps per window, remembered: the report computes the whole trace,
 * every step and every device both for its findings and for its JSON.  The
 * memo is a context cache slot (valid while the events and parameters are
 * unchanged); a full memo, or no memory for it, only means recomputing. */
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include <string.h>

typedef struct lg_ent {
  qwin w;
  int used;        /* ENT_* bits: which results the entry holds */
  fsdpa_launch_gaps g;
  lg_extra x;
  dg_causes k;
} lg_ent;
enum { ENT_GAPS = 1, ENT_CAUSES = 2 };

typedef struct lg_memo {
  lg_ent *e;
  size_t cap, n;  /* cap: a power of two, or 0 */
  lg_first_use *fu; /* the first-use calls, built on first use */
} lg_memo;

#define MEMO_MAX ((size_t)1 << 16)  /* entries; past that, stop remembering */

static uint64_t memo_hash(const qwin *w) {
  uint64_t h = (uint64_t)w->t0 * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)w->t1 + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
  h ^= (uint64_t)w->device * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
  h ^= (uint64_t)w->stream * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
  return h ^ (h >> 29);
}

static int same(const qwin *a, const qwin *b) {
  return a->t0 == b->t0 && a->t1 == b->t1 && a->device == b->device && a->stream == b->stream;
}

static lg_ent *slot(lg_ent *e, size_t cap, const qwin *w) {
  size_t i = (size_t)memo_hash(w) & (cap - 1);
  while (e[i].used && !same(&e[i].w, w)) i = (i + 1) & (cap - 1);
  return &e[i];
}

static void memo_free(fsdpa_ctx *c, void *obj) {
  lg_memo *m = obj;
  lg_first_use_free(c, m->fu);
  fa_free(&c->alloc, m->e, m->cap * sizeof *m->e);
  fa_free(&c->alloc, m, sizeof *m);
}

static fsdpa_status memo_new(fsdpa_ctx *c, void *obj, const void *arg) {
  (void)c;
  (void)arg;
  memset(obj, 0, sizeof(lg_memo));
  return FSDPA_OK;
}

/* The entry of w, added when missing; NULL when full or out of memory. */
static lg_ent *entry(fsdpa_ctx *c, lg_memo *m, const qwin *w) {
  if (m->cap) {
    lg_ent *s = slot(m->e, m->cap, w);
    if (s->used) return s;
  }
  if (m->n >= MEMO_MAX) return NULL;
  if (2 * (m->n + 1) > m->cap) {
    size_t nc = m->cap ? 2 * m->cap : 64;
    lg_ent *ne = fa_calloc(&c->alloc, nc * sizeof *ne);
    if (!ne) return NULL;
    for (size_t i = 0; i < m->cap; i++)
      if (m->e[i].used) *slot(ne, nc, &m->e[i].w) = m->e[i];
    fa_free(&c->alloc, m->e, m->cap * sizeof *m->e);
    m->e = ne;
    m->cap = nc;
  }
  lg_ent *s = slot(m->e, m->cap, w);
  s->w = *w;
  m->n++;
  return s;
}

static void remember(fsdpa_ctx *c, lg_memo *m, const qwin *w, const fsdpa_launch_gaps *g, const lg_extra *x) {
  lg_ent *s = entry(c, m, w);
  if (!s) return;
  s->used |= ENT_GAPS;
  s->g = *g;
  s->x = *x;
}

/* The result depends on the window and on which streams are selected, not on
 * how: a device or stream that selects every stream is the whole trace. */
static qwin canonical(const store_views *v, const qwin *w) {
  qwin k = *w;
  if (k.device == FSDPA_ABSENT && k.stream == FSDPA_ABSENT) return k;
  size_t sel = 0;
  for (size_t i = 0; i < v->nstreams; i++) sel += lg_selected(&v->streams[i], w) != 0;
  if (sel == v->nstreams) k.device = k.stream = FSDPA_ABSENT;
  return k;
}

fsdpa_status lg_gaps(fsdpa_ctx *c, const store_views *v, const qwin *w0, fsdpa_launch_gaps *out,
                     lg_extra *x) {
  qwin key = canonical(v, w0);
  const qwin *w = &key;
  const void *k = NULL;
  lg_memo *m = NULL;
  /* the memo belongs to the context; only this file writes to it */
  if (ctx_cache_obtain(c, CACHE_LAUNCH_GAPS, sizeof(lg_memo), memo_new, NULL, memo_free, &k) == FSDPA_OK)
    m = (lg_memo *)(uintptr_t)k;
  if (m && m->cap) {
    const lg_ent *s = slot(m->e, m->cap, w);
    if (s->used & ENT_GAPS) {
      *out = s->g;
      if (x) *x = s->x;
      return FSDPA_OK;
    }
  }
  lg_extra mine;
  const lg_first_use *fu = m ? m->fu : NULL;
  lg_first_use *own = NULL;
  fsdpa_status st;
  if (!fu) {
    if ((st = lg_first_use_build(c, v, &own))) return st;
    fu = own;
    if (m) {  /* the memo keeps it */
      m->fu = own;
      own = NULL;
    }
  }
  st = lg_gaps_compute(c, v, w, fu, out, &mine);
  lg_first_use_free(c, own);
  if (st) return st;
  if (x) *x = mine;
  if (m) remember(c, m, w, out, &mine);
  return FSDPA_OK;
}

fsdpa_status lg_idle_causes(fsdpa_ctx *c, const store_views *v, const qwin *w0, dg_causes *out) {
  qwin key = canonical(v, w0);
  const void *k = NULL;
  lg_memo *m = NULL;
  if (ctx_cache_obtain(c, CACHE_LAUNCH_GAPS, sizeof(lg_memo), memo_new, NULL, memo_free, &k) == FSDPA_OK)
    m = (lg_memo *)(uintptr_t)k;
  if (m && m->cap) {
    const lg_ent *s = slot(m->e, m->cap, &key);
    if (s->used & ENT_CAUSES) {
      *out = s->k;
      return FSDPA_OK;
    }
  }
  depgraph g;
  lg_union u;
  fsdpa_status st = dg_get(c, &g);
  if (st) return st;
  if ((st = lg_union_build(c, v, &key, &u))) return st;
  st = dg_idle_causes(c, v, &g, &key, u.u, u.n, out);
  lg_union_free(c, &u);
  dg_free(c, &g);
  if (st || !m) return st;
  lg_ent *s = entry(c, m, &key);
  if (s) {
    s->used |= ENT_CAUSES;
    s->k = *out;
  }
  return FSDPA_OK;
}

fsdpa_status lg_first_use_get(fsdpa_ctx *c, const store_views *v, const lg_first_use **fu, lg_first_use **own) {
  const void *k = NULL;
  lg_memo *m = NULL;
  *own = NULL;
  if (ctx_cache_obtain(c, CACHE_LAUNCH_GAPS, sizeof(lg_memo), memo_new, NULL, memo_free, &k) == FSDPA_OK)
    m = (lg_memo *)(uintptr_t)k;
  if (m && m->fu) {
    *fu = m->fu;
    return FSDPA_OK;
  }
  lg_first_use *b;
  fsdpa_status st = lg_first_use_build(c, v, &b);
  if (st) return st;
  if (m) m->fu = b;
  else *own = b;
  *fu = b;
  return FSDPA_OK;
}
