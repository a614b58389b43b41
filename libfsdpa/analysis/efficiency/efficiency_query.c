/* The efficiency room's public queries: the kernel table, the op table,
 * the efficiency of a window and of each step, and a device's peaks. */
#include "analysis/efficiency/efficiency_impl.h"
#include "model/kernel_table.h"
#include "util/abi.h"
#include "util/list.h"
#include <stdio.h>
#include <string.h>

void fsdpa_kernel_select_init_sized(fsdpa_kernel_select *sel, size_t size) {
  if (!sel || size < sizeof(size_t)) return;
  fsdpa_kernel_select d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.fsdp_unit = -1;
  memcpy(sel, &d, size < sizeof d ? size : sizeof d);
  sel->size = size;
}

fsdpa_status fsdpa_kernel_list(fsdpa_ctx *c, const fsdpa_query *q, const fsdpa_kernel_select *sel, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_kernel_list: NULL out");
  *out = NULL;
  fsdpa_kernel_select s;
  fsdpa_kernel_select_init(&s);
  if (sel && !ABI_IN(fsdpa_kernel_select, &s, sel)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_kernel_select.size");
  if (s.fsdp_unit < -1) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_kernel_select.fsdp_unit %lld", (long long)s.fsdp_unit);
  qwin w;
  fsdpa_status st = ctx_resolve_query(c, q, &w);
  if (st) return st;
  kt_table t;
  st = kt_build(c, &w, s.fsdp_unit, s.max_rows, &t);
  if (st) return c->err[0] ? st : ctx_fail(c, st, "out of memory building the kernel table");
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_KERNELS);
  for (size_t i = 0; i < t.n; i++) {
    const kt_row *r = &t.rows[i];
    fsdpa_kernel_stat k;
    memset(&k, 0, sizeof k);
    k.size = sizeof k;
    char buf[256];
    if (r->name != INTERN_NONE) {
      k.name = lb_str(&b, r->str, r->len);
      size_t n = kt_short_name(r->str, r->len, buf, sizeof buf);
      k.short_name = lb_str(&b, buf, n);
      k.kernel_class = lb_cstr(&b, kt_class_name(r->cls));
      size_t fl;
      const char *fam = kt_row_family(c, r, &fl);
      k.family = fam ? lb_str(&b, fam, fl) : NULL;
    } else {
      k.short_name = lb_cstr(&b, "(other)");
    }
    k.count = r->count;
    k.names = r->names;
    k.total_ns = r->total;
    k.mean_ns = r->count ? r->total / (int64_t)r->count : FSDPA_ABSENT;
    k.p50_ns = r->p50;
    k.min_ns = r->min;
    k.max_ns = r->max;
    k.share = t.busy > 0 ? (double)r->total / (double)t.busy : -1.0;
    lb_push(&b, &k);
  }
  kt_free(c, &t);
  st = lb_finish(&b, out);
  return st ? ctx_fail(c, st, "out of memory listing kernels") : FSDPA_OK;
}

/* The part of a shape text up to its separator (store.c joins the three). */
static const char *part(list_build *b, const char *s, size_t n) { return s ? lb_str(b, s, n) : NULL; }

/* The query's window and the op table of its streams. */
static fsdpa_status table_of(fsdpa_ctx *c, const fsdpa_query *q, qwin *w, ef_table *t) {
  fsdpa_status st = ctx_resolve_query(c, q, w);
  if (st) return st;
  st = ef_build(c, w, t);
  return st ? ctx_fail(c, st, "out of memory building the op table") : FSDPA_OK;
}

fsdpa_status fsdpa_op_list(fsdpa_ctx *c, const fsdpa_query *q, uint64_t max_rows, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_op_list: NULL out");
  *out = NULL;
  qwin w;
  ef_table t;
  fsdpa_status st = table_of(c, q, &w, &t);
  if (st) return st;
  ef_rows rows;
  st = ef_rows_in(c, &t, w.t0, w.t1, max_rows, &rows);
  if (st) {
    ef_free(&t);
    return ctx_fail(c, st, "out of memory building the op table");
  }
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_OPS);
  for (size_t i = 0; i < rows.n; i++) {
    const ef_row *r = &rows.r[i];
    fsdpa_op_stat o;
    ef_row_public(c, &t, r, rows.folded, &o);
    shape_parts sp;
    store_shape_parts(&c->st, r->shape, &sp);
    o.name = o.name ? lb_str(&b, r->str, r->len) : NULL;
    o.gpu_op = o.gpu_op ? lb_cstr(&b, o.gpu_op) : NULL;
    o.category = o.category ? lb_cstr(&b, o.category) : NULL;
    o.input_dims = sp.dims_n ? part(&b, sp.dims, sp.dims_n) : NULL;
    o.input_types = sp.types_n ? part(&b, sp.types, sp.types_n) : NULL;
    o.concrete_inputs = sp.concrete_n ? part(&b, sp.concrete, sp.concrete_n) : NULL;
    o.model = o.model ? lb_cstr(&b, o.model) : NULL;
    o.dtype = o.dtype ? lb_cstr(&b, o.dtype) : NULL;
    lb_push(&b, &o);
  }
  ef_rows_free(c, &rows);
  ef_free(&t);
  st = lb_finish(&b, out);
  return st ? ctx_fail(c, st, "out of memory listing ops") : FSDPA_OK;
}

fsdpa_status fsdpa_efficiency_query(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_efficiency *out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!ABI_OK(fsdpa_efficiency, out)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_efficiency.size");
  qwin w;
  ef_table t;
  fsdpa_status st = table_of(c, q, &w, &t);
  if (st) return st;
  int64_t t0, t1;
  ef_trace_window(c, &t0, &t1);
  if (w.t0 > t0) t0 = w.t0;
  if (w.t1 < t1) t1 = w.t1;
  ef_sums s;
  ef_window(&t, t0, t1, &s);
  fsdpa_efficiency e;
  ef_sums_public(&t, &s, t1 > t0 ? t1 - t0 : FSDPA_ABSENT, FSDPA_ABSENT, &e);
  ef_free(&t);
  ABI_OUT(fsdpa_efficiency, out, &e);
  return FSDPA_OK;
}

fsdpa_status fsdpa_efficiency_step_list(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_efficiency_step_list: NULL out");
  *out = NULL;
  qwin w;
  ef_table t;
  fsdpa_status st = table_of(c, q, &w, &t);
  if (st) return st;
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_EFFICIENCY_STEPS);
  int64_t base = ctx_base(c);
  for (size_t i = 0; i < c->st.steps.len; i++) {
    fsdpa_step s;
    ctx_step_public(c, i, &s);
    int64_t t0 = s.start_ns - base;
    if (t0 < w.t0 || t0 >= w.t1) continue;
    ef_sums sum;
    ef_window(&t, t0, t0 + s.dur_ns, &sum);
    fsdpa_efficiency e;
    ef_sums_public(&t, &sum, s.dur_ns, s.number, &e);
    lb_push(&b, &e);
  }
  ef_free(&t);
  st = lb_finish(&b, out);
  return st ? ctx_fail(c, st, "out of memory listing steps") : FSDPA_OK;
}

fsdpa_status fsdpa_device_peak_get(fsdpa_ctx *c, int64_t device, fsdpa_device_peak *out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!ABI_OK(fsdpa_device_peak, out)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_device_peak.size");
  if (device == FSDPA_ABSENT) {
    qwin all = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
    ef_table t;
    fsdpa_status st = ef_build(c, &all, &t);
    if (st) return ctx_fail(c, st, "out of memory building the op table");
    device = t.device;
    ef_free(&t);
  }
  fsdpa_device_peak p;
  memset(&p, 0, sizeof p);
  p.size = sizeof p;
  p.device = device;
  const peak_row *r = device != FSDPA_ABSENT ? peak_lookup(store_device(&c->st, device)) : NULL;
  double *f[] = {&p.fp64_tflops, &p.fp32_tflops, &p.tf32_tflops, &p.fp16_tflops, &p.bf16_tflops, &p.fp8_tflops};
  const int dt[] = {PD_FP64, PD_FP32, PD_TF32, PD_FP16, PD_BF16, PD_FP8};
  for (size_t k = 0; k < 6; k++) *f[k] = r && r->tflops[dt[k]] > 0 ? r->tflops[dt[k]] : -1.0;
  p.hbm_tb_per_s = r ? r->hbm_tb_per_s : -1.0;
  if (r) snprintf(p.model, sizeof p.model, "%s", r->model);
  ABI_OUT(fsdpa_device_peak, out, &p);
  return FSDPA_OK;
}
