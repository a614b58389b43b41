/* A rank's own part of a report, computed: its findings from every
 * per-rank analysis and its section of "ranks" in the report contract.
 * rank_cache.c memoizes both per context. */
#include "report/rank_part.h"
#include "analysis/launch_gaps/launch_gaps.h"
#include "analysis/overlap/overlap.h"
#include "analysis/fsdp/fsdp.h"
#include "analysis/sync/sync.h"
#include "analysis/allocator/allocator.h"
#include "analysis/dataloader/dataloader.h"
#include "analysis/critpath/critpath.h"
#include "analysis/efficiency/efficiency.h"
#include "model/workload.h"
#include "model/iterations.h"
#include "events/classify.h"
#include "events/comm_class.h"
#include "util/fmt.h"
#include "util/sort.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one list of analyses that produce per-rank findings: fsdpa_report(),
 * summaries and annotate all go through it, so they cannot drift apart.
 * The rooms of root causes come first: a later room names a finding already
 * in the list as its symptom's cause (findings_has); the order of the list
 * itself is findings_sort's, whatever the order they were added in. */
typedef fsdpa_status (*findings_fn)(fsdpa_ctx *, int64_t, findings *);
static const findings_fn FINDERS[] = {allocator_findings,  dataloader_findings,  launch_gaps_queued_findings,
                                      sync_waits_findings, launch_gaps_findings, overlap_findings,
                                      backward_findings,   sync_spin_findings,   efficiency_findings};

fsdpa_status rank_findings_compute(fsdpa_ctx *c, int64_t rank, findings *f) {
  for (size_t k = 0; k < sizeof FINDERS / sizeof FINDERS[0]; k++) {
    fsdpa_status st = FINDERS[k](c, rank, f);
    if (st) return st;
    if (f->failed) return (fsdpa_status)f->failed;
  }
  return FSDPA_OK;
}

static const char *role_name(int r) {
  switch (r) {
    case FSDPA_ROLE_COMPUTE: return "compute";
    case FSDPA_ROLE_COMMUNICATION: return "communication";
    case FSDPA_ROLE_MEMORY: return "memory";
    default: return "mixed";
  }
}

static void evidence_json(const fsdpa_ctx *c, jsonw *w, const char *label, const wl_evidence *e) {
  jw_obj(w);
  jw_kstr(w, "label", label);
  jw_kstr(w, "rule", e->rule);
  jw_ku64(w, "count", e->count);
  jw_key(w, "example");
  if (e->example != INTERN_NONE)
    jw_strn(w, store_name(&c->st, e->example), intern_len(&c->st.names, e->example));
  else jw_null(w);
  jw_obj_end(w);
}

static fsdpa_status workload_json(fsdpa_ctx *c, jsonw *w) {
  workload wl;
  fsdpa_status st = workload_build(c, &wl);
  if (st) return st;
  jw_obj(w);
  jw_key(w, "parallelism");
  jw_arr(w);
  for (int l = 0; l < WL__COUNT; l++)
    if (wl.labels & (1u << l)) jw_str(w, wl_label_name(l));
  if (!wl.labels) jw_str(w, "unknown");
  jw_arr_end(w);
  jw_kstr(w, "mode", wl_mode_name(wl.mode));
  jw_key(w, "evidence");
  jw_arr(w);
  for (int l = 0; l < WL__COUNT; l++)
    if (wl.labels & (1u << l)) evidence_json(c, w, wl_label_name(l), &wl.label_ev[l]);
  if (wl.mode != WM_UNKNOWN) evidence_json(c, w, wl_mode_name(wl.mode), &wl.mode_ev);
  jw_arr_end(w);
  jw_obj_end(w);
  return FSDPA_OK;
}

static fsdpa_status iterations_json(fsdpa_ctx *c, jsonw *w) {
  iterations it;
  fsdpa_status st = iterations_build(c, &it);
  if (st) return st;
  int64_t base = ctx_base(c);
  jw_obj(w);
  jw_kstr(w, "source", it_source_name(it.source));
  jw_kstr(w, "rule", it_source_rule(it.source));
  jw_ku64(w, "count", it.n);
  jw_key(w, "ranges");
  jw_arr(w);
  for (size_t i = 0; i < it.n; i++) {
    jw_obj(w);
    jw_ki64(w, "start_ns", it.r[i].s + base);
    jw_ki64(w, "dur_ns", it.r[i].e - it.r[i].s);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
  iterations_free(&it);
  return FSDPA_OK;
}

/* Devices of backends libfsdpa does not analyze: present, so the report
 * never reads as "no GPU activity" when the GPU work is simply elsewhere. */
static int write_other_devices(fsdpa_ctx *c, jsonw *w) {
  xdev_sum x[XDEV__COUNT];
  if (store_xdev_summary(&c->alloc, &c->st, x) < 0) return -1;
  jw_key(w, "other_devices");
  jw_arr(w);
  for (int t = 0; t < XDEV__COUNT; t++) {
    if (!x[t].events && !x[t].runtime_events) continue;
    jw_obj(w);
    jw_kstr(w, "device_type", xdev_type_name(t));
    jw_key(w, "analyzed");
    jw_bool(w, 0);
    jw_ku64(w, "events", x[t].events);
    jw_ku64(w, "runtime_events", x[t].runtime_events);
    jw_ku64(w, "streams", x[t].streams);
    jw_ki64(w, "busy_ns", x[t].busy_ns);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  return 0;
}

/* comm_families: one row per communication kernel family, saying which
 * rule (events/comm_class.h) classified it. */
typedef struct cf_ent {
  uint32_t code, gpu;
  int64_t s, e;
} cf_ent;
#define CF_LESS(x, y) \
  ((x)->code != (y)->code ? (x)->code < (y)->code \
   : (x)->s != (y)->s     ? (x)->s < (y)->s \
   : (x)->e != (y)->e     ? (x)->e < (y)->e \
                          : (x)->gpu < (y)->gpu)
FA_SORT_DEFINE(cf_sort, cf_ent, CF_LESS)

static int cf_row_cmp(const void *pa, const void *pb) {
  const cf_row *a = pa, *b = pb;
  int ra = comm_rule(a->code), rb = comm_rule(b->code);
  if (ra != rb) return ra < rb ? -1 : 1;
  size_t n = a->family_len < b->family_len ? a->family_len : b->family_len;
  int k = memcmp(a->family, b->family, n);
  if (k) return k;
  if (a->family_len != b->family_len) return a->family_len < b->family_len ? -1 : 1;
  return a->code < b->code ? -1 : a->code > b->code;
}

fsdpa_status comm_families_rows(fsdpa_ctx *c, cf_row **out, size_t *nout) {
  const store_views *v = ctx_views(c);
  *out = NULL;
  *nout = 0;
  if (!v) return fa_fail_status(&c->alloc);
  const store *s = &c->st;
  fa_alloc *a = &c->alloc;
  size_t n = 0;
  for (size_t i = 0; i < s->gpu.len; i++) n += v->comm[i] != 0;
  if (!n) return FSDPA_OK;
  cf_ent *e = fa_malloc(a, n * sizeof *e);
  cf_row *rows = fa_malloc(a, n * sizeof *rows);
  if (!e || !rows) {
    fa_free(a, e, n * sizeof *e);
    fa_free(a, rows, n * sizeof *rows);
    return fa_fail_status(a);
  }
  size_t k = 0, nr = 0;
  for (size_t i = 0; i < s->gpu.len; i++)
    if (v->comm[i]) {
      const ev_rec *r = STORE_REC(&s->gpu, i);
      e[k++] = (cf_ent){v->comm[i], (uint32_t)i, r->ts, r->end};
    }
  cf_sort(e, n);
  int64_t ce = 0;  /* end of the running union of the current family */
  for (size_t i = 0; i < n; i++) {
    if (!nr || rows[nr - 1].code != e[i].code) {
      cf_row *x = &rows[nr++];
      memset(x, 0, sizeof *x);
      x->code = e[i].code;
      x->example = STORE_REC(&s->gpu, e[i].gpu)->name;
      x->family = comm_code_family(s, e[i].code, &x->family_len);
      ce = e[i].s;
    }
    cf_row *x = &rows[nr - 1];
    x->kernels++;
    if (e[i].e > ce) {
      x->busy += e[i].e - (e[i].s > ce ? e[i].s : ce);
      ce = e[i].e;
    }
  }
  fa_free(a, e, n * sizeof *e);
  qsort(rows, nr, sizeof *rows, cf_row_cmp);
  /* keep the allocation's size findable for the free: rows past nr are unused */
  rows[0].alloc_n = n;
  *out = rows;
  *nout = nr;
  return FSDPA_OK;
}

void comm_families_free(fsdpa_ctx *c, cf_row *rows) {
  if (rows) fa_free(&c->alloc, rows, rows[0].alloc_n * sizeof *rows);
}

static fsdpa_status comm_families_json(fsdpa_ctx *c, jsonw *w) {
  const store *s = &c->st;
  cf_row *rows;
  size_t nr;
  fsdpa_status st = comm_families_rows(c, &rows, &nr);
  if (st) return st;
  jw_arr(w);
  for (size_t i = 0; i < nr; i++) {
    jw_obj(w);
    jw_key(w, "family");
    jw_strn(w, rows[i].family, rows[i].family_len);
    jw_kstr(w, "rule", comm_rule_name(comm_rule(rows[i].code)));
    jw_ku64(w, "kernels", rows[i].kernels);
    jw_ki64(w, "busy_ns", rows[i].busy);
    jw_key(w, "example");
    jw_strn(w, store_name(s, rows[i].example), intern_len(&s->names, rows[i].example));
    jw_obj_end(w);
  }
  jw_arr_end(w);
  comm_families_free(c, rows);
  return FSDPA_OK;
}

fsdpa_status rank_json_write(fsdpa_ctx *c, int64_t rank, jsonw *w) {
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  jw_obj(w);
  jw_ki64(w, "rank", rank);
  jw_ki64(w, "span_ns", v->nall ? v->all_busy[v->nall - 1].e - v->all_busy[0].s : FSDPA_ABSENT);
  /* what the text and HTML reports count times from: the earlier of the
   * first GPU activity and the first step */
  int64_t origin = INT64_MAX;
  if (v->nall) origin = v->all_busy[0].s;
  if (c->st.steps.len && FA_VEC_AT(&c->st.steps, step_rec, 0).ts < origin) origin = FA_VEC_AT(&c->st.steps, step_rec, 0).ts;
  if (!c->st.steps.len) {
    /* without ProfilerStep the iterations found otherwise are the steps */
    iterations it;
    fsdpa_status ist = iterations_build(c, &it);
    if (ist) return ist;
    if (it.n && it.r[0].s < origin) origin = it.r[0].s;
    iterations_free(&it);
  }
  jw_ki64(w, "origin_ns", origin == INT64_MAX ? FSDPA_ABSENT : ctx_abs(c, origin));
  jw_key(w, "steps");
  jw_arr(w);
  size_t ns = c->st.steps.len;
  for (size_t i = 0; i < ns; i++) {
    fsdpa_step s;
    ctx_step_public(c, i, &s);
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
  if (write_other_devices(c, w)) return fa_fail_status(&c->alloc);
  fsdpa_status st;
  jw_key(w, "comm_families");
  if ((st = comm_families_json(c, w))) return st;
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
  jw_key(w, "sync_classes");
  if ((st = sync_classes_json(c, w))) return st;
  jw_key(w, "allocator");
  if ((st = allocator_json(c, w))) return st;
  jw_key(w, "dataloader");
  if ((st = dataloader_json(c, w))) return st;
  jw_key(w, "workload");
  if ((st = workload_json(c, w))) return st;
  jw_key(w, "iterations");
  if ((st = iterations_json(c, w))) return st;
  jw_key(w, "critical_path");
  if ((st = critpath_json(c, w))) return st;
  jw_key(w, "kernels");
  if ((st = efficiency_kernels_json(c, w))) return st;
  jw_key(w, "ops");
  if ((st = efficiency_ops_json(c, w))) return st;
  jw_key(w, "efficiency");
  if ((st = efficiency_json(c, w))) return st;
  jw_obj_end(w);
  return FSDPA_OK;
}

