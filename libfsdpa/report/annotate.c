/* fsdpa_annotate_*: a copy of a trace with the findings added as events, so
 * Perfetto and chrome://tracing show them next to the evidence.
 *
 * Robustness over cleverness: the input bytes are streamed through
 * unchanged; a small JSON scanner follows the top level of the document only
 * until the '[' that opens "traceEvents" (or the top-level array of Chrome's
 * JSON Array Format), and the new events are written right after it, then a
 * ',' before the first original element (none if the array is empty).
 * Everything else, every original event included, is copied byte for byte.
 * The scanner skips values it does not need by counting brackets outside
 * strings, so it never builds anything in memory and any chunking works. */
#include "report/report.h"
#include "util/outbuf.h"
#include "util/abi.h"
#include "util/error.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

void fsdpa_annotate_options_init(fsdpa_annotate_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->gzip = -1;
  o->level = 0;
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
    int64_t lane_end[FINDING_MAX_RANGES];
    int64_t lane_tid[FINDING_MAX_RANGES];
    int lanes = 0;
    char tname[160];
    /* ranges come worst first; in time order, a greedy lane assignment keeps
     * the slices of each thread from overlapping (viewers cannot draw that) */
    int ord[FINDING_MAX_RANGES];
    for (int r = 0; r < x->nranges; r++) {
      int j = r;
      while (j > 0 && x->ranges[ord[j - 1]].s > x->ranges[r].s) {
        ord[j] = ord[j - 1];
        j--;
      }
      ord[j] = r;
    }
    if (!x->nranges) {
      tid++;
      snprintf(tname, sizeof tname, "%zu. %s (%s)", k + 1, x->id, sev_name(x->severity));
      meta(b, &first, "thread_name", pid, tid, "name", tname, 0);
      meta(b, &first, "thread_sort_index", pid, tid, "sort_index", NULL, tid);
      event(b, &first, x, pid, tid, t0, FSDPA_ABSENT, 0, 0);
      continue;
    }
    for (int q = 0; q < x->nranges; q++) {
      int r = ord[q];
      int64_t s = x->ranges[r].s - base, e = x->ranges[r].e - base;
      if (e < s) e = s;
      int l = 0;
      while (l < lanes && s < lane_end[l]) l++;
      if (l == lanes) {
        lane_tid[lanes] = ++tid;
        lane_end[lanes] = INT64_MIN;
        if (lanes)
          snprintf(tname, sizeof tname, "%zu. %s (%s) #%d", k + 1, x->id, sev_name(x->severity),
                   lanes + 1);
        else
          snprintf(tname, sizeof tname, "%zu. %s (%s)", k + 1, x->id, sev_name(x->severity));
        meta(b, &first, "thread_name", pid, tid, "name", tname, 0);
        meta(b, &first, "thread_sort_index", pid, tid, "sort_index", NULL, tid);
        lanes++;
      }
      lane_end[l] = e;
      event(b, &first, x, pid, lane_tid[l], s, e - s, r, x->nranges);
    }
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

static voidpf z_alloc(voidpf opaque, uInt items, uInt size) {
  fa_alloc *a = (fa_alloc *)opaque;
  size_t n = (size_t)items * size;
  if (size && n / size != items) return Z_NULL;
  unsigned char *p = (unsigned char *)fa_malloc(a, n + 16);
  if (!p) return Z_NULL;
  memcpy(p, &n, sizeof n);
  return p + 16;
}

static void z_free(voidpf opaque, voidpf addr) {
  if (!addr) return;
  unsigned char *p = (unsigned char *)addr - 16;
  size_t n;
  memcpy(&n, p, sizeof n);
  fa_free((fa_alloc *)opaque, p, n + 16);
}

/* top-level scanner states */
enum { S_START, S_BOM1, S_BOM2, S_KEY_OR_END, S_KEY, S_KEY_ESC, S_COLON, S_VALUE, S_STR, S_STR_ESC,
       S_NEST, S_NEST_STR, S_NEST_ESC, S_SCALAR, S_AFTER_VALUE, S_PEEK, S_COPY };

#define CHUNK ((size_t)1 << 20)

typedef struct copier {
  fsdpa_ctx *c;
  fa_alloc *a;
  const char *in_path, *out_path;
  FILE *out;
  int gz;
  z_stream zo;       /* deflate (gzip output) */
  int zo_init;
  unsigned char *zbuf;
  int state;
  uint64_t depth;    /* S_NEST */
  char key[12];
  size_t key_len;
  int key_escaped;
  uint64_t json_bytes;
  const sbuf *events;
  int done_insert;
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

static fsdpa_status not_trace(copier *k, const char *why) {
  return ctx_fail(k->c, FSDPA_ENOTTRACE, "%s: %s (byte %llu)", k->in_path, why,
                  (unsigned long long)k->json_bytes);
}

/* Run the scanner over decompressed bytes, copying them to the output. */
static fsdpa_status scan(copier *k, const unsigned char *d, size_t n) {
  size_t from = 0;  /* bytes [from, i) are still to be copied */
  for (size_t i = 0; i < n; i++, k->json_bytes++) {
    unsigned char ch = d[i];
    switch (k->state) {
      case S_COPY:  /* the rest goes through unchanged */
        k->json_bytes += n - 1 - i;
        i = n - 1;
        break;
      case S_START:
        if (ch == 0xEF && k->json_bytes == 0) { k->state = S_BOM1; break; }
        if (is_ws(ch)) break;
        if (ch == '{') { k->state = S_KEY_OR_END; break; }
        if (ch == '[') goto insert;
        return not_trace(k, "not a JSON object or array");
      case S_BOM1:
        if (ch != 0xBB) return not_trace(k, "bad byte-order mark");
        k->state = S_BOM2;
        break;
      case S_BOM2:
        if (ch != 0xBF) return not_trace(k, "bad byte-order mark");
        k->state = S_START;
        break;
      case S_KEY_OR_END:
        if (is_ws(ch) || ch == ',') break;
        if (ch == '"') {
          k->state = S_KEY;
          k->key_len = 0;
          k->key_escaped = 0;
          break;
        }
        if (ch == '}') return not_trace(k, "no traceEvents array in the top-level object");
        return not_trace(k, "malformed top-level object");
      case S_KEY:
        if (ch == '\\') { k->state = S_KEY_ESC; k->key_escaped = 1; break; }
        if (ch == '"') { k->state = S_COLON; break; }
        if (k->key_len < sizeof k->key) k->key[k->key_len] = (char)ch;
        k->key_len++;
        break;
      case S_KEY_ESC:
        k->state = S_KEY;
        break;
      case S_COLON:
        if (is_ws(ch)) break;
        if (ch != ':') return not_trace(k, "malformed top-level object");
        k->state = S_VALUE;
        break;
      case S_VALUE:
        if (is_ws(ch)) break;
        if (ch == '[' && !k->key_escaped && k->key_len == 11 && !memcmp(k->key, "traceEvents", 11))
          goto insert;
        if (ch == '"') k->state = S_STR;
        else if (ch == '{' || ch == '[') { k->state = S_NEST; k->depth = 1; }
        else k->state = S_SCALAR;
        break;
      case S_STR:
        if (ch == '\\') k->state = S_STR_ESC;
        else if (ch == '"') k->state = S_AFTER_VALUE;
        break;
      case S_STR_ESC:
        k->state = S_STR;
        break;
      case S_NEST:
        if (ch == '"') k->state = S_NEST_STR;
        else if (ch == '{' || ch == '[') k->depth++;
        else if ((ch == '}' || ch == ']') && --k->depth == 0) k->state = S_AFTER_VALUE;
        break;
      case S_NEST_STR:
        if (ch == '\\') k->state = S_NEST_ESC;
        else if (ch == '"') k->state = S_NEST;
        break;
      case S_NEST_ESC:
        k->state = S_NEST_STR;
        break;
      case S_SCALAR:
        if (ch == ',') k->state = S_KEY_OR_END;
        else if (ch == '}') return not_trace(k, "no traceEvents array in the top-level object");
        break;
      case S_AFTER_VALUE:
        if (is_ws(ch)) break;
        if (ch == ',') { k->state = S_KEY_OR_END; break; }
        if (ch == '}') return not_trace(k, "no traceEvents array in the top-level object");
        return not_trace(k, "malformed top-level object");
      case S_PEEK:
        if (is_ws(ch)) break;
        if (ch != ']') {
          /* the original whitespace is kept; the separator goes right before
           * the first original element */
          fsdpa_status st = sink(k, d + from, i - from);
          if (!st) st = sink(k, ",", 1);
          if (st) return st;
          from = i;
        }
        k->state = S_COPY;
        break;
    }
    continue;
  insert: {
      fsdpa_status st = sink(k, d + from, i + 1 - from);
      if (!st) st = sink(k, k->events->p, k->events->len);
      if (st) return st;
      from = i + 1;
      k->state = S_PEEK;
      k->done_insert = 1;
    }
  }
  return sink(k, d + from, n - from);
}

static int ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static fsdpa_status copy_stream(copier *k, FILE *in) {
  unsigned char *buf = fa_malloc(k->a, CHUNK), *zin = NULL;
  if (!buf) return ctx_fail(k->c, fa_fail_status(k->a), "out of memory (annotate)");
  fsdpa_status st = FSDPA_OK;
  z_stream zi;
  int zi_init = 0, gz_in = -1, member_done = 0;
  memset(&zi, 0, sizeof zi);
  size_t n;
  while (!st && (n = fread(gz_in == 1 ? zin : buf, 1, CHUNK, in)) > 0) {
    if (gz_in < 0) {
      gz_in = n >= 2 && buf[0] == 0x1f && buf[1] == 0x8b;
      if (gz_in) {
        zin = fa_malloc(k->a, CHUNK);
        if (!zin) { st = ctx_fail(k->c, fa_fail_status(k->a), "out of memory (annotate)"); break; }
        memcpy(zin, buf, n);
        zi.zalloc = z_alloc;
        zi.zfree = z_free;
        zi.opaque = k->a;
        if (inflateInit2(&zi, 15 + 32) != Z_OK) {
          st = ctx_fail(k->c, FSDPA_ENOMEM, "%s: inflateInit failed", k->in_path);
          break;
        }
        zi_init = 1;
      }
    }
    if (!gz_in) {
      st = scan(k, buf, n);
      continue;
    }
    const unsigned char *p = zin;
    size_t left = n;
    while (!st && left) {
      if (member_done) {
        while (left && !*p) { p++; left--; }  /* zero padding between members */
        if (!left) break;
        if (inflateReset(&zi) != Z_OK) {
          st = ctx_fail(k->c, FSDPA_EPARSE, "%s: corrupt gzip data", k->in_path);
          break;
        }
        member_done = 0;
      }
      zi.next_in = (Bytef *)(uintptr_t)p;
      zi.avail_in = (uInt)left;
      zi.next_out = buf;
      zi.avail_out = (uInt)CHUNK;
      int zr = inflate(&zi, Z_NO_FLUSH);
      size_t used = left - zi.avail_in, made = CHUNK - zi.avail_out;
      p += used;
      left -= used;
      if (made) st = scan(k, buf, made);
      if (zr == Z_STREAM_END) member_done = 1;
      else if (zr == Z_BUF_ERROR && !used && !made) break;
      else if (zr != Z_OK && zr != Z_BUF_ERROR)
        st = ctx_fail(k->c, zr == Z_MEM_ERROR ? fa_fail_status(k->a) : FSDPA_EPARSE,
                      "%s: corrupt gzip data: %s", k->in_path, zi.msg ? zi.msg : "inflate failed");
    }
  }
  /* output still buffered inside inflate */
  while (!st && zi_init && !member_done) {
    zi.next_in = NULL;
    zi.avail_in = 0;
    zi.next_out = buf;
    zi.avail_out = (uInt)CHUNK;
    int zr = inflate(&zi, Z_NO_FLUSH);
    size_t made = CHUNK - zi.avail_out;
    if (made) st = scan(k, buf, made);
    if (zr == Z_STREAM_END) member_done = 1;
    if (!made) break;
  }
  if (!st && ferror(in)) st = ctx_fail(k->c, FSDPA_EIO, "%s: read error: %s", k->in_path, strerror(errno));
  if (!st && zi_init && !member_done)
    st = ctx_fail(k->c, FSDPA_ETRUNCATED, "%s: gzip data ends early", k->in_path);
  if (zi_init) inflateEnd(&zi);
  fa_free(k->a, zin, zin ? CHUNK : 0);
  fa_free(k->a, buf, CHUNK);
  return st;
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
  k.out = to_stdout ? stdout : fopen(out_path, "wb");
  if (!k.out) {
    st = ctx_fail(c, FSDPA_EIO, "%s: cannot write: %s", out_path, strerror(errno));
    goto out;
  }
  if (k.gz) {
    k.zbuf = fa_malloc(k.a, CHUNK);
    if (!k.zbuf) { st = ctx_fail(c, fa_fail_status(k.a), "out of memory (annotate)"); goto out; }
    k.zo.zalloc = z_alloc;
    k.zo.zfree = z_free;
    k.zo.opaque = k.a;
    int level = o.level >= 1 && o.level <= 9 ? o.level : 6;
    if (deflateInit2(&k.zo, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      st = ctx_fail(c, fa_fail_status(k.a), "%s: deflateInit failed", k.out_path);
      goto out;
    }
    k.zo_init = 1;
  }
  st = copy_stream(&k, in);
  if (!st && !k.done_insert) st = not_trace(&k, "no traceEvents array");
  if (!st && k.state != S_COPY && k.state != S_PEEK) st = not_trace(&k, "document ends early");
  /* The events came from the context's analysis: they belong to the bytes
   * it read, not to some other file. */
  if (!st && c->st.stats.json_bytes && c->st.stats.json_bytes != k.json_bytes)
    st = ctx_fail(c, FSDPA_EINVAL,
                  "%s: not the trace this context read (%llu JSON bytes, the context read %llu)",
                  in_path, (unsigned long long)k.json_bytes,
                  (unsigned long long)c->st.stats.json_bytes);
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
