/* The input pipeline: bytes -> decoded events.
 *
 *   feed -> [gzip? streaming inflate] -> window (256 KiB) -> scanner -> batch
 *        -> json_shim (simdjson On-Demand) -> sink->event
 *
 * - Format: gzip when the stream starts with 1f 8b (inflate.c: inflate with
 *   automatic header detection, concatenated members, zero padding after a
 *   member is ignored), decoded straight into the window; plain JSON
 *   otherwise (a UTF-8 BOM is skipped).
 * - Everything outside the event array is checked by a scalar JSON
 *   validator (scan_top below) that never needs old bytes, so it works on any
 *   chunking; it also picks up distributedInfo.rank / world_size and
 *   baseTimeNanoseconds.  The '[' of the top-level "traceEvents" (or a
 *   top-level array: Chrome's JSON Array Format) hands over to the event
 *   splitter (scan.c), which records complete event spans in the window.
 * - When the window is full (or the array ends, or at the end), the complete
 *   events are decoded as one batch: the bytes just before the first and
 *   just after the last are temporarily replaced by '[' and ']' and simdjson
 *   parses the batch in place.  Then the window is compacted (only the
 *   event in progress is kept); it grows only while one event is larger
 *   than it, up to max_event (64 MiB) -> FSDPA_ELIMIT.
 * - Errors name the input and the byte offset in the JSON stream, i.e. in
 *   the decompressed stream for gzip input.  Events before the first error
 *   (in stream order) are always delivered, whatever the chunking.
 * - Validation: outside the events, full JSON (grammar, escapes, UTF-8,
 *   nesting <= 1024).  Between events: the splitter checks the separators.
 *   Inside an event: simdjson's first pass checks the whole event (UTF-8,
 *   unescaped control characters, string termination, bracket balance);
 *   On-Demand checks the event and args objects' own syntax and every value
 *   we decode (see json_shim.cpp for the field rules).  Values of fields we
 *   do not decode (e.g. args["Input Dims"]) are skipped without checking
 *   their scalars, and keys are compared raw (a key with an invalid escape
 *   is just an unknown key): garbage there is accepted, by design of
 *   On-Demand, at no cost to the analyses.
 * - Top-level scalars / non-trace JSON: FSDPA_ENOTTRACE; a document that
 *   ends early: FSDPA_ETRUNCATED at input_finish(); an unterminated bare
 *   array (with or without a trailing ',') is accepted, as Chrome does.
 */
#include "input/input.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "input/inflate.h"
#include "input/json_shim.h"
#include "input/num.h"
#include "input/scan.h"
#include "util/jsonr.h"

#define IN_HEAD 1                        /* byte before the window data: room for '[' */
#define IN_PAD 128                       /* after the window: SJ_PADDING + ']' + SIMD over-read */
#define IN_WINDOW_DEFAULT ((size_t)256 << 10)
#define IN_WINDOW_MIN ((size_t)64)
#define IN_EVENT_MAX ((size_t)64 << 20)
#define IN_MAX_DEPTH 1024                /* nesting outside the events */
#define IN_CAP_MAX 64                    /* captured key / metadata value bytes (a device name: 63) */

enum { ST_OPEN, ST_ERROR, ST_DONE };
enum { MODE_TOP, MODE_EVENTS };

/* top-level validator states */
enum { T_VALUE, T_ARR_FIRST, T_OBJ_FIRST, T_KEY, T_COLON, T_AFTER, T_STR, T_NUM, T_LIT, T_DONE,
       T_BOM1, T_BOM2 };
enum { N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP };
enum { K_OTHER, K_TE, K_DIST, K_BASE, K_RANK, K_WORLD, K_DEVS, K_DEV_ID, K_DEV_NAME, K_DEV_SMS,
       K_DEV_MAJOR, K_DEV_MINOR, K_DEV_MEM };
enum { TG_NONE, TG_BASE, TG_RANK, TG_WORLD, TG_DEV_ID, TG_DEV_NAME, TG_DEV_SMS, TG_DEV_MAJOR,
       TG_DEV_MINOR, TG_DEV_MEM };

typedef struct jtop {
  uint8_t st, num, esc, u8_need, u8_lo, u8_hi, str_key;
  uint8_t lit_idx, lit_len;
  const char *lit;
  uint32_t depth;                /* containers open (root object = 1) */
  uint8_t key1;                  /* K_* of the current key of the root object */
  uint8_t key2;                  /* K_* of the current key of distributedInfo */
  uint8_t in_dist;               /* the depth-2 container is distributedInfo */
  uint8_t in_devs;               /* the depth-2 container is the deviceProperties array */
  uint8_t in_dev;                /* the depth-3 container is one of its device objects */
  uint8_t key3;                  /* K_* of the current key of that device object */
  uint8_t target;                /* TG_*: the scalar being read is metadata */
  uint8_t cap_on, cap_bad, cap_len, seen, found_events;
  char cap[IN_CAP_MAX];
  uint8_t stack[IN_MAX_DEPTH];   /* '{' or '[' of container depth i+1 */
} jtop;

struct fsdpa_input {
  fa_alloc *a;
  char *name;
  size_t name_size;
  uint64_t max_input;
  input_sink sink;

  int state;
  fsdpa_status err;
  int64_t err_off;
  char msg[512];

  uint64_t bytes_in, json_bytes, events;

  infl dec;                 /* plain or gzip -> the JSON stream */

  /* window: data at w + IN_HEAD, wlen bytes, stream offset wbase */
  char *w;
  size_t walloc, wcap, wlen, pos;
  uint64_t wbase;
  size_t win_default, event_max;
  int simd;

  int mode, bare;
  /* The first event array ('[' of traceEvents, or the top-level array):
   * stream offset of its '[', whether its first non-blank byte is still to
   * be seen, and whether that byte is not its ']' (annotate writes there). */
  int64_t arr_off;
  int arr_peek, arr_nonempty;
  ev_scan ev;
  jtop top;
  fsdpa_trace_info meta;
  fsdpa_device_info dev;    /* the deviceProperties entry being read */

  /* decoder */
  sj_parser *sj;
  void *sj_mem;
  uint64_t sj_charged;
  uint64_t cb_base;         /* stream offset of the buffer given to the shim */
  fsdpa_status cb_status;
  int mute;                 /* decode without delivering (re-checking a delivered event) */
};

/* ------------------------------------------------------------------ */
/* errors                                                              */

static const char *status_name(fsdpa_status st) {
  switch (st) {
    case FSDPA_OK: return "FSDPA_OK";
    case FSDPA_ENOMEM: return "FSDPA_ENOMEM";
    case FSDPA_EINVAL: return "FSDPA_EINVAL";
    case FSDPA_EPARSE: return "FSDPA_EPARSE";
    case FSDPA_ENOTTRACE: return "FSDPA_ENOTTRACE";
    case FSDPA_ETRUNCATED: return "FSDPA_ETRUNCATED";
    case FSDPA_ELIMIT: return "FSDPA_ELIMIT";
    case FSDPA_ESTATE: return "FSDPA_ESTATE";
    case FSDPA_EBUFS: return "FSDPA_EBUFS";
    case FSDPA_EIO: return "FSDPA_EIO";
  }
  return "unknown status";
}

/* Record the (first) error: "<name>: byte <off>: <what>", or "<name>: <what>"
 * when off is FSDPA_ABSENT.  The input refuses further bytes afterwards. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static fsdpa_status set_error(fsdpa_input *in, fsdpa_status st, int64_t off, const char *fmt, ...) {
  if (in->state == ST_ERROR) return in->err;
  in->state = ST_ERROR;
  in->err = st;
  in->err_off = off;
  int n;
  if (off != FSDPA_ABSENT)
    n = snprintf(in->msg, sizeof in->msg, "%s: byte %lld: ", in->name, (long long)off);
  else
    n = snprintf(in->msg, sizeof in->msg, "%s: ", in->name);
  if (n < 0) n = 0;
  if ((size_t)n < sizeof in->msg) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->msg + n, sizeof in->msg - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return st;
}

static fsdpa_status alloc_error(fsdpa_input *in) {
  fsdpa_status st = fa_fail_status(in->a);
  return set_error(in, st, FSDPA_ABSENT, "%s",
                   st == FSDPA_ELIMIT ? "memory limit reached while reading the input"
                                      : "out of memory while reading the input");
}

/* Memory simdjson allocates itself (operator new) is charged to the
 * context's allocator so that max_memory_bytes and the stats see it. */
static int charge(fa_alloc *a, uint64_t n) { return fa_charge(a, n); }
static void uncharge(fa_alloc *a, uint64_t n) { fa_uncharge(a, n); }

/* ------------------------------------------------------------------ */
/* decoding batches                                                    */

static int on_event(void *ud, const fsdpa_event *ev, size_t off) {
  fsdpa_input *in = (fsdpa_input *)ud;
  (void)off;
  if (in->mute) return 0;
  if (in->sink.event) {
    fsdpa_status st = in->sink.event(in->sink.ud, ev);
    if (st != FSDPA_OK) {
      in->cb_status = st;
      return 1;
    }
  }
  in->events++;
  return 0;
}

static fsdpa_status ensure_parser(fsdpa_input *in) {
  if (!in->sj) {
    in->sj_mem = fa_malloc(in->a, sj_parser_size());
    if (!in->sj_mem) return alloc_error(in);
    in->sj = sj_parser_init(in->sj_mem, in->event_max + in->win_default + 64);
  }
  int r = sj_parser_reserve(in->sj, in->wcap + 2);
  if (r == SJ_ECAPACITY)
    return set_error(in, FSDPA_ELIMIT, FSDPA_ABSENT, "decode window too large for the JSON parser");
  if (r != SJ_OK) return set_error(in, FSDPA_ENOMEM, FSDPA_ABSENT, "out of memory in the JSON parser");
  uint64_t f = sj_parser_footprint(in->sj);
  if (f > in->sj_charged) {
    if (charge(in->a, f - in->sj_charged)) return alloc_error(in);
    in->sj_charged = f;
  }
  return FSDPA_OK;
}

/* Decode the events in b[first, last) (complete, checked by the scanner)
 * as one array: b[first-1] and b[last] are borrowed for '[' and ']'. */
static int decode_span(fsdpa_input *in, char *b, size_t first, size_t last, sj_result *res) {
  char *p = b + first - 1;
  char c0 = p[0], c1 = b[last], c2 = b[last + 1];
  p[0] = '[';
  b[last] = ']';
  /* The first byte past the document is fixed: simdjson reads it (an
   * unbalanced document runs into it, and a ']' there switches on a
   * balance check of the whole document), and the window's next bytes
   * depend on the chunking and on earlier input. */
  b[last + 1] = ' ';
  in->cb_base = in->wbase + first - 1;
  size_t cap = in->wcap + IN_PAD - first + 1; /* readable bytes from p */
  int r = sj_decode_events(in->sj, p, last - first + 2, cap, on_event, in, res);
  p[0] = c0;
  b[last] = c1;
  b[last + 1] = c2;
  return r;
}

static fsdpa_status decode_result(fsdpa_input *in, int r, const sj_result *res) {
  int64_t off = res->err_off == SIZE_MAX ? FSDPA_ABSENT : (int64_t)(in->cb_base + res->err_off);
  switch (r) {
    case SJ_OK: return FSDPA_OK;
    case SJ_ESTOP:
      return set_error(in, in->cb_status, off, "event rejected by the event handler (%s)",
                       status_name(in->cb_status));
    case SJ_ENOMEM: return set_error(in, FSDPA_ENOMEM, FSDPA_ABSENT, "out of memory in the JSON parser");
    case SJ_ECAPACITY: return set_error(in, FSDPA_ELIMIT, off, "batch too large for the JSON parser");
    case SJ_ENOTOBJ: return set_error(in, FSDPA_ENOTTRACE, off, "not a Kineto trace: %s", res->what);
    case SJ_EVALUE: return set_error(in, FSDPA_EPARSE, off, "%s", res->what);
    default: return set_error(in, FSDPA_EPARSE, off, "malformed JSON in event: %s", res->what);
  }
}

/* simdjson's first pass rejects a whole buffer (bad UTF-8, control
 * character in a string) without a position: find it in the event. */
static size_t locate_raw_error(const char *b, size_t from, size_t to) {
  int in_str = 0, esc = 0;
  for (size_t i = from; i < to; i++) {
    unsigned char c = (unsigned char)b[i];
    if (c >= 0x80) {
      unsigned need, lo = 0x80, hi = 0xBF;
      if (c >= 0xC2 && c <= 0xDF) need = 1;
      else if (c == 0xE0) { need = 2; lo = 0xA0; }
      else if (c == 0xED) { need = 2; hi = 0x9F; }
      else if (c >= 0xE1 && c <= 0xEF) need = 2;
      else if (c == 0xF0) { need = 3; lo = 0x90; }
      else if (c >= 0xF1 && c <= 0xF3) need = 3;
      else if (c == 0xF4) { need = 3; hi = 0x8F; }
      else return i;
      for (unsigned k = 1; k <= need; k++) {
        unsigned char d = i + k < to ? (unsigned char)b[i + k] : 0;
        if (d < lo || d > hi) return i;
        lo = 0x80;
        hi = 0xBF;
      }
      i += need;
      esc = 0;
      continue;
    }
    if (in_str) {
      if (esc) esc = 0;
      else if (c == '\\') esc = 1;
      else if (c == '"') in_str = 0;
      else if (c < 0x20) return i;
    } else if (c == '"') {
      in_str = 1;
    }
  }
  return from;
}

/* Hand the batch of complete events to the decoder. */
static fsdpa_status flush(fsdpa_input *in) {
  ev_scan *s = &in->ev;
  if (!s->bcount) return FSDPA_OK;
  size_t first = s->bfirst, last = s->blast;
  s->bcount = 0;
  fsdpa_status st = ensure_parser(in);
  if (st) return st;
  char *b = in->w + IN_HEAD;
  sj_result res;
  int r = decode_span(in, b, first, last, &res);
  if (r != SJ_EJSON) return decode_result(in, r, &res);
  /* Malformed JSON somewhere in the batch.  Whether an event is malformed,
   * and where, must depend on its own bytes only, never on the batch it was
   * decoded in (the window and the chunking decide that): so every event
   * from the one simdjson stopped in is decoded again alone, and the first
   * that fails alone is the error.  simdjson's first pass checks the whole
   * batch before any event is delivered (count 0, no position); a failure
   * in its second pass may come after it delivered the event it blames (it
   * found the fault while leaving the event): that event is checked again
   * without delivering it twice.  Every event decoding alone means the batch
   * as a whole tripped simdjson, not any event: accepted, as it would be in
   * batches of one. */
  size_t from = first, eb = 0, ee = 0, k = 0;
  size_t err = res.err_off == SIZE_MAX ? SIZE_MAX : first - 1 + res.err_off;
  while (ev_scan_next_element(b, from, last, &eb, &ee)) {
    if (k == res.count || (k + 1 == res.count && err != SIZE_MAX && err >= eb && err < ee)) break;
    from = ee;
    k++;
  }
  for (; ev_scan_next_element(b, from, last, &eb, &ee); from = ee, k++) {
    sj_result one;
    in->mute = k < res.count;
    int r1 = decode_span(in, b, eb, ee, &one);
    in->mute = 0;
    if (r1 == SJ_EJSON) {
      /* simdjson's message and position for a malformed document can depend
       * on what the parser decoded before (stale structural indexes): the
       * strict reader locates the error from the event's bytes alone, else
       * (bad UTF-8, control characters: simdjson's first pass) the raw scan
       * does.  (Only here: On-Demand accepts garbage inside values it skips,
       * and so must the check, or acceptance would depend on batching.) */
      jr j;
      const char *vb, *ve;
      jr_init(&j, b + eb, ee - eb);
      j.max_depth = IN_MAX_DEPTH;
      if (!jr_skip(&j, &vb, &ve) || !jr_end(&j))
        return set_error(in, FSDPA_EPARSE, (int64_t)(in->wbase + eb + j.err_off), "malformed JSON in event: %s",
                         j.msg);
      one.err_off = locate_raw_error(b, eb, ee) - (eb - 1);
    }
    if (r1 != SJ_OK) return decode_result(in, r1, &one);
  }
  return FSDPA_OK;
}

/* ------------------------------------------------------------------ */
/* metadata                                                            */

static fsdpa_status emit_meta(fsdpa_input *in, int64_t off) {
  if (!in->sink.meta) return FSDPA_OK;
  fsdpa_status st = in->sink.meta(in->sink.ud, &in->meta);
  if (st != FSDPA_OK)
    return set_error(in, st, off, "metadata rejected by the handler (%s)", status_name(st));
  return FSDPA_OK;
}

/* One deviceProperties object ended: hand it over when it names its device. */
static fsdpa_status emit_device(fsdpa_input *in, int64_t off) {
  if (!in->sink.device || in->dev.device == FSDPA_ABSENT || in->dev.device < 0) return FSDPA_OK;
  fsdpa_status st = in->sink.device(in->sink.ud, &in->dev);
  if (st != FSDPA_OK)
    return set_error(in, st, off, "device properties rejected by the handler (%s)", status_name(st));
  return FSDPA_OK;
}

static int key_is(const jtop *t, const char *lit) {
  size_t n = strlen(lit);
  return !t->cap_bad && t->cap_len == n && memcmp(t->cap, lit, n) == 0;
}

/* A captured metadata scalar ended (string or number). */
static fsdpa_status end_capture(fsdpa_input *in, int is_string, int64_t off) {
  jtop *t = &in->top;
  int tg = t->target;
  t->target = TG_NONE;
  t->cap_on = 0;
  if (tg == TG_NONE || t->cap_bad) return FSDPA_OK;
  if (tg == TG_DEV_NAME) {
    if (is_string) {
      size_t n = t->cap_len < sizeof in->dev.name ? t->cap_len : sizeof in->dev.name - 1;
      memcpy(in->dev.name, t->cap, n);
      in->dev.name[n] = 0;
    }
    return FSDPA_OK;
  }
  int64_t v;
  int r = is_string ? fa_parse_id_str(t->cap, t->cap_len, &v) : fa_num_parse(t->cap, t->cap_len, 0, 1, &v);
  if (r != FA_NUM_OK) return FSDPA_OK; /* not an integer: stays unknown */
  switch (tg) {
    case TG_DEV_ID: in->dev.device = v; return FSDPA_OK;
    case TG_DEV_SMS: in->dev.sms = v; return FSDPA_OK;
    case TG_DEV_MAJOR: in->dev.compute_major = v; return FSDPA_OK;
    case TG_DEV_MINOR: in->dev.compute_minor = v; return FSDPA_OK;
    case TG_DEV_MEM: in->dev.total_memory_bytes = v; return FSDPA_OK;
    case TG_BASE: in->meta.base_time_ns = v; break;
    case TG_RANK: in->meta.rank = v; break;
    default: in->meta.world_size = v; break;
  }
  return emit_meta(in, off);
}

/* ------------------------------------------------------------------ */
/* top-level JSON validator                                            */

static int is_ws(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static int is_xdigit(unsigned char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static void cap_add(jtop *t, unsigned char c) {
  if (!t->cap_on) return;
  if (t->cap_len < IN_CAP_MAX) t->cap[t->cap_len++] = (char)c;
  else if (t->target != TG_DEV_NAME) t->cap_bad = 1;  /* a long device name is kept truncated */
}

static void cap_start(jtop *t, int on) {
  t->cap_on = (uint8_t)on;
  t->cap_len = 0;
  t->cap_bad = 0;
}

/* After a complete value inside a container. */
static void after_value(jtop *t) { t->st = T_AFTER; }

/* Close the container on top of the stack with `c` ('}' or ']'). */
static fsdpa_status close_container(fsdpa_input *in, unsigned char c, int64_t off) {
  jtop *t = &in->top;
  unsigned char want = c == '}' ? '{' : '[';
  if (t->depth == 0 || t->stack[t->depth - 1] != want)
    return set_error(in, FSDPA_EPARSE, off, "unexpected '%c'", c);
  t->depth--;
  if (t->depth < 2) t->in_dist = t->in_devs = 0;
  if (t->depth == 2 && t->in_dev) {
    t->in_dev = 0;
    fsdpa_status st = emit_device(in, off);
    if (st) return st;
  }
  if (t->depth == 0) {
    if (!t->found_events)
      return set_error(in, FSDPA_ENOTTRACE, FSDPA_ABSENT, "not a Kineto trace: no traceEvents array");
    t->st = T_DONE;
  } else {
    after_value(t);
  }
  return FSDPA_OK;
}

static fsdpa_status push_container(fsdpa_input *in, unsigned char c, int64_t off) {
  jtop *t = &in->top;
  if (t->depth >= IN_MAX_DEPTH) return set_error(in, FSDPA_EPARSE, off, "JSON nested too deeply");
  t->stack[t->depth++] = c;
  if (t->depth == 2) {
    t->in_dist = (uint8_t)(c == '{' && t->key1 == K_DIST);
    t->in_devs = (uint8_t)(c == '[' && t->key1 == K_DEVS);
  }
  if (t->depth == 3 && t->in_devs && c == '{') {
    t->in_dev = 1;
    fsdpa_device_info_init(&in->dev);
  }
  t->st = c == '{' ? T_OBJ_FIRST : T_ARR_FIRST;
  return FSDPA_OK;
}

static void enter_events(fsdpa_input *in, size_t after_bracket, int bare) {
  if (in->arr_off == FSDPA_ABSENT) {
    in->arr_off = (int64_t)(in->wbase + after_bracket - 1);
    in->arr_peek = 1;
  }
  in->mode = MODE_EVENTS;
  in->bare = bare;
  in->top.found_events = 1;
  ev_scan_init(&in->ev, after_bracket, in->event_max);
}

/* A value starts with byte c at window offset i.  Consumes it (i + 1). */
static fsdpa_status start_value(fsdpa_input *in, size_t i, unsigned char c) {
  jtop *t = &in->top;
  int64_t off = (int64_t)(in->wbase + i);
  int is_value_start = c == '{' || c == '[' || c == '"' || c == '-' || is_digit(c) || c == 't' ||
                       c == 'f' || c == 'n';
  if (t->depth == 0) {
    if (!t->seen && off == 0 && c == 0xEF) {
      t->st = T_BOM1;
      return FSDPA_OK;
    }
    t->seen = 1;
    if (c == '[') {
      enter_events(in, i + 1, 1);
      return FSDPA_OK;
    }
    if (c == '{') return push_container(in, c, off);
    if (is_value_start)
      return set_error(in, FSDPA_ENOTTRACE, off,
                       "not a Kineto trace: the top-level JSON value is not an object or array");
    if (c >= 0x20 && c < 0x7f) return set_error(in, FSDPA_EPARSE, off, "not JSON: unexpected character '%c'", c);
    return set_error(in, FSDPA_EPARSE, off, "not JSON: unexpected byte 0x%02x", c);
  }
  if (c == '[' && t->depth == 1 && t->key1 == K_TE) {
    enter_events(in, i + 1, 0);
    return FSDPA_OK;
  }
  t->target = TG_NONE;
  if (t->depth == 1 && t->key1 == K_BASE) t->target = TG_BASE;
  else if (t->depth == 2 && t->in_dist && t->key2 == K_RANK) t->target = TG_RANK;
  else if (t->depth == 2 && t->in_dist && t->key2 == K_WORLD) t->target = TG_WORLD;
  else if (t->depth == 3 && t->in_dev && t->key3 >= K_DEV_ID) t->target = (uint8_t)(TG_DEV_ID + (t->key3 - K_DEV_ID));
  switch (c) {
    case '{':
    case '[':
      t->target = TG_NONE;
      return push_container(in, c, off);
    case '"':
      t->st = T_STR;
      t->str_key = 0;
      t->esc = 0;
      t->u8_need = 0;
      cap_start(t, t->target != TG_NONE);
      return FSDPA_OK;
    case 't': t->lit = "true"; t->lit_len = 4; break;
    case 'f': t->lit = "false"; t->lit_len = 5; break;
    case 'n': t->lit = "null"; t->lit_len = 4; break;
    default:
      if (c == '-' || is_digit(c)) {
        t->st = T_NUM;
        t->num = c == '-' ? N_MINUS : c == '0' ? N_ZERO : N_INT;
        cap_start(t, t->target != TG_NONE);
        cap_add(t, c);
        return FSDPA_OK;
      }
      if (c >= 0x20 && c < 0x7f) return set_error(in, FSDPA_EPARSE, off, "expected a JSON value, got '%c'", c);
      return set_error(in, FSDPA_EPARSE, off, "expected a JSON value, got byte 0x%02x", c);
  }
  t->target = TG_NONE;
  t->st = T_LIT;
  t->lit_idx = 1;
  if (t->lit_idx == t->lit_len) after_value(t);
  return FSDPA_OK;
}

static void start_key(jtop *t) {
  t->st = T_STR;
  t->str_key = 1;
  t->esc = 0;
  t->u8_need = 0;
  cap_start(t, t->depth == 1 || (t->depth == 2 && t->in_dist) || (t->depth == 3 && t->in_dev));
}

static fsdpa_status end_string(fsdpa_input *in, int64_t off) {
  jtop *t = &in->top;
  if (t->str_key) {
    if (t->depth == 1) {
      t->key1 = key_is(t, "traceEvents") ? K_TE
              : key_is(t, "distributedInfo") ? K_DIST
              : key_is(t, "baseTimeNanoseconds") ? K_BASE
              : key_is(t, "deviceProperties") ? K_DEVS
              : K_OTHER;
    } else if (t->depth == 2 && t->in_dist) {
      t->key2 = key_is(t, "rank") ? K_RANK : key_is(t, "world_size") ? K_WORLD : K_OTHER;
    } else if (t->depth == 3 && t->in_dev) {
      t->key3 = key_is(t, "id") ? K_DEV_ID
              : key_is(t, "name") ? K_DEV_NAME
              : key_is(t, "numSms") ? K_DEV_SMS
              : key_is(t, "computeMajor") ? K_DEV_MAJOR
              : key_is(t, "computeMinor") ? K_DEV_MINOR
              : key_is(t, "totalGlobalMem") ? K_DEV_MEM
              : K_OTHER;
    }
    t->cap_on = 0;
    t->st = T_COLON;
    return FSDPA_OK;
  }
  after_value(t);
  return end_capture(in, 1, off);
}

/* Validate b[in->pos, in->wlen) as JSON outside the event array.  Returns
 * early (pos just past the '[') when the event array starts. */
static fsdpa_status scan_top(fsdpa_input *in, const char *b) {
  jtop *t = &in->top;
  size_t i = in->pos, end = in->wlen;
  fsdpa_status st;
#define OFF(i) ((int64_t)(in->wbase + (i)))
  while (i < end) {
    unsigned char c = (unsigned char)b[i];
    switch (t->st) {
      case T_STR:
        if (t->esc) {
          if (t->esc == 1) {
            if (c == 'u') t->esc = 2;
            else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't')
              t->esc = 0;
            else
              return set_error(in, FSDPA_EPARSE, OFF(i), "invalid escape in string");
          } else {
            if (!is_xdigit(c)) return set_error(in, FSDPA_EPARSE, OFF(i), "invalid \\u escape in string");
            if (++t->esc == 6) t->esc = 0;
          }
          i++;
          continue;
        }
        if (t->u8_need) {
          if (c < t->u8_lo || c > t->u8_hi) return set_error(in, FSDPA_EPARSE, OFF(i), "invalid UTF-8 in string");
          t->u8_lo = 0x80;
          t->u8_hi = 0xBF;
          t->u8_need--;
          cap_add(t, c);
          i++;
          continue;
        }
        if (c == '"') {
          st = end_string(in, OFF(i));
          if (st) return st;
          i++;
          continue;
        }
        if (c == '\\') {
          t->esc = 1;
          t->cap_bad = 1;
          i++;
          continue;
        }
        if (c < 0x20) return set_error(in, FSDPA_EPARSE, OFF(i), "unescaped control character in string");
        if (c >= 0x80) {
          if (c >= 0xC2 && c <= 0xDF) { t->u8_need = 1; t->u8_lo = 0x80; t->u8_hi = 0xBF; }
          else if (c == 0xE0) { t->u8_need = 2; t->u8_lo = 0xA0; t->u8_hi = 0xBF; }
          else if (c == 0xED) { t->u8_need = 2; t->u8_lo = 0x80; t->u8_hi = 0x9F; }
          else if (c >= 0xE1 && c <= 0xEF) { t->u8_need = 2; t->u8_lo = 0x80; t->u8_hi = 0xBF; }
          else if (c == 0xF0) { t->u8_need = 3; t->u8_lo = 0x90; t->u8_hi = 0xBF; }
          else if (c >= 0xF1 && c <= 0xF3) { t->u8_need = 3; t->u8_lo = 0x80; t->u8_hi = 0xBF; }
          else if (c == 0xF4) { t->u8_need = 3; t->u8_lo = 0x80; t->u8_hi = 0x8F; }
          else return set_error(in, FSDPA_EPARSE, OFF(i), "invalid UTF-8 in string");
          cap_add(t, c);
          i++;
          continue;
        }
        if (t->cap_on) {
          cap_add(t, c);
          i++;
          continue;
        }
        /* plain ASCII run */
        i++;
        while (i < end) {
          unsigned char d = (unsigned char)b[i];
          if (d == '"' || d == '\\' || d < 0x20 || d >= 0x80) break;
          i++;
        }
        continue;

      case T_NUM: {
        int more = 0;
        switch (t->num) {
          case N_MINUS:
            if (!is_digit(c)) return set_error(in, FSDPA_EPARSE, OFF(i), "invalid number");
            t->num = c == '0' ? N_ZERO : N_INT;
            more = 1;
            break;
          case N_ZERO:
            if (is_digit(c)) return set_error(in, FSDPA_EPARSE, OFF(i), "invalid number (leading zero)");
            if (c == '.') { t->num = N_DOT; more = 1; }
            else if (c == 'e' || c == 'E') { t->num = N_E; more = 1; }
            break;
          case N_INT:
            if (is_digit(c)) more = 1;
            else if (c == '.') { t->num = N_DOT; more = 1; }
            else if (c == 'e' || c == 'E') { t->num = N_E; more = 1; }
            break;
          case N_DOT:
            if (!is_digit(c)) return set_error(in, FSDPA_EPARSE, OFF(i), "invalid number");
            t->num = N_FRAC;
            more = 1;
            break;
          case N_FRAC:
            if (is_digit(c)) more = 1;
            else if (c == 'e' || c == 'E') { t->num = N_E; more = 1; }
            break;
          case N_E:
            if (c == '+' || c == '-') t->num = N_ESIGN;
            else if (is_digit(c)) t->num = N_EXP;
            else return set_error(in, FSDPA_EPARSE, OFF(i), "invalid number");
            more = 1;
            break;
          case N_ESIGN:
            if (!is_digit(c)) return set_error(in, FSDPA_EPARSE, OFF(i), "invalid number");
            t->num = N_EXP;
            more = 1;
            break;
          default: /* N_EXP */
            if (is_digit(c)) more = 1;
            break;
        }
        if (more) {
          cap_add(t, c);
          i++;
          continue;
        }
        after_value(t); /* the number ended before c: c is looked at again */
        st = end_capture(in, 0, OFF(i));
        if (st) return st;
        continue;
      }

      case T_LIT:
        if (c != (unsigned char)t->lit[t->lit_idx]) return set_error(in, FSDPA_EPARSE, OFF(i), "invalid literal");
        i++;
        if (++t->lit_idx == t->lit_len) after_value(t);
        continue;

      case T_BOM1:
        if (c != 0xBB) return set_error(in, FSDPA_EPARSE, OFF(i), "not JSON: invalid byte order mark");
        t->st = T_BOM2;
        i++;
        continue;

      case T_BOM2:
        if (c != 0xBF) return set_error(in, FSDPA_EPARSE, OFF(i), "not JSON: invalid byte order mark");
        t->st = T_VALUE;
        i++;
        continue;

      default:
        break;
    }
    if (is_ws(c)) {
      i++;
      continue;
    }
    switch (t->st) {
      case T_ARR_FIRST:
        if (c == ']') {
          st = close_container(in, c, OFF(i));
          if (st) return st;
          i++;
          break;
        }
        /* fall through */
      case T_VALUE:
        st = start_value(in, i, c);
        if (st) return st;
        i++;
        if (in->mode == MODE_EVENTS) {
          in->pos = i;
          return FSDPA_OK;
        }
        break;
      case T_OBJ_FIRST:
        if (c == '}') {
          st = close_container(in, c, OFF(i));
          if (st) return st;
        } else if (c == '"') {
          start_key(t);
        } else {
          return set_error(in, FSDPA_EPARSE, OFF(i), "expected a string key or '}'");
        }
        i++;
        break;
      case T_KEY:
        if (c != '"') return set_error(in, FSDPA_EPARSE, OFF(i), "expected a string key");
        start_key(t);
        i++;
        break;
      case T_COLON:
        if (c != ':') return set_error(in, FSDPA_EPARSE, OFF(i), "expected ':'");
        t->st = T_VALUE;
        i++;
        break;
      case T_AFTER:
        if (c == ',') {
          t->st = t->stack[t->depth - 1] == '{' ? T_KEY : T_VALUE;
        } else if (c == '}' || c == ']') {
          st = close_container(in, c, OFF(i));
          if (st) return st;
        } else {
          return set_error(in, FSDPA_EPARSE, OFF(i), "expected ',' or '%c'",
                           t->stack[t->depth - 1] == '{' ? '}' : ']');
        }
        i++;
        break;
      default: /* T_DONE */
        return set_error(in, FSDPA_EPARSE, OFF(i), "unexpected data after the JSON document");
    }
  }
#undef OFF
  in->pos = i;
  return FSDPA_OK;
}

/* ------------------------------------------------------------------ */
/* window                                                              */

static fsdpa_status ensure_window(fsdpa_input *in) {
  if (in->w) return FSDPA_OK;
  size_t n = IN_HEAD + in->win_default + IN_PAD;
  in->w = (char *)fa_malloc(in->a, n);
  if (!in->w) return alloc_error(in);
  memset(in->w, 0, n);
  in->walloc = n;
  in->wcap = in->win_default;
  return FSDPA_OK;
}

/* Until the first non-blank byte after the first array's '[' is known.
 * The splitter only passes blanks before it, so the bytes it already
 * scanned (and compaction may have dropped) were blanks. */
static void peek_first(fsdpa_input *in, const char *b) {
  for (size_t i = in->pos; i < in->wlen; i++) {
    if (is_ws((unsigned char)b[i])) continue;
    in->arr_nonempty = b[i] != ']';
    in->arr_peek = 0;
    return;
  }
}

/* Scan everything in the window.  eof: also the last partial SIMD block. */
static fsdpa_status run(fsdpa_input *in, int eof) {
  char *b = in->w + IN_HEAD;
  for (;;) {
    if (in->mode == MODE_EVENTS) {
      if (in->arr_peek) peek_first(in, b);
      size_t p = in->pos;
      int r = ev_scan_run(&in->ev, in->simd, b, &p, in->wlen, eof);
      in->pos = p;
      /* an event is too big as soon as more than max_event of its bytes are
       * scanned (or when it closes, in the scanner): either way every
       * chunking reports the same error */
      int too_big = r == EVS_MORE && in->ev.depth > 0 && p - in->ev.ev_begin > in->event_max;
      if (r == EVS_MORE && !too_big) return FSDPA_OK;
      fsdpa_status st = flush(in); /* events before the error / the ']' first */
      if (st) return st;
      if (too_big || (r == EVS_ERROR && in->ev.err_kind == EVE_LIMIT)) {
        size_t at = too_big ? in->ev.ev_begin : in->ev.err_pos;
        return set_error(in, FSDPA_ELIMIT, (int64_t)(in->wbase + at), "event larger than the limit of %zu bytes",
                         in->event_max);
      }
      if (r == EVS_ERROR) {
        int64_t off = (int64_t)(in->wbase + in->ev.err_pos);
        if (in->ev.err_kind == EVE_NOTOBJ)
          return set_error(in, FSDPA_ENOTTRACE, off, "not a Kineto trace: %s", in->ev.err_what);
        return set_error(in, FSDPA_EPARSE, off, "%s", in->ev.err_what);
      }
      in->mode = MODE_TOP;
      in->top.st = in->bare ? T_DONE : T_AFTER;
    } else {
      if (in->pos >= in->wlen) return FSDPA_OK;
      fsdpa_status st = scan_top(in, b);
      if (st) return st;
      if (in->mode != MODE_EVENTS) return FSDPA_OK;
    }
  }
}

/* Free room in a full window: decode the complete events, keep only the
 * event in progress (and the < 64 unscanned bytes), grow for big events. */
static fsdpa_status make_room(fsdpa_input *in) {
  fsdpa_status st = flush(in);
  if (st) return st;
  int in_event = in->mode == MODE_EVENTS && in->ev.depth > 0;
  size_t keep = in_event ? in->ev.ev_begin : in->pos;
  char *b = in->w + IN_HEAD;
  if (keep > 0) {
    memmove(b, b + keep, in->wlen - keep);
    in->wlen -= keep;
    in->pos -= keep;
    in->wbase += keep;
    if (in->mode == MODE_EVENTS) ev_scan_rebase(&in->ev, keep);
  }
  if (in->wlen * 2 <= in->wcap) return FSDPA_OK;
  /* more than half the window is one event in progress: grow.  run()
   * stops events past max_event, so max_event + the default window (>= 64,
   * the unscanned tail) is always enough. */
  size_t maxcap = in->event_max + in->win_default;
  if (in->wcap >= maxcap) {
    if (in->wlen < in->wcap) return FSDPA_OK;
    return set_error(in, FSDPA_ELIMIT, (int64_t)in->wbase, "event larger than the limit of %zu bytes",
                     in->event_max); /* not reached */
  }
  size_t ncap = in->wcap * 2 < maxcap ? in->wcap * 2 : maxcap;
  size_t nalloc = IN_HEAD + ncap + IN_PAD;
  char *nw = (char *)fa_realloc(in->a, in->w, in->walloc, nalloc);
  if (!nw) return alloc_error(in);
  memset(nw + IN_HEAD + in->wcap, 0, ncap - in->wcap + IN_PAD);
  in->w = nw;
  in->walloc = nalloc;
  in->wcap = ncap;
  return FSDPA_OK;
}

/* Everything up to an input-level error is scanned and decoded first, so
 * that an earlier error in the JSON wins and the delivered events do not
 * depend on the chunking. */
static fsdpa_status drain(fsdpa_input *in) {
  fsdpa_status st = run(in, 1);
  if (st) return st;
  return flush(in);
}

/* n new bytes were written at the end of the window. */
static fsdpa_status window_put(fsdpa_input *in, size_t n) {
  int over = 0;
  if (in->max_input && in->json_bytes + n > in->max_input) {
    n = (size_t)(in->max_input - in->json_bytes);
    over = 1;
  }
  in->wlen += n;
  in->json_bytes += n;
  fsdpa_status st = run(in, 0);
  if (st) return st;
  if (over) {
    st = drain(in);
    if (st) return st;
    return set_error(in, FSDPA_ELIMIT, (int64_t)in->max_input,
                     "input larger than max_input_bytes (%llu bytes of JSON)",
                     (unsigned long long)in->max_input);
  }
  return FSDPA_OK;
}

static fsdpa_status gzip_error(fsdpa_input *in, int r) {
  fsdpa_status st = drain(in);
  if (st) return st;
  if (r == INFL_ENOMEM) return alloc_error(in);
  return set_error(in, FSDPA_EPARSE, (int64_t)in->json_bytes, "corrupt gzip data: %s (compressed byte %llu)",
                   infl_msg(&in->dec), (unsigned long long)in->dec.in_off);
}

/* Decode d[0, len) straight into the window.  eof: nothing follows. */
static fsdpa_status push(fsdpa_input *in, const unsigned char *d, size_t len, int eof) {
  fsdpa_status st = ensure_window(in);
  if (st) return st;
  for (;;) {
    if (in->wlen == in->wcap) {
      st = make_room(in);
      if (st) return st;
    }
    size_t room = in->wcap - in->wlen, used, made;
    int r = infl_run(&in->dec, d, len, &used, in->w + IN_HEAD + in->wlen, room, &made, eof);
    if (used) { /* d is NULL when finish flushes a lone held byte */
      d += used;
      len -= used;
    }
    if (made) {
      st = window_put(in, made);
      if (st) return st;
    }
    if (r) return gzip_error(in, r);
    /* all of d taken and nothing pending: done (a full window is made room
     * in only when more bytes come, as the chunking would have it) */
    if (made < room || (!len && !infl_more(&in->dec))) return FSDPA_OK;
  }
}

/* ------------------------------------------------------------------ */
/* API                                                                 */

fsdpa_status input_new(fsdpa_input **out, fa_alloc *a, const char *name, uint64_t max_input_bytes,
                       const input_sink *sink) {
  if (!out || !a) return FSDPA_EINVAL;
  *out = NULL;
  fsdpa_input *in = (fsdpa_input *)fa_calloc(a, sizeof *in);
  if (!in) return fa_fail_status(a);
  in->a = a;
  if (!name) name = "<input>";
  in->name_size = strlen(name) + 1;
  in->name = (char *)fa_malloc(a, in->name_size);
  if (!in->name) {
    fsdpa_status st = fa_fail_status(a);
    fa_free(a, in, sizeof *in);
    return st;
  }
  memcpy(in->name, name, in->name_size);
  in->max_input = max_input_bytes;
  if (sink) in->sink = *sink;
  in->err_off = FSDPA_ABSENT;
  in->win_default = IN_WINDOW_DEFAULT;
  in->event_max = IN_EVENT_MAX;
  in->simd = ev_scan_simd_available();
  in->top.st = T_VALUE;
  in->arr_off = FSDPA_ABSENT;
  infl_init(&in->dec, a);
  in->meta.size = sizeof in->meta;
  in->meta.rank = in->meta.world_size = in->meta.base_time_ns = FSDPA_ABSENT;
  *out = in;
  return FSDPA_OK;
}

void input_free(fsdpa_input *in) {
  if (!in) return;
  fa_alloc *a = in->a;
  infl_free(&in->dec);
  if (in->sj) {
    sj_parser_destroy(in->sj);
    uncharge(a, in->sj_charged);
  }
  fa_free(a, in->sj_mem, sj_parser_size());
  fa_free(a, in->w, in->walloc);
  fa_free(a, in->name, in->name_size);
  fa_free(a, in, sizeof *in);
}

fsdpa_status input_tune(fsdpa_input *in, size_t window, size_t max_event, int simd) {
  if (!in) return FSDPA_EINVAL;
  if (in->w || infl_started(&in->dec)) return FSDPA_ESTATE;
  if (window) in->win_default = window < IN_WINDOW_MIN ? IN_WINDOW_MIN : window;
  if (max_event) in->event_max = max_event;
  if (simd == 0) in->simd = 0;
  else if (simd > 0) in->simd = ev_scan_simd_available();
  return FSDPA_OK;
}

int input_simd_active(const fsdpa_input *in) { return in ? in->simd : 0; }
const char *input_json_impl(void) { return sj_implementation_name(); }

fsdpa_status input_feed(fsdpa_input *in, const void *data, size_t len) {
  if (!in) return FSDPA_EINVAL;
  if (in->state != ST_OPEN) return FSDPA_ESTATE;
  if (!len) return FSDPA_OK;
  if (!data) return FSDPA_EINVAL;
  const unsigned char *d = (const unsigned char *)data;
  in->bytes_in += len;
  return push(in, d, len, 0);
}

fsdpa_status input_finish(fsdpa_input *in) {
  if (!in) return FSDPA_EINVAL;
  if (in->state != ST_OPEN) return FSDPA_ESTATE;
  fsdpa_status st;
  if (in->dec.fmt == INFL_UNKNOWN && in->dec.hdr_len) { /* a lone first byte 1f: plain */
    st = push(in, NULL, 0, 1);
    if (st) return st;
  }
  if (in->w) {
    st = drain(in);
    if (st) return st;
  }
  int gz_cut = infl_truncated(&in->dec);
  const char *gz_note = gz_cut ? " (the gzip stream is truncated)" : "";
  int64_t end = (int64_t)in->json_bytes;
  if (in->mode == MODE_EVENTS) {
    if (!in->bare)
      return set_error(in, FSDPA_ETRUNCATED, end, "truncated: input ends inside the traceEvents array%s", gz_note);
    if (in->ev.depth > 0)
      return set_error(in, FSDPA_ETRUNCATED, end, "truncated: input ends inside an event%s", gz_note);
    /* an unterminated top-level array is valid Chrome JSON Array Format */
  } else if (in->top.st != T_DONE) {
    if (!in->top.seen && in->top.st == T_VALUE) {
      if (gz_cut)
        return set_error(in, FSDPA_ETRUNCATED, end, "truncated: the gzip stream ends early");
      return set_error(in, FSDPA_ENOTTRACE, FSDPA_ABSENT, "not a Kineto trace: %s",
                       in->bytes_in ? "no JSON value in the input" : "empty input");
    }
    return set_error(in, FSDPA_ETRUNCATED, end, "truncated: input ends inside the JSON document%s", gz_note);
  }
  if (gz_cut) return set_error(in, FSDPA_ETRUNCATED, end, "truncated: the gzip stream ends early");
  in->state = ST_DONE;
  return FSDPA_OK;
}

const char *input_errmsg(const fsdpa_input *in) {
  return in && in->state == ST_ERROR ? in->msg : "";
}

int64_t input_error_offset(const fsdpa_input *in) {
  return in && in->state == ST_ERROR ? in->err_off : FSDPA_ABSENT;
}

uint64_t input_bytes_in(const fsdpa_input *in) { return in ? in->bytes_in : 0; }
uint64_t input_json_bytes(const fsdpa_input *in) { return in ? in->json_bytes : 0; }
uint64_t input_events(const fsdpa_input *in) { return in ? in->events : 0; }
int64_t input_events_array_offset(const fsdpa_input *in) { return in ? in->arr_off : FSDPA_ABSENT; }
int input_events_array_nonempty(const fsdpa_input *in) {
  return in && in->arr_off != FSDPA_ABSENT && !in->arr_peek && in->arr_nonempty;
}
