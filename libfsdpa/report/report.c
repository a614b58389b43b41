/* fsdpa_report(): gather findings from every analysis once, then write the
 * requested format. */
#include "report/report.h"
#include "report/rank_cache.h"
#include "report/report_job.h"
#include "report/render.h"
#include "report/html.h"
#include "util/jdoc.h"
#include "analysis/crossrank/crossrank.h"
#include "util/outbuf.h"
#include "util/abi.h"
#include "util/error.h"
#include "util/list.h"
#include "util/fmt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defaults for a caller of any release: at most the caller's `size` bytes
 * are written (see fsdpa.h, versioned structs). */
void fsdpa_report_options_init_sized(fsdpa_report_options *o, size_t size) {
  if (!o || size < sizeof(size_t)) return;
  fsdpa_report_options d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.format = FSDPA_FORMAT_JSON;
  d.html_step = FSDPA_ABSENT;
  memcpy(o, &d, size < sizeof d ? size : sizeof d);
  o->size = size;
}

fsdpa_status report_collect(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n,
                            const xr_result *xr, findings *all) {
  for (size_t i = 0; i < n; i++) {
    fsdpa_status st = report_rank_findings(ctxs[i], ranks[i], all);
    if (st) return st;
  }
  xr_result *own = NULL;
  fsdpa_status st = xr ? FSDPA_OK : crossrank_run(ctxs, ranks, n, &own);
  if (!st) st = crossrank_findings(xr ? xr : own, all);
  crossrank_done(ctxs[0], own);
  if (st) return st;
  if (findings_check(all)) return (fsdpa_status)all->failed;
  findings_sort(all);
  return FSDPA_OK;
}

/* A context's resolved rank and its position among the inputs. */
typedef struct rank_pos {
  int64_t rank;
  size_t i;
} rank_pos;

static int cmp_rank_pos(const void *pa, const void *pb) {
  const rank_pos *a = pa, *b = pb;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

/* The name of context i for a message: its path, else the context's name. */
static const char *input_name(fsdpa_ctx *const *ctxs, const char *const *paths, size_t i) {
  if (paths && paths[i]) return paths[i];
  return ctxs[i]->name ? ctxs[i]->name : "<input>";
}

/* The contexts must be the ranks of one job: two traces of one rank would
 * be matched against each other as if they were two ranks, and their
 * findings shown as one rank's, so the report would be wrong.  Refused
 * (EINVAL, the message naming both inputs; *bad the caller's index of the
 * second), never guessed around. */
static fsdpa_status check_job(fsdpa_ctx *const *ctxs, const char *const *paths, const rank_pos *ord, size_t n,
                              int64_t *bad) {
  for (size_t k = 1; k < n; k++)
    if (ord[k].rank == ord[k - 1].rank) {
      size_t a = ord[k - 1].i, b = ord[k].i;
      *bad = (int64_t)b;
      return ctx_fail(ctxs[0], FSDPA_EINVAL,
                      "rank %lld twice: %s and %s (the same trace given twice, or traces of two jobs mixed; "
                      "give each rank of one job once)",
                      (long long)ord[k].rank, input_name(ctxs, paths, a), input_name(ctxs, paths, b));
    }
  return FSDPA_OK;
}

/* What fsdpa_report() and fsdpa_report_findings() both need: the contexts
 * and paths in rank order with their resolved ranks, the cross-rank result
 * and every finding, sorted. */
static fsdpa_status prepare(report_in *in, fsdpa_ctx *const *ctxs, const char *const *paths, size_t n) {
  memset(in, 0, sizeof *in);
  in->bad_input = FSDPA_ABSENT;
  fa_alloc *a = &ctxs[0]->alloc;
  in->c0 = ctxs[0];
  in->n = n;
  findings_init(&in->all, a);
  in->ranks = fa_malloc(a, n * sizeof(int64_t));
  in->own_ctxs = fa_malloc(a, n * sizeof *in->own_ctxs);
  in->own_paths = paths ? fa_malloc(a, n * sizeof *in->own_paths) : NULL;
  rank_pos *ord = fa_malloc(a, n * sizeof *ord);
  if (!in->ranks || !in->own_ctxs || (paths && !in->own_paths) || !ord) {
    fa_free(a, ord, n * sizeof *ord);
    return ctx_fail(ctxs[0], fa_fail_status(a), "out of memory");
  }
  /* a context without a rank is numbered by its position among the inputs */
  for (size_t i = 0; i < n; i++)
    ord[i] = (rank_pos){ctxs[i]->info.rank != FSDPA_ABSENT ? ctxs[i]->info.rank : (int64_t)i, i};
  qsort(ord, n, sizeof *ord, cmp_rank_pos);
  fsdpa_status bad = check_job(ctxs, paths, ord, n, &in->bad_input);
  if (bad) {
    fa_free(a, ord, n * sizeof *ord);
    return bad;
  }
  for (size_t k = 0; k < n; k++) {
    in->ranks[k] = ord[k].rank;
    in->own_ctxs[k] = ctxs[ord[k].i];
    if (paths) in->own_paths[k] = paths[ord[k].i];
  }
  fa_free(a, ord, n * sizeof *ord);
  in->ctxs = in->own_ctxs;
  in->paths = in->own_paths;
  fsdpa_status st = crossrank_run(in->ctxs, in->ranks, in->n, &in->xr);
  if (!st) st = report_collect(in->ctxs, in->ranks, in->n, in->xr, &in->all);
  return st;
}

static void release(report_in *in) {
  fsdpa_ctx *c0 = in->c0;
  findings_free(&in->all);
  if (in->ctxs) crossrank_done(in->ctxs[0], in->xr);
  fa_free(&c0->alloc, in->ranks, in->n * sizeof(int64_t));
  fa_free(&c0->alloc, in->own_ctxs, in->n * sizeof *in->own_ctxs);
  fa_free(&c0->alloc, in->own_paths, in->n * sizeof *in->own_paths);
}

/* A failure inside a report: the first context holds the message; `input`
 * the caller's index of the input it is about, or FSDPA_ABSENT. */
static fsdpa_status failed(fsdpa_error *err, fsdpa_status st, fsdpa_ctx *c0, int64_t input) {
  if (!c0->err[0]) ctx_fail(c0, st, "report: %s", fsdpa_status_str(st));
  return ctx_err_out(err, st, c0, input);
}

fsdpa_status fsdpa_report(fsdpa_ctx *const *ctxs, const char *const *paths, size_t n,
                          const fsdpa_report_options *opts, char **out, size_t *out_len, fsdpa_error *err) {
  fsdpa_status st = ctx_check_many(ctxs, n, err, "fsdpa_report");
  if (st) return st;
  if (!out) return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_report: NULL out");
  *out = NULL;
  if (out_len) *out_len = 0;
  fsdpa_ctx *c0 = ctxs[0];
  fsdpa_report_options o;
  fsdpa_report_options_init(&o);
  if (opts && !ABI_IN(fsdpa_report_options, &o, opts))
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_report_options.size");
  if ((int)o.format < FSDPA_FORMAT_JSON || (int)o.format > FSDPA_FORMAT_CSV)
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "unknown report format %d", (int)o.format);
  if (o.width && (o.width < 40 || o.width > 1000))
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "report width %d: 40 to 1000 columns, or 0", o.width);
  fa_alloc *a = &c0->alloc;
  report_in in;
  st = prepare(&in, ctxs, paths, n);
  in.opts = &o;
  sbuf b;
  sb_init(&b, a);
  if (!st) {
    switch (o.format) {
      case FSDPA_FORMAT_JSON: st = report_json(&in, &b, 1); break;
      case FSDPA_FORMAT_TEXT:
      case FSDPA_FORMAT_CSV: st = report_text(&in, &b); break;
      default: st = report_html(&in, &b); break;
    }
  }
  if (!st && b.failed) st = (fsdpa_status)b.failed;
  if (!st) {
    *out = outbuf_dup(a, b.p ? b.p : "", b.len);
    if (!*out) st = fa_fail_status(a);
    else if (out_len) *out_len = b.len;
  }
  sb_free(&b);
  /* messages go to the first context in rank order once the inputs are sorted */
  fsdpa_ctx *msg = in.ctxs && in.ctxs[0]->err[0] ? in.ctxs[0] : c0;
  int64_t bad = in.bad_input;
  release(&in);
  return st ? failed(err, st, msg, bad) : FSDPA_OK;
}

const char *fsdpa_severity_name(fsdpa_severity s) {
  switch (s) {
    case FSDPA_SEVERITY_INFO: return "info";
    case FSDPA_SEVERITY_WARNING: return "warning";
    case FSDPA_SEVERITY_CRITICAL: return "critical";
  }
  return "";
}

fsdpa_status report_findings_list(const findings *f, fa_alloc *a, fsdpa_list **out) {
  list_build b;
  lb_init(&b, a, FSDPA_LIST_FINDINGS);
  for (size_t i = 0; i < f->n; i++) {
    const finding *x = &f->v[i];
    fsdpa_finding o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.id = lb_cstr(&b, x->id);
    o.severity = (fsdpa_severity)x->severity;
    o.rank = x->rank;
    o.step = x->step;
    o.cost_ns = x->cost_ns;
    o.saving_ns = x->saving_ns;
    o.saving_window_ns = x->saving_window_ns;
    o.title = lb_cstr(&b, x->title);
    o.detail = lb_cstr(&b, x->detail);
    o.advice = lb_cstr(&b, x->advice);
    /* the evidence object as the JSON report writes it, ranges included */
    sbuf e;
    sb_init(&e, a);
    jsonw w;
    jw_init(&w, &e, 0);
    finding_write_evidence(x, &w);
    if (e.failed) b.failed = (fsdpa_status)e.failed;
    o.evidence_json = lb_str(&b, e.p ? e.p : "", e.len);
    sb_free(&e);
    fsdpa_range r[FINDING_MAX_RANGES];
    for (int k = 0; k < x->nranges; k++) {
      r[k].start_ns = x->ranges[k].s;
      r[k].end_ns = x->ranges[k].e;
    }
    o.nranges = (size_t)x->nranges;
    o.ranges = lb_ranges(&b, r, (size_t)x->nranges);
    lb_push(&b, &o);
  }
  return lb_finish(&b, out);
}

fsdpa_status fsdpa_report_findings(fsdpa_ctx *const *ctxs, size_t n, fsdpa_list **out, fsdpa_error *err) {
  fsdpa_status st = ctx_check_many(ctxs, n, err, "fsdpa_report_findings");
  if (st) return st;
  if (!out) return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_report_findings: NULL out");
  *out = NULL;
  report_in in;
  st = prepare(&in, ctxs, NULL, n);
  if (!st) st = report_findings_list(&in.all, &ctxs[0]->alloc, out);
  fsdpa_ctx *msg = in.ctxs && in.ctxs[0]->err[0] ? in.ctxs[0] : ctxs[0];
  int64_t bad = in.bad_input;
  release(&in);
  return st ? failed(err, st, msg, bad) : FSDPA_OK;
}

int fsdpa_findings_worst(const fsdpa_list *l) {
  if (fsdpa_list_type(l) != FSDPA_LIST_FINDINGS) return -1;
  int worst = -1;
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_finding f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    if (fsdpa_list_get(l, i, &f) == FSDPA_OK && (int)f.severity > worst) worst = (int)f.severity;
  }
  return worst;
}

/* Render a JSON report `json` in format o->format (text or html) into out;
 * the message of a document that cannot be rendered in msg. */
fsdpa_status report_render(fa_alloc *a, const char *json, size_t len, const fsdpa_report_options *o, sbuf *out,
                           char *msg, size_t msg_len) {
  jdoc d;
  fsdpa_status st = (fsdpa_status)jdc_parse(a, json, len, &d, msg, msg_len);
  if (!st) {
    switch (o->format) {
      case FSDPA_FORMAT_TEXT: st = render_text(&d, o, out, msg, msg_len); break;
      case FSDPA_FORMAT_CSV: st = render_table(&d, o->table, out, msg, msg_len); break;
      default: st = report_html_of(&d, o, out, msg, msg_len); break;
    }
  }
  jdc_free(&d);
  return st;
}

fsdpa_status fsdpa_report_render(const char *json, size_t len, const fsdpa_report_options *opts, char **out,
                                 size_t *out_len, fsdpa_error *err) {
  if (!err_clear(err)) return FSDPA_EINVAL;
  if (!out || !json) return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_report_render: NULL argument");
  *out = NULL;
  if (out_len) *out_len = 0;
  fsdpa_report_options o;
  fsdpa_report_options_init(&o);
  o.format = FSDPA_FORMAT_TEXT;
  if (opts && !ABI_IN(fsdpa_report_options, &o, opts))
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_report_options.size");
  if (o.format == FSDPA_FORMAT_JSON || (int)o.format < FSDPA_FORMAT_JSON || (int)o.format > FSDPA_FORMAT_CSV)
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT,
                   "fsdpa_report_render: the format is text, html or csv (the input is the JSON)");
  if (o.width && (o.width < 40 || o.width > 1000))
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "report width %d: 40 to 1000 columns, or 0", o.width);
  fa_alloc a;
  fa_init(&a, NULL, 0);
  sbuf b;
  sb_init(&b, &a);
  char msg[400] = "";
  fsdpa_status st = report_render(&a, json, len, &o, &b, msg, sizeof msg);
  if (!st && b.failed) st = (fsdpa_status)b.failed;
  if (!st) {
    *out = outbuf_dup(&a, b.p ? b.p : "", b.len);
    if (!*out) st = fa_fail_status(&a);
    else if (out_len) *out_len = b.len;
  }
  sb_free(&b);
  if (st) {
    /* a parse error names its byte offset in the message ("... at byte N") */
    const char *at = strstr(msg, " at byte ");
    int64_t off = at ? (int64_t)strtoll(at + 9, NULL, 10) : FSDPA_ABSENT;
    return err_set(err, st, FSDPA_ABSENT, off, "%s", msg[0] ? msg : fsdpa_status_str(st));
  }
  return FSDPA_OK;
}

fsdpa_status report_text(report_in *in, sbuf *out) {
  sbuf js;
  sb_init(&js, out->a);
  fsdpa_status st = report_json(in, &js, 1);
  char msg[256] = "";
  if (!st && js.failed) st = (fsdpa_status)js.failed;
  if (!st) st = report_render(out->a, js.p, js.len, in->opts, out, msg, sizeof msg);
  /* our own report always renders; what is left is a caller's mistake (an
   * unknown table) */
  if (st && msg[0]) ctx_fail(in->c0, st, "report: %s", msg);
  sb_free(&js);
  return st;
}

fsdpa_status report_json(report_in *in, sbuf *out, int pretty) {
  jsonw w;
  jw_init(&w, out, pretty);
  jw_obj(&w);
  jw_kstr(&w, "schema", "fsdpa.report/1");
  jw_kstr(&w, "version", fsdpa_version_string());
  jw_key(&w, "inputs");
  jw_arr(&w);
  for (size_t i = 0; i < in->n; i++) {
    fsdpa_ctx *c = in->ctxs[i];
    jw_obj(&w);
    jw_kstr(&w, "path", report_path(in, i));
    jw_ki64(&w, "rank", in->ranks[i]);
    jw_ki64(&w, "world_size", c->info.world_size);
    jw_ku64(&w, "events", c->st.stats.events);
    jw_ku64(&w, "bytes", c->st.stats.input_bytes);
    jw_obj_end(&w);
  }
  jw_arr_end(&w);
  jw_key(&w, "ranks");
  jw_arr(&w);
  /* where each rank's section lies in `out`, for the job section */
  size_t *at = fa_malloc(out->a, 2 * (in->n ? in->n : 1) * sizeof *at);
  rank_text *rt = fa_malloc(out->a, (in->n ? in->n : 1) * sizeof *rt);
  fsdpa_status st = at && rt ? FSDPA_OK : fa_fail_status(out->a);
  for (size_t i = 0; i < in->n && !st; i++) {
    at[2 * i] = out->len;
    st = report_rank_json(in->ctxs[i], in->ranks[i], &w);
    at[2 * i + 1] = out->len;
  }
  jw_arr_end(&w);
  if (!st && out->failed) st = (fsdpa_status)out->failed;
  if (!st) {
    for (size_t i = 0; i < in->n; i++) rt[i] = (rank_text){out->p + at[2 * i], at[2 * i + 1] - at[2 * i]};
    st = report_tail_json(out->a, rt, in->n, in->xr, &in->all, &w);
  }
  fa_free(out->a, at, 2 * (in->n ? in->n : 1) * sizeof *at);
  fa_free(out->a, rt, (in->n ? in->n : 1) * sizeof *rt);
  if (st) return st;
  jw_obj_end(&w);
  sb_puts(out, "\n");
  return out->failed ? (fsdpa_status)out->failed : FSDPA_OK;
}
