/* The report's ranks[].kernels, ranks[].ops and ranks[].efficiency, and the
 * row / window conversions the queries share with them. */
#include "analysis/efficiency/efficiency_impl.h"
#include "model/kernel_table.h"
#include "model/iterations.h"
#include "util/fmt.h"
#include <stdio.h>
#include <string.h>

/* ---- kernels ---- */

static void kernel_row_json(fsdpa_ctx *c, const kt_row *r, int64_t busy, jsonw *w) {
  const store *s = &c->st;
  jw_obj(w);
  jw_kstrn_or_null(w, "name", r->name != INTERN_NONE ? r->str : NULL, r->len);
  jw_key(w, "short_name");
  if (r->name != INTERN_NONE) {
    char buf[256];
    size_t n = kt_short_name(store_name(s, r->name), intern_len(&s->names, r->name), buf, sizeof buf);
    jw_strn(w, buf, n);
  } else {
    jw_str(w, "(other)");
  }
  jw_kstr_or_null(w, "class", r->name != INTERN_NONE ? kt_class_name(r->cls) : NULL);
  size_t fl;
  const char *fam = kt_row_family(c, r, &fl);
  jw_kstrn_or_null(w, "family", fam, fl);
  jw_ku64(w, "count", r->count);
  jw_ku64(w, "names", r->names);
  jw_ki64(w, "total_ns", r->total);
  jw_ki64(w, "mean_ns", r->count ? r->total / (int64_t)r->count : FSDPA_ABSENT);
  jw_ki64(w, "p50_ns", r->p50);
  jw_ki64(w, "min_ns", r->min);
  jw_ki64(w, "max_ns", r->max);
  jw_kratio(w, "share", busy > 0 ? (double)r->total / (double)busy : -1.0);
  jw_obj_end(w);
}

fsdpa_status efficiency_kernels_json(fsdpa_ctx *c, jsonw *w) {
  qwin all = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  kt_table t;
  fsdpa_status st = kt_build(c, &all, -1, (uint64_t)c->params[P_REPORT_KERNEL_ROWS], &t);
  if (st) return st;
  jw_arr(w);
  for (size_t i = 0; i < t.n; i++) kernel_row_json(c, &t.rows[i], t.busy, w);
  jw_arr_end(w);
  kt_free(c, &t);
  return FSDPA_OK;
}

/* ---- ops ---- */

static double rate(int64_t per_call, uint64_t count, int64_t ns) {
  if (per_call == FSDPA_ABSENT || ns <= 0) return -1.0;
  return (double)per_call * (double)count / (double)ns / 1000.0;
}

void ef_row_public(const fsdpa_ctx *c, const ef_table *t, const ef_row *r, uint64_t names, fsdpa_op_stat *o) {
  const store *s = &c->st;
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  int folded = r->op_name == INTERN_NONE && r->gpu_name == INTERN_NONE;
  o->name = r->op_name != INTERN_NONE ? store_name(s, r->op_name) : NULL;
  o->gpu_op = r->gpu_name != INTERN_NONE ? store_name(s, r->gpu_name) : NULL;
  o->category = folded ? NULL : op_cat_name(r->cat);
  shape_parts sp;
  store_shape_parts(s, r->shape, &sp);
  o->input_dims = sp.dims_n ? sp.dims : NULL;
  o->input_types = sp.types_n ? sp.types : NULL;
  o->concrete_inputs = sp.concrete_n ? sp.concrete : NULL;
  o->model = pm_model_name(r->pm.model);
  o->dtype = pm_dtype_name(r->pm.dtype);
  o->count = r->count;
  o->gpu_ops = r->gpu_ops;
  o->names = folded ? names : 1;
  o->kernel_ns = r->kernel_ns;
  o->flops = r->pm.flops;
  o->bytes = r->pm.bytes;
  o->tflops_per_s = folded ? (r->kernel_ns > 0 ? (double)r->pm.flops / (double)r->kernel_ns / 1000.0 : -1.0)
                           : rate(r->pm.flops, r->count, r->kernel_ns);
  o->tb_per_s = rate(r->pm.bytes, r->count, r->kernel_ns);
  double p = ef_peak(t, r->pm.dtype);
  o->peak_share = !folded && o->tflops_per_s >= 0 && p > 0 && pm_is_matrix(r->pm.model) ? o->tflops_per_s / p : -1.0;
}

/* The texts of a row's shapes are compact JSON arrays (store.c checked
 * them): spliced as they are. */
static void raw_or_null(jsonw *w, const char *k, const char *s) {
  jw_key(w, k);
  if (s) jw_raw(w, s, strcspn(s, "\x1f"));
  else jw_null(w);
}

static void kratio3(jsonw *w, const char *k, double v, int decimals) {
  jw_key(w, k);
  if (v < 0) jw_null(w);
  else jw_f64(w, v, decimals);
}

void ef_row_json(fsdpa_ctx *c, const ef_table *t, const ef_row *r, uint64_t names, jsonw *w) {
  fsdpa_op_stat o;
  ef_row_public(c, t, r, names, &o);
  const store *s = &c->st;
  jw_obj(w);
  jw_kstrn_or_null(w, "name", r->op_name != INTERN_NONE ? r->str : NULL, r->len);
  if (r->gpu_name != INTERN_NONE)
    jw_kstrn_or_null(w, "gpu_op", store_name(s, r->gpu_name), intern_len(&s->names, r->gpu_name));
  else
    jw_knull(w, "gpu_op");
  jw_kstr_or_null(w, "category", o.category);
  raw_or_null(w, "input_dims", o.input_dims);
  raw_or_null(w, "input_types", o.input_types);
  raw_or_null(w, "concrete_inputs", o.concrete_inputs);
  jw_kstr_or_null(w, "model", o.model);
  jw_kstr_or_null(w, "dtype", o.dtype);
  jw_ku64(w, "count", o.count);
  jw_ku64(w, "names", o.names);
  jw_ku64(w, "gpu_ops", o.gpu_ops);
  jw_ki64(w, "kernel_ns", o.kernel_ns);
  jw_ki64(w, "flops", o.flops);
  jw_ki64(w, "bytes", o.bytes);
  kratio3(w, "tflops_per_s", o.tflops_per_s, 3);
  kratio3(w, "tb_per_s", o.tb_per_s, 6);
  kratio3(w, "peak_share", o.peak_share, 6);
  jw_obj_end(w);
}

fsdpa_status efficiency_ops_json(fsdpa_ctx *c, jsonw *w) {
  qwin all = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  ef_table t;
  fsdpa_status st = ef_build(c, &all, &t);
  if (st) return st;
  ef_rows rows;
  st = ef_rows_in(c, &t, INT64_MIN, INT64_MAX, (uint64_t)c->params[P_REPORT_OP_ROWS], &rows);
  if (!st) {
    jw_arr(w);
    for (size_t i = 0; i < rows.n; i++) ef_row_json(c, &t, &rows.r[i], rows.folded, w);
    jw_arr_end(w);
    ef_rows_free(c, &rows);
  }
  ef_free(&t);
  return st;
}

/* ---- efficiency ---- */

void ef_sums_public(const ef_table *t, const ef_sums *s, int64_t window_ns, int64_t step, fsdpa_efficiency *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->step = step;
  o->window_ns = window_ns;
  o->kernel_ns = s->kernel_ns;
  o->modelled_ns = s->modelled_ns;
  o->modelled_share = s->kernel_ns > 0 ? (double)s->modelled_ns / (double)s->kernel_ns : -1.0;
  o->gemm_ns = s->cat_ns[OC_GEMM];
  o->attention_ns = s->cat_ns[OC_ATTENTION];
  o->conv_ns = s->cat_ns[OC_CONV];
  o->elementwise_ns = s->cat_ns[OC_ELEMENTWISE];
  o->reduction_ns = s->cat_ns[OC_REDUCTION];
  o->normalization_ns = s->cat_ns[OC_NORMALIZATION];
  o->copy_ns = s->cat_ns[OC_COPY];
  o->communication_ns = s->cat_ns[OC_COMMUNICATION];
  o->other_ns = s->cat_ns[OC_OTHER];
  o->flops = s->flops;
  o->mfu = s->peak_calls && window_ns > 0 && window_ns != FSDPA_ABSENT ? s->peak_ns / (double)window_ns : -1.0;
  o->device = t->device;
}

static void window_json(const fsdpa_efficiency *e, jsonw *w) {
  jw_ki64(w, "window_ns", e->window_ns);
  jw_ki64(w, "kernel_ns", e->kernel_ns);
  jw_ki64(w, "modelled_ns", e->modelled_ns);
  jw_kratio(w, "modelled_share", e->modelled_share);
  jw_ki64(w, "flops", e->flops);
  jw_kratio(w, "mfu", e->mfu);
}

static void device_json(fsdpa_ctx *c, const ef_table *t, jsonw *w) {
  const fsdpa_device_info *d = t->device != FSDPA_ABSENT ? store_device(&c->st, t->device) : NULL;
  jw_obj(w);
  jw_ki64(w, "device", t->device);
  jw_kstr_or_null(w, "name", d && d->name[0] ? d->name : NULL);
  jw_ki64(w, "sms", d ? d->sms : FSDPA_ABSENT);
  jw_key(w, "compute_capability");
  if (d && d->compute_major != FSDPA_ABSENT && d->compute_minor != FSDPA_ABSENT) {
    char cc[48];
    snprintf(cc, sizeof cc, "%lld.%lld", (long long)d->compute_major, (long long)d->compute_minor);
    jw_str(w, cc);
  } else {
    jw_null(w);
  }
  jw_kstr_or_null(w, "model", t->peak ? t->peak->model : NULL);
  jw_key(w, "peaks");
  if (t->peak) {
    jw_obj(w);
    for (int k = PD_FP64; k < PD__COUNT; k++) {
      char key[32];
      snprintf(key, sizeof key, "%s_tflops", pm_dtype_name(k));
      jw_key(w, key);
      if (t->peak->tflops[k] > 0) jw_f64(w, t->peak->tflops[k], 1);
      else jw_null(w);
    }
    jw_key(w, "hbm_tb_per_s");
    jw_f64(w, t->peak->hbm_tb_per_s, 3);
    jw_obj_end(w);
  } else {
    jw_null(w);
  }
  jw_obj_end(w);
}

/* The rank's totals: Σ over its judged windows (ProfilerSteps, else the
 * inferred iterations, else the whole trace). */
fsdpa_status ef_judged(fsdpa_ctx *c, const ef_table *t, fsdpa_efficiency *o, int *source) {
  step_rec *win;
  size_t nw;
  fsdpa_status st = it_windows(c, &win, &nw, source);
  if (st) return st;
  ef_sums all, s;
  memset(&all, 0, sizeof all);
  int64_t len = 0;
  for (size_t i = 0; i < nw; i++) {
    ef_window(t, win[i].ts, win[i].end, &s);
    all.kernel_ns += s.kernel_ns;
    all.modelled_ns += s.modelled_ns;
    all.flops += s.flops;
    for (int k = 0; k < OC__COUNT; k++) all.cat_ns[k] += s.cat_ns[k];
    all.peak_ns += s.peak_ns;
    all.peak_calls += s.peak_calls;
    len += win[i].end - win[i].ts;
  }
  it_windows_free(c, win, nw);
  ef_sums_public(t, &all, nw ? len : FSDPA_ABSENT, FSDPA_ABSENT, o);
  return FSDPA_OK;
}

fsdpa_status efficiency_json(fsdpa_ctx *c, jsonw *w) {
  qwin all = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  ef_table t;
  fsdpa_status st = ef_build(c, &all, &t);
  if (st) return st;
  fsdpa_efficiency e;
  int source;
  st = ef_judged(c, &t, &e, &source);
  if (st) {
    ef_free(&t);
    return st;
  }
  jw_obj(w);
  jw_key(w, "device");
  device_json(c, &t, w);
  jw_kstr(w, "windows", it_source_name(source));
  window_json(&e, w);
  jw_key(w, "by_category");
  jw_obj(w);
  const int64_t *cat[OC__COUNT] = {&e.gemm_ns, &e.attention_ns, &e.conv_ns, &e.elementwise_ns, &e.reduction_ns,
                                   &e.normalization_ns, &e.copy_ns, &e.communication_ns, &e.other_ns};
  for (int k = 0; k < OC__COUNT; k++) {
    char key[32];
    snprintf(key, sizeof key, "%s_ns", op_cat_name(k));
    jw_ki64(w, key, *cat[k]);
  }
  jw_obj_end(w);
  /* per step only where there is modelled work to say something about:
   * without it every step's FLOPs and MFU are 0 and null (and a long trace
   * would carry thousands of such rows) */
  ef_sums whole;
  ef_window(&t, INT64_MIN, INT64_MAX, &whole);
  jw_key(w, "steps");
  jw_arr(w);
  for (size_t i = 0; whole.modelled_ns > 0 && i < c->st.steps.len; i++) {
    fsdpa_step s;
    ctx_step_public(c, i, &s);
    int64_t t0 = s.start_ns - ctx_base(c);
    ef_sums sum;
    ef_window(&t, t0, t0 + s.dur_ns, &sum);
    fsdpa_efficiency x;
    ef_sums_public(&t, &sum, s.dur_ns, s.number, &x);
    jw_obj(w);
    jw_ki64(w, "step", s.number);
    window_json(&x, w);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
  ef_free(&t);
  return FSDPA_OK;
}

fsdpa_status efficiency_brief(fsdpa_ctx *c, fsdpa_efficiency *judged, char model[32]) {
  qwin all = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  ef_table t;
  fsdpa_status st = ef_build(c, &all, &t);
  if (st) return st;
  int source;
  st = ef_judged(c, &t, judged, &source);
  snprintf(model, 32, "%s", t.peak ? t.peak->model : "");
  ef_free(&t);
  return st;
}
