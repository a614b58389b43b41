/* fsdpa_summary_write(): one rank's summary.  The rank section is written by
 * report_rank_json() with the writer in the exact state it has inside the
 * report's "ranks" array (pretty, depth 2), so the merged report can splice
 * it back byte for byte. */
#include "summary/summary.h"
#include "report/report.h"
#include "report/rank_cache.h"
#include "util/outbuf.h"
#include <string.h>

static const char *const PARAM_NAMES[P__COUNT] = {
#define PARAM(id, name, def, desc) name,
#include "params.def"
#undef PARAM
};

static const char *sev_name(int s) {
  return s == SEV_CRITICAL ? "critical" : s == SEV_WARNING ? "warning" : "info";
}

/* Evidence is spliced verbatim when it is one JSON object (what the report
 * writer expects), else kept as a string so the summary stays valid JSON. */
static void write_evidence(jsonw *w, const char *ev) {
  jr r;
  size_t n = strlen(ev);
  jr_init(&r, ev, n);
  const char *b, *e;
  if (jr_peek(&r) == '{' && jr_skip(&r, &b, &e) && jr_end(&r) && b == ev && e == ev + n) {
    jw_key(w, "evidence");
    jw_raw(w, ev, n);
  } else {
    jw_kstr(w, "evidence_text", ev);
  }
}

static void write_findings(const findings *f, jsonw *w) {
  jw_arr(w);
  for (size_t i = 0; i < f->n; i++) {
    const finding *x = &f->v[i];
    jw_obj(w);
    jw_kstr(w, "id", x->id);
    jw_kstr(w, "severity", sev_name(x->severity));
    jw_ki64(w, "rank", x->rank);
    jw_ki64(w, "step", x->step);
    jw_ki64(w, "cost_ns", x->cost_ns);
    jw_kstr(w, "title", x->title);
    jw_kstr(w, "detail", x->detail);
    jw_kstr(w, "advice", x->advice);
    write_evidence(w, x->evidence);
    jw_key(w, "ranges");
    jw_arr(w);
    for (int k = 0; k < x->nranges; k++) {
      jw_arr(w);
      jw_i64(w, x->ranges[k].s);
      jw_i64(w, x->ranges[k].e);
      jw_arr_end(w);
    }
    jw_arr_end(w);
    if (x->ranges_total > (uint64_t)x->nranges) jw_ku64(w, "ranges_total", x->ranges_total);
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

/* The rules that could not judge the rank: its entries of the report's
 * top-level not_judged. */
static void write_not_judged(const findings *f, jsonw *w) {
  jw_arr(w);
  for (size_t i = 0; i < f->nnj; i++) {
    jw_obj(w);
    jw_kstr(w, "rule", f->nj[i].rule);
    jw_kstr(w, "reason", f->nj[i].reason);
    jw_kstr(w, "would_judge", f->nj[i].would);
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

static void write_table(const xr_table *t, jsonw *w) {
  jw_obj(w);
  jw_key(w, "pgs");
  jw_arr(w);
  for (size_t i = 0; i < t->pgs.len; i++) {
    size_t n;
    const char *s = xr_pg_str(t, (int32_t)i, &n);
    jw_strn(w, s, n);
  }
  jw_arr_end(w);
  jw_key(w, "types");
  jw_arr(w);
  for (int k = 0; k < COLL__COUNT; k++) jw_str(w, coll_type_name(k));
  jw_arr_end(w);
  jw_key(w, "columns");
  jw_arr(w);
  static const char *const COLS[] = {"pg", "seq", "type", "step", "start_ns", "end_ns", "bytes"};
  for (size_t k = 0; k < sizeof COLS / sizeof COLS[0]; k++) jw_str(w, COLS[k]);
  jw_arr_end(w);
  jw_key(w, "rows");
  jw_arr(w);
  for (size_t i = 0; i < t->colls.len; i++) {
    const xr_coll *x = &FA_VEC_AT(&t->colls, xr_coll, i);
    jw_arr(w);
    jw_i64(w, x->pg < 0 ? FSDPA_ABSENT : x->pg);
    jw_i64(w, x->seq);
    jw_i64(w, x->type);
    jw_i64(w, x->step);
    jw_i64(w, x->start);
    jw_i64(w, x->end);
    jw_i64(w, x->bytes);
    jw_arr_end(w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
}

static fsdpa_status rank_section(fsdpa_ctx *c, int64_t rank, sbuf *b) {
  jsonw w;
  jw_init(&w, b, 1);
  w.depth = 2;      /* inside the report's top-level object and "ranks" array */
  w.after_key = 1;  /* the array's separator is the merger's business */
  fsdpa_status st = report_rank_json(c, rank, &w);
  return st ? st : (fsdpa_status)b->failed;
}

fsdpa_status fsdpa_summary_write(fsdpa_ctx *c, const char *path, char **out, size_t *out_len) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_summary_write: NULL out");
  *out = NULL;
  if (out_len) *out_len = 0;
  fa_alloc *a = &c->alloc;
  int64_t rank = c->info.rank != FSDPA_ABSENT ? c->info.rank : 0;
  findings f;
  findings_init(&f, a);
  sbuf sec, b;
  sb_init(&sec, a);
  sb_init(&b, a);
  xr_table t;
  xr_table_init(&t, rank);
  fsdpa_status st = FSDPA_OK;
  st = report_rank_findings(c, rank, &f);
  if (!st) st = rank_section(c, rank, &sec);
  if (!st) st = xr_extract(a, c, rank, &t);
  if (!st) {
    jsonw w;
    jw_init(&w, &b, 0);
    jw_obj(&w);
    jw_kstr(&w, "schema", SUMMARY_SCHEMA);
    jw_kstr(&w, "version", fsdpa_version_string());
    jw_key(&w, "ranks");
    jw_arr(&w);
    jw_obj(&w);
    jw_key(&w, "input");
    jw_obj(&w);
    jw_kstr(&w, "path", path ? path : "<input>");
    jw_ki64(&w, "rank", rank);
    jw_ki64(&w, "world_size", c->info.world_size);
    jw_ku64(&w, "events", c->st.stats.events);
    jw_ku64(&w, "bytes", c->st.stats.input_bytes);
    jw_obj_end(&w);
    jw_key(&w, "params");
    jw_obj(&w);
    for (int i = 0; i < P__COUNT; i++)
      if (xr_param_in_summary(PARAM_NAMES[i])) jw_ki64(&w, PARAM_NAMES[i], c->params[i]);
    jw_obj_end(&w);
    jw_key(&w, "report");
    jw_raw(&w, sec.p ? sec.p : "null", sec.p ? sec.len : 4);
    jw_key(&w, "findings");
    write_findings(&f, &w);
    jw_key(&w, "not_judged");
    write_not_judged(&f, &w);
    jw_key(&w, "collectives");
    write_table(&t, &w);
    jw_obj_end(&w);
    jw_arr_end(&w);
    jw_obj_end(&w);
    sb_puts(&b, "\n");
    st = (fsdpa_status)b.failed;
  }
  if (!st) {
    *out = outbuf_dup(a, b.p, b.len);
    if (!*out) st = fa_fail_status(a);
    else if (out_len) *out_len = b.len;
  }
  if (st && !c->err[0]) ctx_fail(c, st, "summary: %s", fsdpa_status_str(st));
  xr_table_free(a, &t);
  sb_free(&sec);
  sb_free(&b);
  findings_free(&f);
  return st;
}
