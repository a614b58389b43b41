/* HTA's per-stream idle breakdown, reproduced only to cross-check our exact
 * numbers against HTA's published ones (tests); the report never uses it. */
#include "analysis/launch_gaps_impl.h"
#include <stdlib.h>
#include <string.h>

typedef struct hop {
  int64_t ts, end, rts;  /* whole µs after HTA's rounding */
  uint32_t idx;          /* input order breaks ties */
  uint32_t linked;
} hop;

static int64_t ceil_us(int64_t ns) { return ns >= 0 ? (ns + 999) / 1000 : -((-ns) / 1000); }
static int64_t floor_us(int64_t ns) { return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000); }

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
    hop x = {ceil_us(r->ts), floor_us(r->end), 0, sv->ops[j], ri != UINT32_MAX};
    if (x.linked) x.rts = ceil_us(STORE_REC(&c->st.rt, ri)->ts);
    h[n++] = x;
  }
  qsort(h, n, sizeof *h, cmp_hop);
  for (size_t k = 1; k < n; k++) {
    int64_t prev = h[k - 1].end, idle = h[k].ts - prev;
    out->intervals++;
    if (h[k].linked && h[k].rts > prev) out->host_us += idle;
    else if (idle < kernel_wait_us) out->kernel_us += idle;
    else out->other_us += idle;
  }
  fa_free(&c->alloc, h, sv->nops * sizeof *h);
  return FSDPA_OK;
}
