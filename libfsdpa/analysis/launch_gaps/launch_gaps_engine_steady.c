/* What the launch-gaps findings judge: the iterations (the ProfilerStep
 * ranges, else the iterations inferred from annotations, model/iterations.h,
 * so that a trace without ProfilerStep gets a steady state too), and
 * whether the trace is a sample of its events at all. */
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include "events/classify.h"
#include "model/iterations.h"
#include <string.h>

fsdpa_status lg_steady_get(fsdpa_ctx *c, lg_steady *y) {
  memset(y, 0, sizeof *y);
  y->t0 = INT64_MIN;
  y->t1 = INT64_MAX;
  if (c->st.steps.len) {
    y->cap = c->st.steps.len;
    y->s = fa_malloc(&c->alloc, y->cap * sizeof *y->s);
    if (!y->s) return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (launch gaps steps)");
    y->n = ctx_sorted_steps(c, y->s, y->cap);
    y->source = ITS_PROFILER_STEP;
  } else {
    iterations it;
    fsdpa_status st = iterations_build(c, &it);
    if (st) return ctx_fail(c, st, "out of memory (launch gaps iterations)");
    if (it.n) {
      y->cap = it.n;
      y->s = fa_malloc(&c->alloc, y->cap * sizeof *y->s);
      if (!y->s) {
        iterations_free(&it);
        return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (launch gaps iterations)");
      }
      /* inferred ranges carry no ProfilerStep number: FSDPA_ABSENT */
      for (size_t i = 0; i < it.n; i++) y->s[i] = (step_rec){FSDPA_ABSENT, it.r[i].s, it.r[i].e, 0};
      y->n = it.n;
      y->source = it.source;
    }
    iterations_free(&it);
  }
  if (!y->n) return FSDPA_OK;
  y->first = lg_first_steady(y->n);
  /* steps that capture a CUDA graph record work instead of running it: set-up
   * like a warm-up step, never the steady state, while later steps remain */
  uint8_t *cap = fa_calloc(&c->alloc, y->n);
  if (!cap) {
    lg_steady_free(c, y);
    return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (launch gaps steps)");
  }
  const store *st = &c->st;
  for (size_t i = 0; i < st->rt.len; i++) {
    const ev_rec *r = STORE_REC(&st->rt, i);
    const char *nm = store_name(st, r->name);
    if (!classify_graph_capture(nm, intern_len(&st->names, r->name))) continue;
    for (size_t k = 0; k < y->n; k++)
      if (r->ts >= y->s[k].ts && r->ts < y->s[k].end) cap[k] = 1;
  }
  while (y->first < y->n && cap[y->first] && y->first + 1 < y->n) y->first++;
  for (size_t k = 0; k < y->first; k++) y->capture += cap[k];
  fa_free(&c->alloc, cap, y->n);
  y->t0 = y->s[y->first].ts;
  y->t1 = y->s[y->first].end;
  for (size_t i = y->first; i < y->n; i++)
    if (y->s[i].end > y->t1) y->t1 = y->s[i].end;
  return FSDPA_OK;
}

void lg_steady_free(fsdpa_ctx *c, lg_steady *y) {
  if (y->s) fa_free(&c->alloc, y->s, y->cap * sizeof *y->s);
  y->s = NULL;
  y->n = y->cap = 0;
}

const char *lg_steady_source(const lg_steady *y) { return it_source_name(y->source); }

