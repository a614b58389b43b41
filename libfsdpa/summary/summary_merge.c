/* Merging summaries and writing the report of a merged summary.
 *
 * Merging lists the rank entries verbatim in rank order (ties: the order
 * given), which is associative and commutative and keeps every byte the
 * report needs.  The report repeats report_json()'s
 * layout with the stored pieces: inputs entries, rank sections spliced as
 * written, the stored findings in collection order plus the cross-rank
 * finding, sorted the same way, and the cross-rank section computed over all
 * the ranks' tables. */
#include "summary/summary.h"
#include "util/outbuf.h"
#include "util/abi.h"
#include "util/error.h"
#include "report/report.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defaults for a caller of any release: at most the caller's `size` bytes
 * are written (see fsdpa.h, versioned structs). */
void fsdpa_summary_options_init_sized(fsdpa_summary_options *o, size_t size) {
  if (!o || size < sizeof(size_t)) return;
  fsdpa_summary_options d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  memcpy(o, &d, size < sizeof d ? size : sizeof d);
  o->size = size;
}

/* Options at the caller's size; 0 when too small. */
static int opts_in(const fsdpa_summary_options *o, fsdpa_summary_options *ours) {
  fsdpa_summary_options_init(ours);
  return !o || ABI_IN(fsdpa_summary_options, ours, o);
}

static void init_alloc(fa_alloc *a, const fsdpa_summary_options *o) { fa_init(a, o->allocator, o->max_memory_bytes); }

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

/* Rank order, ties by position in the summary (spans into one text), as
 * fsdpa_report() orders its contexts. */
static int cmp_sum_rank(const void *pa, const void *pb) {
  const sum_rank *a = pa, *b = pb;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return a->raw < b->raw ? -1 : a->raw > b->raw;
}

/* Every finding of the report of a summary: the stored ones plus the
 * cross-rank finding over all ranks' tables, sorted as fsdpa_report() does;
 * *xr (zeroed by the caller, freed with xr_result_free) keeps the cross-rank
 * result. */
static fsdpa_status sum_findings(sum_doc *d, findings *all, xr_result *xr, fsdpa_error *err) {
  fa_alloc *a = d->a;
  if (d->n > 1) qsort(d->r, d->n, sizeof *d->r, cmp_sum_rank);
  for (size_t i = 0; i < d->n; i++) {
    if (i && d->r[i].rank == d->r[i - 1].rank)
      return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "the summary holds rank %lld twice (%s and %s)",
                     (long long)d->r[i].rank, d->r[i - 1].path, d->r[i].path);
  }
  xr_table *tabs = fa_malloc(a, d->n * sizeof *tabs);
  fsdpa_status st = tabs ? FSDPA_OK : fa_fail_status(a);
  if (!st) {
    for (size_t i = 0; i < d->n; i++) tabs[i] = d->r[i].tab;  /* views; d keeps ownership */
    st = collect_findings(d, all);
  }
  xr_params p;
  xr_params_from(d->r[0].params, &p);
  if (!st) st = xr_analyze(a, tabs, d->n, &p, xr);
  if (!st) st = crossrank_findings(xr, all);
  if (!st) findings_sort(all);
  fa_free(a, tabs, d->n * sizeof *tabs);
  return st;
}

fsdpa_status sum_report_json(sum_doc *d, sbuf *out, fsdpa_error *err) {
  fa_alloc *a = d->a;
  findings all;
  findings_init(&all, a);
  xr_result xr;
  memset(&xr, 0, sizeof xr);
  fsdpa_status st = sum_findings(d, &all, &xr, err);
  if (!st) {
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
  findings_free(&all);
  return st;
}

/* Parse one summary for the public calls; the message names it. */
static fsdpa_status parse_one(fa_alloc *a, const char *sum, size_t len, sum_doc *d, int64_t i, fsdpa_error *err) {
  char msg[160] = "";
  int64_t off;
  fsdpa_status st = sum_parse(a, sum, len, d, msg, sizeof msg, &off);
  if (!st) return FSDPA_OK;
  if (i == FSDPA_ABSENT) return err_set(err, st, 0, off, "%s", msg[0] ? msg : fsdpa_status_str(st));
  return err_set(err, st, i, off, "input %lld: %s", (long long)i, msg[0] ? msg : fsdpa_status_str(st));
}

fsdpa_status fsdpa_summary_report(const char *sum, size_t len, const fsdpa_summary_options *opts,
                                  const fsdpa_report_options *ropts, char **out, size_t *out_len, fsdpa_error *err) {
  if (!err_clear(err)) return FSDPA_EINVAL;
  if (!out) return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_summary_report: NULL out");
  *out = NULL;
  if (out_len) *out_len = 0;
  fsdpa_summary_options o;
  if (!sum || !opts_in(opts, &o))
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_summary_report: NULL summary or bad options size");
  fsdpa_report_options ro;
  fsdpa_report_options_init(&ro);
  if (ropts && !ABI_IN(fsdpa_report_options, &ro, ropts))
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_report_options.size");
  if (ro.format != FSDPA_FORMAT_JSON)
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT,
                   "a report from summaries is JSON only: text and HTML need the events");
  fa_alloc a;
  init_alloc(&a, &o);
  sum_doc d;
  fsdpa_status st = parse_one(&a, sum, len, &d, FSDPA_ABSENT, err);
  if (st) return st;
  sbuf b;
  sb_init(&b, &a);
  st = sum_report_json(&d, &b, err);
  if (!st) {
    *out = outbuf_dup(&a, b.p ? b.p : "", b.len);
    if (!*out) st = fa_fail_status(&a);
    else if (out_len) *out_len = b.len;
  }
  sb_free(&b);
  sum_doc_free(&d);
  if (st && err && err->status == FSDPA_OK)
    err_set(err, st, FSDPA_ABSENT, FSDPA_ABSENT, "report from summary: %s", fsdpa_status_str(st));
  return st;
}

fsdpa_status fsdpa_summary_findings(const char *sum, size_t len, const fsdpa_summary_options *opts, fsdpa_list **out,
                                    fsdpa_error *err) {
  if (!err_clear(err)) return FSDPA_EINVAL;
  if (!out) return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_summary_findings: NULL out");
  *out = NULL;
  fsdpa_summary_options o;
  if (!sum || !opts_in(opts, &o))
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_summary_findings: NULL summary or bad options size");
  fa_alloc a;
  init_alloc(&a, &o);
  sum_doc d;
  fsdpa_status st = parse_one(&a, sum, len, &d, FSDPA_ABSENT, err);
  if (st) return st;
  findings all;
  findings_init(&all, &a);
  xr_result xr;
  memset(&xr, 0, sizeof xr);
  st = sum_findings(&d, &all, &xr, err);
  if (!st) st = report_findings_list(&all, &a, out);
  xr_result_free(&a, &xr);
  findings_free(&all);
  sum_doc_free(&d);
  if (st && err && err->status == FSDPA_OK)
    err_set(err, st, FSDPA_ABSENT, FSDPA_ABSENT, "findings from summary: %s", fsdpa_status_str(st));
  return st;
}

typedef struct merge_ent {
  int64_t rank, world_size;
  size_t pos;        /* over all summaries, in the order given */
  size_t sum;        /* the summary it came from */
  const char *raw;   /* the rank entry, verbatim (a span of its summary) */
  size_t len;
} merge_ent;

/* The ranks of one job, as fsdpa_report() requires of its contexts
 * (report.c, check_job): each rank once.  `ents` sorted by rank.  EINVAL
 * naming the summaries, err's input the later one. */
static fsdpa_status check_job(const merge_ent *e, size_t n, fsdpa_error *err) {
  for (size_t k = 1; k < n; k++)
    if (e[k].rank == e[k - 1].rank) {
      const merge_ent *a = e[k - 1].pos < e[k].pos ? &e[k - 1] : &e[k], *b = a == &e[k] ? &e[k - 1] : &e[k];
      if (a->sum == b->sum)
        return err_set(err, FSDPA_EINVAL, (int64_t)b->sum, FSDPA_ABSENT, "rank %lld twice in summary %zu",
                       (long long)b->rank, b->sum);
      return err_set(err, FSDPA_EINVAL, (int64_t)b->sum, FSDPA_ABSENT,
                     "rank %lld twice: in summary %zu and in summary %zu (the same summary or trace given twice, or "
                     "two jobs mixed; a trace without distributedInfo.rank is rank 0 unless summarized with --rank N)",
                     (long long)b->rank, a->sum, b->sum);
    }
  return FSDPA_OK;
}

static int cmp_merge_ent(const void *pa, const void *pb) {
  const merge_ent *a = pa, *b = pb;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return a->pos < b->pos ? -1 : a->pos > b->pos;
}

fsdpa_status fsdpa_summary_merge(const char *const *sums, const size_t *lens, size_t n,
                                 const fsdpa_summary_options *opts, char **out, size_t *out_len, fsdpa_error *err) {
  if (!err_clear(err)) return FSDPA_EINVAL;
  if (!out) return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_summary_merge: NULL out");
  *out = NULL;
  if (out_len) *out_len = 0;
  fsdpa_summary_options o;
  if (!sums || !lens || !n || !opts_in(opts, &o))
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_summary_merge: no summaries or bad options size");
  for (size_t i = 0; i < n; i++)
    if (!sums[i]) return err_set(err, FSDPA_EINVAL, (int64_t)i, FSDPA_ABSENT, "fsdpa_summary_merge: summary %zu is NULL", i);
  fa_alloc a;
  init_alloc(&a, &o);
  /* the rank entries of all summaries, then written in rank order (ties: the
   * order given), so that merging is commutative as well as associative */
  fa_vec ents;
  memset(&ents, 0, sizeof ents);
  fsdpa_status st = FSDPA_OK;
  for (size_t i = 0; i < n && !st; i++) {
    sum_doc d;
    if ((st = parse_one(&a, sums[i], lens[i], &d, (int64_t)i, err))) break;
    for (size_t k = 0; k < d.n && !st; k++) {
      merge_ent e = {d.r[k].rank, d.r[k].world_size, ents.len, i, d.r[k].raw, d.r[k].raw_len};
      if (!fa_vec_push(&a, &ents, sizeof e, &e))
        st = err_set(err, fa_fail_status(&a), FSDPA_ABSENT, FSDPA_ABSENT, "merge: %s",
                     fsdpa_status_str(fa_fail_status(&a)));
    }
    sum_doc_free(&d);
  }
  if (st) {
    fa_vec_free(&a, &ents, sizeof(merge_ent));
    return st;
  }
  if (ents.len > 1) qsort(ents.data, ents.len, sizeof(merge_ent), cmp_merge_ent);
  if ((st = check_job(ents.data, ents.len, err))) {
    fa_vec_free(&a, &ents, sizeof(merge_ent));
    return st;
  }
  sbuf b;
  sb_init(&b, &a);
  sb_puts(&b, "{\"schema\":\"" SUMMARY_SCHEMA "\",\"version\":");
  sb_json_str(&b, fsdpa_version_string(), strlen(fsdpa_version_string()));
  sb_puts(&b, ",\"ranks\":[");
  for (size_t k = 0; k < ents.len; k++) {
    const merge_ent *e = &FA_VEC_AT(&ents, merge_ent, k);
    if (k) sb_puts(&b, ",");
    sb_putn(&b, e->raw, e->len);
  }
  fa_vec_free(&a, &ents, sizeof(merge_ent));
  sb_puts(&b, "]}\n");
  if (b.failed) st = (fsdpa_status)b.failed;
  if (!st) {
    *out = outbuf_dup(&a, b.p, b.len);
    if (!*out) st = fa_fail_status(&a);
    else if (out_len) *out_len = b.len;
  }
  sb_free(&b);
  return st ? err_set(err, st, FSDPA_ABSENT, FSDPA_ABSENT, "merge: %s", fsdpa_status_str(st)) : FSDPA_OK;
}
