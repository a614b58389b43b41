/* The text report, made from the JSON report alone (render.h): for a job,
 * a table of its ranks first, then the findings grouped across ranks
 * (causes first, each symptom indented under its cause), then the rules
 * that could not judge, then each rank's summary; for one rank its summary
 * first.  Every line fits the caller's width: long lines wrap (never cut),
 * prose wraps at a readable width however wide the terminal is. */
#include "report/render.h"
#include "events/classify.h"
#include "util/fmt.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH_DEFAULT 100
/* prose (titles, details, advice) wraps here on wider terminals */
#define PROSE_MAX 100
/* a space that joins: the wrapper never breaks a line there */
#define NBSP '\x01'

typedef struct tr {
  const jdoc *d;
  const jdc_node *rep;
  sbuf *b;
  int width, prose, color;
  char *msg;
  size_t msg_len;
} tr;

static const char *C_BOLD = "\033[1m", *C_RED = "\033[31m", *C_YEL = "\033[33m", *C_GRN = "\033[32m",
                  *C_DIM = "\033[2m", *C_OFF = "\033[0m";

static const char *col(const tr *t, const char *code) { return t->color ? code : ""; }

static const char *plural(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

/* ---- lines that fit ---- */

/* Columns of s[i..] up to the end of the character at i; advances *i past
 * it (ANSI color sequences take none, a UTF-8 character one). */
static int char_cols(const char *s, size_t n, size_t *i) {
  if (s[*i] == '\033') {
    while (*i < n && s[*i] != 'm') (*i)++;
    if (*i < n) (*i)++;
    return 0;
  }
  (*i)++;
  while (*i < n && ((unsigned char)s[*i] & 0xC0) == 0x80) (*i)++;
  return 1;
}

static void put_text(sbuf *b, const char *s, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != NBSP) continue;
    sb_putn(b, s + k, i - k);
    sb_puts(b, " ");
    k = i + 1;
  }
  sb_putn(b, s + k, n - k);
}

/* One logical line, wrapped at `width` columns: broken at the last space
 * that fits (not inside its leading indent, never at a NBSP), else hard at
 * the width; continuation lines start with `cont` spaces. */
static void emit(tr *t, int width, int cont, const char *s) {
  size_t n = strlen(s), i = 0;
  if (cont > width / 2) cont = width / 4;
  int lead = 0;
  while (lead < (int)n && s[lead] == ' ') lead++;
  for (int first = 1;; first = 0) {
    int colno = first ? 0 : cont, min_col = first ? lead : cont;
    size_t k = i, brk = SIZE_MAX, hard = SIZE_MAX;
    while (k < n) {
      if (s[k] == ' ' && colno > min_col) brk = k;
      size_t at = k;
      int c = char_cols(s, n, &k);
      if (colno + c > width) {
        hard = at;
        break;
      }
      colno += c;
    }
    if (hard == SIZE_MAX) {
      put_text(t->b, s + i, n - i);
      break;
    }
    size_t end = brk != SIZE_MAX && brk > i ? brk : hard;
    if (end <= i) {  /* not even one character fits: take one anyway */
      end = i;
      char_cols(s, n, &end);
    }
    put_text(t->b, s + i, end - i);
    sb_puts(t->b, "\n");
    i = end;
    while (i < n && s[i] == ' ') i++;
    if (i >= n) return;
    for (int c = 0; c < cont; c++) sb_puts(t->b, " ");
  }
  sb_puts(t->b, "\n");
}

/* A line built with printf, wrapped (see emit). */
static void line(tr *t, int cont, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(tr *t, int cont, const char *fmt, ...) {
  char buf[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  emit(t, t->width, cont, buf);
}

/* Prose at `indent`, wrapped at the readable width. */
static void prose(tr *t, int indent, const char *text) {
  size_t n = strlen(text);
  char *buf = malloc(n + (size_t)indent + 1);
  if (!buf) {
    t->b->failed = FSDPA_ENOMEM;
    return;
  }
  memset(buf, ' ', (size_t)indent);
  memcpy(buf + indent, text, n + 1);
  /* NBSPs of the text are its own bytes 0x01 only if the JSON held them:
   * keep them as they are (put_text writes a space) */
  emit(t, t->prose, indent, buf);
  free(buf);
}

/* "a b" -> "a\x01b": an item that must stay on one line */
static void glue(char *s) {
  for (; *s; s++)
    if (*s == ' ') *s = NBSP;
}

#define LABEL_COLS 16

/* "   label        item; item; ..." breaking only between items */
static void label_items(tr *t, const char *name, char (*items)[160], int n, const char *sep) {
  char buf[4096];
  int k = snprintf(buf, sizeof buf, "   %s%-13s%s", col(t, C_BOLD), name, col(t, C_OFF));
  for (int i = 0; i < n && k < (int)sizeof buf; i++) {
    glue(items[i]);
    k += snprintf(buf + k, sizeof buf - (size_t)k, "%s%s", i ? sep : "", items[i]);
  }
  emit(t, t->width, LABEL_COLS, buf);
}

static void label_text(tr *t, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void label_text(tr *t, const char *name, const char *fmt, ...) {
  char text[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  char buf[4200];
  snprintf(buf, sizeof buf, "   %s%-13s%s%s", col(t, C_BOLD), name, col(t, C_OFF), text);
  emit(t, t->width, LABEL_COLS, buf);
}

/* ---- the document ---- */

static const jdc_node *get(const tr *t, const jdc_node *o, const char *path) { return jdc_path(t->d, o, path); }
static int64_t i64(const tr *t, const jdc_node *o, const char *path) { return jdc_i64(get(t, o, path), FSDPA_ABSENT); }
static const char *str(const tr *t, const jdc_node *o, const char *path, const char *absent) {
  return jdc_str(get(t, o, path), absent);
}

static void dur(char *b, size_t n, int64_t ns) { fmt_dur(b, n, ns); }

/* UTF-8 block characters: eight heights for sparklines, full / light for bars */
static const char *const SPARK[9] = {"\u00b7", "\u2581", "\u2582", "\u2583", "\u2584",
                                     "\u2585", "\u2586", "\u2587", "\u2588"};

static void ubar(char *b, size_t n, double frac, int cells) {
  if (frac < 0) frac = 0;
  if (frac > 1) frac = 1;
  int full = (int)(frac * cells + 0.5);
  size_t k = 0;
  b[0] = 0;
  for (int i = 0; i < cells && k + 4 < n; i++) k += (size_t)snprintf(b + k, n - k, "%s", i < full ? "\u2588" : "\u00b7");
}

/* one cell per value, level 1..8 for a non-zero value, log-scaled so a bin
 * of 3 next to a bin of 3000 stays visible */
static void spark_log(char *b, size_t n, const tr *t, const jdc_node *counts) {
  uint64_t max = 0;
  for (const jdc_node *x = jdc_first(t->d, counts); x; x = jdc_next(t->d, x)) {
    int64_t v = jdc_i64(x, 0);
    if (v > 0 && (uint64_t)v > max) max = (uint64_t)v;
  }
  size_t k = 0;
  b[0] = 0;
  for (const jdc_node *x = jdc_first(t->d, counts); x && k + 4 < n; x = jdc_next(t->d, x)) {
    int64_t v = jdc_i64(x, 0);
    int lv = 0;
    if (v > 0) {
      lv = 1 + (int)(7.0 * log1p((double)v) / log1p((double)max) + 0.5);
      if (lv > 8) lv = 8;
    }
    k += (size_t)snprintf(b + k, n - k, "%s", SPARK[lv]);
  }
}

/* The rank's input entry (inputs and ranks are in the same order). */
static const jdc_node *input_of(const tr *t, size_t i) { return jdc_at(t->d, get(t, t->rep, "inputs"), i); }

/* "0-3, 5, 7" */
static void rank_list(const tr *t, const jdc_node *arr, char *b, size_t n) {
  size_t k = 0;
  b[0] = 0;
  int64_t run0 = FSDPA_ABSENT, prev = FSDPA_ABSENT;
  for (const jdc_node *x = jdc_first(t->d, arr);; x = jdc_next(t->d, x)) {
    int64_t r = x ? jdc_i64(x, FSDPA_ABSENT) : FSDPA_ABSENT;
    if (x && prev != FSDPA_ABSENT && r == prev + 1) {
      prev = r;
      continue;
    }
    if (prev != FSDPA_ABSENT && k < n) {
      if (run0 == prev) k += (size_t)snprintf(b + k, n - k, "%s%lld", k ? ", " : "", (long long)run0);
      else k += (size_t)snprintf(b + k, n - k, "%s%lld-%lld", k ? ", " : "", (long long)run0, (long long)prev);
    }
    if (!x) break;
    run0 = prev = r;
  }
}

/* ---- a rank's summary ---- */

static const char *iterations_found_by(const char *source) {
  static const char *const map[][2] = {
      {"ProfilerStep", "ProfilerStep#N ranges"},         {"engine_step", "engine step annotations"},
      {"optimizer_step", "Optimizer.step# annotations"}, {"benchmark_annotation", "benchmark run annotations"},
      {"dataloader", "DataLoader __next__ calls"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(source, map[i][0])) return map[i][1];
  return source;
}

static void iterations_line(tr *t, const jdc_node *r) {
  char items[2][160], t1[32];
  int n = 0;
  const jdc_node *it = get(t, r, "iterations");
  int64_t count = i64(t, it, "count");
  const char *source = str(t, it, "source", "none");
  if (count <= 0) {
    snprintf(items[n++], sizeof items[0], "none found: no ProfilerStep or per-iteration annotation; the whole "
                                          "trace is judged");
  } else {
    snprintf(items[n++], sizeof items[0], "%lld from %s", (long long)count, iterations_found_by(source));
    const jdc_node *wu = get(t, r, "launch_gaps.warmup");
    int64_t wi = i64(t, wu, "warmup_iterations");
    if (jdc_count(get(t, r, "streams")) && wi > 0) {
      dur(t1, sizeof t1, i64(t, wu, "warmup_gpu_idle_ns"));
      snprintf(items[n++], sizeof items[0], "the first is warm-up, not judged: %s GPU idle", t1);
    } else if (count >= 2) {
      snprintf(items[n++], sizeof items[0], "the first is warm-up, not judged");
    } else {
      snprintf(items[n++], sizeof items[0], "one iteration: no warm-up cut");
    }
  }
  label_items(t, "iterations", items, n, "; ");
}

/* "host_not_launched" -> "host not launched" */
static void cause_words(const char *key, char *b, size_t n) {
  size_t k = strlen(key);
  if (k > 3 && !strcmp(key + k - 3, "_ns")) k -= 3;
  if (k >= n) k = n - 1;
  for (size_t i = 0; i < k; i++) b[i] = key[i] == '_' ? ' ' : key[i];
  b[k] = 0;
}

typedef struct cause_v {
  char name[48];
  int64_t ns;
} cause_v;

/* The causes of an idle_causes object with idle, largest first (ties in
 * the object's order). */
static int causes_of(const tr *t, const jdc_node *ic, cause_v *out, int cap) {
  int n = 0;
  for (const jdc_node *x = jdc_first(t->d, ic); x && n < cap; x = jdc_next(t->d, x)) {
    size_t kl = x->key_len;
    if (kl < 4 || strcmp(x->key + kl - 3, "_ns") || !strcmp(x->key, "idle_ns")) continue;
    int64_t v = jdc_i64(x, 0);
    if (v <= 0) continue;
    int j = n++;
    while (j && out[j - 1].ns < v) {
      out[j] = out[j - 1];
      j--;
    }
    cause_words(x->key, out[j].name, sizeof out[j].name);
    out[j].ns = v;
  }
  return n;
}

static void idle_causes_line(tr *t, const jdc_node *ic) {
  int64_t idle = i64(t, ic, "idle_ns");
  if (idle <= 0) {
    label_text(t, "idle causes", "none: the GPU is never idle");
    return;
  }
  cause_v c[16];
  int n = causes_of(t, ic, c, 16);
  char items[16][160], t1[32];
  for (int j = 0; j < n; j++) {
    dur(t1, sizeof t1, c[j].ns);
    snprintf(items[j], sizeof items[0], "%.47s %.31s (%.1f%%)", c[j].name, t1, 100.0 * (double)c[j].ns / (double)idle);
  }
  label_items(t, "idle causes", items, n, ", ");
}

static int family_is_ccl(const char *family) {
  for (int f = 0; f < CF__COUNT; f++)
    if (comm_family_is_ccl(f) && comm_family_name(f) && !strcmp(comm_family_name(f), family)) return 1;
  return 0;
}

/* Which communication was found and by which rule, when it is more than
 * NCCL and its forks by name (the usual case, which needs no line). */
static void comm_line(tr *t, const jdc_node *r) {
  const jdc_node *cf = get(t, r, "comm_families");
  int other = 0;
  for (const jdc_node *x = jdc_first(t->d, cf); x; x = jdc_next(t->d, x))
    other |= !(!strcmp(str(t, x, "rule", ""), "name") && family_is_ccl(str(t, x, "family", "")));
  if (!other) return;
  char items[64][160];
  int n = 0;
  for (const jdc_node *x = jdc_first(t->d, cf); x && n < 64; x = jdc_next(t->d, x))
    snprintf(items[n++], sizeof items[0], "%s by %s (%lld)", str(t, x, "family", ""), str(t, x, "rule", ""),
             (long long)i64(t, x, "kernels"));
  label_items(t, "comm found", items, n, "; ");
}

/* the primary device's allocated level as a 60-cell sparkline from its
 * timeline (two buckets a cell), linear between its lowest and highest */
static void memory_line(tr *t, const jdc_node *al) {
  int64_t pd = i64(t, al, "primary_device");
  const jdc_node *tl = NULL;
  for (const jdc_node *x = jdc_first(t->d, get(t, al, "devices")); x; x = jdc_next(t->d, x))
    if (jdc_is_true(get(t, x, "primary")) || (pd != FSDPA_ABSENT && i64(t, x, "device") == pd && !tl))
      tl = get(t, x, "timeline");
  if (!tl) return;
  enum { CELLS = 60 };
  int64_t lo[CELLS], hi[CELLS];
  size_t nb = jdc_count(get(t, tl, "allocated_max"));
  if (!nb) return;
  size_t per = (nb + CELLS - 1) / CELLS, cells = (nb + per - 1) / per;
  for (size_t c = 0; c < cells; c++) lo[c] = hi[c] = FSDPA_ABSENT;
  const jdc_node *mn = jdc_first(t->d, get(t, tl, "allocated_min")), *mx = jdc_first(t->d, get(t, tl, "allocated_max"));
  for (size_t i = 0; i < nb && mx; i++, mx = jdc_next(t->d, mx), mn = jdc_next(t->d, mn)) {
    size_t c = i / per;
    int64_t a = jdc_i64(mx, FSDPA_ABSENT), m = jdc_i64(mn, FSDPA_ABSENT);
    if (a != FSDPA_ABSENT && (hi[c] == FSDPA_ABSENT || a > hi[c])) hi[c] = a;
    if (m != FSDPA_ABSENT && (lo[c] == FSDPA_ABSENT || m < lo[c])) lo[c] = m;
  }
  int64_t max = 0, min = INT64_MAX;
  for (size_t c = 0; c < cells; c++) {
    if (hi[c] != FSDPA_ABSENT && hi[c] > max) max = hi[c];
    if (lo[c] != FSDPA_ABSENT && lo[c] < min) min = lo[c];
  }
  if (max <= 0 || min == INT64_MAX) return;
  char spark[CELLS * 4 + 8], a[32], z[32];
  size_t k = 0;
  for (size_t c = 0; c < cells; c++) {
    int lv = 0;
    if (hi[c] != FSDPA_ABSENT) lv = max > min ? 1 + (int)(7.0 * (double)(hi[c] - min) / (double)(max - min) + 0.5) : 4;
    k += (size_t)snprintf(spark + k, sizeof spark - k, "%s", SPARK[lv > 8 ? 8 : lv]);
  }
  fmt_bytes(a, sizeof a, min);
  fmt_bytes(z, sizeof z, max);
  label_text(t, "", "%s %s .. %s", spark, a, z);
}

static void allocator_line(tr *t, const jdc_node *al) {
  char t1[32], t2[32], what[64];
  uint64_t steady = (uint64_t)(i64(t, al, "steady_state_malloc_calls") > 0 ? i64(t, al, "steady_state_malloc_calls") : 0) +
                    (uint64_t)(i64(t, al, "steady_state_free_calls") > 0 ? i64(t, al, "steady_state_free_calls") : 0);
  int64_t delta = i64(t, al, "peak_allocated_delta_bytes"), peak = i64(t, al, "peak_allocated_bytes"),
          res = i64(t, al, "peak_reserved_bytes");
  if (i64(t, al, "primary_device") == FSDPA_ABSENT) {
    snprintf(what, sizeof what, "no device memory events");
  } else if (delta != FSDPA_ABSENT) {
    fmt_bytes(t1, sizeof t1, delta);
    snprintf(what, sizeof what, "peak growth %s", t1);
  } else {
    fmt_bytes(t1, sizeof t1, peak);
    snprintf(what, sizeof what, "peak %s allocated", t1);
  }
  fmt_bytes(t2, sizeof t2, res);
  label_text(t, "allocator", "%s%s%s%s; malloc/free %lld/%lld, %s%llu%s after warm-up", what,
             res != FSDPA_ABSENT ? ", " : "", res != FSDPA_ABSENT ? t2 : "", res != FSDPA_ABSENT ? " reserved" : "",
             (long long)i64(t, al, "malloc_calls"), (long long)i64(t, al, "free_calls"),
             col(t, steady ? C_YEL : ""), (unsigned long long)steady, col(t, steady ? C_OFF : ""));
  memory_line(t, al);
}

/* step time over ProfilerSteps, else over the iterations found otherwise */
static void step_time_line(tr *t, const jdc_node *r) {
  const jdc_node *steps = get(t, r, "steps"), *it = get(t, r, "iterations");
  const jdc_node *ranges = jdc_count(steps) ? steps : get(t, it, "ranges");
  size_t n = 0;
  int64_t tot = 0, lo = INT64_MAX, hi = 0;
  for (const jdc_node *x = jdc_first(t->d, ranges); x; x = jdc_next(t->d, x)) {
    int64_t d = i64(t, x, "dur_ns");
    if (d == FSDPA_ABSENT) continue;
    n++;
    tot += d;
    if (d < lo) lo = d;
    if (d > hi) hi = d;
  }
  if (!n) {
    label_text(t, "step time", "n/a: no ProfilerStep ranges or iterations in the trace");
    return;
  }
  char t1[32], t2[32], t3[32];
  dur(t1, sizeof t1, tot / (int64_t)n);
  dur(t2, sizeof t2, lo);
  dur(t3, sizeof t3, hi);
  if (jdc_count(steps))
    label_text(t, "step time", "%s mean over %zu ProfilerSteps (CPU), %s .. %s", t1, n, t2, t3);
  else
    label_text(t, "step time", "%s mean over %zu %s (%s), %s .. %s", t1, n, plural(n, "iteration", "iterations"),
               iterations_found_by(str(t, it, "source", "")), t2, t3);
}

static void streams_table(tr *t, const jdc_node *r) {
  const jdc_node *streams = get(t, r, "streams"), *gaps = get(t, r, "launch_gaps.streams");
  size_t ns = jdc_count(streams);
  if (!ns) return;
  /* the gap histogram's sparkline where the line has room for it */
  int spark_ok = t->width >= 92;
  line(t, 3, "   %s%-22s %-8s %8s %10s %7s  %-20s%s", col(t, C_DIM), "stream", "role", "kernels", "busy", "gaps",
       spark_ok ? " 1us      1ms      1s" : "p50 gap", col(t, C_OFF));
  size_t k = 0;
  for (const jdc_node *x = jdc_first(t->d, streams); x && k < 16; x = jdc_next(t->d, x), k++) {
    int64_t dev = i64(t, x, "device"), sid = i64(t, x, "stream");
    const jdc_node *g = NULL;
    for (const jdc_node *y = jdc_first(t->d, gaps); y && !g; y = jdc_next(t->d, y))
      if (i64(t, y, "device") == dev && i64(t, y, "stream") == sid) g = y;
    char name[48], t1[32], t2[32], spark[128];
    snprintf(name, sizeof name, "dev %lld stream %lld", (long long)dev, (long long)sid);
    dur(t1, sizeof t1, i64(t, x, "busy_ns"));
    int pad = 10 + (strstr(t1, "\u00b5") != NULL);  /* "µ" is two bytes, one column */
    int64_t ng = g ? i64(t, g, "gaps") : 0;
    spark_log(spark, sizeof spark, t, g ? get(t, g, "histogram.counts") : NULL);
    dur(t2, sizeof t2, g ? i64(t, g, "p50_ns") : FSDPA_ABSENT);
    const char *role = str(t, x, "role", "mixed");
    line(t, 5, "   %-22.22s %-8s %8lld %*s %7lld  %s%sp50 %s", name, !strcmp(role, "communication") ? "comm" : role,
         (long long)i64(t, x, "kernels"), pad, t1, (long long)(ng > 0 ? ng : 0), spark_ok ? spark : "",
         spark_ok ? " " : "", ng > 0 ? t2 : "n/a");
  }
  if (ns > 16) line(t, 3, "   ... %zu more streams", ns - 16);
}

/* What the busy time went to: MFU and the modelled share
 * (ranks[].efficiency), then the first ten rows of the kernel table
 * (ranks[].kernels, largest total first). */
static void busy_lines(tr *t, const jdc_node *r) {
  const jdc_node *ef = get(t, r, "efficiency");
  int64_t kernel_ns = i64(t, ef, "kernel_ns");
  if (kernel_ns == FSDPA_ABSENT || kernel_ns <= 0) return;
  const char *model = str(t, ef, "device.model", "");
  char t1[32], t2[32], t3[32], items[2][160];
  int n = 0;
  dur(t1, sizeof t1, kernel_ns);
  double mfu = jdc_f64(get(t, ef, "mfu"), -1), ms = jdc_f64(get(t, ef, "modelled_share"), -1);
  int64_t modelled = i64(t, ef, "modelled_ns");
  if (mfu >= 0) snprintf(items[n++], sizeof items[0], "MFU %.1f%% on %s (lower bound)", 100.0 * mfu, model);
  else if (modelled != FSDPA_ABSENT && modelled > 0)
    snprintf(items[n++], sizeof items[0], "MFU n/a (%s)", model[0] ? "no peak for its dtypes" : "device unknown");
  snprintf(items[n++], sizeof items[0], "modelled GEMM/attention/conv %.0f%% of %s kernel time",
           ms < 0 ? 0.0 : 100.0 * ms, t1);
  label_items(t, "busy time", items, n, "; ");
  /* the table's numbers take 50 columns and a name wants 16: narrower
   * text leaves the table to the JSON (ranks[].kernels, --table) */
  int namew = t->width - 3 - 47;
  if (namew < 16) return;
  sb_printf(t->b, "   %s%-*s %-7s %7s %10s %10s %6s%s\n", col(t, C_DIM), namew, "top kernels", "class", "count",
            "total", "mean", "share", col(t, C_OFF));
  const jdc_node *ks = get(t, r, "kernels");
  int rows = 0;
  for (const jdc_node *x = jdc_first(t->d, ks); x && rows < 10; x = jdc_next(t->d, x), rows++) {
    const char *name = str(t, x, "short_name", "?"), *cls = str(t, x, "class", "");
    if (!strcmp(cls, "communication")) cls = "comm";
    dur(t2, sizeof t2, i64(t, x, "total_ns"));
    dur(t3, sizeof t3, i64(t, x, "mean_ns"));
    double share = jdc_f64(get(t, x, "share"), -1);
    /* names are cut to the column (by characters: a UTF-8 "…" is one) */
    size_t len = strlen(name), nb = 0;
    int nc = 0;
    for (size_t i = 0; i < len;) {
      nc += char_cols(name, len, &i);
      if (nc <= namew - 1) nb = i;
    }
    if (nc <= namew) nb = len;
    sb_putn(t->b, "   ", 3);
    sb_putn(t->b, name, nb);
    if (nc > namew) sb_puts(t->b, "\u2026");
    for (int q = nc > namew ? namew : nc; q < namew; q++) sb_putn(t->b, " ", 1);
    sb_printf(t->b, " %-7s %7llu %*s %*s %5.1f%%\n", cls, (unsigned long long)i64(t, x, "count"),
              10 + (strstr(t2, "\u00b5") != NULL), t2, 10 + (strstr(t3, "\u00b5") != NULL), t3,
              share < 0 ? 0.0 : 100.0 * share);
  }
}

static void rank_summary(tr *t, const jdc_node *r, size_t i) {
  char t1[32], t2[32], t3[32], t4[32];
  const jdc_node *in = input_of(t, i);
  line(t, 3, "%s== rank %lld: %s%s", col(t, C_BOLD), (long long)i64(t, r, "rank"), str(t, in, "path", "<input>"),
       col(t, C_OFF));
  const jdc_node *streams = get(t, r, "streams");
  size_t nstreams = jdc_count(streams), ndev = 0;
  uint64_t kernels = 0;
  int64_t prev = FSDPA_ABSENT;
  for (const jdc_node *x = jdc_first(t->d, streams); x; x = jdc_next(t->d, x)) {
    int64_t dv = i64(t, x, "device");
    if (!ndev || dv != prev) ndev++;
    prev = dv;
    int64_t k = i64(t, x, "kernels");
    if (k > 0) kernels += (uint64_t)k;
  }
  uint64_t events = (uint64_t)(i64(t, in, "events") > 0 ? i64(t, in, "events") : 0);
  size_t nsteps = jdc_count(get(t, r, "steps"));
  const char *ver = str(t, r, "fsdp.version", NULL);
  line(t, 3, "   %llu %s, %llu %s, %zu %s, %zu GPU %s on %zu %s%s", (unsigned long long)events,
       plural(events, "event", "events"), (unsigned long long)kernels, plural(kernels, "kernel", "kernels"), nsteps,
       plural(nsteps, "step", "steps"), nstreams, plural(nstreams, "stream", "streams"), ndev,
       plural(ndev, "device", "devices"), !ver ? "" : !strcmp(ver, "fsdp2") ? ", FSDP2" : ", FSDP1");
  const jdc_node *od = get(t, r, "other_devices");
  for (const jdc_node *x = jdc_first(t->d, od); x; x = jdc_next(t->d, x)) {
    int64_t ev = i64(t, x, "events"), rt = i64(t, x, "runtime_events"), sn = i64(t, x, "streams");
    int64_t busy = i64(t, x, "busy_ns");
    dur(t1, sizeof t1, busy == FSDPA_ABSENT ? 0 : busy);
    line(t, 5, "   %s: present, not analyzed: %lld device %s, %lld %s, busy %s, %lld runtime %s",
         str(t, x, "device_type", "?"), (long long)ev, plural((uint64_t)ev, "event", "events"), (long long)sn,
         plural((uint64_t)sn, "stream", "streams"), t1, (long long)rt, plural((uint64_t)rt, "call", "calls"));
  }
  /* workload */
  char wl[512] = "";
  size_t k = 0;
  int known = 0;
  for (const jdc_node *x = jdc_first(t->d, get(t, r, "workload.parallelism")); x; x = jdc_next(t->d, x)) {
    if (jdc_str_is(x, "unknown")) continue;
    k += (size_t)snprintf(wl + k, sizeof wl - k, "%s%s", known ? " + " : "", jdc_str(x, ""));
    known = 1;
    if (k >= sizeof wl) k = sizeof wl - 1;
  }
  label_text(t, "workload", "%s%s, mode %s", wl, known ? "" : "parallelism unknown", str(t, r, "workload.mode", "unknown"));
  iterations_line(t, r);
  step_time_line(t, r);
  const jdc_node *lg = get(t, r, "launch_gaps");
  int64_t span = i64(t, lg, "span_ns");
  if (span != FSDPA_ABSENT) {
    double density = jdc_f64(get(t, lg, "density"), 0);
    const char *dc = density < 0.5 ? C_RED : density < 0.8 ? C_YEL : C_GRN;
    char bar[256];
    ubar(bar, sizeof bar, density, 30);
    dur(t1, sizeof t1, i64(t, lg, "busy_ns"));
    dur(t2, sizeof t2, span);
    label_text(t, "GPU density", "%s %s%5.1f%%%s busy %s of %s", bar, col(t, dc), density * 100.0, col(t, C_OFF), t1, t2);
    dur(t1, sizeof t1, i64(t, lg, "gpu_idle_ns"));
    dur(t2, sizeof t2, i64(t, lg, "gpu_host_wait_ns"));
    dur(t3, sizeof t3, i64(t, lg, "gpu_kernel_wait_ns"));
    dur(t4, sizeof t4, i64(t, lg, "gpu_other_ns"));
    label_text(t, "GPU idle", "%s: waiting for the host %s, short gaps %s, other %s", t1, t2, t3, t4);
    if (nstreams) idle_causes_line(t, get(t, lg, "idle_causes"));
  } else {
    label_text(t, "GPU density", "%s",
               jdc_count(od) ? "n/a: no CUDA/ROCm GPU activity; the other devices above are present, not analyzed"
                            : "n/a: no GPU activity in this trace");
  }
  const jdc_node *ov = get(t, r, "overlap");
  int64_t comm = i64(t, ov, "comm_ns");
  if (comm != FSDPA_ABSENT) {
    int64_t ex = i64(t, ov, "exposed_comm_ns");
    double pct = jdc_f64(get(t, ov, "overlap_pct"), 0);
    double sh = span > 0 ? (double)ex / (double)span : 0;
    dur(t1, sizeof t1, ex);
    dur(t2, sizeof t2, comm);
    label_text(t, "exposed comm", "%s%s%s (%.1f%% of the span); %.1f%% of %s communication hidden by compute",
               col(t, sh > 0.1 ? C_RED : sh > 0.03 ? C_YEL : C_GRN), t1, col(t, C_OFF), sh * 100.0, pct < 0 ? 0.0 : pct,
               t2);
  } else {
    label_text(t, "exposed comm", "n/a: no communication kernels in this trace");
  }
  comm_line(t, r);
  const jdc_node *bw = get(t, r, "fsdp.backward");
  const char *pat = str(t, bw, "pattern", "unknown");
  if (!strcmp(pat, "unknown")) {
    label_text(t, "backward", "%s", ver ? "unknown: fewer than two FSDP units in backward"
                                        : "n/a: no FSDP annotations in this trace");
  } else {
    dur(t1, sizeof t1, i64(t, bw, "idle_ns"));
    label_text(t, "backward", "%s%s%s: %lld of %lld units prefetched; %lld of %lld links broken, idle %s",
               col(t, !strcmp(pat, "zigzag") ? C_GRN : C_RED), pat, col(t, C_OFF),
               (long long)i64(t, bw, "prefetched_units"), (long long)i64(t, bw, "units"),
               (long long)i64(t, bw, "broken_links"), (long long)i64(t, bw, "links"), t1);
  }
  allocator_line(t, get(t, r, "allocator"));
  const jdc_node *sw = get(t, r, "sync_waits");
  if (jdc_count(sw)) {
    int64_t tot = 0;
    for (const jdc_node *x = jdc_first(t->d, sw); x; x = jdc_next(t->d, x)) tot += i64(t, x, "total_ns");
    const jdc_node *top = jdc_first(t->d, sw);
    int64_t cnt = i64(t, top, "count");
    dur(t1, sizeof t1, tot);
    dur(t2, sizeof t2, i64(t, top, "total_ns"));
    label_text(t, "CPU blocked", "%s in blocking calls; top %.40s: %lld %s, %s", t1, str(t, top, "api", "?"),
               (long long)cnt, plural((uint64_t)cnt, "call", "calls"), t2);
  } else {
    label_text(t, "CPU blocked", "never: no blocking CUDA calls");
  }
  busy_lines(t, r);
  streams_table(t, r);
  sb_puts(t->b, "\n");
}

/* ---- the job ---- */

/* The label of a cause key for the table: "host not launched" */
static void job_table(tr *t, const jdc_node *job) {
  const jdc_node *pr = get(t, job, "per_rank");
  line(t, 3, "   %s%6s %10s %6s %10s %13s  %s%s", col(t, C_DIM), "rank", "step time", "busy", "GPU idle",
       "exposed comm", "top finding", col(t, C_OFF));
  for (const jdc_node *x = jdc_first(t->d, pr); x; x = jdc_next(t->d, x)) {
    char st[32], idle[32], ex[32], busy[16] = "n/a", top[160] = "none";
    dur(st, sizeof st, i64(t, x, "step_time_ns"));
    dur(idle, sizeof idle, i64(t, x, "idle_ns"));
    int64_t e = i64(t, x, "exposed_comm_ns");
    if (e == FSDPA_ABSENT) snprintf(ex, sizeof ex, "n/a");
    else dur(ex, sizeof ex, e);
    double bs = jdc_f64(get(t, x, "busy_share"), -1);
    if (bs >= 0) snprintf(busy, sizeof busy, "%.1f%%", bs * 100.0);
    const jdc_node *tf = get(t, x, "top_finding");
    if (!jdc_is_null(tf)) {
      char c[32];
      dur(c, sizeof c, i64(t, tf, "cost_ns"));
      snprintf(top, sizeof top, "%s (%s)", str(t, tf, "id", "?"), c);
      glue(top);
    }
    /* padded by columns: "µ" is two bytes */
    int p1 = 10 + (strstr(st, "\u00b5") != NULL), p2 = 10 + (strstr(idle, "\u00b5") != NULL),
        p3 = 13 + (strstr(ex, "\u00b5") != NULL);
    glue(st);
    glue(idle);
    glue(ex);
    line(t, 48, "   %6lld %*s %6s %*s %*s  %s", (long long)i64(t, x, "rank"), p1, st, busy, p2, idle, p3, ex, top);
    /* its idle by cause, largest first */
    int64_t tot = i64(t, x, "idle_ns");
    cause_v c[16];
    int nc = tot > 0 ? causes_of(t, get(t, x, "idle_causes"), c, 16) : 0;
    if (nc) {
      char buf[2048];
      int k = snprintf(buf, sizeof buf, "          %sidle:%s", col(t, C_DIM), col(t, C_OFF));
      for (int j = 0; j < nc && k < (int)sizeof buf; j++) {
        char item[96];
        snprintf(item, sizeof item, "%.47s %.0f%%", c[j].name, 100.0 * (double)c[j].ns / (double)tot);
        glue(item);
        k += snprintf(buf + k, sizeof buf - (size_t)k, "%s %s", j ? "," : "", item);
      }
      emit(t, t->width, 16, buf);
    }
  }
}

/* What the ranks share, for the job's heading: the workload of the first
 * rank and whether all say the same. */
static void job_heading(tr *t, const jdc_node *job) {
  const jdc_node *ranks = get(t, t->rep, "ranks");
  size_t n = jdc_count(ranks);
  int64_t ws = FSDPA_ABSENT;
  int same_ws = 1;
  for (const jdc_node *x = jdc_first(t->d, get(t, t->rep, "inputs")); x; x = jdc_next(t->d, x)) {
    int64_t w = i64(t, x, "world_size");
    if (w == FSDPA_ABSENT) continue;
    if (ws == FSDPA_ABSENT) ws = w;
    else if (w != ws) same_ws = 0;
  }
  char wsb[64] = "";
  if (ws != FSDPA_ABSENT && same_ws) snprintf(wsb, sizeof wsb, " of world size %lld", (long long)ws);
  else if (!same_ws) snprintf(wsb, sizeof wsb, " (different world sizes: not one job?)");
  line(t, 3, "%s== job: %zu ranks%s%s", col(t, C_BOLD), n, wsb, col(t, C_OFF));
  const jdc_node *r0 = jdc_first(t->d, ranks);
  char wl[512] = "";
  size_t k = 0;
  for (const jdc_node *x = jdc_first(t->d, get(t, r0, "workload.parallelism")); x; x = jdc_next(t->d, x)) {
    k += (size_t)snprintf(wl + k, sizeof wl - k, "%s%s", k ? " + " : "", jdc_str(x, ""));
    if (k >= sizeof wl) k = sizeof wl - 1;
  }
  const jdc_node *it = get(t, r0, "iterations");
  line(t, 3, "   workload %s, mode %s (rank %lld); iterations from %s", wl[0] ? wl : "unknown",
       str(t, r0, "workload.mode", "unknown"), (long long)i64(t, r0, "rank"),
       i64(t, it, "count") > 0 ? iterations_found_by(str(t, it, "source", "")) : "none found (whole trace judged)");
  job_table(t, job);
  sb_puts(t->b, "\n");
}

/* ---- findings ---- */

static const char *sev_word(const char *s) {
  return !strcmp(s, "critical") ? "CRITICAL" : !strcmp(s, "warning") ? "WARNING" : "INFO";
}
static const char *sev_color(const char *s) {
  return !strcmp(s, "critical") ? C_RED : !strcmp(s, "warning") ? C_YEL : C_DIM;
}

/* Where a rank's trace starts on its clock: ranges are printed from it. */
static int64_t rank_origin(const tr *t, int64_t rank) {
  for (const jdc_node *x = jdc_first(t->d, get(t, t->rep, "ranks")); x; x = jdc_next(t->d, x))
    if (i64(t, x, "rank") == rank) return i64(t, x, "origin_ns");
  return FSDPA_ABSENT;
}

static void cost_text(const tr *t, const jdc_node *f, char *b, size_t n) {
  int64_t cb = i64(t, f, "cost_bytes"), cn = i64(t, f, "cost_ns");
  if (cb != FSDPA_ABSENT && !cn) {
    char x[32];
    fmt_bytes(x, sizeof x, cb);
    snprintf(b, n, "%s of reserved memory", x);
  } else {
    dur(b, n, cn);
  }
}

static void write_ranges(tr *t, const jdc_node *f, int ind) {
  const jdc_node *rs = get(t, f, "evidence.ranges");
  size_t nr = jdc_count(rs);
  if (!nr) return;
  int64_t rank = i64(t, f, "rank"), o = rank_origin(t, rank), total = i64(t, f, "evidence.ranges_total");
  char more[64] = "";
  if (total != FSDPA_ABSENT && total > (int64_t)nr) snprintf(more, sizeof more, " (%zu of %lld)", nr, (long long)total);
  line(t, ind + 2, "%*s%s%s%s%s", ind, "", col(t, C_BOLD), nr == 1 ? "range:" : "ranges (worst first):", more,
       col(t, C_OFF));
  int k = 1;
  for (const jdc_node *x = jdc_first(t->d, rs); x; x = jdc_next(t->d, x), k++) {
    int64_t s = i64(t, x, "start_ns"), e = i64(t, x, "end_ns");
    char at[32], len[32];
    dur(len, sizeof len, e - s);
    if (o != FSDPA_ABSENT && s >= o) {
      dur(at, sizeof at, s - o);
      line(t, ind + 5, "%*s%d. at +%s, for %s", ind + 2, "", k, at, len);
    } else {
      line(t, ind + 5, "%*s%d. at %lld ns, for %s", ind + 2, "", k, (long long)s, len);
    }
  }
  if (o != FSDPA_ABSENT) line(t, ind + 2, "%*s(times from the start of rank %lld's trace)", ind + 2, "", (long long)rank);
}

/* A finding's title, detail, advice and ranges at indent `ind`. */
static void finding_body(tr *t, const jdc_node *f, int ind) {
  prose(t, ind, str(t, f, "title", ""));
  prose(t, ind, str(t, f, "detail", ""));
  line(t, ind, "%*s%sadvice:%s", ind, "", col(t, C_BOLD), col(t, C_OFF));
  prose(t, ind + 2, str(t, f, "advice", ""));
  write_ranges(t, f, ind);
}

static void group_block(tr *t, const jdc_node *g, const char *num, int ind, size_t nranks) {
  const jdc_node *all = get(t, t->rep, "findings");
  const jdc_node *members = get(t, g, "findings");
  const jdc_node *worst = jdc_at(t->d, all, (size_t)jdc_i64(jdc_first(t->d, members), 0));
  const char *sev = str(t, g, "severity", "info");
  const char *id = str(t, g, "id", "?");
  int64_t affected = i64(t, g, "ranks_affected");
  char head[512], c[64];
  int by_bytes = !jdc_is_null(get(t, g, "cost_bytes")) && i64(t, g, "cost_ns.max") == 0;
  if (affected <= 1 && jdc_count(members) <= 1) {
    cost_text(t, worst, c, sizeof c);
    /* what fixing it saves, where its fix was replayed */
    char save[80] = "";
    int64_t saving = i64(t, worst, "saving_ns");
    if (saving != FSDPA_ABSENT) {
      char t2[32];
      dur(t2, sizeof t2, saving);
      snprintf(save, sizeof save, ", fixing it saves %s (%.1f%%)", t2,
               100.0 * jdc_f64(get(t, worst, "saving_share"), 0));
    }
    int64_t step = i64(t, worst, "step");
    if (step != FSDPA_ABSENT)
      snprintf(head, sizeof head, "%s [%s] rank %lld step %lld, costs %s%s", sev_word(sev), id,
               (long long)i64(t, worst, "rank"), (long long)step, c, save);
    else
      snprintf(head, sizeof head, "%s [%s] rank %lld, costs %s%s", sev_word(sev), id,
               (long long)i64(t, worst, "rank"), c, save);
  } else {
    char lo[32], med[32], hi[32];
    const char *k = by_bytes ? "cost_bytes" : "cost_ns";
    const jdc_node *cs = get(t, g, k);
    if (by_bytes) {
      fmt_bytes(lo, sizeof lo, i64(t, cs, "min"));
      fmt_bytes(med, sizeof med, i64(t, cs, "median"));
      fmt_bytes(hi, sizeof hi, i64(t, cs, "max"));
    } else {
      dur(lo, sizeof lo, i64(t, cs, "min"));
      dur(med, sizeof med, i64(t, cs, "median"));
      dur(hi, sizeof hi, i64(t, cs, "max"));
    }
    snprintf(head, sizeof head, "%s [%s] on %lld of %zu ranks, costs %s%s per rank (min %s, max %s); worst rank %lld",
             sev_word(sev), id, (long long)affected, nranks, med, by_bytes ? " of reserved memory" : "", lo, hi,
             (long long)i64(t, g, "worst_rank"));
  }
  line(t, ind + 4, "%*s%s%s. %s%s", ind, "", col(t, sev_color(sev)), num, head, col(t, C_OFF));
  int body = ind + (int)strlen(num) + 2;
  const char *cause = str(t, g, "explained_by", NULL);
  if (cause)
    line(t, body, "%*s%s(a symptom of %s above: its cost is part of that cost, not added to it)%s", body, "",
         col(t, C_DIM), cause, col(t, C_OFF));
  finding_body(t, worst, body);
  if (jdc_count(members) > 1) {
    /* the other findings of the group, one indent below: where and what they cost */
    char buf[8192];
    int k = snprintf(buf, sizeof buf, "%*s%sother ranks:%s", body, "", col(t, C_BOLD), col(t, C_OFF));
    int same_rank = 1;
    for (const jdc_node *m = jdc_first(t->d, members); m; m = jdc_next(t->d, m))
      same_rank &= i64(t, jdc_at(t->d, all, (size_t)jdc_i64(m, 0)), "rank") == i64(t, worst, "rank");
    if (same_rank) k = snprintf(buf, sizeof buf, "%*s%salso:%s", body, "", col(t, C_BOLD), col(t, C_OFF));
    int first = 1;
    for (const jdc_node *m = jdc_next(t->d, jdc_first(t->d, members)); m && k < (int)sizeof buf; m = jdc_next(t->d, m)) {
      const jdc_node *f = jdc_at(t->d, all, (size_t)jdc_i64(m, 0));
      char cc[64], item[160];
      cost_text(t, f, cc, sizeof cc);
      if (i64(t, f, "step") != FSDPA_ABSENT)
        snprintf(item, sizeof item, "rank %lld step %lld %s", (long long)i64(t, f, "rank"), (long long)i64(t, f, "step"),
                 cc);
      else
        snprintf(item, sizeof item, "rank %lld %s", (long long)i64(t, f, "rank"), cc);
      glue(item);
      k += snprintf(buf + k, sizeof buf - (size_t)k, "%s %s", first ? "" : ",", item);
      first = 0;
    }
    emit(t, t->prose, body + 2, buf);
  }
}

/* The heading's warning when the costs of one report overlap. */
static void overlap_note(tr *t, const jdc_node *job) {
  char ranks[512] = "";
  size_t k = 0, over = 0;
  int symptoms = 0;
  for (const jdc_node *x = jdc_first(t->d, get(t, job, "per_rank")); x; x = jdc_next(t->d, x)) {
    int64_t span = i64(t, x, "span_ns"), cost = i64(t, x, "findings_cost_ns");
    if (span != FSDPA_ABSENT && cost > span) {
      over++;
      if (k < sizeof ranks) k += (size_t)snprintf(ranks + k, sizeof ranks - k, "%s%lld", k ? ", " : "", (long long)i64(t, x, "rank"));
    }
  }
  for (const jdc_node *g = jdc_first(t->d, get(t, job, "findings")); g; g = jdc_next(t->d, g))
    symptoms |= !jdc_is_null(get(t, g, "explained_by"));
  if (symptoms)
    prose(t, 3, "Costs overlap: a symptom's cost is part of its cause's cost; do not add them up.");
  if (over)
    line(t, 3, "   Costs overlap on %s %s: its findings' costs add up to more than the GPU span of its trace, "
               "because they count the same time more than once.",
         plural(over, "rank", "ranks"), ranks);
}

static void findings_section(tr *t, const jdc_node *job, size_t nranks) {
  const jdc_node *groups = get(t, job, "findings");
  size_t nf = jdc_count(get(t, t->rep, "findings")), nnj = jdc_count(get(t, t->rep, "not_judged"));
  if (!jdc_count(groups)) {
    if (nnj)
      line(t, 0, "No findings among the rules that could judge: nothing they measured crossed a threshold; %zu %s "
                 "could not judge (below).",
           nnj, plural(nnj, "rule", "rules"));
    else
      line(t, 0, "No findings: nothing in these traces crossed a threshold.");
    return;
  }
  size_t nsev[3] = {0, 0, 0};
  for (const jdc_node *g = jdc_first(t->d, groups); g; g = jdc_next(t->d, g)) {
    const char *s = str(t, g, "severity", "info");
    nsev[!strcmp(s, "critical") ? 2 : !strcmp(s, "warning") ? 1 : 0]++;
  }
  char over[96] = "";
  if (nranks > 1) snprintf(over, sizeof over, " (%zu per-rank findings over %zu ranks)", nf, nranks);
  line(t, 2, "%sFindings%s: %zu critical, %zu warning, %zu info%s", col(t, C_BOLD), col(t, C_OFF), nsev[2], nsev[1],
       nsev[0], over);
  prose(t, 3, "Worst first; a cause comes before the symptoms it explains, which are indented under it.");
  overlap_note(t, job);
  int top = 0, sub = 0;
  char num[32];
  for (const jdc_node *g = jdc_first(t->d, groups); g; g = jdc_next(t->d, g)) {
    if (jdc_is_null(get(t, g, "explained_by"))) {
      snprintf(num, sizeof num, "%2d", ++top);
      sub = 0;
      group_block(t, g, num, 0, nranks);
    } else {
      snprintf(num, sizeof num, "%d.%d", top, ++sub);
      group_block(t, g, num, 4, nranks);
    }
  }
}

static void not_judged_section(tr *t) {
  const jdc_node *nj = get(t, t->rep, "not_judged");
  if (!jdc_count(nj)) return;
  sb_puts(t->b, "\n");
  line(t, 2, "%sNot judged%s: these rules could not look at the traces, so their silence says nothing", col(t, C_BOLD),
       col(t, C_OFF));
  size_t nranks = jdc_count(get(t, t->rep, "ranks"));
  /* rules with the same reason, ranks and remedy on one line */
  size_t n = jdc_count(nj);
  char *done = calloc(n ? n : 1, 1);
  if (!done) {
    t->b->failed = FSDPA_ENOMEM;
    return;
  }
  size_t i = 0;
  for (const jdc_node *x = jdc_first(t->d, nj); x; x = jdc_next(t->d, x), i++) {
    if (done[i]) continue;
    char rules[512], ranks[512] = "";
    size_t k = (size_t)snprintf(rules, sizeof rules, "%s", str(t, x, "rule", "?"));
    size_t j = i + 1;
    for (const jdc_node *y = jdc_next(t->d, x); y; y = jdc_next(t->d, y), j++) {
      if (done[j] || strcmp(str(t, y, "reason", ""), str(t, x, "reason", "")) ||
          strcmp(str(t, y, "would_judge", ""), str(t, x, "would_judge", "")))
        continue;
      char ra[512], rb[512];
      rank_list(t, get(t, x, "ranks"), ra, sizeof ra);
      rank_list(t, get(t, y, "ranks"), rb, sizeof rb);
      if (strcmp(ra, rb) || jdc_is_null(get(t, x, "ranks")) != jdc_is_null(get(t, y, "ranks"))) continue;
      done[j] = 1;
      if (k < sizeof rules) k += (size_t)snprintf(rules + k, sizeof rules - k, ", %s", str(t, y, "rule", "?"));
    }
    const jdc_node *rk = get(t, x, "ranks");
    if (!jdc_is_null(rk) && nranks > 1) {
      char rl[480];
      rank_list(t, rk, rl, sizeof rl);
      snprintf(ranks, sizeof ranks, " (%s %s)", plural(jdc_count(rk), "rank", "ranks"),
               jdc_count(rk) == nranks ? "all" : rl);
    }
    char buf[2048];
    snprintf(buf, sizeof buf, "   %s%s%s%s: %s", col(t, C_BOLD), rules, col(t, C_OFF), ranks, str(t, x, "reason", ""));
    emit(t, t->prose, 5, buf);
    snprintf(buf, sizeof buf, "     would judge with: %s", str(t, x, "would_judge", ""));
    emit(t, t->prose, 7, buf);
  }
  free(done);
}

fsdpa_status render_check(const jdoc *d, char *msg, size_t msg_len) {
  const jdc_node *r = jdc_root(d);
  if (!r || r->type != JDC_OBJ) return (snprintf(msg, msg_len, "not a JSON object"), FSDPA_EINVAL);
  const char *schema = jdc_get_str(d, r, "schema", NULL);
  if (!schema || strcmp(schema, "fsdpa.report/1"))
    return (snprintf(msg, msg_len, "not an fsdpa report: schema %s%s%s, not fsdpa.report/1", schema ? "'" : "",
                     schema ? schema : "missing", schema ? "'" : ""),
            FSDPA_EINVAL);
  static const char *const need[] = {"inputs", "ranks", "findings", "not_judged", "job"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (!jdc_get(d, r, need[i]))
      return (snprintf(msg, msg_len,
                       "the report has no \"%s\" section (made by fsdpa %s; this one renders reports of fsdpa %s: "
                       "run fsdpa analyze again)",
                       need[i], jdc_get_str(d, r, "version", "?"), fsdpa_version_string()),
              FSDPA_EINVAL);
  if (jdc_count(jdc_get(d, r, "inputs")) != jdc_count(jdc_get(d, r, "ranks")))
    return (snprintf(msg, msg_len, "the report's inputs and ranks differ in number"), FSDPA_EINVAL);
  return FSDPA_OK;
}

fsdpa_status render_text(const jdoc *d, const fsdpa_report_options *o, sbuf *out, char *msg, size_t msg_len) {
  fsdpa_status st = render_check(d, msg, msg_len);
  if (st) return st;
  tr t;
  memset(&t, 0, sizeof t);
  t.d = d;
  t.rep = jdc_root(d);
  t.b = out;
  t.width = o->width ? o->width : WIDTH_DEFAULT;
  t.prose = t.width < PROSE_MAX ? t.width : PROSE_MAX;
  t.color = o->color;
  const jdc_node *ranks = get(&t, t.rep, "ranks"), *job = get(&t, t.rep, "job");
  size_t n = jdc_count(ranks);
  if (n > 1) job_heading(&t, job);
  else if (n == 1) rank_summary(&t, jdc_first(d, ranks), 0);
  findings_section(&t, job, n);
  not_judged_section(&t);
  if (n > 1) {
    sb_puts(out, "\n");
    size_t i = 0;
    for (const jdc_node *r = jdc_first(d, ranks); r; r = jdc_next(d, r), i++) rank_summary(&t, r, i);
  }
  return out->failed ? (fsdpa_status)out->failed : FSDPA_OK;
}
