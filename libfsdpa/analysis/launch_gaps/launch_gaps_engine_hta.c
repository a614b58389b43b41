/* HTA's per-stream idle breakdown, reproduced only to cross-check our exact
 * numbers against HTA's published ones (tests); the report never uses it.
 * Rules in launch_gaps_impl.h (lg_hta_idle). */
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/satmath.h"

typedef struct hop {
  int64_t ts, end, rts;  /* whole µs after HTA's rounding */
  uint32_t idx;          /* input order breaks ties */
  uint32_t linked;
} hop;

/* HTA reads ts and dur through Python's json into float64 µs: at today's
 * epoch times (1.7e15 µs) a double resolves only 0.25 µs, so the rounding is
 * done on the double nearest to the decimal the trace holds (strtod is
 * correctly rounded, as Python's float() is), never on our exact ns. */
static double us_double(int64_t ns) {
  char b[48];
  uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  snprintf(b, sizeof b, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000),
           (unsigned long long)(a % 1000));
  return strtod(b, NULL);
}

static int cmp_hop(const void *pa, const void *pb) {
  const hop *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

fsdpa_status lg_hta_idle(fsdpa_ctx *c, int64_t device, int64_t stream, int drop_unlinked,
                         int64_t kernel_wait_us, lg_hta *out) {
  memset(out, 0, sizeof *out);
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  const gpu_stream_view *sv = NULL;
  for (size_t i = 0; i < v->nstreams; i++)
    if (v->streams[i].device == device && v->streams[i].stream == stream) sv = &v->streams[i];
  if (!sv || !sv->nops) return FSDPA_OK;
  hop *h = fa_malloc(&c->alloc, sv->nops * sizeof *h);
  if (!h) return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (hta idle)");
  size_t n = 0;
  for (size_t j = 0; j < sv->nops; j++) {
    const ev_rec *r = STORE_REC(&c->st.gpu, sv->ops[j]);
    uint32_t ri = store_runtime_for_corr(v, r->corr);
    if (ri == UINT32_MAX && drop_unlinked) {
      out->dropped++;
      continue;
    }
    double ts = us_double(r->ts), dur = us_double(r->end - r->ts);
    hop x = {(int64_t)ceil(ts), (int64_t)floor(ts + dur), 0, sv->ops[j], ri != UINT32_MAX};
    if (x.linked) x.rts = (int64_t)ceil(us_double(STORE_REC(&c->st.rt, ri)->ts));
    h[n++] = x;
  }
  qsort(h, n, sizeof *h, cmp_hop);
  for (size_t k = 1; k < n; k++) {
    int64_t prev = h[k - 1].end, idle = h[k].ts - prev;
    out->intervals++;
    if (h[k].linked && h[k].rts > prev) out->host_us = sat_add(out->host_us, idle);
    else if (idle < kernel_wait_us) out->kernel_us = sat_add(out->kernel_us, idle);
    else out->other_us = sat_add(out->other_us, idle);
  }
  fa_free(&c->alloc, h, sv->nops * sizeof *h);
  return FSDPA_OK;
}
