/* Communication / computation overlap (issue 4): HTA's comm_comp_overlap
 * computed exactly in ns, per window, per collective type and per process
 * group, with achieved NCCL bus bandwidth, plus the comm-serialized and
 * exposed-comm findings. */
#include "model/kernel_sets.h"
#include "analysis/overlap/overlap.h"
#include "model/fsdp_model.h"
#include "events/classify.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/satmath.h"
#include "util/fmt.h"

/* ---- splits ---- */

typedef struct split_acc {
  int key;                 /* collective type, or index into the PG table */
  uint32_t pg;
  uint64_t count;
  int64_t comm_ns, overlap_ns;
  int64_t bytes, bus_bytes, timed_ns;
  int has_bytes;
} split_acc;

/* Group comm entries by collective (by == 0) or process group (by == 1) and
 * compute each group's union, overlap with compute and bandwidth sums.
 * *out is allocated with d->nents entries (n used), sorted by collective type
 * or process-group name. */
static int acc_before(const store *s, int by, const split_acc *a, const split_acc *b) {
  if (!by) return a->key < b->key;
  return strcmp(store_name(s, a->pg), store_name(s, b->pg)) < 0;
}

static fsdpa_status splits(fsdpa_ctx *c, const ks_data *d, int by, split_acc **out, size_t *nout) {
  fa_alloc *a = &c->alloc;
  *out = NULL;
  *nout = 0;
  if (!d->nents) return FSDPA_OK;
  /* distinct keys: few (collective types, process groups) */
  split_acc *acc = fa_calloc(a, d->nents * sizeof(split_acc));
  iv *tmp = fa_malloc(a, d->nents * sizeof(iv));
  if (!acc || !tmp) {
    fa_free(a, acc, d->nents * sizeof(split_acc));
    fa_free(a, tmp, d->nents * sizeof(iv));
    return fa_fail_status(a);
  }
  size_t nk = 0;
  for (size_t k = 0; k < d->nents; k++) {
    const ks_ent *e = &d->ents[k];
    size_t j = 0;
    for (; j < nk; j++)
      if (by ? acc[j].pg == e->pg : acc[j].key == e->coll) break;
    if (j == nk) {
      acc[nk].key = by ? (int)nk : e->coll;
      acc[nk].pg = e->pg;
      nk++;
    }
    split_acc *x = &acc[j];
    x->count++;
    if (e->bytes != FSDPA_ABSENT && e->dur > 0) {
      x->has_bytes = 1;
      x->bytes = sat_add(x->bytes, e->bytes);
      x->timed_ns = sat_add(x->timed_ns, e->dur);
      x->bus_bytes = sat_add(x->bus_bytes, e->bus_bytes == FSDPA_ABSENT ? 0 : e->bus_bytes);
    }
  }
  for (size_t j = 0; j < nk; j++) {
    size_t m = 0;
    for (size_t k = 0; k < d->nents; k++) {
      const ks_ent *e = &d->ents[k];
      if (by ? acc[j].pg == e->pg : acc[j].key == e->coll) tmp[m++] = (iv){e->s, e->e};
    }
    m = iv_union(tmp, m);
    acc[j].comm_ns = iv_total(tmp, m);
    acc[j].overlap_ns = iv_intersect_len(tmp, m, d->comp, d->ncomp);
  }
  /* keys are few (collective types, process groups): insertion sort */
  for (size_t i = 1; i < nk; i++) {
    split_acc x = acc[i];
    size_t j = i;
    while (j > 0 && acc_before(&c->st, by, &x, &acc[j - 1])) {
      acc[j] = acc[j - 1];
      j--;
    }
    acc[j] = x;
  }
  fa_free(a, tmp, d->nents * sizeof(iv));
  *out = acc;
  *nout = nk;
  return FSDPA_OK;
}

static void acc_to_public(const fsdpa_ctx *c, const split_acc *x, int by, fsdpa_comm_split *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  const char *nm = by ? (x->pg == INTERN_NONE ? "" : store_name(&c->st, x->pg)) : coll_type_name(x->key);
  snprintf(o->name, sizeof o->name, "%s", nm);
  o->count = x->count;
  o->comm_ns = x->comm_ns;
  o->overlap_ns = x->overlap_ns;
  o->exposed_ns = x->comm_ns - x->overlap_ns;
  o->bytes = x->has_bytes ? x->bytes : FSDPA_ABSENT;
  o->timed_ns = x->has_bytes ? x->timed_ns : FSDPA_ABSENT;
  o->algbw_gbps = x->has_bytes && x->timed_ns > 0 ? (double)x->bytes / (double)x->timed_ns : -1.0;
  o->busbw_gbps = x->has_bytes && x->timed_ns > 0 && x->bus_bytes > 0
                      ? (double)x->bus_bytes / (double)x->timed_ns
                      : -1.0;
}

/* ---- public queries ---- */

static void fill_overlap(const ks_data *d, fsdpa_overlap *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->compute_ns = iv_total(d->comp, d->ncomp);
  o->compute_kernels = d->comp_kernels;
  o->comm_kernels = d->nents;
  if (!d->nents) {
    o->comm_ns = o->overlap_ns = o->exposed_comm_ns = FSDPA_ABSENT;
    o->overlap_pct = -1.0;
    return;
  }
  o->comm_ns = iv_total(d->comm, d->ncomm);
  o->overlap_ns = iv_intersect_len(d->comm, d->ncomm, d->comp, d->ncomp);
  o->exposed_comm_ns = o->comm_ns - o->overlap_ns;
  o->overlap_pct = o->comm_ns > 0 ? 100.0 * (double)o->overlap_ns / (double)o->comm_ns : -1.0;
}

static fsdpa_status begin(fsdpa_ctx *c, const fsdpa_query *q, qwin *w, const store_views **v) {
  ctx_clear(c);
  fsdpa_status st = ctx_resolve_query(c, q, w);
  if (st) return st;
  *v = ctx_views(c);
  return *v ? FSDPA_OK : fa_fail_status(&c->alloc);
}

fsdpa_status fsdpa_query_overlap(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_overlap *out) {
  if (!c || !out || !ctx_struct_ok(out->size, sizeof *out)) return FSDPA_EINVAL;
  qwin w;
  const store_views *v;
  fsdpa_status st = begin(c, q, &w, &v);
  if (st) return st;
  ks_data d;
  st = ks_gather(c, v, &w, &d);
  if (st) return ctx_fail(c, st, "out of memory computing overlap");
  fill_overlap(&d, out);
  ks_free(&d);
  return FSDPA_OK;
}

static fsdpa_status split_query(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_comm_split_by by,
                                size_t idx, fsdpa_comm_split *out, size_t *count) {
  if ((int)by != FSDPA_SPLIT_COLLECTIVE && (int)by != FSDPA_SPLIT_PROCESS_GROUP)
    return ctx_fail(c, FSDPA_EINVAL, "unknown fsdpa_comm_split_by %d", (int)by);
  qwin w;
  const store_views *v;
  fsdpa_status st = begin(c, q, &w, &v);
  if (st) return st;
  ks_data d;
  st = ks_gather(c, v, &w, &d);
  if (st) return ctx_fail(c, st, "out of memory computing overlap");
  split_acc *acc;
  size_t n;
  st = splits(c, &d, by == FSDPA_SPLIT_PROCESS_GROUP, &acc, &n);
  if (!st) {
    if (count) *count = n;
    if (out) {
      if (idx < n) acc_to_public(c, &acc[idx], by == FSDPA_SPLIT_PROCESS_GROUP, out);
      else st = ctx_fail(c, FSDPA_EINVAL, "split index %zu out of range (%zu)", idx, n);
    }
  } else {
    ctx_fail(c, st, "out of memory computing overlap splits");
  }
  fa_free(&c->alloc, acc, d.nents * sizeof(split_acc));
  ks_free(&d);
  return st;
}

fsdpa_status fsdpa_comm_split_count(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_comm_split_by by,
                                    size_t *n) {
  if (!c || !n) return FSDPA_EINVAL;
  *n = 0;
  return split_query(c, q, by, 0, NULL, n);
}

fsdpa_status fsdpa_query_comm_split(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_comm_split_by by,
                                    size_t i, fsdpa_comm_split *out) {
  if (!c || !out || !ctx_struct_ok(out->size, sizeof *out)) return FSDPA_EINVAL;
  return split_query(c, q, by, i, out, NULL);
}

/* ---- report ---- */

static void write_splits(fsdpa_ctx *c, jsonw *w, const split_acc *acc, size_t n, int by) {
  jw_arr(w);
  for (size_t i = 0; i < n; i++) {
    fsdpa_comm_split o;
    acc_to_public(c, &acc[i], by, &o);
    jw_obj(w);
    jw_kstr(w, by ? "process_group" : "collective", o.name);
    jw_ku64(w, "count", o.count);
    jw_ki64(w, "comm_ns", o.comm_ns);
    jw_ki64(w, "overlap_ns", o.overlap_ns);
    jw_ki64(w, "exposed_ns", o.exposed_ns);
    jw_ki64(w, "bytes", o.bytes);
    jw_key(w, "algbw_gbps");
    if (o.algbw_gbps < 0) jw_null(w);
    else jw_f64(w, o.algbw_gbps, 3);
    jw_key(w, "busbw_gbps");
    if (o.busbw_gbps < 0) jw_null(w);
    else jw_f64(w, o.busbw_gbps, 3);
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

static void write_pct(jsonw *w, const char *k, double pct) {
  jw_key(w, k);
  if (pct < 0) jw_null(w);
  else jw_f64(w, pct, 4);
}

fsdpa_status overlap_json(fsdpa_ctx *c, jsonw *w) {
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  qwin win = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  ks_data d;
  fsdpa_status st = ks_gather(c, v, &win, &d);
  if (st) return st;
  fsdpa_overlap o;
  fill_overlap(&d, &o);
  split_acc *by_coll = NULL, *by_pg = NULL;
  size_t ncoll = 0, npg = 0;
  iv *cp = NULL;
  size_t ncp = 0, cp_cap = d.ncomm + d.ncomp;
  st = splits(c, &d, 0, &by_coll, &ncoll);
  if (!st) st = splits(c, &d, 1, &by_pg, &npg);
  if (!st && cp_cap && !(cp = fa_malloc(&c->alloc, cp_cap * sizeof(iv)))) st = fa_fail_status(&c->alloc);
  if (st) goto done;
  ncp = iv_intersect(d.comm, d.ncomm, d.comp, d.ncomp, cp);
  jw_obj(w);
  jw_ki64(w, "comm_ns", o.comm_ns);
  jw_ki64(w, "compute_ns", o.compute_ns);
  jw_ki64(w, "overlap_ns", o.overlap_ns);
  jw_ki64(w, "exposed_comm_ns", o.exposed_comm_ns);
  write_pct(w, "overlap_pct", o.overlap_pct);
  jw_ku64(w, "comm_kernels", o.comm_kernels);
  jw_ku64(w, "compute_kernels", o.compute_kernels);
  jw_key(w, "by_collective");
  write_splits(c, w, by_coll, ncoll, 0);
  jw_key(w, "by_process_group");
  write_splits(c, w, by_pg, npg, 1);
  /* per step: the CPU ProfilerStep range clips the rank-wide unions */
  jw_key(w, "steps");
  jw_arr(w);
  size_t nsteps = fsdpa_step_count(c);
  for (size_t i = 0; i < nsteps; i++) {
    fsdpa_step s = {sizeof s, 0, 0, 0};
    if (fsdpa_get_step(c, i, &s)) continue;
    int64_t t0 = s.start_ns - ctx_base(c), t1 = t0 + s.dur_ns;
    int64_t comm = iv_len_in(d.comm, d.ncomm, t0, t1);
    int64_t ovl = iv_len_in(cp, ncp, t0, t1);
    jw_obj(w);
    jw_ki64(w, "step", s.number);
    jw_ki64(w, "comm_ns", d.nents ? comm : FSDPA_ABSENT);
    jw_ki64(w, "compute_ns", iv_len_in(d.comp, d.ncomp, t0, t1));
    jw_ki64(w, "overlap_ns", d.nents ? ovl : FSDPA_ABSENT);
    jw_ki64(w, "exposed_comm_ns", d.nents ? comm - ovl : FSDPA_ABSENT);
    write_pct(w, "overlap_pct", d.nents && comm > 0 ? 100.0 * (double)ovl / (double)comm : -1.0);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
done:
  fa_free(&c->alloc, cp, cp_cap * sizeof(iv));
  fa_free(&c->alloc, by_coll, d.nents * sizeof(split_acc));
  fa_free(&c->alloc, by_pg, d.nents * sizeof(split_acc));
  ks_free(&d);
  return st;
}

/* ---- findings ---- */

static int cmp_len_desc(const void *pa, const void *pb) {
  const iv *a = pa, *b = pb;
  int64_t la = a->e - a->s, lb = b->e - b->s;
  if (la != lb) return la > lb ? -1 : 1;
  return a->s < b->s ? -1 : a->s > b->s;
}


/* Evidence shared by both findings: totals, per collective with bandwidth,
 * stream roles, and (FSDP) how many units need more comm than compute. */
static void evidence(fsdpa_ctx *c, const store_views *v, jsonw *w, const fsdpa_overlap *o,
                     const split_acc *acc, size_t n, int64_t span, const fm_summary *fs) {
  jw_obj(w);
  jw_ki64(w, "comm_ns", o->comm_ns);
  jw_ki64(w, "compute_ns", o->compute_ns);
  jw_ki64(w, "overlap_ns", o->overlap_ns);
  jw_ki64(w, "exposed_comm_ns", o->exposed_comm_ns);
  write_pct(w, "overlap_pct", o->overlap_pct);
  jw_ki64(w, "gpu_span_ns", span);
  jw_key(w, "by_collective");
  write_splits(c, w, acc, n, 0);
  uint64_t comm_streams = 0, mixed_streams = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    if (v->streams[i].role == FSDPA_ROLE_COMMUNICATION) comm_streams++;
    if (v->streams[i].role == FSDPA_ROLE_MIXED) mixed_streams++;
  }
  jw_ku64(w, "communication_streams", comm_streams);
  jw_ku64(w, "mixed_streams", mixed_streams);
  if (fs && fs->units) {
    jw_ku64(w, "fsdp_unit_phases", fs->units);
    jw_ku64(w, "fsdp_unit_phases_comm_bound", fs->comm_bound);
    jw_ki64(w, "fsdp_exposed_formula_ns", fs->exposed_formula_ns);
  }
  jw_obj_end(w);
}

static void add_ranges(fsdpa_ctx *c, finding *f, iv *exposed, size_t n) {
  if (!f) return;
  qsort(exposed, n, sizeof *exposed, cmp_len_desc);
  for (size_t i = 0; i < n && i < FINDING_MAX_RANGES; i++)
    finding_add_range(f, ctx_abs(c, exposed[i].s), ctx_abs(c, exposed[i].e));
}

fsdpa_status overlap_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  qwin win = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  ks_data d;
  fsdpa_status st = ks_gather(c, v, &win, &d);
  if (st) return st;
  fsdpa_overlap o;
  fill_overlap(&d, &o);
  if (!d.nents || !d.ncomp || o.comm_ns <= 0) {
    ks_free(&d);
    return FSDPA_OK;
  }
  fa_alloc *a = &c->alloc;
  split_acc *acc = NULL;
  size_t nacc = 0;
  iv *exp = NULL;
  size_t cap = d.ncomm + d.ncomp, nexp = 0;
  sbuf ev, det;
  sb_init(&ev, a);
  sb_init(&det, a);
  fm_summary fs;
  memset(&fs, 0, sizeof fs);
  st = splits(c, &d, 0, &acc, &nacc);
  if (!st && !(exp = fa_malloc(a, cap * sizeof(iv)))) st = fa_fail_status(a);
  if (!st) st = fm_summarize(c, &fs);
  if (st) goto done;
  nexp = iv_subtract(d.comm, d.ncomm, d.comp, d.ncomp, exp);
  int64_t span = v->nall ? v->all_busy[v->nall - 1].e - v->all_busy[0].s : 0;
  jsonw jw;
  jw_init(&jw, &ev, 0);
  evidence(c, v, &jw, &o, acc, nacc, span, &fs);
  if (ev.failed) { st = (fsdpa_status)ev.failed; goto done; }

  double thr_ser = (double)c->params[P_OVERLAP_SERIALIZED_PPM] / 1e4;
  if (o.overlap_pct < thr_ser) {
    int64_t lo = o.comm_ns < o.compute_ns ? o.comm_ns : o.compute_ns;
    int64_t cost = lo - o.overlap_ns;
    int shared = 0;
    for (size_t i = 0; i < v->nstreams; i++)
      if (v->streams[i].role == FSDPA_ROLE_MIXED) shared = 1;
    det.len = 0;
    sb_printf(&det,
              "Communication kernels run %.3f ms and compute kernels %.3f ms, but only %.3f ms "
              "(%.2f%% of communication) run at the same time: %s. Up to %.3f ms could be hidden.",
              fmt_ms(o.comm_ns), fmt_ms(o.compute_ns), fmt_ms(o.overlap_ns), o.overlap_pct,
              shared ? "collectives share a stream with compute kernels, so one waits for the other"
                     : "the communication stream and the compute stream take turns",
              fmt_ms(cost));
    finding *x = findings_add(
        f, "comm-serialized", SEV_WARNING, rank, FSDPA_ABSENT, cost,
        "Communication and computation do not overlap", det.p ? det.p : "",
        shared ? "Collectives run on the compute stream (PyTorch >= 2.8 issues synchronous "
                 "collectives on the current stream): keep them on a side stream (FSDP2 "
                 "all_gather/reduce_scatter streams, async_op=True) so NCCL kernels run beside "
                 "compute."
               : "Let collectives run ahead of compute: FSDP1 forward_prefetch=True and "
                 "backward_prefetch=BackwardPrefetch.BACKWARD_PRE, FSDP2 "
                 "set_modules_to_forward_prefetch / set_modules_to_backward_prefetch; remove "
                 "waits that make the compute stream depend on every collective (explicit "
                 "work.wait(), torch.cuda.synchronize(), CUDA_DEVICE_MAX_CONNECTIONS=1).",
        ev.p);
    add_ranges(c, x, exp, nexp);
  }

  /* ppm may exceed 10^6 (param_ok): clamp before converting */
  double thr_d = span > 0 ? (double)span * (double)c->params[P_EXPOSED_COMM_SHARE_PPM] / 1e6 : 0;
  int64_t share_thr = thr_d >= 9.2e18 ? INT64_MAX : (int64_t)thr_d;
  if (span > 0 && o.exposed_comm_ns >= share_thr && o.exposed_comm_ns > 0) {
    double share = 100.0 * (double)o.exposed_comm_ns / (double)span;
    int netbound = fs.units && fs.comm_bound * 2 > fs.units;
    det.len = 0;
    sb_printf(&det,
              "%.3f ms of communication (%.1f%% of the %.3f ms GPU span) runs with no compute "
              "kernel beside it.",
              fmt_ms(o.exposed_comm_ns), share, fmt_ms(span));
    if (fs.units)
      sb_printf(&det,
                " In %llu of %llu FSDP unit phases T_comm exceeds T_compute (sum of "
                "max(0, T_comm - T_compute) = %.3f ms)%s.",
                (unsigned long long)fs.comm_bound, (unsigned long long)fs.units,
                fmt_ms(fs.exposed_formula_ns),
                netbound ? ": the job is network-bound and more GPUs will not scale linearly"
                         : "");
    for (size_t i = 0; i < nacc; i++) {
      fsdpa_comm_split sp;
      acc_to_public(c, &acc[i], 0, &sp);
      if (sp.busbw_gbps >= 0)
        sb_printf(&det, " %s: %llu kernels, %.3f ms exposed, bus bandwidth %.1f GB/s.", sp.name,
                  (unsigned long long)sp.count, fmt_ms(sp.exposed_ns), sp.busbw_gbps);
    }
    finding *x = findings_add(
        f, "exposed-comm", share >= 30.0 ? SEV_CRITICAL : SEV_WARNING, rank, FSDPA_ABSENT,
        o.exposed_comm_ns, "Exposed communication", det.p ? det.p : "",
        netbound ? "Communication takes longer than the compute it should hide under: reduce the "
                   "bytes each step moves (HSDP / hybrid sharding keeps all-gathers inside a node; "
                   "a lower-precision param_dtype / reduce_dtype halves them), give each GPU more "
                   "work per byte (larger micro-batch or sequence length), and compare the "
                   "achieved bus bandwidth with what the fabric should deliver."
                 : "Start collectives earlier so compute can hide them: enable forward and "
                   "backward prefetch, avoid waits on the communication stream, and check that "
                   "the first all-gather of each pass is not blocked behind other work.",
        ev.p);
    add_ranges(c, x, exp, nexp);
  }
  if (det.failed) st = (fsdpa_status)det.failed;
done:
  sb_free(&ev);
  sb_free(&det);
  fa_free(a, exp, cap * sizeof(iv));
  fa_free(a, acc, d.nents * sizeof(split_acc));
  ks_free(&d);
  return st;
}
