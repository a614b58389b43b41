/* Text report for people: per rank a short summary, then the findings,
 * worst first, each with its advice.  Lines stay within 100 columns. */
#include "report/report.h"
#include "analysis/analyses.h"
#include <stdio.h>
#include <string.h>

#define WIDTH 100

static const char *C_BOLD = "\033[1m", *C_RED = "\033[31m", *C_YEL = "\033[33m",
                  *C_DIM = "\033[2m", *C_OFF = "\033[0m";

static const char *col(const report_in *in, const char *code) {
  return in->opts->color ? code : "";
}

/* human duration: 1.23 s / 45.6 ms / 789 us / 12 ns */
static void fmt_ns(char *buf, size_t n, int64_t ns) {
  if (ns == FSDPA_ABSENT) { snprintf(buf, n, "n/a"); return; }
  double v = (double)ns;
  if (ns >= 1000000000) snprintf(buf, n, "%.2f s", v / 1e9);
  else if (ns >= 1000000) snprintf(buf, n, "%.2f ms", v / 1e6);
  else if (ns >= 1000) snprintf(buf, n, "%.1f us", v / 1e3);
  else snprintf(buf, n, "%lld ns", (long long)ns);
}

static void bar(sbuf *b, double frac, int width) {
  if (frac < 0) frac = 0;
  if (frac > 1) frac = 1;
  int full = (int)(frac * width + 0.5);
  sb_puts(b, "[");
  for (int i = 0; i < width; i++) sb_puts(b, i < full ? "#" : ".");
  sb_puts(b, "]");
}

/* word-wrap `text` at WIDTH with an indent */
static void wrap(sbuf *b, const char *text, int indent) {
  int colno = indent;
  for (int i = 0; i < indent; i++) sb_puts(b, " ");
  const char *p = text;
  while (*p) {
    const char *sp = strchr(p, ' ');
    size_t wl = sp ? (size_t)(sp - p) : strlen(p);
    if (colno > indent && colno + 1 + (int)wl > WIDTH) {
      sb_puts(b, "\n");
      for (int i = 0; i < indent; i++) sb_puts(b, " ");
      colno = indent;
    } else if (colno > indent) {
      sb_puts(b, " ");
      colno++;
    }
    /* a single word longer than the line is cut hard */
    while ((int)wl > WIDTH - indent) {
      sb_putn(b, p, (size_t)(WIDTH - indent));
      sb_puts(b, "\n");
      for (int i = 0; i < indent; i++) sb_puts(b, " ");
      p += WIDTH - indent;
      wl -= (size_t)(WIDTH - indent);
    }
    sb_putn(b, p, wl);
    colno += (int)wl;
    p += wl;
    while (*p == ' ') p++;
  }
  sb_puts(b, "\n");
}

fsdpa_status report_text(report_in *in, sbuf *b) {
  char t1[32], t2[32];
  for (size_t i = 0; i < in->n; i++) {
    fsdpa_ctx *c = in->ctxs[i];
    const store_views *v = ctx_views(c);
    if (!v) return fa_fail_status(&c->alloc);
    sb_printf(b, "%s== rank %lld: %.70s%s\n", col(in, C_BOLD), (long long)in->ranks[i],
              report_path(in, i), col(in, C_OFF));
    sb_printf(b, "   events %llu (%llu kernels), %zu steps, %zu GPU streams\n",
              (unsigned long long)c->st.stats.events, (unsigned long long)c->st.stats.kernels,
              fsdpa_step_count(c), v->nstreams);
    fsdpa_timeline tl = {sizeof tl, 0, 0, 0, 0};
    fsdpa_query q;
    fsdpa_query_init(&q);
    if (fsdpa_query_timeline(c, &q, &tl) == FSDPA_OK && tl.span_ns != FSDPA_ABSENT) {
      fmt_ns(t1, sizeof t1, tl.span_ns);
      fmt_ns(t2, sizeof t2, tl.busy_ns);
      sb_printf(b, "   GPU span %s, busy %s, density ", t1, t2);
      bar(b, tl.density, 30);
      sb_printf(b, " %5.1f%%\n", tl.density * 100.0);
    } else {
      sb_puts(b, "   no GPU activity in this trace\n");
    }
    size_t ns = fsdpa_step_count(c);
    if (ns) {
      int64_t tot = 0;
      for (size_t k = 0; k < ns; k++) {
        fsdpa_step s = {sizeof s, 0, 0, 0};
        if (!fsdpa_get_step(c, k, &s)) tot += s.dur_ns;
      }
      fmt_ns(t1, sizeof t1, tot / (int64_t)ns);
      sb_printf(b, "   mean step time (CPU ProfilerStep) %s\n", t1);
    }
    for (size_t k = 0; k < v->nstreams && k < 16; k++) {
      const gpu_stream_view *sv = &v->streams[k];
      int64_t busy = iv_total(sv->busy, sv->nbusy);
      fmt_ns(t1, sizeof t1, busy);
      static const char *const roles[] = {"compute", "communication", "memory", "mixed"};
      sb_printf(b, "   dev %-3lld stream %-6lld %-13s %8llu kernels  busy %-10s\n",
                (long long)sv->device, (long long)sv->stream, roles[sv->role & 3],
                (unsigned long long)sv->kernels, t1);
    }
    if (v->nstreams > 16) sb_printf(b, "   ... %zu more streams\n", v->nstreams - 16);
    sb_puts(b, "\n");
  }
  if (!in->all.n) {
    sb_puts(b, "No findings: nothing in these traces crossed a threshold.\n");
  } else {
    sb_printf(b, "%sFindings (worst first)%s\n", col(in, C_BOLD), col(in, C_OFF));
    for (size_t k = 0; k < in->all.n; k++) {
      const finding *x = &in->all.v[k];
      const char *sc = x->severity == SEV_CRITICAL ? C_RED : x->severity == SEV_WARNING ? C_YEL : C_DIM;
      const char *sn = x->severity == SEV_CRITICAL ? "CRITICAL" : x->severity == SEV_WARNING ? "WARNING" : "INFO";
      fmt_ns(t1, sizeof t1, x->cost_ns);
      char head[160];
      if (x->step != FSDPA_ABSENT)
        snprintf(head, sizeof head, "%s [%s] rank %lld step %lld, costs %s", sn, x->id,
                 (long long)x->rank, (long long)x->step, t1);
      else
        snprintf(head, sizeof head, "%s [%s] rank %lld, costs %s", sn, x->id, (long long)x->rank, t1);
      sb_printf(b, "%s%2zu. %.*s%s\n", col(in, sc), k + 1, WIDTH - 4, head, col(in, C_OFF));
      wrap(b, x->title, 4);
      wrap(b, x->detail, 4);
      sb_printf(b, "    %sadvice:%s\n", col(in, C_BOLD), col(in, C_OFF));
      wrap(b, x->advice, 6);
    }
  }
  return b->failed ? (fsdpa_status)b->failed : FSDPA_OK;
}
