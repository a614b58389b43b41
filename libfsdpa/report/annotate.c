/* fsdpa_annotate_*: a copy of a trace with the findings added as events, so
 * Perfetto and chrome://tracing show them next to the evidence.
 *
 * Robustness over cleverness: the input bytes are streamed through
 * unchanged, and nothing here parses JSON.  Where the new events go was
 * found by the input pipeline while the context read the trace: the stream
 * offset of the '[' that opens "traceEvents" (or the top-level array of
 * Chrome's JSON Array Format) and whether that array has an element.  The
 * copy reads the file again through the same decoder (input/inflate.h), so
 * the offsets mean the same bytes; the new events are written right after
 * that '[', then a ',' before the first original element (none if the
 * array is empty).  Everything else, every original event included, is
 * copied byte for byte.  That the file is the one the context read is
 * checked on the way: the same decompressed length, a '[' at the offset. */
#include "report/report.h"
#include "util/sort.h"
#include "input/inflate.h"
#include "input/input.h"
#include "util/outbuf.h"
#include "util/abi.h"
#include "util/error.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* Defaults for a caller of any release: at most the caller's `size` bytes
 * are written (see fsdpa.h, versioned structs). */
void fsdpa_annotate_options_init_sized(fsdpa_annotate_options *o, size_t size) {
  if (!o || size < sizeof(size_t)) return;
  fsdpa_annotate_options d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.gzip = -1;
  d.level = 0;
  memcpy(o, &d, size < sizeof d ? size : sizeof d);
  o->size = size;
}

/* A relative ns time as the trace writes it: µs with 3 decimals (exact). */
static void put_us(jsonw *w, int64_t ns) {
  uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  char t[40];
  int n = snprintf(t, sizeof t, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000),
                   (unsigned long long)(a % 1000));
  jw_raw(w, t, (size_t)n);
}

static const char *sev_name(int s) {
  return s == SEV_CRITICAL ? "critical" : s == SEV_WARNING ? "warning" : "info";
}

static int64_t annot_pid(const fsdpa_ctx *c) {
  int64_t m = 0;
  for (size_t t = 0; t < c->st.tracks.len; t++) {
    const track *tr = store_track(&c->st, (uint32_t)t);
    if (tr->pid > m) m = tr->pid;
  }
  return m == INT64_MAX ? m : m + 1;
}

static void meta(sbuf *b, int *first, const char *name, int64_t pid, int64_t tid, const char *key,
                 const char *sval, int64_t ival) {
  jsonw w;
  sb_puts(b, *first ? "\n" : ",\n");
  *first = 0;
  jw_init(&w, b, 0);
  jw_obj(&w);
  jw_kstr(&w, "ph", "M");
  jw_kstr(&w, "name", name);
  jw_ki64(&w, "pid", pid);
  jw_ki64(&w, "tid", tid);
  jw_key(&w, "args");
  jw_obj(&w);
  if (sval) jw_kstr(&w, key, sval);
  else jw_ki64(&w, key, ival);
  jw_obj_end(&w);
  jw_obj_end(&w);
}

static void event(sbuf *b, int *first, const finding *x, int64_t pid, int64_t tid, int64_t ts,
                  int64_t dur, int r, int nr) {
  jsonw w;
  sb_puts(b, *first ? "\n" : ",\n");
  *first = 0;
  jw_init(&w, b, 0);
  jw_obj(&w);
  jw_kstr(&w, "ph", dur == FSDPA_ABSENT ? "i" : "X");
  if (dur == FSDPA_ABSENT) jw_kstr(&w, "s", "g");
  jw_kstr(&w, "cat", "fsdpa");
  jw_kstr(&w, "name", x ? x->title : "fsdpa: no findings");
  jw_ki64(&w, "pid", pid);
  jw_ki64(&w, "tid", tid);
  jw_key(&w, "ts");
  put_us(&w, ts);
  if (dur != FSDPA_ABSENT) {
    jw_key(&w, "dur");
    put_us(&w, dur);
  }
  jw_key(&w, "args");
  jw_obj(&w);
  if (x) {
    jw_kstr(&w, "id", x->id);
    jw_kstr(&w, "severity", sev_name(x->severity));
    jw_ki64(&w, "rank", x->rank);
    jw_ki64(&w, "step", x->step);
    jw_ki64(&w, "cost_ns", x->cost_ns);
    jw_kstr(&w, "detail", x->detail);
    jw_kstr(&w, "advice", x->advice);
    if (nr) {
      char rb[48];
      snprintf(rb, sizeof rb, "%d of %d", r + 1, nr);
      jw_kstr(&w, "range", rb);
    }
    jw_key(&w, "evidence");
    jw_raw(&w, x->evidence, strlen(x->evidence));
  } else {
    jw_kstr(&w, "detail", "fsdpa found nothing in this trace that crossed a threshold");
  }
  jw_obj_end(&w);
  jw_obj_end(&w);
}

/* Range r of x: its report ranges first, then the rest (worst first). */
static iv range_at(const finding *x, size_t r) {
  return r < (size_t)x->nranges ? x->ranges[r] : x->more[r - (size_t)x->nranges];
}

/* a range's start and its index: sorted by both, a total order */
typedef struct rg_at {
  int64_t s;
  size_t i;
} rg_at;
#define RG_LESS(x, y) ((x)->s != (y)->s ? (x)->s < (y)->s : (x)->i < (y)->i)
FA_SORT_DEFINE(rg_sort, rg_at, RG_LESS)

/* The events for context i, comma-separated, without brackets. */
static fsdpa_status build_events(fsdpa_ctx *const *ctxs, size_t n, size_t i, sbuf *b) {
  fsdpa_ctx *c = ctxs[i];
  fa_alloc *a = &c->alloc;
  int64_t *ranks = fa_malloc(a, n * sizeof *ranks);
  if (!ranks) return ctx_fail(c, fa_fail_status(a), "out of memory (annotate)");
  for (size_t k = 0; k < n; k++)
    ranks[k] = ctxs[k]->info.rank != FSDPA_ABSENT ? ctxs[k]->info.rank : (int64_t)k;
  findings all;
  findings_init(&all, a);
  fsdpa_status st = report_collect(ctxs, ranks, n, NULL, &all);
  if (st) goto out;
  int64_t pid = annot_pid(c), base = ctx_base(c), rank = ranks[i];
  const store_views *v = ctx_views(c);
  if (!v) {
    st = fa_fail_status(a);
    goto out;
  }
  /* where "no findings" and range-less findings are pinned: the trace start */
  int64_t t0 = v->nall ? v->all_busy[0].s : 0;
  if (c->st.steps.len && FA_VEC_AT(&c->st.steps, step_rec, 0).ts < t0)
    t0 = FA_VEC_AT(&c->st.steps, step_rec, 0).ts;
  int first = 1;
  meta(b, &first, "process_name", pid, 0, "name", "fsdpa findings", 0);
  meta(b, &first, "process_sort_index", pid, 0, "sort_index", NULL, -1);
  int64_t tid = 0, any = 0;
  for (size_t k = 0; k < all.n; k++) {
    const finding *x = &all.v[k];
    if (x->rank != rank) continue;
    any++;
    /* every range of the finding, the report's few and the rest */
    size_t nr = (size_t)x->nranges + x->nmore;
    char tname[160];
    if (!nr) {
      tid++;
      snprintf(tname, sizeof tname, "%zu. %s (%s)", k + 1, x->id, sev_name(x->severity));
      meta(b, &first, "thread_name", pid, tid, "name", tname, 0);
      meta(b, &first, "thread_sort_index", pid, tid, "sort_index", NULL, tid);
      event(b, &first, x, pid, tid, t0, FSDPA_ABSENT, 0, 0);
      continue;
    }
    rg_at *ord = fa_malloc(a, nr * sizeof *ord);
    int64_t *lane_end = fa_malloc(a, nr * sizeof *lane_end), *lane_tid = fa_malloc(a, nr * sizeof *lane_tid);
    if (!ord || !lane_end || !lane_tid) {
      fa_free(a, ord, nr * sizeof *ord);
      fa_free(a, lane_end, nr * sizeof *lane_end);
      fa_free(a, lane_tid, nr * sizeof *lane_tid);
      st = ctx_fail(c, fa_fail_status(a), "out of memory (annotate)");
      goto out;
    }
    /* ranges come worst first; in time order, a greedy lane assignment keeps
     * the slices of each thread from overlapping (viewers cannot draw that) */
    for (size_t r = 0; r < nr; r++) ord[r] = (rg_at){range_at(x, r).s, r};
    rg_sort(ord, nr);
    size_t lanes = 0;
    for (size_t q = 0; q < nr; q++) {
      size_t r = ord[q].i;
      iv rg = range_at(x, r);
      int64_t s = rg.s - base, e = rg.e - base;
      if (e < s) e = s;
      size_t l = 0;
      while (l < lanes && s < lane_end[l]) l++;
      if (l == lanes) {
        lane_tid[lanes] = ++tid;
        lane_end[lanes] = INT64_MIN;
        if (lanes)
          snprintf(tname, sizeof tname, "%zu. %s (%s) #%zu", k + 1, x->id, sev_name(x->severity), lanes + 1);
        else
          snprintf(tname, sizeof tname, "%zu. %s (%s)", k + 1, x->id, sev_name(x->severity));
        meta(b, &first, "thread_name", pid, tid, "name", tname, 0);
        meta(b, &first, "thread_sort_index", pid, tid, "sort_index", NULL, tid);
        lanes++;
      }
      lane_end[l] = e;
      event(b, &first, x, pid, lane_tid[l], s, e - s, (int)r, (int)nr);
    }
    fa_free(a, ord, nr * sizeof *ord);
    fa_free(a, lane_end, nr * sizeof *lane_end);
    fa_free(a, lane_tid, nr * sizeof *lane_tid);
  }
  if (!any) {
    meta(b, &first, "thread_name", pid, 1, "name", "no findings", 0);
    event(b, &first, NULL, pid, 1, t0, FSDPA_ABSENT, 0, 0);
  }
  sb_puts(b, "\n");
  st = b->failed ? (fsdpa_status)b->failed : FSDPA_OK;
out:
  findings_free(&all);
  fa_free(a, ranks, n * sizeof *ranks);
  return st;
}

/* The shared argument checks of the two public functions. */
static fsdpa_status check_args(fsdpa_ctx *const *ctxs, size_t n, size_t i, fsdpa_error *err, const char *fn) {
  fsdpa_status st = ctx_check_many(ctxs, n, err, fn);
  if (st) return st;
  if (i >= n) return err_set(err, FSDPA_EINVAL, (int64_t)i, FSDPA_ABSENT, "%s: trace %zu out of range (%zu)", fn, i, n);
  return FSDPA_OK;
}

fsdpa_status fsdpa_annotate_events(fsdpa_ctx *const *ctxs, size_t n, size_t i, char **out, size_t *out_len,
                                   fsdpa_error *err) {
  fsdpa_status st = check_args(ctxs, n, i, err, "fsdpa_annotate_events");
  if (st) return st;
  if (!out) return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_annotate_events: NULL out");
  *out = NULL;
  if (out_len) *out_len = 0;
  fsdpa_ctx *c = ctxs[i];
  sbuf b;
  sb_init(&b, &c->alloc);
  sb_puts(&b, "[");
  st = build_events(ctxs, n, i, &b);
  sb_puts(&b, "]\n");
  if (!st && b.failed) st = (fsdpa_status)b.failed;
  if (!st) {
    *out = outbuf_dup(&c->alloc, b.p, b.len);
    if (!*out) st = fa_fail_status(&c->alloc);
    else if (out_len) *out_len = b.len;
  }
  if (st && !c->err[0]) ctx_fail(c, st, "annotate: %s", fsdpa_status_str(st));
  sb_free(&b);
  return st ? ctx_err_out(err, st, c, (int64_t)i) : FSDPA_OK;
}

/* ---- streaming copy ---- */

#define CHUNK ((size_t)1 << 20)

/* Where the copy is relative to the insertion point. */
enum { C_BEFORE, C_PEEK, C_COPY, C_OTHER };

typedef struct copier {
  fsdpa_ctx *c;
  fa_alloc *a;
  const char *in_path, *out_path;
  FILE *out;
  int gz;
  z_stream zo;       /* deflate (gzip output) */
  int zo_init;
  unsigned char *zbuf;
  const sbuf *events;
  uint64_t at;       /* stream offset of the array's '[' */
  int nonempty;      /* the array has an element: a ',' follows the new events */
  int state;         /* C_*; C_OTHER: the file is not what the context read */
  const char *why;   /* C_OTHER: what differs */
  uint64_t json_bytes;
} copier;

static fsdpa_status sink(copier *k, const void *p, size_t n) {
  if (!n) return FSDPA_OK;
  if (!k->gz) {
    if (fwrite(p, 1, n, k->out) != n)
      return ctx_fail(k->c, FSDPA_EIO, "%s: write error: %s", k->out_path, strerror(errno));
    return FSDPA_OK;
  }
  k->zo.next_in = (Bytef *)(uintptr_t)p;
  k->zo.avail_in = (uInt)n;
  while (k->zo.avail_in) {
    k->zo.next_out = k->zbuf;
    k->zo.avail_out = (uInt)CHUNK;
    if (deflate(&k->zo, Z_NO_FLUSH) == Z_STREAM_ERROR)
      return ctx_fail(k->c, FSDPA_ENOMEM, "%s: deflate failed", k->out_path);
    size_t got = CHUNK - k->zo.avail_out;
    if (got && fwrite(k->zbuf, 1, got, k->out) != got)
      return ctx_fail(k->c, FSDPA_EIO, "%s: write error: %s", k->out_path, strerror(errno));
  }
  return FSDPA_OK;
}

static fsdpa_status sink_finish(copier *k) {
  if (!k->gz) return FSDPA_OK;
  for (;;) {
    k->zo.next_in = NULL;
    k->zo.avail_in = 0;
    k->zo.next_out = k->zbuf;
    k->zo.avail_out = (uInt)CHUNK;
    int zr = deflate(&k->zo, Z_FINISH);
    size_t got = CHUNK - k->zo.avail_out;
    if (got && fwrite(k->zbuf, 1, got, k->out) != got)
      return ctx_fail(k->c, FSDPA_EIO, "%s: write error: %s", k->out_path, strerror(errno));
    if (zr == Z_STREAM_END) return FSDPA_OK;
    if (zr != Z_OK && zr != Z_BUF_ERROR)
      return ctx_fail(k->c, FSDPA_ENOMEM, "%s: deflate failed", k->out_path);
  }
}

static int is_ws(unsigned char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

/* Decoded bytes d[0, n), the next of the JSON stream: copy them, the new
 * events inserted where the context found the array. */
static fsdpa_status take(copier *k, const unsigned char *d, size_t n) {
  size_t from = 0; /* d[from, n) is still to be copied */
  uint64_t pos = k->json_bytes;
  k->json_bytes += n;
  if (k->state == C_OTHER) return FSDPA_OK; /* only counted, for the message */
  if (k->state == C_BEFORE) {
    if (k->json_bytes <= k->at) return sink(k, d, n);
    size_t i = (size_t)(k->at - pos);
    if (d[i] != '[') {
      k->state = C_OTHER;
      k->why = "no '['";
      return FSDPA_OK;
    }
    fsdpa_status st = sink(k, d, i + 1);
    if (!st) st = sink(k, k->events->p, k->events->len);
    if (st) return st;
    from = i + 1;
    k->state = k->nonempty ? C_PEEK : C_COPY;
  }
  if (k->state == C_PEEK) {
    size_t i = from;
    while (i < n && is_ws(d[i])) i++;
    if (i == n) return sink(k, d + from, n - from);
    if (d[i] == ']') { /* the context saw an element here */
      k->state = C_OTHER;
      k->why = "an empty event array";
      return FSDPA_OK;
    }
    /* the original whitespace is kept; the separator goes right before
     * the first original element */
    fsdpa_status st = sink(k, d + from, i - from);
    if (!st) st = sink(k, ",", 1);
    if (st) return st;
    from = i;
    k->state = C_COPY;
  }
  return sink(k, d + from, n - from);
}

static fsdpa_status copy_stream(copier *k, FILE *in) {
  unsigned char *buf = fa_malloc(k->a, CHUNK), *dec = fa_malloc(k->a, CHUNK);
  fsdpa_status st = FSDPA_OK;
  infl f;
  infl_init(&f, k->a);
  if (!buf || !dec) {
    st = ctx_fail(k->c, fa_fail_status(k->a), "out of memory (annotate)");
    goto out;
  }
  for (;;) {
    size_t n = fread(buf, 1, CHUNK, in);
    if (!n && ferror(in)) {
      st = ctx_fail(k->c, FSDPA_EIO, "%s: read error: %s", k->in_path, strerror(errno));
      break;
    }
    const unsigned char *p = buf;
    size_t left = n, made;
    do {
      size_t used;
      int r = infl_run(&f, p, left, &used, dec, CHUNK, &made, n == 0);
      p += used;
      left -= used;
      if (made) st = take(k, dec, made);
      if (!st && r == INFL_ENOMEM) st = ctx_fail(k->c, fa_fail_status(k->a), "out of memory (annotate)");
      else if (!st && r)
        st = ctx_fail(k->c, FSDPA_EPARSE, "%s: corrupt gzip data: %s", k->in_path, infl_msg(&f));
    } while (!st && made == CHUNK && (left || infl_more(&f)));
    if (st || !n) break;
  }
  if (!st && infl_truncated(&f)) st = ctx_fail(k->c, FSDPA_ETRUNCATED, "%s: gzip data ends early", k->in_path);
out:
  infl_free(&f);
  fa_free(k->a, dec, dec ? CHUNK : 0);
  fa_free(k->a, buf, buf ? CHUNK : 0);
  return st;
}

static int ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static fsdpa_status annotate_file(fsdpa_ctx *const *ctxs, size_t n, size_t i, const char *in_path,
                                  const char *out_path, const fsdpa_annotate_options *opts) {
  fsdpa_status st;
  fsdpa_ctx *c = ctxs[i];
  if (!in_path || !out_path)
    return ctx_fail(c, FSDPA_EINVAL, "annotate: input and output paths are required");
  if (!strcmp(in_path, "-"))
    return ctx_fail(c, FSDPA_EINVAL, "annotate: the trace is read twice, so it cannot be standard input");
  fsdpa_annotate_options o;
  fsdpa_annotate_options_init(&o);
  if (opts && !ABI_IN(fsdpa_annotate_options, &o, opts))
    return ctx_fail(c, FSDPA_EINVAL, "fsdpa_annotate_options.size");
  int to_stdout = !strcmp(out_path, "-");
  if (!to_stdout && !strcmp(in_path, out_path))
    return ctx_fail(c, FSDPA_EINVAL, "annotate: the output would overwrite the input %s", in_path);
  copier k;
  memset(&k, 0, sizeof k);
  k.c = c;
  k.a = &c->alloc;
  k.in_path = in_path;
  k.out_path = to_stdout ? "<stdout>" : out_path;
  k.gz = o.gzip >= 0 ? o.gzip != 0 : (!to_stdout && ends_with(out_path, ".gz"));
  sbuf ev;
  sb_init(&ev, k.a);
  st = build_events(ctxs, n, i, &ev);
  if (!st && ev.failed) st = (fsdpa_status)ev.failed;
  if (st) {
    sb_free(&ev);
    if (!c->err[0]) ctx_fail(c, st, "annotate: %s", fsdpa_status_str(st));
    return st;
  }
  k.events = &ev;
  FILE *in = fopen(in_path, "rb");
  if (!in) {
    sb_free(&ev);
    return ctx_fail(c, FSDPA_EIO, "%s: cannot open: %s", in_path, strerror(errno));
  }
  /* The insertion point is the input's: a context that found no event
   * array (or read no JSON at all) has none. */
  int64_t at = c->input ? input_events_array_offset(c->input) : FSDPA_ABSENT;
  if (at == FSDPA_ABSENT) {
    st = ctx_fail(c, FSDPA_ENOTTRACE, "%s: no traceEvents array in the trace this context read", in_path);
    goto out;
  }
  k.at = (uint64_t)at;
  k.nonempty = input_events_array_nonempty(c->input);
  k.state = C_BEFORE;
  k.out = to_stdout ? stdout : fopen(out_path, "wb");
  if (!k.out) {
    st = ctx_fail(c, FSDPA_EIO, "%s: cannot write: %s", out_path, strerror(errno));
    goto out;
  }
  if (k.gz) {
    k.zbuf = fa_malloc(k.a, CHUNK);
    if (!k.zbuf) { st = ctx_fail(c, fa_fail_status(k.a), "out of memory (annotate)"); goto out; }
    k.zo.zalloc = infl_zalloc;
    k.zo.zfree = infl_zfree;
    k.zo.opaque = k.a;
    int level = o.level >= 1 && o.level <= 9 ? o.level : 6;
    if (deflateInit2(&k.zo, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      st = ctx_fail(c, fa_fail_status(k.a), "%s: deflateInit failed", k.out_path);
      goto out;
    }
    k.zo_init = 1;
  }
  st = copy_stream(&k, in);
  /* The events came from the context's analysis, and the insertion point
   * from its input: they belong to the bytes it read, not to some other
   * file. */
  if (!st && c->st.stats.json_bytes != k.json_bytes)
    st = ctx_fail(c, FSDPA_EINVAL,
                  "%s: not the trace this context read (%llu JSON bytes, the context read %llu)",
                  in_path, (unsigned long long)k.json_bytes,
                  (unsigned long long)c->st.stats.json_bytes);
  if (!st && k.state != C_COPY)
    st = ctx_fail(c, FSDPA_EINVAL, "%s: not the trace this context read (%s at JSON byte %llu)", in_path,
                  k.why ? k.why : "no event array", (unsigned long long)k.at);
  if (!st) st = sink_finish(&k);
  if (!st && fflush(k.out)) st = ctx_fail(c, FSDPA_EIO, "%s: write error: %s", k.out_path, strerror(errno));
out:
  if (k.zo_init) deflateEnd(&k.zo);
  fa_free(k.a, k.zbuf, k.zbuf ? CHUNK : 0);
  if (k.out && !to_stdout) {
    if (fclose(k.out) && !st) st = ctx_fail(c, FSDPA_EIO, "%s: write error: %s", out_path, strerror(errno));
    if (st) unlink(out_path);  /* no half-written copy that looks like a trace */
  }
  fclose(in);
  sb_free(&ev);
  return st;
}

fsdpa_status fsdpa_annotate_file(fsdpa_ctx *const *ctxs, size_t n, size_t i, const char *in_path,
                                 const char *out_path, const fsdpa_annotate_options *opts, fsdpa_error *err) {
  fsdpa_status st = check_args(ctxs, n, i, err, "fsdpa_annotate_file");
  if (st) return st;
  st = annotate_file(ctxs, n, i, in_path, out_path, opts);
  return st ? ctx_err_out(err, st, ctxs[i], (int64_t)i) : FSDPA_OK;
}
