/* fsdpa_report(): gather findings from every analysis once, then write the
 * requested format. */
#include "report/report.h"
#include "report/rank_cache.h"
#include "analysis/crossrank/crossrank.h"
#include "util/outbuf.h"
#include "util/fmt.h"
#include <stdio.h>
#include <string.h>

void fsdpa_report_options_init(fsdpa_report_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->format = FSDPA_FORMAT_JSON;
  o->html_step = FSDPA_ABSENT;
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
  if (all->failed) return (fsdpa_status)all->failed;
  findings_sort(all);
  return FSDPA_OK;
}

fsdpa_status fsdpa_report(fsdpa_ctx *const *ctxs, const char *const *paths, size_t n,
                          const fsdpa_report_options *opts, char **out, size_t *out_len) {
  if (!ctxs || !n || !out) return FSDPA_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (!ctxs[i]) return FSDPA_EINVAL;
  *out = NULL;
  if (out_len) *out_len = 0;
  fsdpa_ctx *c0 = ctxs[0];
  ctx_clear(c0);
  fsdpa_report_options o;
  fsdpa_report_options_init(&o);
  if (opts) {
    if (!ctx_struct_ok(opts->size, sizeof o)) return ctx_fail(c0, FSDPA_EINVAL, "fsdpa_report_options.size");
    memcpy(&o, opts, sizeof o);
  }
  fa_alloc *a = &c0->alloc;
  report_in in;
  memset(&in, 0, sizeof in);
  in.ctxs = ctxs;
  in.paths = paths;
  in.n = n;
  in.opts = &o;
  in.ranks = fa_malloc(a, n * sizeof(int64_t));
  if (!in.ranks) return ctx_fail(c0, fa_fail_status(a), "out of memory");
  for (size_t i = 0; i < n; i++)
    in.ranks[i] = ctxs[i]->info.rank != FSDPA_ABSENT ? ctxs[i]->info.rank : (int64_t)i;
  findings_init(&in.all, a);
  sbuf b;
  sb_init(&b, a);
  fsdpa_status st = crossrank_run(in.ctxs, in.ranks, in.n, &in.xr);
  if (!st) st = report_collect(in.ctxs, in.ranks, in.n, in.xr, &in.all);
  if (!st) {
    switch (o.format) {
      case FSDPA_FORMAT_JSON: st = report_json(&in, &b, 1); break;
      case FSDPA_FORMAT_TEXT: st = report_text(&in, &b); break;
      case FSDPA_FORMAT_HTML: st = report_html(&in, &b); break;
      default: st = ctx_fail(c0, FSDPA_EINVAL, "unknown report format %d", (int)o.format);
    }
  }
  if (!st && b.failed) st = (fsdpa_status)b.failed;
  if (!st) {
    *out = outbuf_dup(a, b.p ? b.p : "", b.len);
    if (!*out) st = fa_fail_status(a);
    else if (out_len) *out_len = b.len;
  }
  if (st && !c0->err[0]) ctx_fail(c0, st, "report: %s", fsdpa_status_str(st));
  sb_free(&b);
  findings_free(&in.all);
  crossrank_done(c0, in.xr);
  fa_free(a, in.ranks, n * sizeof(int64_t));
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
  for (size_t i = 0; i < in->n; i++) {
    fsdpa_status st = report_rank_json(in->ctxs[i], in->ranks[i], &w);
    if (st) return st;
  }
  jw_arr_end(&w);
  jw_key(&w, "cross_rank");
  crossrank_json(in->xr, &w);
  jw_key(&w, "findings");
  findings_write_json(&in->all, &w);
  jw_obj_end(&w);
  sb_puts(out, "\n");
  return out->failed ? (fsdpa_status)out->failed : FSDPA_OK;
}
