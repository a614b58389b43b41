/* The job section: a row per rank (step time, GPU busy, idle by cause,
 * exposed communication, its top finding) and the findings grouped by id
 * across ranks, read from the ranks' sections as written and from the
 * sorted findings (report_job.h). */
#include "report/report_job.h"
#include "util/jdoc.h"
#include "util/sort.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOB_CAUSES 16

typedef struct job_cause {
  char name[48];  /* the idle_causes key without "_ns" */
  int64_t ns;
} job_cause;

typedef struct job_row {
  int64_t rank;
  uint64_t iterations;
  char source[40];
  int64_t step_mean, step_min, step_max;  /* over the iterations, ABSENT without */
  int64_t span, busy, idle, exposed;
  double busy_share;                      /* < 0: unknown */
  job_cause causes[JOB_CAUSES];
  int ncauses;
  uint64_t nfind;
  int64_t cost_sum;                       /* Σ cost_ns of the rank's findings */
  int symptoms;                           /* findings that name a cause */
  size_t top;                             /* index of its first finding in the report, SIZE_MAX: none */
} job_row;

static void copy_str(char *dst, size_t cap, const char *s) {
  snprintf(dst, cap, "%s", s ? s : "");
}

/* The row's numbers from the rank's section text. */
static fsdpa_status row_read(fa_alloc *a, const rank_text *t, job_row *r) {
  memset(r, 0, sizeof *r);
  r->rank = r->step_mean = r->step_min = r->step_max = FSDPA_ABSENT;
  r->span = r->busy = r->idle = r->exposed = FSDPA_ABSENT;
  r->busy_share = -1;
  r->top = SIZE_MAX;
  /* a section spliced after its array's separator */
  size_t k = 0;
  while (k < t->len && (t->p[k] == ',' || t->p[k] == ' ' || t->p[k] == '\n')) k++;
  jdoc d;
  char msg[96];
  int st = jdc_parse(a, t->p + k, t->len - k, &d, msg, sizeof msg);
  if (st) {
    jdc_free(&d);
    return (fsdpa_status)st;
  }
  const jdc_node *s = jdc_root(&d);
  r->rank = jdc_get_i64(&d, s, "rank", FSDPA_ABSENT);
  const jdc_node *it = jdc_get(&d, s, "iterations");
  copy_str(r->source, sizeof r->source, jdc_get_str(&d, it, "source", "none"));
  const jdc_node *ranges = jdc_get(&d, it, "ranges");
  int64_t sum = 0;
  for (const jdc_node *x = jdc_first(&d, ranges); x; x = jdc_next(&d, x)) {
    int64_t dur = jdc_get_i64(&d, x, "dur_ns", FSDPA_ABSENT);
    if (dur == FSDPA_ABSENT || dur < 0) continue;
    r->iterations++;
    if (__builtin_add_overflow(sum, dur, &sum)) sum = INT64_MAX;
    if (r->step_min == FSDPA_ABSENT || dur < r->step_min) r->step_min = dur;
    if (r->step_max == FSDPA_ABSENT || dur > r->step_max) r->step_max = dur;
  }
  if (r->iterations) r->step_mean = sum / (int64_t)r->iterations;
  const jdc_node *lg = jdc_get(&d, s, "launch_gaps");
  r->span = jdc_get_i64(&d, lg, "span_ns", FSDPA_ABSENT);
  r->busy = jdc_get_i64(&d, lg, "busy_ns", FSDPA_ABSENT);
  if (r->span > 0 && r->busy != FSDPA_ABSENT) r->busy_share = (double)r->busy / (double)r->span;
  const jdc_node *ic = jdc_get(&d, lg, "idle_causes");
  r->idle = jdc_get_i64(&d, ic, "idle_ns", FSDPA_ABSENT);
  if (r->idle == FSDPA_ABSENT) r->idle = jdc_get_i64(&d, lg, "gpu_idle_ns", FSDPA_ABSENT);
  /* every cause the section names, in its order: "<cause>_ns" */
  for (const jdc_node *x = jdc_first(&d, ic); x && r->ncauses < JOB_CAUSES; x = jdc_next(&d, x)) {
    size_t kl = x->key_len;
    if (kl < 4 || strcmp(x->key + kl - 3, "_ns") || !strcmp(x->key, "idle_ns") || x->type != JDC_NUM) continue;
    if (kl - 3 >= sizeof r->causes[0].name) continue;
    job_cause *c = &r->causes[r->ncauses++];
    memcpy(c->name, x->key, kl - 3);
    c->name[kl - 3] = 0;
    c->ns = jdc_i64(x, 0);
  }
  r->exposed = jdc_i64(jdc_path(&d, s, "overlap.exposed_comm_ns"), FSDPA_ABSENT);
  jdc_free(&d);
  return FSDPA_OK;
}

/* ---- findings grouped by id ---- */

typedef struct job_member {
  int64_t rank;
  int64_t cost, bytes;  /* the rank's Σ over the group's findings; bytes ABSENT if none has them */
} job_member;

typedef struct job_group {
  const char *id;
  int severity;
  char explained_by[64];  /* "" unless every finding of the group names the same cause */
  int mixed_cause;
  job_member *m;          /* one per rank, in rank order of first appearance, then sorted */
  size_t nm, mcap;
  int64_t worst;          /* the worst rank's cost (or bytes for a memory finding) */
  int64_t worst_rank;
  int by_bytes;
  int emitted;
} job_group;

static int64_t add_sat(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

static job_member *member_of(fa_alloc *a, job_group *g, int64_t rank) {
  for (size_t i = 0; i < g->nm; i++)
    if (g->m[i].rank == rank) return &g->m[i];
  if (g->nm == g->mcap) {
    size_t nc = g->mcap ? g->mcap * 2 : 8;
    job_member *nv = fa_realloc(a, g->m, g->mcap * sizeof *nv, nc * sizeof *nv);
    if (!nv) return NULL;
    g->m = nv;
    g->mcap = nc;
  }
  g->m[g->nm] = (job_member){rank, 0, FSDPA_ABSENT};
  return &g->m[g->nm++];
}

static int64_t member_key(const job_group *g, const job_member *m) {
  return g->by_bytes ? (m->bytes == FSDPA_ABSENT ? 0 : m->bytes) : m->cost;
}

/* worst first: the larger cost (bytes for a memory finding), then the lower
 * rank (one member per rank: a total order) */
#define MB_BYTES(m) ((m)->bytes == FSDPA_ABSENT ? 0 : (m)->bytes)
#define MB_BY_COST(a, b) ((a)->cost != (b)->cost ? (a)->cost > (b)->cost : (a)->rank < (b)->rank)
#define MB_BY_BYTES(a, b) (MB_BYTES(a) != MB_BYTES(b) ? MB_BYTES(a) > MB_BYTES(b) : (a)->rank < (b)->rank)
FA_SORT_DEFINE(sort_by_cost, job_member, MB_BY_COST)
FA_SORT_DEFINE(sort_by_bytes, job_member, MB_BY_BYTES)
#define I64_LESS(a, b) (*(a) < *(b))
FA_SORT_DEFINE(sort_i64s, int64_t, I64_LESS)

/* A writer's own allocation failed: the section would be wrong, so the
 * failure is the writer's (sticky, like its buffer's). */
static void fail(jsonw *w, fa_alloc *a) {
  if (!w->b->failed) w->b->failed = fa_fail_status(a);
}

/* Groups worst first: severity, then the worst rank's cost, then id. */
static int group_before(const job_group *a, const job_group *b) {
  if (a->severity != b->severity) return a->severity > b->severity;
  if (a->by_bytes != b->by_bytes) return !a->by_bytes;
  if (a->worst != b->worst) return a->worst > b->worst;
  return strcmp(a->id, b->id) < 0;
}

static const char *sev_name(int s) { return s == SEV_CRITICAL ? "critical" : s == SEV_WARNING ? "warning" : "info"; }

/* min, lower median, max and total of the members' costs (or bytes) */
static void cost_stats(fa_alloc *a, const job_group *g, int bytes, jsonw *w) {
  int64_t *v = fa_malloc(a, (g->nm ? g->nm : 1) * sizeof *v);
  if (!v) {
    fail(w, a);
    return;
  }
  int64_t total = 0;
  size_t n = 0;
  for (size_t i = 0; i < g->nm; i++) {
    int64_t x = bytes ? g->m[i].bytes : g->m[i].cost;
    if (x == FSDPA_ABSENT) continue;
    v[n++] = x;
    total = add_sat(total, x);
  }
  jw_obj(w);
  if (n) {
    sort_i64s(v, n);
    jw_ki64(w, "min", v[0]);
    jw_ki64(w, "median", v[(n - 1) / 2]);
    jw_ki64(w, "max", v[n - 1]);
  } else {
    jw_knull(w, "min");
    jw_knull(w, "median");
    jw_knull(w, "max");
  }
  jw_ki64(w, "total", n ? total : FSDPA_ABSENT);
  jw_obj_end(w);
  fa_free(a, v, (g->nm ? g->nm : 1) * sizeof *v);
}

static void group_json(fa_alloc *a, const job_group *g, const findings *all, size_t nranks, int nested,
                       jsonw *w) {
  jw_obj(w);
  jw_kstr(w, "id", g->id);
  jw_kstr(w, "severity", sev_name(g->severity));
  jw_key(w, "ranks");
  jw_arr(w);
  int64_t *rk = fa_malloc(a, (g->nm ? g->nm : 1) * sizeof *rk);
  if (!rk) fail(w, a);
  for (size_t i = 0; rk && i < g->nm; i++) rk[i] = g->m[i].rank;
  if (rk) sort_i64s(rk, g->nm);
  for (size_t i = 0; rk && i < g->nm; i++) jw_i64(w, rk[i]);
  fa_free(a, rk, (g->nm ? g->nm : 1) * sizeof *rk);
  jw_arr_end(w);
  jw_ku64(w, "ranks_affected", g->nm);
  jw_ku64(w, "ranks_in_job", nranks);
  jw_key(w, "cost_ns");
  cost_stats(a, g, 0, w);
  if (g->by_bytes) {
    jw_key(w, "cost_bytes");
    cost_stats(a, g, 1, w);
  }
  jw_ki64(w, "worst_rank", g->worst_rank);
  jw_key(w, "explained_by");
  if (nested) jw_str(w, g->explained_by);
  else jw_null(w);
  /* the report's findings of the group: the worst rank's first */
  jw_key(w, "findings");
  jw_arr(w);
  for (size_t k = 0; k < g->nm; k++)
    for (size_t i = 0; i < all->n; i++)
      if (all->v[i].rank == g->m[k].rank && !strcmp(all->v[i].id, g->id)) jw_u64(w, i);
  jw_arr_end(w);
  jw_obj_end(w);
}

static int group_has(const job_group *g, size_t ng, const char *id) {
  for (size_t i = 0; i < ng; i++)
    if (!strcmp(g[i].id, id)) return 1;
  return 0;
}

/* Emit the not yet emitted groups whose cause is `cause` ("" = the top
 * level), worst first, each followed by its own symptoms. */
static void emit_groups(fa_alloc *a, job_group *g, size_t ng, const char *cause, const findings *all,
                        size_t nranks, int depth, jsonw *w) {
  for (;;) {
    job_group *best = NULL;
    for (size_t i = 0; i < ng; i++) {
      job_group *x = &g[i];
      if (x->emitted) continue;
      int nested = x->explained_by[0] && group_has(g, ng, x->explained_by) && depth < 4;
      if (cause[0] ? !(nested && !strcmp(x->explained_by, cause)) : nested) continue;
      if (!best || group_before(x, best)) best = x;
    }
    if (!best) return;
    best->emitted = 1;
    group_json(a, best, all, nranks, cause[0] != 0, w);
    emit_groups(a, g, ng, best->id, all, nranks, depth + 1, w);
  }
}

static fsdpa_status groups_build(fa_alloc *a, const findings *all, job_group **out, size_t *nout, size_t *ncap) {
  job_group *g = NULL;
  size_t ng = 0, cap = 0;
  *out = NULL;
  *nout = *ncap = 0;
  for (size_t i = 0; i < all->n; i++) {
    const finding *x = &all->v[i];
    job_group *t = NULL;
    for (size_t k = 0; k < ng && !t; k++)
      if (!strcmp(g[k].id, x->id)) t = &g[k];
    char cause[64] = "";
    finding_explained_by(x, cause, sizeof cause);
    if (!t) {
      if (ng == cap) {
        size_t nc = cap ? cap * 2 : 8;
        job_group *nv = fa_realloc(a, g, cap * sizeof *nv, nc * sizeof *nv);
        if (!nv) goto oom;
        g = nv;
        cap = nc;
      }
      t = &g[ng++];
      memset(t, 0, sizeof *t);
      t->id = x->id;
      copy_str(t->explained_by, sizeof t->explained_by, cause);
    } else if (strcmp(t->explained_by, cause)) {
      t->mixed_cause = 1;
    }
    if (x->severity > t->severity) t->severity = x->severity;
    job_member *m = member_of(a, t, x->rank);
    if (!m) goto oom;
    m->cost = add_sat(m->cost, x->cost_ns);
    if (x->cost_bytes != FSDPA_ABSENT) {
      m->bytes = m->bytes == FSDPA_ABSENT ? x->cost_bytes : add_sat(m->bytes, x->cost_bytes);
      t->by_bytes = 1;
    }
  }
  for (size_t k = 0; k < ng; k++) {
    job_group *t = &g[k];
    /* a group is a symptom only where every one of its findings names the
     * same cause */
    if (t->mixed_cause) t->explained_by[0] = 0;
    if (t->by_bytes) sort_by_bytes(t->m, t->nm);
    else sort_by_cost(t->m, t->nm);
    t->worst_rank = t->m[0].rank;
    t->worst = member_key(t, &t->m[0]);
  }
  *out = g;
  *nout = ng;
  *ncap = cap;
  return FSDPA_OK;
oom:
  for (size_t k = 0; k < ng; k++) fa_free(a, g[k].m, g[k].mcap * sizeof *g[k].m);
  fa_free(a, g, cap * sizeof *g);
  return fa_fail_status(a);
}

static void groups_free(fa_alloc *a, job_group *g, size_t ng, size_t cap) {
  for (size_t k = 0; k < ng; k++) fa_free(a, g[k].m, g[k].mcap * sizeof *g[k].m);
  fa_free(a, g, cap * sizeof *g);
}

static void row_json(const job_row *r, const findings *all, jsonw *w) {
  jw_obj(w);
  jw_ki64(w, "rank", r->rank);
  jw_ku64(w, "iterations", r->iterations);
  jw_kstr(w, "iterations_from", r->source);
  jw_ki64(w, "step_time_ns", r->step_mean);
  jw_ki64(w, "step_min_ns", r->step_min);
  jw_ki64(w, "step_max_ns", r->step_max);
  jw_ki64(w, "span_ns", r->span);
  jw_ki64(w, "busy_ns", r->busy);
  jw_kratio(w, "busy_share", r->busy_share);
  jw_ki64(w, "idle_ns", r->idle);
  jw_key(w, "idle_causes");
  jw_obj(w);
  for (int k = 0; k < r->ncauses; k++) {
    char key[64];
    snprintf(key, sizeof key, "%s_ns", r->causes[k].name);
    jw_ki64(w, key, r->causes[k].ns);
  }
  jw_obj_end(w);
  jw_ki64(w, "exposed_comm_ns", r->exposed);
  jw_ku64(w, "findings", r->nfind);
  jw_ki64(w, "findings_cost_ns", r->cost_sum);
  jw_key(w, "costs_overlap");
  jw_bool(w, r->symptoms > 0 || (r->span != FSDPA_ABSENT && r->cost_sum > r->span));
  jw_key(w, "top_finding");
  if (r->top == SIZE_MAX) {
    jw_null(w);
  } else {
    const finding *x = &all->v[r->top];
    jw_obj(w);
    jw_ku64(w, "index", r->top);
    jw_kstr(w, "id", x->id);
    jw_kstr(w, "severity", sev_name(x->severity));
    jw_ki64(w, "cost_ns", x->cost_ns);
    jw_obj_end(w);
  }
  jw_obj_end(w);
}

/* The rows, read from the sections before anything else is written (the
 * sections may live in the buffer the report is written into). */
static fsdpa_status rows_read(fa_alloc *a, const rank_text *ranks, size_t n, const findings *all, job_row **out) {
  job_row *rows = fa_malloc(a, (n ? n : 1) * sizeof *rows);
  *out = rows;
  if (!rows) return fa_fail_status(a);
  fsdpa_status st = FSDPA_OK;
  for (size_t i = 0; i < n && !st; i++) st = row_read(a, &ranks[i], &rows[i]);
  for (size_t f = 0; f < all->n && !st; f++) {
    const finding *x = &all->v[f];
    for (size_t i = 0; i < n; i++) {
      if (rows[i].rank != x->rank) continue;
      char cause[64];
      rows[i].nfind++;
      rows[i].cost_sum = add_sat(rows[i].cost_sum, x->cost_ns);
      rows[i].symptoms += finding_explained_by(x, cause, sizeof cause);
      /* the report's order is by cost: a rank's first is its top one */
      if (rows[i].top == SIZE_MAX) rows[i].top = f;
      break;
    }
  }
  return st;
}

static fsdpa_status job_json(fa_alloc *a, const job_row *rows, size_t n, const findings *all, jsonw *w) {
  job_group *g = NULL;
  size_t ng = 0, gcap = 0;
  fsdpa_status st = groups_build(a, all, &g, &ng, &gcap);
  if (st) return st;
  jw_obj(w);
  jw_ku64(w, "ranks", n);
  jw_key(w, "per_rank");
  jw_arr(w);
  for (size_t i = 0; i < n; i++) row_json(&rows[i], all, w);
  jw_arr_end(w);
  jw_key(w, "findings");
  jw_arr(w);
  emit_groups(a, g, ng, "", all, n, 0, w);
  jw_arr_end(w);
  jw_obj_end(w);
  groups_free(a, g, ng, gcap);
  return FSDPA_OK;
}

fsdpa_status report_tail_json(fa_alloc *a, const rank_text *ranks, size_t n, const xr_result *xr,
                              const findings *all, jsonw *w) {
  job_row *rows = NULL;
  fsdpa_status st = rows_read(a, ranks, n, all, &rows);
  if (!st) {
    jw_key(w, "cross_rank");
    crossrank_json(xr, w);
    jw_key(w, "findings");
    findings_write_json(all, w);
    jw_key(w, "not_judged");
    st = not_judged_write_json(all, w);
  }
  if (!st) {
    jw_key(w, "job");
    st = job_json(a, rows, n, all, w);
  }
  fa_free(a, rows, (n ? n : 1) * sizeof *rows);
  return st;
}
