/* Merging summaries and writing the report of a merged summary.
 *
 * Merging concatenates the rank entries verbatim, which is associative and
 * keeps every byte the report needs.  The report repeats report_json()'s
 * layout with the stored pieces: inputs entries, rank sections spliced as
 * written, the stored findings in collection order plus the cross-rank
 * finding, sorted the same way, and the cross-rank section computed over all
 * the ranks' tables. */
#include "summary/summary.h"
#include "util/outbuf.h"
#include <stdio.h>
#include <string.h>

void fsdpa_summary_options_init(fsdpa_summary_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
}

static int opts_ok(const fsdpa_summary_options *o) {
  return !o || ctx_struct_ok(o->size, sizeof *o);
}

static void set_msg(const fsdpa_summary_options *o, const char *fmt, const char *arg) {
  if (o && o->errbuf && o->errbuf_len) snprintf(o->errbuf, o->errbuf_len, fmt, arg);
}

static void init_alloc(fa_alloc *a, const fsdpa_summary_options *o) {
  fa_init(a, o ? o->allocator : NULL, o ? o->max_memory_bytes : 0);
}

static fsdpa_status collect_findings(sum_doc *d, findings *all) {
  for (size_t i = 0; i < d->n; i++) {
    const sum_rank *r = &d->r[i];
    for (size_t k = 0; k < r->nf; k++) {
      const sum_finding *f = &r->f[k];
      finding *x = findings_add(all, f->id, f->severity, f->rank, f->step, f->cost, f->title,
                                f->detail, f->advice, f->evidence);
      if (!x) return (fsdpa_status)all->failed;
      for (int j = 0; j < f->nranges; j++) finding_add_range(x, f->ranges[j].s, f->ranges[j].e);
    }
  }
  return FSDPA_OK;
}

fsdpa_status sum_report_json(sum_doc *d, sbuf *out) {
  fa_alloc *a = d->a;
  findings all;
  findings_init(&all, a);
  xr_result xr;
  memset(&xr, 0, sizeof xr);
  xr_table *tabs = fa_malloc(a, d->n * sizeof *tabs);
  fsdpa_status st = tabs ? FSDPA_OK : fa_fail_status(a);
  if (!st) {
    for (size_t i = 0; i < d->n; i++) tabs[i] = d->r[i].tab;  /* views; d keeps ownership */
    st = collect_findings(d, &all);
  }
  xr_params p;
  xr_params_from(d->r[0].params, &p);
  if (!st) st = xr_analyze(a, tabs, d->n, &p, &xr);
  if (!st) st = crossrank_findings(&xr, &all);
  if (!st) {
    findings_sort(&all);
    jsonw w;
    jw_init(&w, out, 1);
    jw_obj(&w);
    jw_kstr(&w, "schema", "fsdpa.report/1");
    jw_kstr(&w, "version", fsdpa_version_string());
    jw_key(&w, "inputs");
    jw_arr(&w);
    for (size_t i = 0; i < d->n; i++) {
      const sum_rank *r = &d->r[i];
      jw_obj(&w);
      jw_kstr(&w, "path", r->path);
      jw_ki64(&w, "rank", r->rank);
      jw_ki64(&w, "world_size", r->world_size);
      jw_ku64(&w, "events", (uint64_t)r->events);
      jw_ku64(&w, "bytes", (uint64_t)r->bytes);
      jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_key(&w, "ranks");
    jw_arr(&w);
    for (size_t i = 0; i < d->n; i++) jw_raw(&w, d->r[i].section, d->r[i].section_len);
    jw_arr_end(&w);
    jw_key(&w, "cross_rank");
    crossrank_json(&xr, &w);
    jw_key(&w, "findings");
    findings_write_json(&all, &w);
    jw_obj_end(&w);
    sb_puts(out, "\n");
    st = (fsdpa_status)out->failed;
  }
  xr_result_free(a, &xr);
  fa_free(a, tabs, d->n * sizeof *tabs);
  findings_free(&all);
  return st;
}

fsdpa_status fsdpa_summary_report(const char *sum, size_t len, const fsdpa_summary_options *opts,
                                  const fsdpa_report_options *ropts, char **out, size_t *out_len) {
  if (!out) return FSDPA_EINVAL;
  *out = NULL;
  if (out_len) *out_len = 0;
  if (!sum || !opts_ok(opts)) return FSDPA_EINVAL;
  if (ropts && !ctx_struct_ok(ropts->size, sizeof *ropts)) {
    set_msg(opts, "%s", "fsdpa_report_options.size");
    return FSDPA_EINVAL;
  }
  if (ropts && ropts->format != FSDPA_FORMAT_JSON) {
    set_msg(opts, "%s", "a report from summaries is JSON only: text and HTML need the events");
    return FSDPA_EINVAL;
  }
  fa_alloc a;
  init_alloc(&a, opts);
  sum_doc d;
  char msg[160] = "";
  fsdpa_status st = sum_parse(&a, sum, len, &d, msg, sizeof msg);
  if (st) {
    set_msg(opts, "%s", msg[0] ? msg : fsdpa_status_str(st));
    return st;
  }
  sbuf b;
  sb_init(&b, &a);
  st = sum_report_json(&d, &b);
  if (!st) {
    *out = outbuf_dup(&a, b.p ? b.p : "", b.len);
    if (!*out) st = fa_fail_status(&a);
    else if (out_len) *out_len = b.len;
  }
  if (st) set_msg(opts, "report from summary: %s", fsdpa_status_str(st));
  sb_free(&b);
  sum_doc_free(&d);
  return st;
}

fsdpa_status fsdpa_summary_merge(const char *const *sums, const size_t *lens, size_t n,
                                 const fsdpa_summary_options *opts, char **out, size_t *out_len) {
  if (!out) return FSDPA_EINVAL;
  *out = NULL;
  if (out_len) *out_len = 0;
  if (!sums || !lens || !n || !opts_ok(opts)) return FSDPA_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (!sums[i]) return FSDPA_EINVAL;
  fa_alloc a;
  init_alloc(&a, opts);
  sbuf b;
  sb_init(&b, &a);
  sb_puts(&b, "{\"schema\":\"" SUMMARY_SCHEMA "\",\"version\":");
  sb_json_str(&b, fsdpa_version_string(), strlen(fsdpa_version_string()));
  sb_puts(&b, ",\"ranks\":[");
  fsdpa_status st = FSDPA_OK;
  size_t written = 0;
  for (size_t i = 0; i < n && !st; i++) {
    sum_doc d;
    char msg[160] = "";
    st = sum_parse(&a, sums[i], lens[i], &d, msg, sizeof msg);
    if (st) {
      char m2[200];
      snprintf(m2, sizeof m2, "input %zu: %s", i, msg[0] ? msg : fsdpa_status_str(st));
      set_msg(opts, "%s", m2);
      break;
    }
    for (size_t k = 0; k < d.n; k++) {
      if (written++) sb_puts(&b, ",");
      sb_putn(&b, d.r[k].raw, d.r[k].raw_len);
    }
    sum_doc_free(&d);
  }
  sb_puts(&b, "]}\n");
  if (!st && b.failed) st = (fsdpa_status)b.failed;
  if (!st) {
    *out = outbuf_dup(&a, b.p, b.len);
    if (!*out) st = fa_fail_status(&a);
    else if (out_len) *out_len = b.len;
  }
  if (st && (!opts || !opts->errbuf || !opts->errbuf[0]))
    set_msg(opts, "merge: %s", fsdpa_status_str(st));
  sb_free(&b);
  return st;
}
