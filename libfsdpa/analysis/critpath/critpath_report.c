/* ranks[].critical_path: the path's span and length, its time by category
 * (summing exactly to the length), the same per iteration (the path clipped
 * to each iteration's range: summing to the part of the range the path
 * covers), the dependency graph's evidence counts, and the longest
 * segments in time order for viewers. */
#include "analysis/critpath/critpath.h"
#include "model/depgraph.h"
#include "model/iterations.h"
#include "util/sort.h"
#include <string.h>

/* Segments written: the longest, in time order. */
#define CP_SEGMENTS 32
/* Iterations written: the first ones (a report stays small for a trace of
 * thousands of steps; the rest are counted). */
#define CP_ITERATIONS 128

static void cats(jsonw *w, const int64_t *ns) {
  jw_obj(w);
  for (int i = 0; i < DG_P__N; i++) {
    char k[48];
    size_t n = strlen(dg_path_names[i]);
    memcpy(k, dg_path_names[i], n);
    memcpy(k + n, "_ns", 4);
    jw_ki64(w, k, ns[i]);
  }
  jw_obj_end(w);
}

typedef struct sref {
  int64_t len, s;
  size_t i;
} sref;
#define SR_LONGER(a, b) ((a)->len != (b)->len ? (a)->len > (b)->len : (a)->s < (b)->s)
#define SR_EARLIER(a, b) ((a)->s < (b)->s)
FA_SORT_DEFINE(sort_earliest, sref, SR_EARLIER)

/* The k longest segments into r[0..k) (ties: the earlier), in one pass:
 * the path of a long trace has millions of segments and k is small. */
static size_t longest(const dg_path *p, sref *r, size_t k) {
  size_t n = 0;
  for (size_t j = 0; j < p->nseg; j++) {
    sref x = {p->seg[j].e - p->seg[j].s, p->seg[j].s, j};
    if (n == k && !SR_LONGER(&x, &r[n - 1])) continue;
    size_t q = n < k ? n++ : n - 1;
    while (q > 0 && SR_LONGER(&x, &r[q - 1])) {
      r[q] = r[q - 1];
      q--;
    }
    r[q] = x;
  }
  return n;
}

/* The first segment ending after t (segments tile the path in time order). */
static size_t seg_after(const dg_path *p, int64_t t) {
  size_t lo = 0, hi = p->nseg;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->seg[mid].e <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static void evidence(jsonw *w, const dg_evidence *e) {
  jw_obj(w);
  jw_ku64(w, "ops", e->ops);
  jw_ku64(w, "launch_edges", e->launch_edges);
  jw_ku64(w, "stream_edges", e->stream_edges);
  jw_key(w, "stream_waits");
  jw_obj(w);
  jw_ku64(w, "cuda_sync", e->waits[DG_E_SYNC]);
  jw_ku64(w, "runtime", e->waits[DG_E_RUNTIME]);
  jw_ku64(w, "guessed", e->waits[DG_E_GUESS]);
  jw_ku64(w, "outside", e->waits[DG_E_OUTSIDE]);
  jw_obj_end(w);
  jw_key(w, "inferred");
  jw_obj(w);
  jw_ku64(w, "edges", e->waits[DG_E_TIMING]);
  jw_ki64(w, "max_lag_ns", e->timing_max_lag_ns);
  jw_obj_end(w);
  jw_ku64(w, "event_record_calls", e->record_calls);
  jw_key(w, "thread_edges");
  jw_obj(w);
  jw_ku64(w, "edges", e->thread_edges);
  jw_ki64(w, "max_lag_ns", e->thread_max_lag_ns);
  jw_obj_end(w);
  jw_obj_end(w);
}

fsdpa_status critpath_json(fsdpa_ctx *c, jsonw *w) {
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  if (!v->nstreams) {
    jw_null(w);
    return FSDPA_OK;
  }
  depgraph g;
  fsdpa_status st = dg_get(c, &g);
  if (st) return st;
  dg_path p;
  if ((st = dg_critical_path(c, &g, &p))) {
    dg_free(c, &g);
    return st;
  }
  step_rec *win = NULL;
  size_t nwin = 0;
  int source;
  if ((st = it_windows(c, &win, &nwin, &source))) {
    dg_path_free(&p);
    dg_free(c, &g);
    return st;
  }
  int64_t base = ctx_base(c);
  jw_obj(w);
  jw_ki64(w, "start_ns", p.start + base);
  jw_ki64(w, "end_ns", p.end + base);
  jw_ki64(w, "length_ns", p.length);
  jw_key(w, "by_category");
  cats(w, p.by_category);
  jw_key(w, "depgraph");
  evidence(w, &g.ev);
  jw_kstr(w, "iterations_from", it_source_name(source));
  jw_key(w, "iterations");
  jw_arr(w);
  size_t nit = source == ITS_NONE ? 0 : nwin < CP_ITERATIONS ? nwin : CP_ITERATIONS;
  for (size_t i = 0; i < nit; i++) {
    int64_t by[DG_P__N] = {0}, len = 0;
    for (size_t j = seg_after(&p, win[i].ts); j < p.nseg && p.seg[j].s < win[i].end; j++) {
      int64_t s = p.seg[j].s > win[i].ts ? p.seg[j].s : win[i].ts;
      int64_t e = p.seg[j].e < win[i].end ? p.seg[j].e : win[i].end;
      if (e > s) {
        by[p.seg[j].cat] += e - s;
        len += e - s;
      }
    }
    jw_obj(w);
    jw_ki64(w, "step", win[i].number);
    jw_ki64(w, "start_ns", win[i].ts + base);
    jw_ki64(w, "end_ns", win[i].end + base);
    jw_ki64(w, "length_ns", len);
    jw_key(w, "by_category");
    cats(w, by);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_ku64(w, "iterations_omitted", source == ITS_NONE ? 0 : nwin - nit);
  /* the longest segments, in time order */
  sref r[CP_SEGMENTS];
  size_t n = longest(&p, r, CP_SEGMENTS);
  jw_key(w, "segments");
  jw_arr(w);
  {
    sort_earliest(r, n);
    for (size_t k = 0; k < n; k++) {
      const dg_seg *sg = &p.seg[r[k].i];
      jw_obj(w);
      jw_ki64(w, "start_ns", sg->s + base);
      jw_ki64(w, "end_ns", sg->e + base);
      jw_kstr(w, "category", dg_path_names[sg->cat]);
      jw_key(w, "what");
      if (sg->what == DG_NONE) jw_null(w);
      else jw_strn(w, store_name(&c->st, sg->what), intern_len(&c->st.names, sg->what));
      jw_obj_end(w);
    }
  }
  jw_arr_end(w);
  jw_ku64(w, "segment_count", p.nseg);
  jw_obj_end(w);
  it_windows_free(c, win, nwin);
  dg_path_free(&p);
  dg_free(c, &g);
  return st;
}
