/* inefficient-compute: the GPU is busy, but with work that runs far below
 * what the device could do, in a way the model code can change.  Three
 * reasons, judged over the rank's judged windows (ProfilerSteps, else the
 * inferred iterations, else the whole trace):
 *
 *   fp32_matrix  GEMM / attention / convolution calls in fp32 on a device
 *                whose tensor cores run TF32 or BF16 at least four times
 *                faster than FP32, unless a kernel of the call is a TF32
 *                one (events/classify_ops.h: it has the faster rate already);
 *   small_gemm   GEMM calls whose smallest dimension is at most
 *                efficiency.small_gemm_dim and that reach less than
 *                efficiency.low_peak_ppm of the dtype's peak;
 *   memory_bound elementwise, normalization, reduction and copy ops hold
 *                at least efficiency.memory_bound_min_ppm of the kernel time.
 *
 * A reason counts when its kernel time is at least efficiency.min_share_ppm
 * of the judged kernel time; small_gemm and memory_bound only when the
 * kernel time is at least efficiency.min_busy_ppm of the judged windows
 * (a GPU that mostly idles is starved: gpu-starvation says so).  The
 * finding names the costliest reason that counts; its cost is that kernel
 * time.  What fixing it saves needs the dependency graph's what-if (the
 * time is busy time: removing it shortens the step only where it is on
 * the critical path); fp32_matrix states the bound the peaks give. */
#include "analysis/efficiency/efficiency_impl.h"
#include "model/iterations.h"
#include "model/workload.h"
#include "util/fmt.h"
#include <stdio.h>
#include <string.h>

enum { R_FP32, R_SMALL, R_MEMORY, R__N };
static const char *const REASON[R__N] = {"fp32_matrix", "small_gemm", "memory_bound"};

typedef struct top_call {
  int64_t s, e, ns;
} top_call;

typedef struct verdict {
  int64_t window_ns, kernel_ns;
  int64_t ns[R__N];             /* kernel time of each reason's calls */
  uint64_t calls[R__N];
  int64_t fp32_flops;           /* fp32_matrix: FLOPs of its calls */
  top_call top[R__N][FINDING_MAX_RANGES];
  int reason, severity, fires;
  double fp32_peak, fast_peak;  /* fp32 and the fastest tensor-core peak */
  int fast_dtype;
} verdict;

static void keep_top(top_call *t, const ef_call *x) {
  top_call n = {x->first, x->last, x->kernel_ns};
  for (int i = 0; i < FINDING_MAX_RANGES; i++) {
    if (n.ns > t[i].ns || (n.ns == t[i].ns && t[i].ns && n.s < t[i].s) || !t[i].ns) {
      top_call tmp = t[i];
      t[i] = n;
      n = tmp;
      if (!n.ns) break;
    }
  }
}

static int is_memory_cat(int cat) {
  return cat == OC_ELEMENTWISE || cat == OC_NORMALIZATION || cat == OC_REDUCTION || cat == OC_COPY;
}

static fsdpa_status decide(fsdpa_ctx *c, const ef_table *t, verdict *v) {
  memset(v, 0, sizeof *v);
  step_rec *win;
  size_t nw;
  int source;
  fsdpa_status st = it_windows(c, &win, &nw, &source);
  if (st) return st;
  v->fp32_peak = ef_peak(t, PD_FP32);
  for (int d = PD_TF32; d <= PD_BF16; d++)
    if (ef_peak(t, d) > 0 && ef_peak(t, d) >= v->fast_peak) {  /* bf16 over fp16 at the same peak */
      v->fast_peak = ef_peak(t, d);
      v->fast_dtype = d;
    }
  int tensor_cores = v->fp32_peak > 0 && v->fast_peak >= 4 * v->fp32_peak;
  double low = (double)c->params[P_EFF_LOW_PEAK_PPM] / 1e6;
  for (size_t w = 0; w < nw; w++) {
    v->window_ns += win[w].end - win[w].ts;
    size_t lo = 0, hi = t->ncalls;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (t->calls[mid].first < win[w].ts) lo = mid + 1;
      else hi = mid;
    }
    for (size_t i = lo; i < t->ncalls && t->calls[i].first < win[w].end; i++) {
      const ef_call *x = &t->calls[i];
      const ef_row *r = &t->rows[x->row];
      v->kernel_ns += x->kernel_ns;
      int rs = -1;
      if (pm_is_matrix(r->pm.model) && r->pm.dtype == PD_FP32 && tensor_cores && !x->tf32) {
        rs = R_FP32;
        v->fp32_flops += r->pm.flops;
      } else if (r->pm.min_dim != FSDPA_ABSENT && r->pm.min_dim <= c->params[P_EFF_SMALL_DIM] && x->kernel_ns > 0) {
        double p = ef_peak(t, r->pm.dtype);
        if (p > 0 && (double)r->pm.flops / (double)x->kernel_ns / 1000.0 < low * p) rs = R_SMALL;
      } else if (is_memory_cat(r->cat)) {
        rs = R_MEMORY;
      }
      if (rs < 0) continue;
      v->ns[rs] += x->kernel_ns;
      v->calls[rs]++;
      keep_top(v->top[rs], x);
    }
  }
  it_windows_free(c, win, nw);
  if (!v->kernel_ns || !v->window_ns) return FSDPA_OK;
  int busy = (int64_t)((double)v->kernel_ns * 1e6 / (double)v->window_ns) >= c->params[P_EFF_MIN_BUSY_PPM];
  int64_t best = 0;
  for (int r = 0; r < R__N; r++) {
    int64_t ppm = (int64_t)((double)v->ns[r] * 1e6 / (double)v->kernel_ns);
    int counts = r == R_MEMORY ? ppm >= c->params[P_EFF_MEMORY_SHARE_PPM] && busy
               : r == R_SMALL  ? ppm >= c->params[P_EFF_MIN_SHARE_PPM] && busy
                               : ppm >= c->params[P_EFF_MIN_SHARE_PPM];
    if (counts && v->ns[r] > best) {
      best = v->ns[r];
      v->reason = r;
      v->fires = 1;
    }
  }
  if (!v->fires) return FSDPA_OK;
  int64_t ppm = (int64_t)((double)best * 1e6 / (double)v->window_ns);
  /* busy time spent slowly is never "the main reason the GPUs are not
   * busy": at most a warning */
  v->severity = ppm >= c->params[P_SEVERITY_WARNING_PPM] ? SEV_WARNING : SEV_INFO;
  return FSDPA_OK;
}

static fsdpa_status word(fsdpa_ctx *c, const ef_table *t, const verdict *v, int64_t rank, findings *f) {
  workload wl;
  fsdpa_status st = workload_build(c, &wl);
  if (st) return st;
  int r = v->reason;
  char title[220], detail[1000], evidence[900], d1[32], d2[32], d3[32];
  fmt_dur(d1, sizeof d1, v->ns[r]);
  fmt_dur(d2, sizeof d2, v->kernel_ns);
  fmt_dur(d3, sizeof d3, v->window_ns);
  double of_kernels = 100.0 * (double)v->ns[r] / (double)v->kernel_ns;
  const char *model = t->peak ? t->peak->model : "?";
  int64_t saving = FSDPA_ABSENT;
  const char *advice;
  int fsdp = (wl.labels & ((1u << WL_FSDP1) | (1u << WL_FSDP2))) != 0;
  switch (r) {
    case R_FP32:
      /* the bound the peaks give: the same share of the faster peak */
      saving = (int64_t)((double)v->ns[r] * (1.0 - v->fp32_peak / v->fast_peak));
      snprintf(title, sizeof title, "Matrix work in fp32, off the tensor cores of the %s: %s (%.0f%% of the kernel time)",
               model, d1, of_kernels);
      snprintf(detail, sizeof detail,
               "%llu GEMM / attention / convolution call%s run in fp32 for %s of the %s of kernel time in the "
               "judged windows (%s). The %s runs fp32 matrix work at %.1f TFLOP/s peak but %s at %.1f TFLOP/s: "
               "the same work in %s would take at most %.0f%% of the time at the same share of the peak.",
               (unsigned long long)v->calls[r], v->calls[r] == 1 ? "" : "s", d1, d2, d3, model, v->fp32_peak,
               pm_dtype_name(v->fast_dtype), v->fast_peak, pm_dtype_name(v->fast_dtype),
               100.0 * v->fp32_peak / v->fast_peak);
      if (v->fast_dtype != PD_BF16 && fsdp)
        /* no bf16 and no TF32 (V100): fp16 with loss scaling is the way onto its tensor cores */
        advice = "Run the matrix work in fp16: torch.autocast(\"cuda\", dtype=torch.float16) around the forward "
                 "with torch.cuda.amp.GradScaler for the loss (this GPU has no bf16 or TF32), or FSDP's mixed "
                 "precision with param_dtype=torch.float16 and a ShardedGradScaler.";
      else if (v->fast_dtype != PD_BF16)
        advice = "Run the matrix work in fp16: torch.autocast(\"cuda\", dtype=torch.float16) around the forward "
                 "with torch.cuda.amp.GradScaler for the loss (this GPU has no bf16 or TF32).";
      else if (fsdp)
        advice = "Run the matrix work in bf16: FSDP's mixed precision (FSDP2 MixedPrecisionPolicy(param_dtype="
                 "torch.bfloat16, reduce_dtype=torch.float32), FSDP1 MixedPrecision(...)) or torch.autocast(\"cuda\", "
                 "dtype=torch.bfloat16) around the forward; where fp32 must stay, allow TF32 "
                 "(torch.set_float32_matmul_precision(\"high\")).";
      else
        advice = "Run the matrix work in bf16 (torch.autocast(\"cuda\", dtype=torch.bfloat16) around the forward), "
                 "or where fp32 must stay allow TF32: torch.set_float32_matmul_precision(\"high\") (and "
                 "torch.backends.cudnn.allow_tf32 = True for convolutions).";
      break;
    case R_SMALL:
      snprintf(title, sizeof title, "Small GEMMs far below peak: %s (%.0f%% of the kernel time) under %lld%% of %s peak",
               d1, of_kernels, (long long)(c->params[P_EFF_LOW_PEAK_PPM] / 10000), model);
      snprintf(detail, sizeof detail,
               "%llu GEMM call%s with a dimension of at most %lld reach less than %.0f%% of the device's dense peak "
               "for their dtype and take %s of the %s of kernel time in the judged windows (%s): tiles too small to "
               "fill the %s's SMs, each paying its launch and its memory traffic.",
               (unsigned long long)v->calls[r], v->calls[r] == 1 ? "" : "s", (long long)c->params[P_EFF_SMALL_DIM],
               (double)c->params[P_EFF_LOW_PEAK_PPM] / 1e4, d1, d2, d3, model);
      advice = wl.mode == WM_TRAIN
                   ? "Give each GEMM more rows: a larger micro-batch per GPU (or fewer, larger sequence chunks), "
                     "fused projections (one QKV matmul instead of three), torch.compile to fuse small matmuls with "
                     "their neighbours; for mixture-of-experts use grouped GEMMs instead of one matmul per expert."
                   : "Batch more requests or tokens per forward, fuse projections (one QKV matmul), and use "
                     "torch.compile or CUDA graphs; for mixture-of-experts use grouped GEMMs.";
      break;
    default:
      snprintf(title, sizeof title, "Memory-bound ops hold the GPU: %s (%.0f%% of the kernel time) in elementwise, "
               "normalization, reduction and copy kernels", d1, of_kernels);
      snprintf(detail, sizeof detail,
               "%llu elementwise / normalization / reduction / copy call%s take %s of the %s of kernel time in the "
               "judged windows (%s); such kernels are limited by memory bandwidth, and their number by the "
               "launches, not by the %s's compute.",
               (unsigned long long)v->calls[r], v->calls[r] == 1 ? "" : "s", d1, d2, d3,
               t->peak ? t->peak->model : "device");
      advice = "Fuse them: torch.compile (mode=\"max-autotune\" for the hot modules) fuses chains of elementwise "
               "ops and norms into a few kernels; use the fused optimizer (torch.optim.AdamW(..., fused=True)), "
               "fused norms and activations, and avoid .contiguous() / .to() copies on the hot path. See the op "
               "table (ranks[].ops) for the costliest ones.";
      break;
  }
  snprintf(evidence, sizeof evidence,
           "{\"reason\":\"%s\",\"device\":%lld,\"device_model\":%s%s%s,\"kernel_ns\":%lld,\"window_ns\":%lld,"
           "\"fp32_matrix_ns\":%lld,\"small_gemm_ns\":%lld,\"memory_bound_ns\":%lld,\"calls\":%llu,"
           "\"min_share_ppm\":%lld,\"saving_bound_ns\":%lld}",
           REASON[r], (long long)t->device, t->peak ? "\"" : "", t->peak ? t->peak->model : "null",
           t->peak ? "\"" : "", (long long)v->kernel_ns, (long long)v->window_ns, (long long)v->ns[R_FP32],
           (long long)v->ns[R_SMALL], (long long)v->ns[R_MEMORY], (unsigned long long)v->calls[r],
           (long long)c->params[P_EFF_MIN_SHARE_PPM], (long long)saving);
  /* null, not INT64_MIN, for the saving it cannot bound */
  char *p = strstr(evidence, "\"saving_bound_ns\":-9223372036854775808");
  if (p) snprintf(p, sizeof evidence - (size_t)(p - evidence), "\"saving_bound_ns\":null}");
  finding *x = findings_add(f, "inefficient-compute", v->severity, rank, FSDPA_ABSENT, v->ns[r], title, detail, advice,
                            evidence);
  if (!x) return f->failed ? (fsdpa_status)f->failed : fa_fail_status(&c->alloc);
  for (int i = 0; i < FINDING_MAX_RANGES && v->top[r][i].ns; i++)
    finding_add_range(x, ctx_abs(c, v->top[r][i].s), ctx_abs(c, v->top[r][i].e));
  return FSDPA_OK;
}

fsdpa_status efficiency_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  qwin all = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  ef_table t;
  fsdpa_status st = ef_build(c, &all, &t);
  if (st) return st;
  verdict v;
  st = decide(c, &t, &v);
  if (!st && v.fires) st = word(c, &t, &v, rank, f);
  ef_free(&t);
  return st;
}
