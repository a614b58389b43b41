/* Iterations from ProfilerStep, or inferred from repeating annotations
 * (docs/report-contract.md, "Iterations"). */
#include "model/iterations.h"
#include "events/classify.h"
#include "events/classify_workload.h"
#include <stdlib.h>
#include <string.h>

const char *it_source_name(int s) {
  static const char *const N[] = {"none", "ProfilerStep", "engine_step", "optimizer_step",
                                  "benchmark_annotation", "dataloader"};
  return s >= 0 && s <= ITS_DATALOADER ? N[s] : "none";
}

const char *it_source_rule(int s) {
  switch (s) {
    case ITS_PROFILER_STEP: return "the trace's ProfilerStep#N ranges";
    case ITS_ENGINE: return "one inference engine step annotation per iteration, as recorded";
    case ITS_OPTIMIZER: return "one Optimizer.step# annotation ends each iteration; the first starts at the first CPU event of its thread";
    case ITS_BENCHMARK: return "one benchmark run annotation ([...|warmup|...] / [...|measure|...]) per iteration, as recorded (a range nested in one of the same name is the same run)";
    case ITS_DATALOADER: return "each DataLoader __next__ starts an iteration that lasts until the next one; the last ends at the last CPU event of its thread";
    default: return "no ProfilerStep and no annotation that repeats once per iteration";
  }
}

static int source_of(int mark) {
  switch (mark) {
    case IT_ENGINE: return ITS_ENGINE;
    case IT_OPTIMIZER: return ITS_OPTIMIZER;
    case IT_BENCHMARK: return ITS_BENCHMARK;
    case IT_DATALOADER: return ITS_DATALOADER;
    default: return ITS_NONE;
  }
}

static int by_start(const void *pa, const void *pb) {
  const it_range *a = pa, *b = pb;
  if (a->s != b->s) return a->s < b->s ? -1 : 1;
  if (a->e != b->e) return a->e > b->e ? -1 : 1;  /* the outer one first */
  return a->name < b->name ? -1 : a->name > b->name;
}

void iterations_free(iterations *it) {
  if (it->a && it->r) fa_free(it->a, it->r, it->n * sizeof *it->r);
  it->r = NULL;
  it->n = 0;
}

static int mark_of(const store *s, uint8_t *memo, uint32_t name) {
  if (name >= s->name_info.len) return IT_NONE;
  if (memo[name] == 0xff)
    memo[name] = (uint8_t)classify_iteration_mark(store_name(s, name), intern_len(&s->names, name));
  return memo[name];
}

/* First start and last end of the CPU records of a thread. */
static void thread_extent(const store *s, uint32_t track, int64_t *first, int64_t *last) {
  *first = INT64_MAX;
  *last = INT64_MIN;
  for (size_t i = 0; i < s->cpu.len; i++) {
    const ev_rec *r = STORE_REC(&s->cpu, i);
    if (r->track != track) continue;
    if (r->ts < *first) *first = r->ts;
    if (r->end > *last) *last = r->end;
  }
}

fsdpa_status iterations_build(fsdpa_ctx *c, iterations *it) {
  memset(it, 0, sizeof *it);
  it->a = &c->alloc;
  const store *s = &c->st;
  if (s->steps.len) {
    it->r = fa_malloc(it->a, s->steps.len * sizeof *it->r);
    if (!it->r) return fa_fail_status(it->a);
    for (size_t i = 0; i < s->steps.len; i++) {
      const step_rec *st = &FA_VEC_AT(&s->steps, step_rec, i);
      it->r[i] = (it_range){st->ts, st->end, INTERN_NONE};
    }
    it->n = s->steps.len;
    it->source = ITS_PROFILER_STEP;
    return FSDPA_OK;
  }
  /* the marks of each kind; the first mark's name (and thread) is the one
   * followed, so that a second optimizer (EMA) does not double the count */
  /* the mark of each name, decided once (a string match; names repeat) */
  size_t nn = s->name_info.len ? s->name_info.len : 1;
  uint8_t *memo = fa_malloc(it->a, nn);
  if (!memo) return fa_fail_status(it->a);
  memset(memo, 0xff, nn);
  size_t count[5] = {0};
  uint32_t name[5] = {INTERN_NONE, INTERN_NONE, INTERN_NONE, INTERN_NONE, INTERN_NONE};
  uint32_t track[5] = {0};
  for (size_t i = 0; i < s->cpu.len; i++) {
    const ev_rec *r = STORE_REC(&s->cpu, i);
    int m = mark_of(s, memo, r->name);
    if (m == IT_NONE) continue;
    if (name[m] == INTERN_NONE) {
      name[m] = r->name;
      track[m] = r->track;
    }
    /* engine steps and benchmark runs are named per step; optimizer and
     * DataLoader marks repeat one name */
    if (m == IT_ENGINE || m == IT_BENCHMARK || r->name == name[m]) count[m]++;
  }
  int mark = count[IT_ENGINE] ? IT_ENGINE
             : count[IT_OPTIMIZER] ? IT_OPTIMIZER
             : count[IT_BENCHMARK] ? IT_BENCHMARK
             : count[IT_DATALOADER] >= 2 ? IT_DATALOADER
                                         : IT_NONE;
  it_range *r = mark == IT_NONE ? NULL : fa_malloc(it->a, count[mark] * sizeof *r);
  if (mark == IT_NONE || !r) {
    fa_free(it->a, memo, nn);
    return mark == IT_NONE ? FSDPA_OK : fa_fail_status(it->a);
  }
  size_t n = 0;
  for (size_t i = 0; i < s->cpu.len && n < count[mark]; i++) {
    const ev_rec *e = STORE_REC(&s->cpu, i);
    if (mark_of(s, memo, e->name) != mark) continue;
    if ((mark == IT_OPTIMIZER || mark == IT_DATALOADER) && e->name != name[mark]) continue;
    r[n++] = (it_range){e->ts, e->end, e->name};
  }
  fa_free(it->a, memo, nn);
  qsort(r, n, sizeof *r, by_start);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (k && r[i].name == r[k - 1].name && r[i].e <= r[k - 1].e) continue;  /* nested copy */
    r[k++] = r[i];
  }
  if (mark == IT_OPTIMIZER || mark == IT_DATALOADER) {
    int64_t first, last;
    thread_extent(s, track[mark], &first, &last);
    if (mark == IT_OPTIMIZER) {
      for (size_t i = k; i-- > 0;) r[i].s = i ? r[i - 1].e : (first < r[0].s ? first : r[0].s);
    } else {
      for (size_t i = 0; i < k; i++) r[i].e = i + 1 < k ? r[i + 1].s : (last > r[i].e ? last : r[i].e);
    }
  }
  it->r = r;
  it->n = n;  /* the allocation's size; k ranges are used */
  if (k < n) {
    /* keep n == allocated count for the free; shrink by copying */
    it_range *t = fa_malloc(it->a, k * sizeof *t);
    if (!t) {
      fa_free(it->a, r, n * sizeof *r);
      it->r = NULL;
      it->n = 0;
      return fa_fail_status(it->a);
    }
    memcpy(t, r, k * sizeof *t);
    fa_free(it->a, r, n * sizeof *r);
    it->r = t;
    it->n = k;
  }
  it->source = source_of(mark);
  return FSDPA_OK;
}

static void extent_of(const fa_vec *v, int64_t *first, int64_t *last) {
  for (size_t i = 0; i < v->len; i++) {
    const ev_rec *r = STORE_REC(v, i);
    if (r->ts < *first) *first = r->ts;
    if (r->end > *last) *last = r->end;
  }
}

fsdpa_status it_windows(fsdpa_ctx *c, step_rec **w, size_t *n, int *source) {
  *w = NULL;
  *n = 0;
  *source = ITS_NONE;
  size_t ns = ctx_sorted_steps(c, NULL, 0);
  if (ns) {
    if (!(*w = fa_malloc(&c->alloc, ns * sizeof(step_rec)))) return fa_fail_status(&c->alloc);
    *n = ctx_sorted_steps(c, *w, ns);
    *source = ITS_PROFILER_STEP;
    return FSDPA_OK;
  }
  iterations it;
  fsdpa_status st = iterations_build(c, &it);
  if (st) return st;
  if (it.n) {
    if (!(*w = fa_malloc(&c->alloc, it.n * sizeof(step_rec)))) {
      iterations_free(&it);
      return fa_fail_status(&c->alloc);
    }
    for (size_t i = 0; i < it.n; i++) (*w)[i] = (step_rec){FSDPA_ABSENT, it.r[i].s, it.r[i].e, 0};
    *n = it.n;
    *source = it.source;
    iterations_free(&it);
    return FSDPA_OK;
  }
  iterations_free(&it);
  int64_t first = INT64_MAX, last = INT64_MIN;
  extent_of(&c->st.cpu, &first, &last);
  extent_of(&c->st.rt, &first, &last);
  extent_of(&c->st.gpu, &first, &last);
  if (first > last) return FSDPA_OK;
  if (!(*w = fa_malloc(&c->alloc, sizeof(step_rec)))) return fa_fail_status(&c->alloc);
  (*w)[0] = (step_rec){FSDPA_ABSENT, first, last, 0};
  *n = 1;
  return FSDPA_OK;
}

void it_windows_free(fsdpa_ctx *c, step_rec *w, size_t n) { fa_free(&c->alloc, w, n * sizeof(step_rec)); }

int it_trace_extent(const fsdpa_ctx *c, int64_t *first, int64_t *last) {
  *first = INT64_MAX;
  *last = INT64_MIN;
  extent_of(&c->st.cpu, first, last);
  extent_of(&c->st.rt, first, last);
  extent_of(&c->st.gpu, first, last);
  return *first <= *last;
}
