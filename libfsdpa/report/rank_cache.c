/* A context's own part of a report (its findings and its "ranks" section),
 * memoized in the context (CACHE_RANK_REPORT).
 *
 * Why: a report over N contexts is one serial call, but all of it except the
 * cross-rank part depends on one context alone.  A caller with a thread per
 * context (`fsdpa analyze -j`) runs fsdpa_report() on each context by itself
 * in that context's thread; the serial report over all of them then copies
 * the cached findings and splices the cached section text.  The cache is
 * dropped with the context's other results when events or parameters change
 * (ctx_cache_get), and a different rank number or writer state (pretty,
 * depth) is a miss, so output is byte-identical either way. */
#include "report/rank_cache.h"
#include "report/rank_part.h"
#include <string.h>

typedef struct rank_cache {
  int64_t rank;          /* both parts were made for this rank number */
  int have_findings;
  findings f;            /* in the context's allocator */
  int have_json, json_pretty, json_depth;
  sbuf json;             /* the section as a jsonw at json_depth writes it */
} rank_cache;

static void rc_free(fsdpa_ctx *c, void *obj) {
  rank_cache *rc = obj;
  findings_free(&rc->f);
  sb_free(&rc->json);
  fa_free(&c->alloc, rc, sizeof *rc);
}

/* The slot, made empty if absent; NULL when that fails (callers then work
 * uncached: a cache must never turn a result into an error). */
static rank_cache *rc_get(fsdpa_ctx *c, int64_t rank) {
  rank_cache *rc = ctx_cache_get(c, CACHE_RANK_REPORT);
  if (!rc) {
    rc = fa_calloc(&c->alloc, sizeof *rc);
    if (!rc) return NULL;
    findings_init(&rc->f, &c->alloc);
    sb_init(&rc->json, &c->alloc);
    rc->rank = rank;
    ctx_cache_put(c, CACHE_RANK_REPORT, rc, rc_free);
  }
  if (rc->rank != rank) {
    findings_free(&rc->f);
    sb_free(&rc->json);
    rc->have_findings = rc->have_json = 0;
    rc->rank = rank;
  }
  return rc;
}

fsdpa_status report_rank_findings(fsdpa_ctx *c, int64_t rank, findings *out) {
  rank_cache *rc = rc_get(c, rank);
  if (!rc) {
    fsdpa_status st = rank_findings_compute(c, rank, out);
    return st ? st : (fsdpa_status)findings_check(out);
  }
  if (!rc->have_findings) {
    findings f;
    findings_init(&f, &c->alloc);
    fsdpa_status st = rank_findings_compute(c, rank, &f);
    if (!st) st = (fsdpa_status)findings_check(&f);
    if (st) {
      findings_free(&f);
      return st;
    }
    rc->f = f;
    rc->have_findings = 1;
  }
  int failed = findings_append(out, &rc->f);
  return failed ? (fsdpa_status)failed : FSDPA_OK;
}

fsdpa_status report_rank_json(fsdpa_ctx *c, int64_t rank, jsonw *w) {
  rank_cache *rc = rc_get(c, rank);
  if (rc && rc->have_json && rc->json_pretty == w->pretty && rc->json_depth == w->depth) {
    jw_raw(w, rc->json.p, rc->json.len);
    return w->b->failed ? (fsdpa_status)w->b->failed : FSDPA_OK;
  }
  /* Write the section alone, in the state w is in, then splice it: the
   * separator before it is w's (jw_raw), everything after the opening brace
   * depends only on the depth and on pretty. */
  sbuf b;
  sb_init(&b, &c->alloc);
  jsonw fw;
  jw_init(&fw, &b, w->pretty);
  fw.depth = w->depth;
  fw.after_key = 1;
  fsdpa_status st = rank_json_write(c, rank, &fw);
  if (!st && b.failed) st = (fsdpa_status)b.failed;
  if (!st) {
    jw_raw(w, b.p ? b.p : "", b.len);
    if (w->b->failed) st = (fsdpa_status)w->b->failed;
  }
  if (st || !rc) {
    sb_free(&b);
    return st;
  }
  sb_free(&rc->json);
  rc->json = b;
  rc->have_json = 1;
  rc->json_pretty = w->pretty;
  rc->json_depth = w->depth;
  return FSDPA_OK;
}
