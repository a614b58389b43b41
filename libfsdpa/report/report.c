/* fsdpa_report(): gather findings from every analysis once, then write the
 * requested format. */
#include "report/report.h"
#include "analysis/launch_gaps/launch_gaps.h"
#include "analysis/overlap/overlap.h"
#include "analysis/fsdp/fsdp.h"
#include "analysis/sync/sync.h"
#include "analysis/allocator/allocator.h"
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

/* The one list of analyses that produce per-rank findings: fsdpa_report(),
 * summaries and annotate all go through it, so they cannot drift apart. */
typedef fsdpa_status (*findings_fn)(fsdpa_ctx *, int64_t, findings *);
static const findings_fn FINDERS[] = {launch_gaps_findings, overlap_findings, backward_findings,
                                      sync_waits_findings, allocator_findings};

fsdpa_status rank_findings_compute(fsdpa_ctx *c, int64_t rank, findings *f) {
  for (size_t k = 0; k < sizeof FINDERS / sizeof FINDERS[0]; k++) {
    fsdpa_status st = FINDERS[k](c, rank, f);
    if (st) return st;
    if (f->failed) return (fsdpa_status)f->failed;
  }
  return FSDPA_OK;
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

static const char *role_name(int r) {
  switch (r) {
    case FSDPA_ROLE_COMPUTE: return "compute";
    case FSDPA_ROLE_COMMUNICATION: return "communication";
    case FSDPA_ROLE_MEMORY: return "memory";
    default: return "mixed";
  }
}

fsdpa_status rank_json_write(fsdpa_ctx *c, int64_t rank, jsonw *w) {
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  jw_obj(w);
  jw_ki64(w, "rank", rank);
  jw_ki64(w, "span_ns", v->nall ? v->all_busy[v->nall - 1].e - v->all_busy[0].s : FSDPA_ABSENT);
  jw_key(w, "steps");
  jw_arr(w);
  size_t ns = fsdpa_step_count(c);
  for (size_t i = 0; i < ns; i++) {
    fsdpa_step s = {sizeof s, 0, 0, 0};
    if (fsdpa_get_step(c, i, &s)) continue;
    jw_obj(w);
    char name[48];
    fmt_step(name, sizeof name, s.number);
    jw_kstr(w, "name", name);
    jw_ki64(w, "start_ns", s.start_ns);
    jw_ki64(w, "dur_ns", s.dur_ns);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "streams");
  jw_arr(w);
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    jw_obj(w);
    jw_ki64(w, "device", sv->device);
    jw_ki64(w, "stream", sv->stream);
    jw_kstr(w, "role", role_name(sv->role));
    jw_ku64(w, "kernels", sv->kernels);
    jw_ki64(w, "busy_ns", iv_total(sv->busy, sv->nbusy));
    jw_obj_end(w);
  }
  jw_arr_end(w);
  fsdpa_status st;
  jw_key(w, "launch_gaps");
  if ((st = launch_gaps_json(c, w))) return st;
  jw_key(w, "overlap");
  if ((st = overlap_json(c, w))) return st;
  jw_key(w, "fsdp");
  jw_obj(w);
  const char *ver = fsdp_version_name(c);
  jw_key(w, "version");
  if (ver) jw_str(w, ver);
  else jw_null(w);
  jw_key(w, "units");
  if ((st = fsdp_units_json(c, w))) return st;
  jw_key(w, "backward");
  if ((st = backward_json(c, w))) return st;
  jw_obj_end(w);
  jw_key(w, "sync_waits");
  if ((st = sync_waits_json(c, w))) return st;
  jw_key(w, "allocator");
  if ((st = allocator_json(c, w))) return st;
  jw_obj_end(w);
  return FSDPA_OK;
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
