/* Text report for people: per rank a short summary, then the findings,
 * worst first (severity, then cost), each with its advice and the time
 * ranges it rests on.  Lines fit the caller's width (a terminal's; 100 by
 * default). */
#include "report/report.h"
#include "model/workload.h"
#include "model/iterations.h"
#include "analysis/launch_gaps/launch_gaps.h"
#include "analysis/efficiency/efficiency.h"
#include "report/rank_part.h"
#include "events/classify.h"
#include "events/comm_class.h"
#include "util/fmt.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define WIDTH_DEFAULT 100

static int width_of(const report_in *in) { return in->opts->width ? in->opts->width : WIDTH_DEFAULT; }

/* "1 call", "2 calls" */
static const char *plural(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

/* Display columns of n bytes of UTF-8 (every character one column). */
static int text_cols(const char *p, size_t n) {
  int c = 0;
  for (size_t i = 0; i < n; i++) c += ((unsigned char)p[i] & 0xC0) != 0x80;
  return c;
}

static const char *C_BOLD = "\033[1m", *C_RED = "\033[31m", *C_YEL = "\033[33m",
                  *C_GRN = "\033[32m", *C_DIM = "\033[2m", *C_OFF = "\033[0m";

static const char *col(const report_in *in, const char *code) {
  return in->opts->color ? code : "";
}

/* word-wrap `text` at `width` columns with an indent */
static void wrap(sbuf *b, int width, const char *text, int indent) {
  int colno = indent;
  for (int i = 0; i < indent; i++) sb_puts(b, " ");
  const char *p = text;
  while (*p) {
    const char *sp = strchr(p, ' ');
    size_t wl = sp ? (size_t)(sp - p) : strlen(p);
    int wc = text_cols(p, wl);
    if (colno > indent && colno + 1 + wc > width) {
      sb_puts(b, "\n");
      for (int i = 0; i < indent; i++) sb_puts(b, " ");
      colno = indent;
    } else if (colno > indent) {
      sb_puts(b, " ");
      colno++;
    }
    /* a single word longer than the line is cut hard (at a character boundary) */
    while (wc > width - indent) {
      size_t cut = 0;
      for (int k = 0; k < width - indent; k++) {
        cut++;
        while (cut < wl && ((unsigned char)p[cut] & 0xC0) == 0x80) cut++;
      }
      sb_putn(b, p, cut);
      sb_puts(b, "\n");
      for (int i = 0; i < indent; i++) sb_puts(b, " ");
      p += cut;
      wl -= cut;
      wc = text_cols(p, wl);
    }
    sb_putn(b, p, wl);
    colno += wc;
    p += wl;
    while (*p == ' ') p++;
  }
  sb_puts(b, "\n");
}

/* UTF-8 block characters: eight heights for sparklines, full / light for bars */
static const char *const SPARK[9] = {"\u00b7", "\u2581", "\u2582", "\u2583", "\u2584",
                                     "\u2585", "\u2586", "\u2587", "\u2588"};

/* [█████····] of `width` cells for frac in 0..1 */
static void ubar(sbuf *b, double frac, int width) {
  if (frac < 0) frac = 0;
  if (frac > 1) frac = 1;
  int full = (int)(frac * width + 0.5);
  for (int i = 0; i < width; i++) sb_puts(b, i < full ? "\u2588" : "\u00b7");
}

/* One sparkline cell per value; level 1..8 for a non-zero value, log-scaled
 * (log(1+v) / log(1+max)) so a bin of 3 next to a bin of 3000 stays visible. */
static void spark_log(sbuf *b, const uint64_t *v, size_t n) {
  uint64_t max = 0;
  for (size_t i = 0; i < n; i++)
    if (v[i] > max) max = v[i];
  for (size_t i = 0; i < n; i++) {
    int lv = 0;
    if (v[i]) {
      lv = 1 + (int)(7.0 * log1p((double)v[i]) / log1p((double)max) + 0.5);
      if (lv < 1) lv = 1;
      if (lv > 8) lv = 8;
    }
    sb_puts(b, SPARK[lv]);
  }
}

#define LABEL "   %s%-13s%s"

static void label(sbuf *b, const report_in *in, const char *name) {
  sb_printf(b, LABEL, col(in, C_BOLD), name, col(in, C_OFF));
}
/* the columns LABEL takes */
#define LABEL_COLS 16

/* The rest of a labelled line: items joined by `sep`, a new line (indented
 * under the label's value) only between items, so a number never leaves
 * its unit behind. */
static void items_line(sbuf *b, int width, char (*items)[96], int n, const char *sep) {
  int colno = LABEL_COLS, sepc = text_cols(sep, strlen(sep)), endc = (int)strcspn(sep, " ");
  for (int i = 0; i < n; i++) {
    /* an item that is not the last keeps room for the separator that ends
     * its line when the next item moves down */
    int wc = text_cols(items[i], strlen(items[i])) + (i + 1 < n ? endc : 0);
    if (i && colno + sepc + wc > width) {
      sb_printf(b, "%.*s\n%*s", endc, sep, LABEL_COLS, "");
      colno = LABEL_COLS;
    } else if (i) {
      sb_puts(b, sep);
      colno += sepc;
    }
    sb_puts(b, items[i]);
    colno += wc - (i + 1 < n ? endc : 0);
  }
  sb_puts(b, "\n");
}

/* How the iterations were found, for people (it_source_name order). */
static const char *iterations_found_by(const char *source) {
  static const char *const map[][2] = {
      {"ProfilerStep", "ProfilerStep#N ranges"},       {"engine_step", "engine step annotations"},
      {"optimizer_step", "Optimizer.step# annotations"}, {"benchmark_annotation", "benchmark run annotations"},
      {"dataloader", "DataLoader __next__ calls"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(source, map[i][0])) return map[i][1];
  return source;
}

/* ranks[].iterations and launch_gaps.warmup: how many, found how, and what
 * the warm-up iteration the findings leave out holds. */
static fsdpa_status iterations_line(report_in *in, fsdpa_ctx *c, const launch_gaps_brief *lb, sbuf *b) {
  iterations it;
  fsdpa_status st = iterations_build(c, &it);
  if (st) return st;
  char items[2][96], t1[32];
  int n = 0;
  label(b, in, "iterations");
  if (!it.n) {
    snprintf(items[n++], sizeof items[0], "none found: no ProfilerStep or per-iteration annotation; the whole trace is judged");
  } else {
    snprintf(items[n++], sizeof items[0], "%zu from %s", it.n, iterations_found_by(it_source_name(it.source)));
    if (lb->gpu && lb->warmup_iterations) {
      fmt_dur(t1, sizeof t1, lb->warmup_gpu_idle_ns);
      snprintf(items[n++], sizeof items[0], "the first is warm-up, not judged: %s GPU idle", t1);
    } else if (it.n >= 2) {
      snprintf(items[n++], sizeof items[0], "the first is warm-up, not judged");
    } else {
      snprintf(items[n++], sizeof items[0], "one iteration: no warm-up cut");
    }
  }
  iterations_free(&it);
  items_line(b, width_of(in), items, n, "; ");
  return FSDPA_OK;
}

/* launch_gaps.idle_causes: the GPU idle split by cause, largest first
 * (ties in the contract's order), causes without idle left out. */
static void idle_causes_line(report_in *in, const launch_gaps_brief *lb, sbuf *b) {
  static const char *const names[LAUNCH_GAPS_CAUSES] = {"host not launched", "host blocked", "stream wait",
                                                        "rank wait", "dispatch", "unknown"};
  label(b, in, "idle causes");
  if (lb->idle_ns <= 0) {
    sb_puts(b, "none: the GPU is never idle\n");
    return;
  }
  int ord[LAUNCH_GAPS_CAUSES], n = 0;
  for (int k = 0; k < LAUNCH_GAPS_CAUSES; k++) {
    if (lb->cause_ns[k] <= 0) continue;
    int j = n++;
    while (j && lb->cause_ns[ord[j - 1]] < lb->cause_ns[k]) {
      ord[j] = ord[j - 1];
      j--;
    }
    ord[j] = k;
  }
  char items[LAUNCH_GAPS_CAUSES][96], t1[32];
  for (int j = 0; j < n; j++) {
    fmt_dur(t1, sizeof t1, lb->cause_ns[ord[j]]);
    snprintf(items[j], sizeof items[0], "%s %s (%.1f%%)", names[ord[j]], t1,
             100.0 * (double)lb->cause_ns[ord[j]] / (double)lb->idle_ns);
  }
  items_line(b, width_of(in), items, n, ", ");
}

/* Which communication was found and by which rule, when it is more than
 * NCCL and its forks by name (the usual case, which needs no line). */
static fsdpa_status comm_line(report_in *in, fsdpa_ctx *c, sbuf *b) {
  cf_row *rows;
  size_t n;
  fsdpa_status st = comm_families_rows(c, &rows, &n);
  if (st) return st;
  int other = 0;
  for (size_t i = 0; i < n; i++)
    other |= !(comm_rule(rows[i].code) == COMM_BY_NAME && comm_family_is_ccl((int)comm_value(rows[i].code)));
  if (other) {
    label(b, in, "comm found");
    for (size_t i = 0; i < n; i++)
      sb_printf(b, "%s%.*s by %s (%llu)", i ? "; " : "", (int)rows[i].family_len, rows[i].family,
                comm_rule_name(comm_rule(rows[i].code)), (unsigned long long)rows[i].kernels);
    sb_puts(b, "\n");
  }
  comm_families_free(c, rows);
  return FSDPA_OK;
}

/* allocated level over the trace as a 60-cell sparkline, linear between the
 * lowest and the highest level (the range is printed after it) */
static fsdpa_status memory_line(report_in *in, fsdpa_ctx *c, sbuf *b) {
  enum { CELLS = 60 };
  fsdpa_memory_point p[CELLS];
  memset(p, 0, sizeof p);
  fsdpa_list *l;
  fsdpa_status st = fsdpa_memory_series_list(c, NULL, FSDPA_ABSENT, CELLS, &l);
  if (st) return st;
  size_t n = fsdpa_list_count(l);
  if (n > CELLS) n = CELLS;
  for (size_t i = 0; i < n; i++) {
    p[i].size = sizeof p[i];
    fsdpa_list_get(l, i, &p[i]);
  }
  fsdpa_list_free(l);
  int64_t max = 0, min = INT64_MAX;
  for (size_t i = 0; i < n; i++) {
    if (p[i].allocated_max != FSDPA_ABSENT && p[i].allocated_max > max) max = p[i].allocated_max;
    if (p[i].allocated_min != FSDPA_ABSENT && p[i].allocated_min < min) min = p[i].allocated_min;
  }
  if (!n || max <= 0 || min == INT64_MAX) return FSDPA_OK;
  label(b, in, "");
  for (size_t i = 0; i < n; i++) {
    int lv = 0;
    if (p[i].allocated_max != FSDPA_ABSENT)
      lv = max > min ? 1 + (int)(7.0 * (double)(p[i].allocated_max - min) / (double)(max - min) + 0.5) : 4;
    sb_puts(b, SPARK[lv > 8 ? 8 : lv]);
  }
  char lo[32], hi[32];
  fmt_bytes(lo, sizeof lo, min);
  fmt_bytes(hi, sizeof hi, max);
  sb_printf(b, " %s .. %s\n", lo, hi);
  return FSDPA_OK;
}

/* What the busy time went to: MFU and the modelled share, then the top
 * of the kernel table (ranks[].kernels). */
static fsdpa_status busy_lines(report_in *in, fsdpa_ctx *c, sbuf *b) {
  fsdpa_efficiency e;
  char model[32], t1[32], t2[32], t3[32];
  fsdpa_status st = efficiency_brief(c, &e, model);
  if (st) return st;
  if (!e.kernel_ns) return FSDPA_OK;
  label(b, in, "busy time");
  fmt_dur(t1, sizeof t1, e.kernel_ns);
  char items[2][96];
  int n = 0;
  if (e.mfu >= 0) snprintf(items[n++], sizeof items[0], "MFU %.1f%% on %s (lower bound)", 100.0 * e.mfu, model);
  else if (e.modelled_ns)
    snprintf(items[n++], sizeof items[0], "MFU n/a (%s)", model[0] ? "no peak for its dtypes" : "device unknown");
  snprintf(items[n++], sizeof items[0], "modelled GEMM/attention/conv %.0f%% of %s kernel time",
           e.modelled_share < 0 ? 0.0 : 100.0 * e.modelled_share, t1);
  items_line(b, width_of(in), items, n, "; ");
  fsdpa_kernel_select sel;
  fsdpa_kernel_select_init(&sel);
  sel.max_rows = 10;
  fsdpa_list *l;
  if ((st = fsdpa_kernel_list(c, NULL, &sel, &l))) return st;
  int w = width_of(in), namew = w - 3 - 47;
  if (namew < 16) namew = 16;
  sb_printf(b, "   %s%-*s %-7s %7s %10s %10s %6s%s\n", col(in, C_DIM), namew, "top kernels", "class", "count",
            "total", "mean", "share", col(in, C_OFF));
  for (size_t k = 0; k < fsdpa_list_count(l); k++) {
    fsdpa_kernel_stat ks;
    memset(&ks, 0, sizeof ks);
    ks.size = sizeof ks;
    if ((st = fsdpa_list_get(l, k, &ks))) break;
    static const char *const SHORT[] = {"compute", "comm", "memcpy", "memset"};
    const char *cls = !ks.kernel_class ? "" : !strcmp(ks.kernel_class, "communication") ? SHORT[1] : ks.kernel_class;
    fmt_dur(t2, sizeof t2, ks.total_ns);
    fmt_dur(t3, sizeof t3, ks.mean_ns);
    /* names are cut to the column (by characters: a UTF-8 "…" is one) */
    int nc = text_cols(ks.short_name, strlen(ks.short_name));
    size_t nb = strlen(ks.short_name);
    if (nc > namew) {
      nb = 0;
      for (int q = 0; q < namew - 1; q++) {
        nb++;
        while (ks.short_name[nb] && ((unsigned char)ks.short_name[nb] & 0xC0) == 0x80) nb++;
      }
    }
    sb_putn(b, "   ", 3);
    sb_putn(b, ks.short_name, nb);
    if (nc > namew) sb_puts(b, "\u2026");
    for (int q = nc > namew ? namew : nc; q < namew; q++) sb_putn(b, " ", 1);
    sb_printf(b, " %-7s %7llu %*s %*s %5.1f%%\n", cls, (unsigned long long)ks.count,
              10 + (strstr(t2, "\u00b5") != NULL), t2, 10 + (strstr(t3, "\u00b5") != NULL), t3,
              ks.share < 0 ? 0.0 : 100.0 * ks.share);
  }
  fsdpa_list_free(l);
  return st;
}

static fsdpa_status rank_summary(report_in *in, size_t i, sbuf *b) {
  char t1[32], t2[32], t3[64], t4[32];
  fsdpa_ctx *c = in->ctxs[i];
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  fsdpa_query q;
  fsdpa_query_init(&q);
  fsdpa_status st;
  sb_printf(b, "%s== rank %lld: %.80s%s\n", col(in, C_BOLD), (long long)in->ranks[i],
            report_path(in, i), col(in, C_OFF));
  int ver = fsdpa_fsdp_version(c);
  size_t ndev = 0;
  for (size_t k = 0; k < v->nstreams; k++)
    if (!k || v->streams[k].device != v->streams[k - 1].device) ndev++;
  sb_printf(b, "   %llu %s, %llu %s, %zu %s, %zu GPU %s on %zu %s%s\n", (unsigned long long)c->st.stats.events,
            plural(c->st.stats.events, "event", "events"), (unsigned long long)c->st.stats.kernels,
            plural(c->st.stats.kernels, "kernel", "kernels"), c->st.steps.len, plural(c->st.steps.len, "step", "steps"),
            v->nstreams, plural(v->nstreams, "stream", "streams"), ndev, plural(ndev, "device", "devices"),
            ver == 2 ? ", FSDP2" : ver == 1 ? ", FSDP1" : "");
  xdev_sum xd[XDEV__COUNT];
  int nxdev = store_xdev_summary(&c->alloc, &c->st, xd);
  if (nxdev < 0) return fa_fail_status(&c->alloc);
  for (int t = 0; t < XDEV__COUNT; t++) {
    if (!xd[t].events && !xd[t].runtime_events) continue;
    fmt_dur(t1, sizeof t1, xd[t].busy_ns == FSDPA_ABSENT ? 0 : xd[t].busy_ns);
    sb_printf(b, "   %s: present, not analyzed: %llu device %s, %llu %s, busy %s, %llu runtime %s\n",
              xdev_type_name(t), (unsigned long long)xd[t].events, plural(xd[t].events, "event", "events"),
              (unsigned long long)xd[t].streams, plural(xd[t].streams, "stream", "streams"), t1,
              (unsigned long long)xd[t].runtime_events, plural(xd[t].runtime_events, "call", "calls"));
  }

  workload wl;
  if ((st = workload_build(c, &wl))) return st;
  label(b, in, "workload");
  int first = 1;
  for (int l = 0; l < WL__COUNT; l++)
    if (wl.labels & (1u << l)) {
      sb_printf(b, "%s%s", first ? "" : " + ", wl_label_name(l));
      first = 0;
    }
  sb_printf(b, "%s, mode %s\n", first ? "parallelism unknown" : "", wl_mode_name(wl.mode));
  launch_gaps_brief lb;
  if ((st = launch_gaps_brief_get(c, &lb)) || (st = iterations_line(in, c, &lb, b))) return st;

  size_t ns = c->st.steps.len;
  label(b, in, "step time");
  if (ns) {
    int64_t tot = 0, lo = INT64_MAX, hi = 0;
    for (size_t k = 0; k < ns; k++) {
      fsdpa_step s;
      ctx_step_public(c, k, &s);
      tot += s.dur_ns;
      if (s.dur_ns < lo) lo = s.dur_ns;
      if (s.dur_ns > hi) hi = s.dur_ns;
    }
    fmt_dur(t1, sizeof t1, tot / (int64_t)ns);
    fmt_dur(t2, sizeof t2, lo);
    fmt_dur(t3, sizeof t3, hi);
    sb_printf(b, "%s mean over %zu ProfilerSteps (CPU), %s .. %s\n", t1, ns, t2, t3);
  } else {
    sb_puts(b, "n/a: no ProfilerStep ranges in the trace\n");
  }

  fsdpa_launch_gaps g;
  memset(&g, 0, sizeof g);
  g.size = sizeof g;
  if ((st = fsdpa_launch_gaps_query(c, &q, &g))) return st;
  label(b, in, "GPU density");
  if (g.span_ns != FSDPA_ABSENT) {
    const char *dc = g.density < 0.5 ? C_RED : g.density < 0.8 ? C_YEL : C_GRN;
    ubar(b, g.density, 30);
    fmt_dur(t1, sizeof t1, g.busy_ns);
    fmt_dur(t2, sizeof t2, g.span_ns);
    sb_printf(b, " %s%5.1f%%%s busy %s of %s\n", col(in, dc), g.density * 100.0, col(in, C_OFF), t1, t2);
    fmt_dur(t1, sizeof t1, g.gpu_idle_ns);
    fmt_dur(t2, sizeof t2, g.gpu_host_wait_ns);
    fmt_dur(t3, sizeof t3, g.gpu_kernel_wait_ns);
    fmt_dur(t4, sizeof t4, g.gpu_other_ns);
    label(b, in, "GPU idle");
    sb_printf(b, "%s: waiting for the host %s, short gaps %s, other %s\n", t1, t2, t3, t4);
    if (lb.gpu) idle_causes_line(in, &lb, b);
  } else {
    sb_puts(b, nxdev ? "n/a: no CUDA/ROCm GPU activity; the other devices above are present, not analyzed\n"
                     : "n/a: no GPU activity in this trace\n");
  }

  fsdpa_overlap ov;
  memset(&ov, 0, sizeof ov);
  ov.size = sizeof ov;
  if ((st = fsdpa_overlap_query(c, &q, &ov))) return st;
  label(b, in, "exposed comm");
  if (ov.comm_ns != FSDPA_ABSENT) {
    fmt_dur(t1, sizeof t1, ov.exposed_comm_ns);
    fmt_dur(t2, sizeof t2, ov.comm_ns);
    double sh = g.span_ns > 0 ? (double)ov.exposed_comm_ns / (double)g.span_ns : 0;
    sb_printf(b, "%s%s%s (%.1f%% of the span); %.1f%% of %s communication hidden by compute\n",
              col(in, sh > 0.1 ? C_RED : sh > 0.03 ? C_YEL : C_GRN), t1, col(in, C_OFF), sh * 100.0,
              ov.overlap_pct < 0 ? 0.0 : ov.overlap_pct, t2);
  } else {
    sb_puts(b, "n/a: no communication kernels in this trace\n");
  }
  if ((st = comm_line(in, c, b))) return st;

  fsdpa_backward bw;
  memset(&bw, 0, sizeof bw);
  bw.size = sizeof bw;
  if ((st = fsdpa_backward_get(c, &bw))) return st;
  label(b, in, "backward");
  if (bw.pattern == FSDPA_BWD_UNKNOWN) {
    sb_puts(b, ver ? "unknown: fewer than two FSDP units in backward\n"
                   : "n/a: no FSDP annotations in this trace\n");
  } else {
    fmt_dur(t1, sizeof t1, bw.idle_ns);
    sb_printf(b, "%s%s%s: %llu of %llu units prefetched; %llu of %llu links broken, idle %s\n",
              col(in, bw.pattern == FSDPA_BWD_ZIGZAG ? C_GRN : C_RED),
              fsdpa_backward_pattern_name(bw.pattern), col(in, C_OFF),
              (unsigned long long)bw.prefetched_units, (unsigned long long)bw.units,
              (unsigned long long)bw.broken_links, (unsigned long long)bw.links, t1);
  }

  fsdpa_memory_summary ms;
  memset(&ms, 0, sizeof ms);
  ms.size = sizeof ms;
  if ((st = fsdpa_memory_query(c, &q, &ms))) return st;
  label(b, in, "allocator");
  uint64_t steady = ms.steady_state_malloc_calls + ms.steady_state_free_calls;
  if (ms.device == FSDPA_ABSENT) {
    snprintf(t3, sizeof t3, "no device memory events");
  } else if (ms.allocated_is_relative) {
    fmt_bytes(t1, sizeof t1, ms.peak_allocated_delta_bytes);
    snprintf(t3, sizeof t3, "peak growth %s", t1);
  } else {
    fmt_bytes(t1, sizeof t1, ms.peak_allocated_bytes);
    snprintf(t3, sizeof t3, "peak %s allocated", t1);
  }
  fmt_bytes(t2, sizeof t2, ms.peak_reserved_bytes);
  sb_printf(b, "%s%s%s%s; malloc/free %llu/%llu, %s%llu%s after warm-up\n", t3,
            ms.peak_reserved_bytes != FSDPA_ABSENT ? ", " : "",
            ms.peak_reserved_bytes != FSDPA_ABSENT ? t2 : "",
            ms.peak_reserved_bytes != FSDPA_ABSENT ? " reserved" : "",
            (unsigned long long)ms.malloc_calls, (unsigned long long)ms.free_calls,
            col(in, steady ? C_YEL : ""), (unsigned long long)steady, col(in, steady ? C_OFF : ""));
  if ((st = memory_line(in, c, b))) return st;

  enum { NSW = 32 };
  fsdpa_sync_wait sw[NSW];
  memset(sw, 0, sizeof sw);
  fsdpa_list *swl;
  st = fsdpa_sync_wait_list(c, &q, &swl);
  if (st) return st;
  size_t nsw = fsdpa_list_count(swl);
  if (nsw > NSW) nsw = NSW;
  for (size_t k = 0; k < nsw; k++) {
    sw[k].size = sizeof sw[k];
    fsdpa_list_get(swl, k, &sw[k]);
  }
  label(b, in, "CPU blocked");
  if (nsw) {
    int64_t tot = 0;
    for (size_t k = 0; k < nsw; k++) tot += sw[k].total_ns;
    fmt_dur(t1, sizeof t1, tot);
    fmt_dur(t2, sizeof t2, sw[0].total_ns);
    sb_printf(b, "%s in blocking calls; top %.40s: %llu %s, %s\n", t1, sw[0].api,
              (unsigned long long)sw[0].count, plural(sw[0].count, "call", "calls"), t2);
  } else {
    sb_puts(b, "never: no blocking CUDA calls\n");
  }
  fsdpa_list_free(swl);
  if ((st = busy_lines(in, c, b))) return st;

  if (v->nstreams) {
    /* per stream: role, kernels, busy, and the launch-gap histogram as a
     * sparkline over the fixed bins (<1us, 1us .. 1s in 1-2-5 steps, >=1s) */
    sb_printf(b, "   %s%-22s %-8s %8s %10s %7s  %-20s%s\n", col(in, C_DIM), "stream", "role",
              "kernels", "busy", "gaps", " 1us      1ms      1s", col(in, C_OFF));
    static const char *const roles[] = {"compute", "comm", "memory", "mixed"};
    for (size_t k = 0; k < v->nstreams && k < 16; k++) {
      const gpu_stream_view *sv = &v->streams[k];
      fsdpa_query qs;
      fsdpa_query_init(&qs);
      qs.fields = FSDPA_QUERY_DEVICE | FSDPA_QUERY_STREAM;
      qs.device = sv->device;
      qs.stream = sv->stream;
      fsdpa_launch_gaps gs;
      memset(&gs, 0, sizeof gs);
      gs.size = sizeof gs;
      if ((st = fsdpa_launch_gaps_query(c, &qs, &gs))) return st;
      char name[32];
      snprintf(name, sizeof name, "dev %lld stream %lld", (long long)sv->device, (long long)sv->stream);
      fmt_dur(t1, sizeof t1, iv_total(sv->busy, sv->nbusy));
      /* padded to 10 columns: "µ" takes two bytes and one column */
      int pad = 10 + (strstr(t1, "µ") != NULL);
      sb_printf(b, "   %-22.22s %-8s %8llu %*s %7llu  ", name, roles[sv->role & 3],
                (unsigned long long)sv->kernels, pad, t1, (unsigned long long)gs.gaps);
      spark_log(b, gs.counts, FSDPA_GAP_BINS);
      fmt_dur(t2, sizeof t2, gs.p50_ns);
      sb_printf(b, " p50 %s\n", gs.gaps ? t2 : "n/a");
    }
    if (v->nstreams > 16) sb_printf(b, "   ... %zu more streams\n", v->nstreams - 16);
  }
  sb_puts(b, "\n");
  return FSDPA_OK;
}

/* Every line of `src` cut to the width's visible columns (ANSI color sequences
 * take none, a UTF-8 character one), so no number or name can push a line
 * past the terminal's width; a cut line ends in "…". */
static void fit_width(const report_in *in, const sbuf *src, sbuf *dst) {
  const size_t width = (size_t)width_of(in);
  size_t i = 0;
  while (i < src->len) {
    size_t e = i;
    while (e < src->len && src->p[e] != '\n') e++;
    size_t cols = 0, k = i, cut = e;
    while (k < e) {
      if (src->p[k] == '\033') {
        while (k < e && src->p[k] != 'm') k++;
        k++;
        continue;
      }
      if (cols == width - 1) cut = k;
      cols++;
      k++;
      while (k < e && ((unsigned char)src->p[k] & 0xC0) == 0x80) k++;
    }
    if (cols <= width) cut = e;
    sb_putn(dst, src->p + i, cut - i);
    if (cut < e) {
      sb_puts(dst, "\u2026");
      if (in->opts->color) sb_puts(dst, C_OFF);
    }
    if (e < src->len) sb_puts(dst, "\n");
    i = e + 1;
  }
}

static fsdpa_status report_text_raw(report_in *in, sbuf *b);

fsdpa_status report_text(report_in *in, sbuf *b) {
  sbuf raw;
  sb_init(&raw, b->a);
  fsdpa_status st = report_text_raw(in, &raw);
  if (!st && raw.failed) st = (fsdpa_status)raw.failed;
  if (!st) fit_width(in, &raw, b);
  sb_free(&raw);
  return st ? st : b->failed ? (fsdpa_status)b->failed : FSDPA_OK;
}

/* a before b in the text report: higher severity, then higher cost, then
 * the JSON order (findings are already sorted by cost); a symptom is ranked
 * by the cause it follows (findings_sort's anchor), so it stays after it */
static int by_severity_cost(const finding *a, const finding *b) {
  if (a->anchor.severity != b->anchor.severity) return a->anchor.severity > b->anchor.severity;
  return a->anchor.cost_ns > b->anchor.cost_ns;
}

/* Where a rank's trace starts on its clock (its first step or first GPU
 * activity, whichever is earlier): ranges are printed relative to it. */
static int64_t rank_origin(const report_in *in, int64_t rank, int *found) {
  *found = 0;
  for (size_t i = 0; i < in->n; i++) {
    if (in->ranks[i] != rank) continue;
    fsdpa_ctx *c = in->ctxs[i];
    const store_views *v = ctx_views(c);
    int64_t t = INT64_MAX;
    if (v && v->nall) t = v->all_busy[0].s;
    if (c->st.steps.len && ((const step_rec *)c->st.steps.data)[0].ts < t) t = ((const step_rec *)c->st.steps.data)[0].ts;
    if (t == INT64_MAX) return 0;
    *found = 1;
    return ctx_abs(c, t);
  }
  return 0;
}

/* The evidence ranges a finding's advice points at ("the ranges below"):
 * where they start in the rank's trace and how long they last. */
static void write_ranges(const report_in *in, const finding *x, sbuf *b) {
  if (!x->nranges) return;
  int found;
  int64_t o = rank_origin(in, x->rank, &found);
  sb_printf(b, "    %s%s%s\n", col(in, C_BOLD), x->nranges == 1 ? "range:" : "ranges (worst first):", col(in, C_OFF));
  for (int r = 0; r < x->nranges; r++) {
    char at[32], len[32];
    fmt_dur(len, sizeof len, x->ranges[r].e - x->ranges[r].s);
    if (found && x->ranges[r].s >= o) {
      fmt_dur(at, sizeof at, x->ranges[r].s - o);
      sb_printf(b, "      %d. at +%s, for %s\n", r + 1, at, len);
    } else {
      sb_printf(b, "      %d. at %lld ns, for %s\n", r + 1, (long long)x->ranges[r].s, len);
    }
  }
  if (found) sb_printf(b, "      (times from the start of rank %lld's trace)\n", (long long)x->rank);
}

static fsdpa_status report_text_raw(report_in *in, sbuf *b) {
  char t1[64];
  for (size_t i = 0; i < in->n; i++) {
    fsdpa_status st = rank_summary(in, i, b);
    if (st) return st;
  }
  if (!in->all.n) {
    sb_puts(b, "No findings: nothing in these traces crossed a threshold.\n");
  } else {
    size_t nsev[3] = {0, 0, 0};
    for (size_t k = 0; k < in->all.n; k++) {
      int sv = in->all.v[k].severity;
      nsev[sv == SEV_CRITICAL ? 2 : sv == SEV_WARNING ? 1 : 0]++;
    }
    sb_printf(b, "%sFindings (worst first)%s: %zu critical, %zu warning, %zu info\n", col(in, C_BOLD),
              col(in, C_OFF), nsev[2], nsev[1], nsev[0]);
    /* worst severity first, then the time they cost (the JSON's order is by
     * cost alone; a person reads the critical ones first) */
    size_t *ord = fa_malloc(b->a, in->all.n * sizeof *ord);
    if (!ord) return fa_fail_status(b->a);
    for (size_t k = 0; k < in->all.n; k++) ord[k] = k;
    for (size_t k = 1; k < in->all.n; k++) {
      size_t x = ord[k], j = k;
      while (j && by_severity_cost(&in->all.v[x], &in->all.v[ord[j - 1]])) {
        ord[j] = ord[j - 1];
        j--;
      }
      ord[j] = x;
    }
    const int width = width_of(in);
    for (size_t k = 0; k < in->all.n; k++) {
      const finding *x = &in->all.v[ord[k]];
      const char *sc = x->severity == SEV_CRITICAL ? C_RED : x->severity == SEV_WARNING ? C_YEL : C_DIM;
      const char *sn = x->severity == SEV_CRITICAL ? "CRITICAL" : x->severity == SEV_WARNING ? "WARNING" : "INFO";
      /* a memory finding costs bytes, not time */
      if (x->cost_bytes != FSDPA_ABSENT && !x->cost_ns) {
        char b[32];
        fmt_bytes(b, sizeof b, x->cost_bytes);
        snprintf(t1, sizeof t1, "%s of reserved memory", b);
      } else {
        fmt_dur(t1, sizeof t1, x->cost_ns);
      }
      char head[220], save[64] = "";
      if (x->saving_ns != FSDPA_ABSENT) {
        char t2[32];
        fmt_dur(t2, sizeof t2, x->saving_ns);
        snprintf(save, sizeof save, ", fixing it saves %s (%.1f%%)", t2,
                 100.0 * (double)x->saving_ns / (double)x->saving_window_ns);
      }
      if (x->step != FSDPA_ABSENT)
        snprintf(head, sizeof head, "%s [%s] rank %lld step %lld, costs %s%s", sn, x->id,
                 (long long)x->rank, (long long)x->step, t1, save);
      else
        snprintf(head, sizeof head, "%s [%s] rank %lld, costs %s%s", sn, x->id, (long long)x->rank, t1, save);
      sb_printf(b, "%s%2zu. %.*s%s\n", col(in, sc), k + 1, width - 4, head, col(in, C_OFF));
      wrap(b, width, x->title, 4);
      wrap(b, width, x->detail, 4);
      sb_printf(b, "    %sadvice:%s\n", col(in, C_BOLD), col(in, C_OFF));
      wrap(b, width, x->advice, 6);
      write_ranges(in, x, b);
    }
    fa_free(b->a, ord, in->all.n * sizeof *ord);
  }
  return b->failed ? (fsdpa_status)b->failed : FSDPA_OK;
}
