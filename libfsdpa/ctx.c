#include "ctx.h"
#include "util/abi.h"
#include "util/error.h"
#include "input/input.h"
#include "util/list.h"
#include "fsdpa_config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t fsdpa_version(void) { return FSDPA_VERSION_HEX; }

const char *fsdpa_version_string(void) { return FSDPA_VERSION_STRING; }

const char *fsdpa_status_str(fsdpa_status st) {
  switch (st) {
    case FSDPA_OK: return "FSDPA_OK: success";
    case FSDPA_ENOMEM: return "FSDPA_ENOMEM: out of memory";
    case FSDPA_EINVAL: return "FSDPA_EINVAL: invalid argument";
    case FSDPA_EPARSE: return "FSDPA_EPARSE: malformed input";
    case FSDPA_ENOTTRACE: return "FSDPA_ENOTTRACE: not a Kineto trace";
    case FSDPA_ETRUNCATED: return "FSDPA_ETRUNCATED: input ended inside the document";
    case FSDPA_ELIMIT: return "FSDPA_ELIMIT: a configured limit was reached";
    case FSDPA_ESTATE: return "FSDPA_ESTATE: call not valid in this state";
    case FSDPA_EBUFS: return "FSDPA_EBUFS: buffer too small";
    case FSDPA_EIO: return "FSDPA_EIO: read error";
  }
  return "unknown status";
}

/* Defaults for a caller of any release: at most the caller's `size` bytes
 * are written (see fsdpa.h, versioned structs). */
void fsdpa_options_init_sized(fsdpa_options *o, size_t size) {
  if (!o || size < sizeof(size_t)) return;
  fsdpa_options d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.rank = FSDPA_ABSENT;
  memcpy(o, &d, size < sizeof d ? size : sizeof d);
  o->size = size;
}

fsdpa_status ctx_fail(fsdpa_ctx *c, fsdpa_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->err, sizeof c->err, fmt, ap);
  va_end(ap);
  /* allocation sites say "out of memory" whatever refused them: when it
   * was the cap, the caller must learn that (ELIMIT, not a real OOM) */
  if (st == FSDPA_ELIMIT && c->alloc.limit_hit && !strstr(c->err, "cap") && !strstr(c->err, "limit")) {
    size_t n = strlen(c->err);
    snprintf(c->err + n, sizeof c->err - n, " (memory cap of %llu bytes reached)",
             (unsigned long long)c->alloc.cap);
  }
  return st;
}

fsdpa_status ctx_check_many(fsdpa_ctx *const *ctxs, size_t n, fsdpa_error *err, const char *fn) {
  if (!err_clear(err)) return FSDPA_EINVAL;
  if (!ctxs || !n) return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "%s: no contexts", fn);
  for (size_t i = 0; i < n; i++)
    if (!ctxs[i]) return err_set(err, FSDPA_EINVAL, (int64_t)i, FSDPA_ABSENT, "%s: context %zu is NULL", fn, i);
  for (size_t i = 0; i < n; i++) ctx_clear(ctxs[i]);
  return FSDPA_OK;
}

fsdpa_status ctx_err_out(fsdpa_error *err, fsdpa_status st, fsdpa_ctx *c, int64_t i) {
  const char *m = c && c->err[0] ? c->err : fsdpa_status_str(st);
  return err_set(err, st, i, FSDPA_ABSENT, "%s", m);
}

static void set_name(fsdpa_ctx *c, const char *name) {
  if (!name) name = "<input>";
  size_t n = strlen(name) + 1;
  char *p = fa_malloc(&c->alloc, n);
  if (!p) return;  /* messages fall back to "<input>" */
  memcpy(p, name, n);
  fa_free(&c->alloc, c->name, c->name_cap);
  c->name = p;
  c->name_cap = n;
}

fsdpa_status fsdpa_ctx_new(fsdpa_ctx **out, const fsdpa_options *opts) {
  if (!out) return FSDPA_EINVAL;
  *out = NULL;
  fsdpa_options o;
  fsdpa_options_init(&o);
  if (opts && !ABI_IN(fsdpa_options, &o, opts)) return FSDPA_EINVAL;
  fsdpa_allocator user;
  if (o.allocator) {
    /* the callbacks are copied at the caller's size too, and must be whole */
    memset(&user, 0, sizeof user);
    user.size = sizeof user;
    if (!ABI_IN(fsdpa_allocator, &user, o.allocator) || !user.malloc_fn || !user.realloc_fn || !user.free_fn)
      return FSDPA_EINVAL;
    o.allocator = &user;
  }
  fa_alloc a;
  fa_init(&a, o.allocator, o.max_memory_bytes);
  fsdpa_ctx *c = fa_calloc(&a, sizeof *c);
  if (!c) return fa_fail_status(&a);
  c->alloc = a;
  store_init(&c->st);
  c->max_input_bytes = o.max_input_bytes;
  c->rank_opt = o.rank;
  fsdpa_trace_info_init(&c->info);
  c->info.rank = o.rank;
  c->declared_rank = FSDPA_ABSENT;
  c->err_offset = FSDPA_ABSENT;
  for (int i = 0; i < P__COUNT; i++) c->params[i] = param_default(i);
  set_name(c, o.name);
  *out = c;
  return FSDPA_OK;
}

void *ctx_cache_get(fsdpa_ctx *c, int slot) {
  if (!c->cache[slot]) return NULL;
  if (c->cache_gen[slot] != c->st.gen || c->cache_events[slot] != c->st.stats.events ||
      memcmp(c->cache_params[slot], c->params, sizeof c->params) != 0) {
    /* stale: release it now so the rebuild does not hold both (memory caps) */
    c->cache_free[slot](c, c->cache[slot]);
    c->cache[slot] = NULL;
    return NULL;
  }
  return c->cache[slot];
}

void ctx_cache_put(fsdpa_ctx *c, int slot, void *obj, ctx_cache_free_fn fn) {
  if (c->cache[slot]) c->cache_free[slot](c, c->cache[slot]);
  c->cache[slot] = obj;
  c->cache_free[slot] = fn;
  c->cache_gen[slot] = c->st.gen;
  c->cache_events[slot] = c->st.stats.events;
  memcpy(c->cache_params[slot], c->params, sizeof c->params);
}

fsdpa_status ctx_cache_obtain(fsdpa_ctx *c, int slot, size_t size, ctx_cache_build_fn build, const void *arg,
                              ctx_cache_free_fn fn, const void **out) {
  *out = ctx_cache_get(c, slot);
  if (*out) return FSDPA_OK;
  void *n = fa_malloc(&c->alloc, size);
  if (!n) return fa_fail_status(&c->alloc);
  fsdpa_status st = build(c, n, arg);
  if (st) {
    fa_free(&c->alloc, n, size);
    return st;
  }
  ctx_cache_put(c, slot, n, fn);
  *out = n;
  return FSDPA_OK;
}

void ctx_cache_clear(fsdpa_ctx *c) {
  /* in reverse: a later slot may borrow from an earlier one */
  for (int i = CACHE__COUNT - 1; i >= 0; i--)
    if (c->cache[i]) {
      c->cache_free[i](c, c->cache[i]);
      c->cache[i] = NULL;
    }
}

void fsdpa_ctx_free(fsdpa_ctx *c) {
  if (!c) return;
  ctx_cache_clear(c);
  if (c->input) input_free(c->input);
  store_free(&c->alloc, &c->st);
  fa_free(&c->alloc, c->name, c->name_cap);
  fa_alloc a = c->alloc;
  fa_free(&a, c, sizeof *c);
}

const char *fsdpa_errmsg(const fsdpa_ctx *c) { return c ? c->err : ""; }
int64_t fsdpa_error_offset(const fsdpa_ctx *c) { return c ? c->err_offset : FSDPA_ABSENT; }


/* ---- events ---- */

/* Defaults for a caller of any release: at most the caller's `size` bytes
 * are written (see fsdpa.h, versioned structs). */
void fsdpa_event_init_sized(fsdpa_event *ev, size_t size) {
  if (!ev || size < sizeof(size_t)) return;
  fsdpa_event d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.pid = d.tid = d.ts_ns = d.dur_ns = FSDPA_ABSENT;
  d.correlation = d.external_id = d.stream = d.device = FSDPA_ABSENT;
  d.bytes = d.total_allocated = d.total_reserved = FSDPA_ABSENT;
  d.device_type = d.device_id = FSDPA_ABSENT;
  d.in_msg_nelems = d.out_msg_nelems = d.group_size = d.seq = FSDPA_ABSENT;
  d.wait_on_stream = d.wait_on_event_corr = FSDPA_ABSENT;
  memcpy(ev, &d, size < sizeof d ? size : sizeof d);
  ev->size = size;
}

static fsdpa_status add_event(fsdpa_ctx *c, const fsdpa_event *ev) {
  fsdpa_status st = store_add(&c->alloc, &c->st, ev);
  if (st != FSDPA_OK)
    return ctx_fail(c, st, "%s: %s while storing event %llu", c->name ? c->name : "<input>",
                    st == FSDPA_ELIMIT ? "memory cap reached" : fsdpa_status_str(st),
                    (unsigned long long)c->st.stats.events);
  return FSDPA_OK;
}

fsdpa_status fsdpa_event_add(fsdpa_ctx *c, const fsdpa_event *ev) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!ev) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_event_add: NULL event");
  fsdpa_event e;
  fsdpa_event_init(&e);
  if (!ABI_IN(fsdpa_event, &e, ev)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_event.size too small");
  return add_event(c, &e);
}

/* Defaults for a caller of any release: at most the caller's `size` bytes
 * are written (see fsdpa.h, versioned structs). */
void fsdpa_trace_info_init_sized(fsdpa_trace_info *i, size_t size) {
  if (!i || size < sizeof(size_t)) return;
  fsdpa_trace_info d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.rank = d.world_size = d.base_time_ns = FSDPA_ABSENT;
  memcpy(i, &d, size < sizeof d ? size : sizeof d);
  i->size = size;
}

fsdpa_status fsdpa_trace_info_set(fsdpa_ctx *c, const fsdpa_trace_info *info) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  fsdpa_trace_info in;
  fsdpa_trace_info_init(&in);
  if (!info || !ABI_IN(fsdpa_trace_info, &in, info)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_trace_info.size");
  return ctx_set_trace_info(c, &in);
}

fsdpa_status ctx_set_trace_info(fsdpa_ctx *c, const fsdpa_trace_info *i) {
  fsdpa_trace_info was = c->info;
  /* an explicit rank option wins over the trace's own distributedInfo */
  if (i->rank != FSDPA_ABSENT && c->rank_opt == FSDPA_ABSENT) c->info.rank = i->rank;
  if (i->world_size != FSDPA_ABSENT) c->info.world_size = i->world_size;
  /* a base beyond ±2^61 ns is not a clock reading; keep sums in int64 */
  if (i->base_time_ns != FSDPA_ABSENT && i->base_time_ns >= -STORE_MAX_TIME &&
      i->base_time_ns <= STORE_MAX_TIME)
    c->info.base_time_ns = i->base_time_ns;
  /* cached results hold absolute times and rank numbers (findings, the
   * report's rank section): a new base or rank makes them stale */
  if (was.rank != c->info.rank || was.world_size != c->info.world_size ||
      was.base_time_ns != c->info.base_time_ns)
    ctx_cache_clear(c);
  return FSDPA_OK;
}

fsdpa_status fsdpa_trace_info_get(fsdpa_ctx *c, fsdpa_trace_info *out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out || !ABI_OUT(fsdpa_trace_info, out, &c->info)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_trace_info.size");
  return FSDPA_OK;
}

/* ---- devices ---- */

/* Defaults for a caller of any release: at most the caller's `size` bytes
 * are written (see fsdpa.h, versioned structs). */
void fsdpa_device_info_init_sized(fsdpa_device_info *d, size_t size) {
  if (!d || size < sizeof(size_t)) return;
  fsdpa_device_info x;
  memset(&x, 0, sizeof x);
  x.size = sizeof x;
  x.device = x.sms = x.compute_major = x.compute_minor = x.total_memory_bytes = FSDPA_ABSENT;
  memcpy(d, &x, size < sizeof x ? size : sizeof x);
  d->size = size;
}

static fsdpa_status set_device(fsdpa_ctx *c, const fsdpa_device_info *d) {
  fsdpa_status st = store_set_device(&c->alloc, &c->st, d);
  if (st) return ctx_fail(c, st, "out of memory storing device %lld", (long long)d->device);
  return FSDPA_OK;
}

fsdpa_status fsdpa_device_info_set(fsdpa_ctx *c, const fsdpa_device_info *info) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  fsdpa_device_info d;
  fsdpa_device_info_init(&d);
  if (!info || !ABI_IN(fsdpa_device_info, &d, info)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_device_info.size");
  if (d.device == FSDPA_ABSENT || d.device < 0)
    return ctx_fail(c, FSDPA_EINVAL, "fsdpa_device_info.device must be a device index (>= 0)");
  d.name[sizeof d.name - 1] = 0;
  return set_device(c, &d);
}

fsdpa_status fsdpa_device_list(fsdpa_ctx *c, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_device_list: NULL out");
  *out = NULL;
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_DEVICES);
  for (size_t i = 0; i < c->st.devices.len; i++) lb_push(&b, &FA_VEC_AT(&c->st.devices, fsdpa_device_info, i));
  fsdpa_status st = lb_finish(&b, out);
  return st ? ctx_fail(c, st, "out of memory listing devices") : FSDPA_OK;
}

/* ---- feeding ---- */

static fsdpa_status sink_event(void *ud, const fsdpa_event *ev) { return add_event(ud, ev); }
/* distributedInfo as the file writes it: its rank is kept apart from the
 * number a caller may give the trace (fsdpa_trace_info_set(), options) */
static fsdpa_status sink_meta(void *ud, const fsdpa_trace_info *i) {
  fsdpa_ctx *c = ud;
  if (i->rank != FSDPA_ABSENT && i->rank != c->declared_rank) {
    c->declared_rank = i->rank;
    ctx_cache_clear(c);
  }
  return ctx_set_trace_info(c, i);
}

static fsdpa_status sink_device(void *ud, const fsdpa_device_info *d) { return set_device(ud, d); }

static fsdpa_status input_error(fsdpa_ctx *c, fsdpa_status st) {
  c->failed = 1;
  if (!c->err[0]) {
    const char *m = c->input ? input_errmsg(c->input) : "";
    snprintf(c->err, sizeof c->err, "%s", m[0] ? m : fsdpa_status_str(st));
  }
  if (c->input) c->err_offset = input_error_offset(c->input);
  return st;
}

static fsdpa_status ensure_input(fsdpa_ctx *c) {
  if (c->input) return FSDPA_OK;
  input_sink sink = {sink_event, sink_meta, c, sink_device};
  fsdpa_status st = input_new(&c->input, &c->alloc, c->name ? c->name : "<input>",
                              c->max_input_bytes, &sink);
  if (st != FSDPA_OK)
    return ctx_fail(c, st, "%s: cannot create the input parser: %s",
                    c->name ? c->name : "<input>", fsdpa_status_str(st));
  return FSDPA_OK;
}

fsdpa_status fsdpa_feed(fsdpa_ctx *c, const void *data, size_t len) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!data && len) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_feed: NULL data");
  if (c->failed || c->finished) {
    return ctx_fail(c, FSDPA_ESTATE, "%s: %s", c->name ? c->name : "<input>",
                    c->failed ? "input already failed; no more bytes accepted"
                              : "fsdpa_finish() was already called");
  }
  fsdpa_status st = ensure_input(c);
  if (st != FSDPA_OK) return st;
  st = input_feed(c->input, data, len);
  c->st.stats.input_bytes = input_bytes_in(c->input);
  c->st.stats.json_bytes = input_json_bytes(c->input);
  return st == FSDPA_OK ? st : input_error(c, st);
}

fsdpa_status fsdpa_finish(fsdpa_ctx *c) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (c->failed)
    return ctx_fail(c, FSDPA_ESTATE, "%s: %s", c->name ? c->name : "<input>", "input already failed");
  /* finished (by fsdpa_feed_file(), or an earlier call): the input is
   * whole, which is all a second call asks */
  if (c->finished) return FSDPA_OK;
  fsdpa_status st = ensure_input(c);
  if (st != FSDPA_OK) return st;
  c->finished = 1;
  st = input_finish(c->input);
  c->st.stats.input_bytes = input_bytes_in(c->input);
  c->st.stats.json_bytes = input_json_bytes(c->input);
  return st == FSDPA_OK ? st : input_error(c, st);
}

fsdpa_status fsdpa_feed_file(fsdpa_ctx *c, const char *path) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!path) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_feed_file: NULL path");
  if (c->failed || c->finished)
    return ctx_fail(c, FSDPA_ESTATE, "%s: %s", path,
                    c->failed ? "input already failed; no more bytes accepted" : "fsdpa_finish() was already called");
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) {
    c->failed = 1;
    return ctx_fail(c, FSDPA_EIO, "%s: cannot open: %s", path, strerror(errno));
  }
  enum { BUF = 1 << 20 };
  char *buf = fa_malloc(&c->alloc, BUF);
  fsdpa_status st = FSDPA_OK;
  if (!buf) {
    st = ctx_fail(c, fa_fail_status(&c->alloc), "%s: out of memory", path);
  } else {
    size_t n;
    while ((n = fread(buf, 1, BUF, f)) > 0) {
      st = fsdpa_feed(c, buf, n);
      if (st != FSDPA_OK) break;
    }
    if (st == FSDPA_OK && ferror(f)) {
      c->failed = 1;
      st = ctx_fail(c, FSDPA_EIO, "%s: read error: %s", path, strerror(errno));
    }
    if (st == FSDPA_OK) st = fsdpa_finish(c);
  }
  fa_free(&c->alloc, buf, BUF);
  if (f != stdin) fclose(f);
  return st;
}

fsdpa_status fsdpa_stats_get(fsdpa_ctx *c, fsdpa_stats *out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!ABI_OK(fsdpa_stats, out)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_stats.size");
  fsdpa_stats s = c->st.stats;
  s.size = sizeof s;
  s.memory_bytes = c->alloc.used;
  s.names = intern_count(&c->st.names);
  ABI_OUT(fsdpa_stats, out, &s);
  return FSDPA_OK;
}

const store_views *ctx_views(fsdpa_ctx *c) {
  const store_views *v = store_get_views(&c->alloc, &c->st);
  if (!v) ctx_fail(c, fa_fail_status(&c->alloc), "out of memory building the timeline views");
  return v;
}
