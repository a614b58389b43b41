/* Two runs side by side (docs/report-contract.md, "Diff"): each metric of
 * each matched rank and of the job (the mean of the matched ranks), the
 * tables per iteration (mean over the matched ranks), the findings by
 * (id, rank), and the gate. */
#include "diff/diff.h"
#include "util/sort.h"
#include <math.h>
#include <string.h>

const char *ds_name(int s) {
  static const char *const N[] = {"same", "worse", "better", "new", "gone"};
  return s >= 0 && s <= DS_GONE ? N[s] : "same";
}

/* ---- metrics ---- */

static void compare(const dval *b, const dval *n, int m, int64_t min_change_ppm, dcmp *c) {
  memset(c, 0, sizeof *c);
  c->b = *b;
  c->n = *n;
  if (!b->have || !n->have) {
    c->status = b->have ? DS_GONE : n->have ? DS_NEW : DS_SAME;
    return;
  }
  int ratio = dm_defs[m].unit == DU_RATIO || dm_defs[m].unit == DU_COUNT;
  double base = ratio ? b->v_f : (double)b->v_i;
  double delta = ratio ? n->v_f - b->v_f : (double)n->v_i - (double)b->v_i;
  c->have_change = base != 0;
  c->change = c->have_change ? delta / fabs(base) : 0;
  c->have_spread = b->have_spread || n->have_spread;
  c->spread_i = b->spread_i > n->spread_i ? b->spread_i : n->spread_i;
  c->spread_f = b->spread_f > n->spread_f ? b->spread_f : n->spread_f;
  double spread = ratio ? c->spread_f : (double)c->spread_i;
  c->beyond = !c->have_spread || fabs(delta) > spread;
  int big = c->have_change ? fabs(c->change) * 1e6 >= (double)min_change_ppm : delta != 0;
  if (c->beyond && big && delta != 0) c->status = (delta > 0) == dm_defs[m].lower_better ? DS_WORSE : DS_BETTER;
}

int dcmp_crossed(const dresult *r, int m, const dcmp *c) {
  if (r->fail_ppm < 0 || !dm_defs[m].gated || !c->b.have || !c->n.have || !c->beyond) return 0;
  double delta = dm_defs[m].unit == DU_RATIO || dm_defs[m].unit == DU_COUNT ? c->n.v_f - c->b.v_f
                                                                             : (double)c->n.v_i - (double)c->b.v_i;
  if (dm_defs[m].lower_better ? delta <= 0 : delta >= 0) return 0;
  return c->have_change ? fabs(c->change) * 1e6 > (double)r->fail_ppm : 1;
}

/* The job's value of a metric: the mean over the ranks that have it in
 * both runs; its spread the largest of theirs. */
static void job_metric(const dresult *r, const drank *const *rb, const drank *const *rn, int m, dval out[2]) {
  memset(out, 0, 2 * sizeof *out);
  int ratio = dm_defs[m].unit == DU_RATIO || dm_defs[m].unit == DU_COUNT;
  int64_t n = 0;
  for (size_t i = 0; i < r->nmatched; i++) {
    const dval *v[2] = {&rb[i]->m[m], &rn[i]->m[m]};
    if (!v[0]->have || !v[1]->have) continue;
    n++;
    for (int s = 0; s < 2; s++) {
      out[s].v_i += v[s]->v_i;
      out[s].v_f += v[s]->v_f;
      if (v[s]->have_spread) {
        out[s].have_spread = 1;
        if (v[s]->spread_i > out[s].spread_i) out[s].spread_i = v[s]->spread_i;
        if (v[s]->spread_f > out[s].spread_f) out[s].spread_f = v[s]->spread_f;
      }
    }
  }
  for (int s = 0; n && s < 2; s++) {
    out[s].have = 1;
    if (ratio) out[s].v_f /= (double)n;
    else out[s].v_i /= n;
  }
}

/* ---- tables ---- */

enum { T_KERNELS, T_OPS, T_COLLECTIVES, T_UNITS };

typedef struct tent {
  const char *k[3];
  uint32_t kn[3];
  uint8_t side;
  int has_flops;
  int64_t ns, aux_ns;       /* per iteration */
  double count;             /* per iteration */
  int64_t raw_ns;           /* as reported (rates) */
  double raw_count, flops;  /* flops: per call × count */
  const jdc_node *row;
} tent;

static int key_cmp(const tent *a, const tent *b) {
  for (int i = 0; i < 3; i++) {
    size_t n = a->kn[i] < b->kn[i] ? a->kn[i] : b->kn[i];
    int c = n ? memcmp(a->k[i], b->k[i], n) : 0;
    if (c) return c;
    if (a->kn[i] != b->kn[i]) return a->kn[i] < b->kn[i] ? -1 : 1;
  }
  return 0;
}
#define TENT_LESS(a, b) (key_cmp(a, b) != 0 ? key_cmp(a, b) < 0 : (a)->side < (b)->side)
FA_SORT_DEFINE(sort_tent, tent, TENT_LESS)

/* The text of a value as a key (a string decoded; null for none). */
static void raw(const jdc_node *x, const char **k, uint32_t *kn) {
  if (!x || x->type == JDC_NULL) {
    *k = "null";
    *kn = 4;
  } else if (x->type == JDC_STR) {
    *k = x->s;
    *kn = (uint32_t)x->len;
  } else {
    *k = x->raw;
    *kn = (uint32_t)x->raw_len;
  }
}

static const jdc_node *table_of(const jdoc *d, const jdc_node *rank, int t) {
  switch (t) {
    case T_KERNELS: return jdc_get(d, rank, "kernels");
    case T_OPS: return jdc_get(d, rank, "ops");
    case T_COLLECTIVES: return jdc_path(d, rank, "overlap.by_collective");
    default: return jdc_path(d, rank, "fsdp.units");
  }
}

/* One table row as an entry; 0 for the folded "(other)" rows. */
static int entry(const jdoc *d, const jdc_node *x, int t, const drank *r, int side, tent *e) {
  memset(e, 0, sizeof *e);
  e->side = (uint8_t)side;
  e->row = x;
  int64_t ns = 0, aux = 0, cnt = 0;
  switch (t) {
    case T_KERNELS: {
      const jdc_node *name = jdc_get(d, x, "name");
      if (!name || name->type != JDC_STR) return 0;
      raw(name, &e->k[0], &e->kn[0]);
      jdc_to_i64(jdc_get(d, x, "total_ns"), &ns);
      jdc_to_i64(jdc_get(d, x, "count"), &cnt);
      break;
    }
    case T_OPS: {
      const jdc_node *name = jdc_get(d, x, "name"), *g = jdc_get(d, x, "gpu_op");
      if ((!name || name->type != JDC_STR) && (!g || g->type != JDC_STR)) return 0;
      raw(name && name->type == JDC_STR ? name : g, &e->k[0], &e->kn[0]);
      raw(jdc_get(d, x, "input_dims"), &e->k[1], &e->kn[1]);
      raw(jdc_get(d, x, "input_types"), &e->k[2], &e->kn[2]);
      jdc_to_i64(jdc_get(d, x, "kernel_ns"), &ns);
      jdc_to_i64(jdc_get(d, x, "count"), &cnt);
      int64_t f;
      if (jdc_to_i64(jdc_get(d, x, "flops"), &f)) {
        e->has_flops = 1;
        e->flops = (double)f * (double)cnt;
      }
      break;
    }
    case T_COLLECTIVES:
      raw(jdc_get(d, x, "collective"), &e->k[0], &e->kn[0]);
      jdc_to_i64(jdc_get(d, x, "exposed_ns"), &ns);
      jdc_to_i64(jdc_get(d, x, "comm_ns"), &aux);
      jdc_to_i64(jdc_get(d, x, "count"), &cnt);
      break;
    default:
      raw(jdc_get(d, x, "name"), &e->k[0], &e->kn[0]);
      raw(jdc_get(d, x, "phase"), &e->k[1], &e->kn[1]);
      jdc_to_i64(jdc_get(d, x, "exposed_measured_ns"), &ns);
      jdc_to_i64(jdc_get(d, x, "comm_ns"), &aux);
      jdc_to_i64(jdc_get(d, x, "steps"), &cnt);
      break;
  }
  e->raw_ns = ns;
  e->raw_count = (double)cnt;
  e->ns = ns / r->iterations;
  e->aux_ns = aux / r->iterations;
  e->count = (double)cnt / (double)r->iterations;
  return 1;
}

static int64_t i64abs(int64_t v) { return v < 0 ? -v : v; }

/* A change of a table row counts when it is at least min_change of the
 * base and at least `floor` ns per iteration. */
static int counts(double base, double next, int64_t min_change_ppm, int64_t dns, int64_t floor) {
  if (i64abs(dns) < floor) return 0;
  if (base == 0) return next != 0;
  return fabs(next - base) / fabs(base) * 1e6 >= (double)min_change_ppm;
}

static void row_status(dtrow *w, int t, int64_t min_change_ppm, int64_t floor) {
  if (!w->present[0] || !w->present[1]) {
    w->status = w->present[0] ? DS_GONE : DS_NEW;
    return;
  }
  int64_t dns = w->ns[1] - w->ns[0];
  w->status = DS_SAME;
  if (t == T_KERNELS || (t == T_OPS && (w->rate[0] < 0 || w->rate[1] < 0))) {
    /* the time per call */
    double pc[2];
    for (int s = 0; s < 2; s++)
      pc[s] = t == T_KERNELS ? w->rate[s] : w->count[s] > 0 ? (double)w->ns[s] / w->count[s] : 0;
    if (counts(pc[0], pc[1], min_change_ppm, dns, floor)) w->status = pc[1] > pc[0] ? DS_WORSE : DS_BETTER;
  } else if (t == T_OPS) {
    if (counts(w->rate[0], w->rate[1], min_change_ppm, dns, floor)) w->status = w->rate[1] < w->rate[0] ? DS_WORSE : DS_BETTER;
  } else if (counts((double)w->ns[0], (double)w->ns[1], min_change_ppm, dns, floor)) {
    w->status = dns > 0 ? DS_WORSE : DS_BETTER;
  }
}

#define ROW_LESS(a, b)                                                                                   \
  (i64abs((a)->ns[1] - (a)->ns[0]) != i64abs((b)->ns[1] - (b)->ns[0])                                    \
       ? i64abs((a)->ns[1] - (a)->ns[0]) > i64abs((b)->ns[1] - (b)->ns[0])                               \
       : (a)->ns[0] + (a)->ns[1] > (b)->ns[0] + (b)->ns[1])
FA_SORT_DEFINE(sort_rows, dtrow, ROW_LESS)

static fsdpa_status table(fa_alloc *a, const dresult *r, const drank *const *rk[2], int t, int64_t floor,
                          dtable *out) {
  memset(out, 0, sizeof *out);
  size_t cap = 0;
  for (int s = 0; s < 2; s++)
    for (size_t i = 0; i < r->nmatched; i++) {
      const jdc_node *tb = table_of(&r->run[s]->doc, rk[s][i]->node, t);
      cap += tb && tb->type == JDC_ARR ? tb->n : 0;
    }
  if (!cap) return FSDPA_OK;
  tent *e = fa_malloc(a, cap * sizeof *e);
  if (!e) return fa_fail_status(a);
  size_t n = 0;
  for (int s = 0; s < 2; s++)
    for (size_t i = 0; i < r->nmatched; i++) {
      const jdoc *d = &r->run[s]->doc;
      for (const jdc_node *x = jdc_first(d, table_of(d, rk[s][i]->node, t)); x; x = jdc_next(d, x))
        n += entry(d, x, t, rk[s][i], s, &e[n]);
    }
  sort_tent(e, n);
  size_t groups = 0;
  for (size_t i = 0; i < n; i++) groups += !i || key_cmp(&e[i], &e[i - 1]);
  out->rows = fa_calloc(a, (groups ? groups : 1) * sizeof *out->rows);
  if (!out->rows) {
    fa_free(a, e, cap * sizeof *e);
    return fa_fail_status(a);
  }
  int64_t m = (int64_t)r->nmatched;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    dtrow *w = &out->rows[out->n++];
    double raw_ns[2] = {0, 0}, raw_count[2] = {0, 0}, flops[2] = {0, 0};
    int all_flops[2] = {1, 1};
    for (; j < n && !key_cmp(&e[j], &e[i]); j++) {
      int s = e[j].side;
      w->present[s]++;
      w->ns[s] += e[j].ns;
      w->aux_ns[s] += e[j].aux_ns;
      w->count[s] += e[j].count;
      raw_ns[s] += (double)e[j].raw_ns;
      raw_count[s] += e[j].raw_count;
      flops[s] += e[j].flops;
      all_flops[s] &= e[j].has_flops;
      if (!w->row || s == 1) w->row = e[j].row;
    }
    for (int s = 0; s < 2; s++) {
      w->ns[s] /= m;
      w->aux_ns[s] /= m;
      w->count[s] /= (double)m;
      if (t == T_KERNELS) w->rate[s] = raw_count[s] > 0 ? raw_ns[s] / raw_count[s] : -1;
      else if (t == T_OPS) w->rate[s] = all_flops[s] && raw_ns[s] > 0 ? flops[s] / raw_ns[s] / 1000.0 : -1;
      else w->rate[s] = -1;
    }
    row_status(w, t, r->min_change_ppm, floor);
    i = j;
  }
  fa_free(a, e, cap * sizeof *e);
  sort_rows(out->rows, out->n);
  return FSDPA_OK;
}

/* ---- findings ---- */

typedef struct fent {
  const char *id;
  uint32_t idn;
  int64_t rank;
  uint8_t side;
  int sev;
  int64_t cost;     /* per iteration */
  const jdc_node *f;
} fent;
static int fent_cmp(const fent *a, const fent *b) {
  size_t n = a->idn < b->idn ? a->idn : b->idn;
  int c = memcmp(a->id, b->id, n);
  if (c) return c;
  if (a->idn != b->idn) return a->idn < b->idn ? -1 : 1;
  return a->rank < b->rank ? -1 : a->rank > b->rank;
}
#define FENT_LESS(a, b) (fent_cmp(a, b) != 0 ? fent_cmp(a, b) < 0 : (a)->side < (b)->side)
FA_SORT_DEFINE(sort_fent, fent, FENT_LESS)

static int severity(const jdc_node *x) {
  return jdc_str_is(x, "critical") ? 2 : jdc_str_is(x, "warning") ? 1 : jdc_str_is(x, "info") ? 0 : -1;
}

static const drank *find_rank(const drun *run, int64_t rank) {
  size_t lo = 0, hi = run->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (run->r[mid].rank < rank) lo = mid + 1;
    else hi = mid;
  }
  return lo < run->n && run->r[lo].rank == rank ? &run->r[lo] : NULL;
}

static fsdpa_status findings(fa_alloc *a, dresult *r, int64_t floor) {
  size_t cap = 0;
  for (int s = 0; s < 2; s++) cap += r->run[s]->findings ? r->run[s]->findings->n : 0;
  if (!cap) return FSDPA_OK;
  fent *e = fa_malloc(a, cap * sizeof *e);
  if (!e) return fa_fail_status(a);
  size_t n = 0;
  for (int s = 0; s < 2; s++) {
    const jdoc *d = &r->run[s]->doc;
    for (const jdc_node *x = jdc_first(d, r->run[s]->findings); x; x = jdc_next(d, x)) {
      const jdc_node *id = jdc_get(d, x, "id");
      int64_t rank = -1, cost = 0;
      jdc_to_i64(jdc_get(d, x, "rank"), &rank);
      if (!id || id->type != JDC_STR) continue;
      /* a rank in one run only is listed as such, not as findings new or resolved */
      const drank *rk[2] = {find_rank(r->run[0], rank), find_rank(r->run[1], rank)};
      if (rank >= 0 && (!rk[0] || !rk[1])) continue;
      jdc_to_i64(jdc_get(d, x, "cost_ns"), &cost);
      fent *f = &e[n++];
      f->id = id->s;
      f->idn = (uint32_t)id->len;
      f->rank = rank;
      f->side = (uint8_t)s;
      f->sev = severity(jdc_get(d, x, "severity"));
      f->cost = rank >= 0 ? cost / rk[s]->iterations : cost;
      f->f = x;
    }
  }
  sort_fent(e, n);
  size_t groups = 0;
  for (size_t i = 0; i < n; i++) groups += !i || fent_cmp(&e[i], &e[i - 1]);
  r->finds = fa_calloc(a, (groups ? groups : 1) * sizeof *r->finds);
  if (!r->finds) {
    fa_free(a, e, cap * sizeof *e);
    return fa_fail_status(a);
  }
  for (size_t i = 0; i < n;) {
    dfind *g = &r->finds[r->nfinds++];
    g->sev[0] = g->sev[1] = -1;
    size_t j = i;
    for (; j < n && !fent_cmp(&e[j], &e[i]); j++) {
      int s = e[j].side;
      g->cost[s] += e[j].cost;
      if (e[j].sev > g->sev[s] || !g->f[s]) {
        if (e[j].sev > g->sev[s]) g->sev[s] = e[j].sev;
        g->f[s] = e[j].f;
      }
    }
    if (!g->f[0]) g->status = DS_NEW;
    else if (!g->f[1]) g->status = DS_GONE;
    else if (g->sev[1] != g->sev[0]) g->status = g->sev[1] > g->sev[0] ? DS_WORSE : DS_BETTER;
    else if (counts((double)g->cost[0], (double)g->cost[1], r->min_change_ppm, g->cost[1] - g->cost[0], floor))
      g->status = g->cost[1] > g->cost[0] ? DS_WORSE : DS_BETTER;
    else g->status = DS_SAME;
    i = j;
  }
  fa_free(a, e, cap * sizeof *e);
  return FSDPA_OK;
}

/* ---- the whole ---- */

void dresult_free(fa_alloc *a, dresult *r) {
  size_t nm = r->nmatched ? r->nmatched : 1;
  if (r->matched) fa_free(a, r->matched, r->mcap * sizeof *r->matched);
  for (int s = 0; s < 2; s++)
    if (r->only[s]) fa_free(a, r->only[s], (r->run[s]->n ? r->run[s]->n : 1) * sizeof *r->only[s]);
  if (r->ranks) fa_free(a, r->ranks, nm * DM__COUNT * sizeof *r->ranks);
  dtable *t[] = {&r->kernels, &r->ops, &r->collectives, &r->units};
  for (int i = 0; i < 4; i++)
    if (t[i]->rows) fa_free(a, t[i]->rows, (t[i]->n ? t[i]->n : 1) * sizeof *t[i]->rows);
  if (r->finds) fa_free(a, r->finds, (r->nfinds ? r->nfinds : 1) * sizeof *r->finds);
  memset(r, 0, sizeof *r);
}

fsdpa_status dresult_build(fa_alloc *a, const drun *base, const drun *next, int64_t min_change_ppm, int64_t fail_ppm,
                           dresult *r) {
  memset(r, 0, sizeof *r);
  r->run[0] = base;
  r->run[1] = next;
  r->min_change_ppm = min_change_ppm;
  r->fail_ppm = fail_ppm;
  size_t cap = base->n < next->n ? base->n : next->n;
  r->mcap = cap ? cap : 1;
  r->matched = fa_malloc(a, r->mcap * sizeof *r->matched);
  r->only[0] = fa_malloc(a, (base->n ? base->n : 1) * sizeof *r->only[0]);
  r->only[1] = fa_malloc(a, (next->n ? next->n : 1) * sizeof *r->only[1]);
  const drank **rb = fa_malloc(a, (cap ? cap : 1) * sizeof *rb), **rn = fa_malloc(a, (cap ? cap : 1) * sizeof *rn);
  fsdpa_status st = FSDPA_OK;
  if (!r->matched || !r->only[0] || !r->only[1] || !rb || !rn) {
    st = fa_fail_status(a);
    goto done;
  }
  /* both lists are sorted by rank */
  for (size_t i = 0, j = 0; i < base->n || j < next->n;) {
    if (j == next->n || (i < base->n && base->r[i].rank < next->r[j].rank)) {
      r->only[0][r->nonly[0]++] = base->r[i++].rank;
    } else if (i == base->n || next->r[j].rank < base->r[i].rank) {
      r->only[1][r->nonly[1]++] = next->r[j++].rank;
    } else {
      rb[r->nmatched] = &base->r[i++];
      rn[r->nmatched] = &next->r[j++];
      r->matched[r->nmatched] = rb[r->nmatched]->rank;
      r->nmatched++;
    }
  }
  r->ranks = fa_calloc(a, (r->nmatched ? r->nmatched : 1) * DM__COUNT * sizeof *r->ranks);
  if (!r->ranks) {
    st = fa_fail_status(a);
    goto done;
  }
  for (size_t i = 0; i < r->nmatched; i++)
    for (int m = 0; m < DM__COUNT; m++) compare(&rb[i]->m[m], &rn[i]->m[m], m, min_change_ppm, &r->ranks[i * DM__COUNT + m]);
  for (int m = 0; m < DM__COUNT; m++) {
    dval v[2];
    job_metric(r, rb, rn, m, v);
    compare(&v[0], &v[1], m, min_change_ppm, &r->job[m]);
    if (dcmp_crossed(r, m, &r->job[m])) r->regressed = 1;
  }
  /* rows below a thousandth of the base step time are not called changed */
  int64_t floor = r->job[DM_STEP_TIME].b.have ? r->job[DM_STEP_TIME].b.v_i / 1000 : 0;
  const drank *const *rk[2] = {rb, rn};
  if (r->nmatched) {
    if ((st = table(a, r, rk, T_KERNELS, floor, &r->kernels))) goto done;
    if ((st = table(a, r, rk, T_OPS, floor, &r->ops))) goto done;
    if ((st = table(a, r, rk, T_COLLECTIVES, floor, &r->collectives))) goto done;
    if ((st = table(a, r, rk, T_UNITS, floor, &r->units))) goto done;
  }
  st = findings(a, r, floor);
done:
  if (rb) fa_free(a, rb, (cap ? cap : 1) * sizeof *rb);
  if (rn) fa_free(a, rn, (cap ? cap : 1) * sizeof *rn);
  if (st) dresult_free(a, r);
  return st;
}
