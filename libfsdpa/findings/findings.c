#include "findings/findings.h"
#include "fsdpa/fsdpa.h"
#include "util/jsonr.h"
#include <stdlib.h>
#include <string.h>

void findings_init(findings *f, fa_alloc *a) { memset(f, 0, sizeof *f); f->a = a; }

static void finding_free(fa_alloc *a, finding *x) {
  fa_free(a, x->title, x->title_n);
  fa_free(a, x->detail, x->detail_n);
  fa_free(a, x->advice, x->advice_n);
  fa_free(a, x->evidence, x->evidence_n);
  fa_free(a, x->more, x->more_cap * sizeof(iv));
}

static void nj_free(fa_alloc *a, not_judged *x) {
  fa_free(a, x->reason, x->reason_n);
  fa_free(a, x->would, x->would_n);
  fa_free(a, x->rule_own, x->rule_n);
}

void findings_free(findings *f) {
  for (size_t i = 0; i < f->n; i++) finding_free(f->a, &f->v[i]);
  fa_free(f->a, f->v, f->cap * sizeof(finding));
  for (size_t i = 0; i < f->nnj; i++) nj_free(f->a, &f->nj[i]);
  fa_free(f->a, f->nj, f->njcap * sizeof(not_judged));
  f->v = NULL;
  f->n = f->cap = 0;
  f->nj = NULL;
  f->nnj = f->njcap = 0;
}

static char *dup(fa_alloc *a, const char *s, size_t *n) {
  if (!s) s = "";
  *n = strlen(s) + 1;
  char *p = fa_malloc(a, *n);
  if (p) memcpy(p, s, *n);
  return p;
}

/* A memory finding states its cost in bytes in its evidence ("cost_bytes"),
 * and a finding whose fix was replayed its saving ("saving_ns" over
 * "saving_window_ns"); read from there, never passed apart, so the
 * summaries, which carry the evidence, rebuild the same finding. */
static void evidence_numbers(const char *ev, finding *x) {
  static const char *const K[3] = {"cost_bytes", "saving_ns", "saving_window_ns"};
  int64_t *out[3] = {&x->cost_bytes, &x->saving_ns, &x->saving_window_ns};
  int64_t v[3] = {FSDPA_ABSENT, FSDPA_ABSENT, FSDPA_ABSENT};
  for (int j = 0; j < 3; j++) *out[j] = FSDPA_ABSENT;
  jr r;
  jr_init(&r, ev, strlen(ev));
  size_t i = 0;
  const char *k, *b, *e;
  size_t kn;
  if (!jr_obj_begin(&r)) return;
  while (jr_obj_next(&r, &i, &k, &kn)) {
    int hit = -1;
    for (int j = 0; j < 3; j++)
      if (jr_key_is(k, kn, K[j])) hit = j;
    if (hit >= 0 && jr_peek(&r) != 'n') {
      if (!jr_i64(&r, &v[hit], FSDPA_ABSENT)) return;
    } else if (!jr_skip(&r, &b, &e)) {
      return;
    }
  }
  if (!jr_ok(&r)) return;
  if (v[0] >= 0) x->cost_bytes = v[0];
  /* a saving needs the window it was measured over */
  if (v[1] != FSDPA_ABSENT && v[2] > 0) {
    x->saving_ns = v[1];
    x->saving_window_ns = v[2];
  }
}

finding *findings_add(findings *f, const char *id, int severity, int64_t rank, int64_t step,
                      int64_t cost_ns, const char *title, const char *detail, const char *advice,
                      const char *evidence_json) {
  if (f->failed) return NULL;
  if (f->n == f->cap) {
    size_t nc = f->cap ? f->cap * 2 : 16;
    finding *nv = fa_realloc(f->a, f->v, f->cap * sizeof(finding), nc * sizeof(finding));
    if (!nv) { f->failed = fa_fail_status(f->a); return NULL; }
    f->v = nv;
    f->cap = nc;
  }
  finding x;
  memset(&x, 0, sizeof x);
  x.id = id;
  x.severity = severity;
  x.rank = rank;
  x.step = step;
  x.cost_ns = cost_ns < 0 ? 0 : cost_ns;
  x.title = dup(f->a, title, &x.title_n);
  x.detail = dup(f->a, detail, &x.detail_n);
  x.advice = dup(f->a, advice, &x.advice_n);
  x.evidence = dup(f->a, evidence_json && *evidence_json ? evidence_json : "{}", &x.evidence_n);
  if (!x.title || !x.detail || !x.advice || !x.evidence) {
    finding_free(f->a, &x);
    f->failed = fa_fail_status(f->a);
    return NULL;
  }
  evidence_numbers(x.evidence, &x);
  x.a = f->a;
  f->v[f->n] = x;
  return &f->v[f->n++];
}

int findings_append(findings *dst, const findings *src) {
  for (size_t i = 0; i < src->n; i++) {
    const finding *x = &src->v[i];
    finding *y = findings_add(dst, x->id, x->severity, x->rank, x->step, x->cost_ns, x->title,
                              x->detail, x->advice, x->evidence);
    if (!y) return dst->failed;
    if (x->failed && !dst->failed) dst->failed = x->failed;
    memcpy(y->ranges, x->ranges, sizeof y->ranges);
    y->nranges = x->nranges;
    for (size_t k = 0; k < x->nmore; k++) finding_add_range(y, x->more[k].s, x->more[k].e);
    y->ranges_total = x->ranges_total;
  }
  for (size_t i = 0; i < src->nnj; i++) {
    const not_judged *x = &src->nj[i];
    findings_not_judged(dst, x->rule, x->rank, x->reason, x->would);
  }
  return dst->failed;
}

void findings_not_judged(findings *f, const char *rule, int64_t rank, const char *reason, const char *would) {
  if (f->failed) return;
  for (size_t i = 0; i < f->nnj; i++)
    if (f->nj[i].rank == rank && !strcmp(f->nj[i].rule, rule) && !strcmp(f->nj[i].reason, reason)) return;
  if (f->nnj == f->njcap) {
    size_t nc = f->njcap ? f->njcap * 2 : 8;
    not_judged *nv = fa_realloc(f->a, f->nj, f->njcap * sizeof *nv, nc * sizeof *nv);
    if (!nv) {
      f->failed = fa_fail_status(f->a);
      return;
    }
    f->nj = nv;
    f->njcap = nc;
  }
  not_judged x;
  memset(&x, 0, sizeof x);
  x.rank = rank;
  /* the rule's id is copied: a summary's strings do not outlive the list */
  x.rule_own = dup(f->a, rule, &x.rule_n);
  x.rule = x.rule_own;
  x.reason = dup(f->a, reason, &x.reason_n);
  x.would = dup(f->a, would, &x.would_n);
  if (!x.rule_own || !x.reason || !x.would) {
    nj_free(f->a, &x);
    f->failed = fa_fail_status(f->a);
    return;
  }
  f->nj[f->nnj++] = x;
}

int findings_is_not_judged(const findings *f, const char *rule, int64_t rank) {
  for (size_t i = 0; i < f->nnj; i++)
    if (f->nj[i].rank == rank && !strcmp(f->nj[i].rule, rule)) return 1;
  return 0;
}

/* By rule, reason, would, then rank (job-level first). */
static int cmp_nj(const void *pa, const void *pb) {
  const not_judged *a = *(const not_judged *const *)pa, *b = *(const not_judged *const *)pb;
  int c = strcmp(a->rule, b->rule);
  if (!c) c = strcmp(a->reason, b->reason);
  if (!c) c = strcmp(a->would, b->would);
  if (c) return c;
  return a->rank < b->rank ? -1 : a->rank > b->rank;
}

fsdpa_status not_judged_write_json(const findings *f, jsonw *w) {
  const not_judged **o = f->nnj ? fa_malloc(f->a, f->nnj * sizeof *o) : NULL;
  if (f->nnj && !o) return fa_fail_status(f->a);
  for (size_t i = 0; i < f->nnj; i++) o[i] = &f->nj[i];
  if (f->nnj > 1) qsort(o, f->nnj, sizeof *o, cmp_nj);
  jw_arr(w);
  for (size_t i = 0; i < f->nnj;) {
    size_t j = i;
    while (j < f->nnj && !strcmp(o[j]->rule, o[i]->rule) && !strcmp(o[j]->reason, o[i]->reason) &&
           !strcmp(o[j]->would, o[i]->would))
      j++;
    jw_obj(w);
    jw_kstr(w, "rule", o[i]->rule);
    jw_key(w, "ranks");
    if (o[i]->rank == FSDPA_ABSENT) {
      jw_null(w);
    } else {
      jw_arr(w);
      for (size_t k = i; k < j; k++)
        if (o[k]->rank != FSDPA_ABSENT && (k == i || o[k]->rank != o[k - 1]->rank)) jw_i64(w, o[k]->rank);
      jw_arr_end(w);
    }
    jw_kstr(w, "reason", o[i]->reason);
    jw_kstr(w, "would_judge", o[i]->would);
    jw_obj_end(w);
    i = j;
  }
  jw_arr_end(w);
  fa_free(f->a, o, f->nnj * sizeof *o);
  return FSDPA_OK;
}

int findings_check(findings *f) {
  for (size_t i = 0; i < f->n && !f->failed; i++) f->failed = f->v[i].failed;
  return f->failed;
}

int findings_has(const findings *f, const char *id, int64_t rank) {
  for (size_t i = 0; i < f->n; i++)
    if (f->v[i].rank == rank && !strcmp(f->v[i].id, id)) return 1;
  return 0;
}

void finding_add_range(finding *x, int64_t t0, int64_t t1) {
  if (!x) return;
  x->ranges_total++;
  if (x->nranges < FINDING_MAX_RANGES) {
    x->ranges[x->nranges++] = (iv){t0, t1};
    return;
  }
  if (x->nmore == x->more_cap) {
    size_t nc = x->more_cap ? x->more_cap * 2 : 16;
    iv *nv = x->a ? fa_realloc(x->a, x->more, x->more_cap * sizeof *nv, nc * sizeof *nv) : NULL;
    /* without room: the list's next findings_check() fails */
    if (!nv) {
      if (!x->failed) x->failed = x->a ? fa_fail_status(x->a) : FSDPA_ENOMEM;
      return;
    }
    x->more = nv;
    x->more_cap = nc;
  }
  x->more[x->nmore++] = (iv){t0, t1};
}

typedef struct finding_key fkey;

static fkey key_of(const finding *x) {
  return (fkey){x->cost_ns, x->rank, x->step, x->severity, x->id, x->title, x->detail};
}

static int cmp_key(const fkey *a, const fkey *b) {
  if (a->cost_ns != b->cost_ns) return a->cost_ns > b->cost_ns ? -1 : 1;
  if (a->severity != b->severity) return a->severity > b->severity ? -1 : 1;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  if (a->step != b->step) return a->step < b->step ? -1 : 1;
  int c = strcmp(a->id, b->id);
  /* total, so the order never depends on the order findings were added in */
  if (!c) c = strcmp(a->title, b->title);
  if (!c) c = strcmp(a->detail, b->detail);
  return c;
}

/* By the anchor's place, the anchor itself first, then by their own order:
 * lexicographic on keys every finding has, so still a total order. */
static int cmp_finding(const void *pa, const void *pb) {
  const finding *a = pa, *b = pb;
  int c = cmp_key(&a->anchor, &b->anchor);
  if (c) return c;
  if (a->follows != b->follows) return a->follows - b->follows;
  fkey ka = key_of(a), kb = key_of(b);
  return cmp_key(&ka, &kb);
}

/* The id an evidence object names as the finding's cause ("explained_by"),
 * into b; 0 if none.  The evidence is our own JSON text (no escapes in ids). */
int finding_explained_by(const finding *x, char *b, size_t n) {
  static const char key[] = "\"explained_by\":\"";
  const char *p = strstr(x->evidence, key);
  if (!p) return 0;
  p += sizeof key - 1;
  size_t k = 0;
  while (p[k] && p[k] != '"' && k + 1 < n) k++;
  if (p[k] != '"' || !k) return 0;
  memcpy(b, p, k);
  b[k] = 0;
  return 1;
}

/* Σ |a's range ∩ b's range| over their evidence ranges. */
static int64_t ranges_overlap(const finding *a, const finding *b) {
  int64_t t = 0;
  for (int i = 0; i < a->nranges; i++)
    for (int j = 0; j < b->nranges; j++) {
      int64_t s = a->ranges[i].s > b->ranges[j].s ? a->ranges[i].s : b->ranges[j].s;
      int64_t e = a->ranges[i].e < b->ranges[j].e ? a->ranges[i].e : b->ranges[j].e;
      if (e > s) t += e - s;
    }
  return t;
}

/* Rank, then id: where a symptom looks up its cause. */
static int cmp_rank_id(const finding *a, int64_t rank, const char *id) {
  if (a->rank != rank) return a->rank < rank ? -1 : 1;
  return strcmp(a->id, id);
}

static int cmp_by_rank_id(const void *pa, const void *pb) {
  const finding *a = pa, *b = pb;
  int c = cmp_rank_id(a, b->rank, b->id);
  if (c) return c;
  fkey ka = key_of(a), kb = key_of(b);
  return cmp_key(&ka, &kb);
}

void findings_sort(findings *f) {
  int links = 0;
  for (size_t i = 0; i < f->n; i++) {
    f->v[i].anchor = key_of(&f->v[i]);
    f->v[i].follows = 0;
    char cause[64];
    links |= finding_explained_by(&f->v[i], cause, sizeof cause);
  }
  if (f->n < 2) return;
  if (links) {
    /* by (rank, id, own order): a cause is the first of its (rank, id) */
    qsort(f->v, f->n, sizeof *f->v, cmp_by_rank_id);
    for (size_t i = 0; i < f->n; i++) {
      f->v[i].cause = f->n;
      char cause[64];
      if (!finding_explained_by(&f->v[i], cause, sizeof cause)) continue;
      size_t lo = 0, hi = f->n;
      while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (cmp_rank_id(&f->v[m], f->v[i].rank, cause) < 0) lo = m + 1;
        else hi = m;
      }
      /* of several (ranks numbered alike, e.g. summaries of one rank
       * each), the one whose ranges overlap this one's most, else the first */
      size_t best = f->n;
      int64_t best_ov = -1;
      for (size_t k = lo; k < f->n && !cmp_rank_id(&f->v[k], f->v[i].rank, cause); k++) {
        if (k == i) continue;
        int64_t ov = ranges_overlap(&f->v[i], &f->v[k]);
        if (ov > best_ov) {
          best = k;
          best_ov = ov;
        }
      }
      f->v[i].cause = best;
    }
    /* a chain (the GPU starved because the CPU blocked, because the stream
     * waited on work the trace lacks) is listed from its root: each symptom
     * after its cause; a cycle, which no finder makes, is cut */
    for (size_t i = 0; i < f->n; i++) {
      size_t r = i;
      int depth = 0;
      while (f->v[r].cause < f->n && f->v[r].cause != i && depth < 8) {
        r = f->v[r].cause;
        depth++;
      }
      if (depth) {
        f->v[i].anchor = key_of(&f->v[r]);
        f->v[i].follows = depth;
      }
    }
  }
  qsort(f->v, f->n, sizeof *f->v, cmp_finding);
}

static const char *sev_name(int s) {
  return s == SEV_CRITICAL ? "critical" : s == SEV_WARNING ? "warning" : "info";
}

void finding_write_evidence(const finding *x, jsonw *w) {
  /* evidence object plus the time ranges a viewer should jump to */
  size_t n = strlen(x->evidence);
  while (n && x->evidence[n - 1] != '}') n--;
  if (n < 2) {
    jw_null(w);
    return;
  }
  sbuf *b = w->b;
  size_t body = n - 1; /* without the closing brace */
  int empty = 1;
  for (size_t k = 1; k < body; k++)
    if (x->evidence[k] != ' ' && x->evidence[k] != '\n') {
      empty = 0;
      break;
    }
  jw_raw(w, x->evidence, body);
  sb_puts(b, empty ? "\"ranges\":[" : ",\"ranges\":[");
  for (int r = 0; r < x->nranges; r++)
    sb_printf(b, "%s{\"start_ns\":%lld,\"end_ns\":%lld}", r ? "," : "", (long long)x->ranges[r].s,
              (long long)x->ranges[r].e);
  sb_puts(b, "]");
  /* more ranges than the report lists: how many (annotate marks them all) */
  if (x->ranges_total > (uint64_t)x->nranges) sb_printf(b, ",\"ranges_total\":%llu", (unsigned long long)x->ranges_total);
  sb_puts(b, "}");
}

void findings_write_json(const findings *f, jsonw *w) {
  jw_arr(w);
  for (size_t i = 0; i < f->n; i++) {
    const finding *x = &f->v[i];
    jw_obj(w);
    jw_kstr(w, "id", x->id);
    jw_kstr(w, "severity", sev_name(x->severity));
    jw_ki64(w, "rank", x->rank);
    jw_ki64(w, "step", x->step);
    jw_kstr(w, "title", x->title);
    jw_kstr(w, "detail", x->detail);
    jw_kstr(w, "advice", x->advice);
    jw_ki64(w, "cost_ns", x->cost_ns);
    if (x->cost_bytes != FSDPA_ABSENT) jw_ki64(w, "cost_bytes", x->cost_bytes);
    jw_ki64(w, "saving_ns", x->saving_ns);
    if (x->saving_ns == FSDPA_ABSENT) {
      jw_key(w, "saving_share");
      jw_null(w);
    } else {
      jw_kratio(w, "saving_share", (double)x->saving_ns / (double)x->saving_window_ns);
    }
    jw_key(w, "evidence");
    finding_write_evidence(x, w);
    jw_obj_end(w);
  }
  jw_arr_end(w);
}
