/* FSDP backward schedule: each step's backward units in order, checked
 * against the zigzag stream-schedule pattern (fsdp_engine_pattern.c), with
 * the per-unit prefetch flags and the compute idle each broken link costs;
 * the per-unit aggregate over steps and the public structs of a step and
 * of a unit. */
#include "analysis/fsdp/fsdp_impl.h"
#include <stdlib.h>
#include <string.h>
#include "util/satmath.h"

/* The zigzag of docs/patterns.md: slots are units in backward order. */
static const char *const BW_LABELS[] = {"AG", "C", "RS", "P"};
enum { L_AG = 0, L_C, L_RS, L_P, L__N };
const char BW_PATTERN[] =
    "# slots: FSDP units in backward order; P = every compute kernel of the rank\n"
    "prefetch:   AG[i+1] starts_before_end C[i]  # next unit's gather issued before this one's compute ends\n"
    "concurrent: AG[i] overlaps P[i]             # and it ran beside compute, not queued behind it\n"
    "rs_hidden:  RS[i] overlaps C[i+1]           # this unit's reduce-scatter under the next compute\n";

void bw_free(bw_result *r) {
  if (r->borrowed) {
    memset(r, 0, sizeof *r);
    return;
  }
  fa_alloc *a = r->m.a;
  if (a) {
    fa_free(a, r->units, r->nunits * sizeof(bw_unit));
    fa_free(a, r->steps, r->nsteps * sizeof(bw_step));
  }
  fm_free(&r->m);
  memset(r, 0, sizeof *r);
}

typedef struct ord {
  int32_t step;
  int64_t anchor;
  uint32_t inst;
} ord;

static int cmp_ord(const void *pa, const void *pb) {
  const ord *a = pa, *b = pb;
  if (a->step != b->step) return a->step < b->step ? -1 : 1;
  if (a->anchor != b->anchor) return a->anchor < b->anchor ? -1 : 1;
  return a->inst < b->inst ? -1 : a->inst > b->inst;
}

/* |[s, e) − compute| : the compute stream(s) idle inside a gap. */
static int64_t idle_in(const fsdp_model *m, int64_t s, int64_t e) {
  if (e <= s) return 0;
  return (e - s) - iv_len_in(m->compute_all, m->ncompute_all, s, e);
}

/* both: comm ∩ compute over the whole trace, computed once per analysis. */
static double step_overlap(const fsdp_model *m, int32_t k, const iv *both, size_t nboth) {
  if (k < 0 || !m->ncomm_all) return -1.0;
  int64_t t0 = m->steps[k].ts, t1 = m->steps[k].end;
  int64_t comm = iv_len_in(m->comm_all, m->ncomm_all, t0, t1);
  if (comm <= 0) return -1.0;
  return 100.0 * (double)iv_len_in(both, nboth, t0, t1) / (double)comm;
}

/* The enum is ordered by badness: serialized > no_prefetch > zigzag > unknown. */
static int worse(int a, int b) { return a >= b ? a : b; }

static fsdpa_status bw_analyze_new(fsdpa_ctx *c, bw_result *r) {
  memset(r, 0, sizeof *r);
  fsdpa_status st = fm_build(c, &r->m);
  if (st) return st;
  fsdp_model *m = &r->m;
  fa_alloc *a = m->a;
  pattern pat;
  char err[96];
  if (pattern_parse(BW_PATTERN, BW_LABELS, L__N, &pat, err, sizeof err)) {
    fm_free(m);
    return ctx_fail(c, FSDPA_EINVAL, "internal: %s", err);
  }
  int r_pref = pattern_rule(&pat, "prefetch"), r_rs = pattern_rule(&pat, "rs_hidden");
  int r_conc = pattern_rule(&pat, "concurrent");
  size_t nb = 0;
  for (size_t k = 0; k < m->ninst; k++)
    if (m->insts[k].phase == FM_BWD) nb++;
  ord *o = NULL;
  pat_set *sets = NULL;
  iv *buf = NULL, *scratch = NULL;
  int8_t *state = NULL;
  int64_t *meas = NULL;
  size_t bufn = 0, scn = m->ncomm_all + m->ncompute_all;
  if (!nb) return FSDPA_OK;
  o = fa_malloc(a, nb * sizeof(ord));
  r->units = fa_calloc(a, nb * sizeof(bw_unit));
  if (r->units) r->nunits = nb;
  if (!o || !r->units) goto oom;
  size_t j = 0;
  for (size_t k = 0; k < m->ninst; k++) {
    const fm_inst *in = &m->insts[k];
    if (in->phase != FM_BWD) continue;
    o[j++] = (ord){in->step, in->anchor, (uint32_t)k};
    size_t np = in->p[FM__KINDS] - in->p[0];
    bufn += np;
  }
  qsort(o, nb, sizeof *o, cmp_ord);
  size_t ns = 0;
  for (size_t k = 0; k < nb; k++)
    if (!k || o[k].step != o[k - 1].step) ns++;
  r->steps = fa_calloc(a, ns * sizeof(bw_step));
  if (!r->steps) goto oom;
  r->nsteps = ns;
  sets = fa_malloc(a, nb * L__N * sizeof(pat_set));
  buf = bufn ? fa_malloc(a, bufn * sizeof(iv)) : NULL;
  scratch = scn ? fa_malloc(a, scn * sizeof(iv)) : NULL;
  state = fa_malloc(a, (size_t)pat.nrules * nb * sizeof(int8_t));
  meas = fa_malloc(a, (size_t)pat.nrules * nb * sizeof(int64_t));
  if (!sets || (bufn && !buf) || (scn && !scratch) || !state || !meas) goto oom;
  /* sets of every backward instance, in backward order */
  size_t used = 0;
  for (size_t k = 0; k < nb; k++) {
    const fm_inst *in = &m->insts[o[k].inst];
    r->units[k].inst = o[k].inst;
    static const int KIND[L_P] = {FM_AG, FM_COMPUTE, FM_RS};
    sets[k * L__N + L_P] = (pat_set){m->compute_all, m->ncompute_all};
    for (int l = 0; l < L_P; l++) {
      size_t n = fm_inst_set(m, in, KIND[l], buf + used);
      sets[k * L__N + (size_t)l] = (pat_set){buf + used, n};
      used += n;
    }
  }
  size_t nboth = m->ncomm_all ? iv_intersect(m->comm_all, m->ncomm_all, m->compute_all,
                                             m->ncompute_all, scratch)
                               : 0;
  size_t si = 0;
  int votes[4] = {0, 0, 0, 0};
  double ser_pct = (double)c->params[P_OVERLAP_SERIALIZED_PPM] / 1e4;
  for (size_t k = 0; k < nb;) {
    size_t e = k;
    while (e < nb && o[e].step == o[k].step) e++;
    size_t n = e - k;
    bw_step *bs = &r->steps[si++];
    bs->step = o[k].step;
    bs->u0 = k;
    bs->nu = n;
    bs->s = INT64_MAX;
    bs->e = INT64_MIN;
    for (size_t u = k; u < e; u++) {
      const fm_inst *in = &m->insts[o[u].inst];
      for (size_t p = in->p[0]; p < in->p[FM__KINDS]; p++) {
        if (m->pieces[p].s < bs->s) bs->s = m->pieces[p].s;
        if (m->pieces[p].e > bs->e) bs->e = m->pieces[p].e;
      }
    }
    pattern_eval(&pat, sets + k * L__N, n, L__N, state, meas);
    for (size_t u = 0; u < n; u++) {
      bw_unit *bu = &r->units[k + u];
      bu->prefetched = PAT_NA;
      bu->idle = FSDPA_ABSENT;
      bu->rs_hidden = state[(size_t)r_rs * n + u];
      if (bu->rs_hidden == PAT_HOLDS) bs->rs_hidden++;
    }
    /* link i -> i+1 belongs to unit i+1 (the one whose gather it judges) */
    for (size_t u = 0; u + 1 < n; u++) {
      int sp = state[(size_t)r_pref * n + u];
      int sc = state[(size_t)r_conc * n + u + 1];
      if (sp == PAT_HOLDS && sc != PAT_HOLDS) sp = sc == PAT_NA ? PAT_NA : PAT_BROKEN;
      bw_unit *nx = &r->units[k + u + 1];
      nx->prefetched = sp;
      if (sp == PAT_NA) continue;
      bs->links++;
      if (sp == PAT_HOLDS) {
        bs->prefetched++;
        nx->idle = 0;
        continue;
      }
      /* C[i] exists (the rule needed it); the next unit may have no compute
       * of its own (all of it launched elsewhere): then nothing waits */
      const pat_set *c0 = &sets[(k + u) * L__N + L_C], *c1 = &sets[(k + u + 1) * L__N + L_C];
      int64_t gs = c0->v[c0->n - 1].e, ge = c1->n ? c1->v[0].s : gs;
      nx->gap = (iv){gs, ge};
      nx->idle = idle_in(m, gs, ge);
      bs->idle = sat_add(bs->idle, nx->idle);
    }
    bs->overlap_pct = step_overlap(m, bs->step, scratch, nboth);
    if (!bs->links) bs->pattern = FSDPA_BWD_UNKNOWN;
    else if (bs->prefetched == bs->links) bs->pattern = FSDPA_BWD_ZIGZAG;
    else if (!bs->prefetched && !bs->rs_hidden && bs->overlap_pct < ser_pct)
      bs->pattern = FSDPA_BWD_SERIALIZED;
    else bs->pattern = FSDPA_BWD_NO_PREFETCH;
    votes[bs->pattern]++;
    k = e;
  }
  r->pattern = FSDPA_BWD_UNKNOWN;
  int best = 0;
  for (int p = 1; p < 4; p++) {
    if (votes[p] > best) {
      best = votes[p];
      r->pattern = p;
    } else if (votes[p] == best && best > 0) {
      r->pattern = worse(r->pattern, p);
    }
  }
  fa_free(a, o, nb * sizeof(ord));
  fa_free(a, sets, nb * L__N * sizeof(pat_set));
  fa_free(a, buf, bufn * sizeof(iv));
  fa_free(a, scratch, scn * sizeof(iv));
  fa_free(a, state, (size_t)pat.nrules * nb * sizeof(int8_t));
  fa_free(a, meas, (size_t)pat.nrules * nb * sizeof(int64_t));
  return FSDPA_OK;
oom:
  st = fa_fail_status(a);
  fa_free(a, o, nb * sizeof(ord));
  fa_free(a, sets, nb * L__N * sizeof(pat_set));
  fa_free(a, buf, bufn * sizeof(iv));
  fa_free(a, scratch, scn * sizeof(iv));
  fa_free(a, state, (size_t)pat.nrules * nb * sizeof(int8_t));
  fa_free(a, meas, (size_t)pat.nrules * nb * sizeof(int64_t));
  bw_free(r);
  return st;
}

static fsdpa_status bw_build(fsdpa_ctx *c, void *obj, const void *arg) {
  (void)arg;
  return bw_analyze_new(c, obj);
}

static void bw_cache_free(fsdpa_ctx *c, void *obj) {
  bw_free(obj);
  fa_free(&c->alloc, obj, sizeof(bw_result));
}

fsdpa_status bw_analyze(fsdpa_ctx *c, bw_result *r) {
  memset(r, 0, sizeof *r);
  /* the cached result's model is a view of CACHE_FSDP_MODEL, which is valid
   * exactly as long as this slot */
  const void *k;
  fsdpa_status st = ctx_cache_obtain(c, CACHE_BACKWARD, sizeof *r, bw_build, NULL, bw_cache_free, &k);
  if (st) return st;
  *r = *(const bw_result *)k;
  r->borrowed = 1;
  return FSDPA_OK;
}

fsdpa_status bw_aggregate(const bw_result *r, bw_agg **out) {
  const fsdp_model *m = &r->m;
  *out = NULL;
  if (!m->nunits) return FSDPA_OK;
  bw_agg *g = fa_calloc(m->a, m->nunits * sizeof(bw_agg));
  if (!g) return fa_fail_status(m->a);
  for (size_t u = 0; u < m->nunits; u++) g[u].prefetched = PAT_NA;
  for (size_t k = 0; k < r->nunits; k++) {
    const bw_unit *bu = &r->units[k];
    bw_agg *x = &g[m->insts[bu->inst].unit];
    x->seen = 1;
    if (bu->prefetched == PAT_HOLDS && x->prefetched == PAT_NA) x->prefetched = PAT_HOLDS;
    if (bu->prefetched == PAT_BROKEN) {
      x->prefetched = PAT_BROKEN;
      x->broken++;
      x->idle = sat_add(x->idle, bu->idle);
      if (bu->idle > x->worst_idle) x->worst_idle = bu->idle;
    }
  }
  *out = g;
  return FSDPA_OK;
}

void bw_summary(const bw_result *r, const bw_agg *g, fsdpa_backward *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->pattern = (fsdpa_backward_pattern)r->pattern;
  o->steps = r->nsteps;
  for (size_t u = 0; g && u < r->m.nunits; u++) {
    o->units += g[u].seen != 0;
    o->prefetched_units += g[u].prefetched == PAT_HOLDS;
  }
  for (size_t k = 0; k < r->nsteps; k++) {
    o->links += r->steps[k].links;
    o->broken_links += r->steps[k].links - r->steps[k].prefetched;
    o->idle_ns += r->steps[k].idle;
  }
}

int64_t bw_step_number(const fsdp_model *m, int32_t k) {
  return k >= 0 && (size_t)k < m->nsteps ? m->steps[k].number : FSDPA_ABSENT;
}

void bw_step_public(fsdpa_ctx *c, const bw_result *r, const bw_step *bs, fsdpa_backward_step *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->step = bw_step_number(&r->m, bs->step);
  o->pattern = (fsdpa_backward_pattern)bs->pattern;
  o->units = bs->nu;
  o->links = bs->links;
  o->prefetched_links = bs->prefetched;
  o->rs_hidden_links = bs->rs_hidden;
  o->idle_ns = bs->idle;
  o->start_ns = bs->s <= bs->e ? ctx_abs(c, bs->s) : FSDPA_ABSENT;
  o->end_ns = bs->s <= bs->e ? ctx_abs(c, bs->e) : FSDPA_ABSENT;
  o->overlap_pct = bs->overlap_pct;
}

/* Span and stream of one kind of an instance's kernels. */
static void kind_span(fsdpa_ctx *c, const fsdp_model *m, const fm_inst *in, int kind, int64_t *s,
                      int64_t *e, int64_t *stream) {
  *s = *e = *stream = FSDPA_ABSENT;
  if (in->p[kind] == in->p[kind + 1]) return;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t p = in->p[kind]; p < in->p[kind + 1]; p++) {
    if (m->pieces[p].s < lo) lo = m->pieces[p].s;
    if (m->pieces[p].e > hi) hi = m->pieces[p].e;
  }
  *s = ctx_abs(c, lo);
  *e = ctx_abs(c, hi);
  const ev_rec *k = STORE_REC(&c->st.gpu, m->pieces[in->p[kind]].gpu);
  *stream = store_track(&c->st, k->track)->tid;
}

void bw_unit_public(fsdpa_ctx *c, const bw_result *r, size_t k, uint32_t pos,
                    fsdpa_backward_unit *o) {
  const fsdp_model *m = &r->m;
  const bw_unit *bu = &r->units[k];
  const fm_inst *in = &m->insts[bu->inst];
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  fm_unit_name(m, in->unit, o->name, sizeof o->name);
  o->name_len = fsdp_unit_name_len(m, in->unit, o->name);
  o->position = pos;
  o->prefetched = bu->prefetched;
  o->rs_hidden = bu->rs_hidden;
  o->idle_ns = bu->idle;
  kind_span(c, m, in, FM_AG, &o->ag_start_ns, &o->ag_end_ns, &o->ag_stream);
  kind_span(c, m, in, FM_COMPUTE, &o->compute_start_ns, &o->compute_end_ns, &o->compute_stream);
  kind_span(c, m, in, FM_RS, &o->rs_start_ns, &o->rs_end_ns, &o->rs_stream);
}
