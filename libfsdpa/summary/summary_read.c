/* Reading summaries back.  Unknown keys are skipped (later versions may add
 * fields); missing required parts or malformed values are EPARSE with the
 * byte offset in the message. */
#include "summary/summary.h"
#include <stdio.h>
#include <string.h>

typedef struct rd {
  jr r;
  sum_doc *d;
  int oom;
} rd;

static const char *arena_strn(rd *x, const char *raw, size_t n, size_t *len);
static const char *arena_str(rd *x, const char *raw, size_t n) {
  size_t len;
  return arena_strn(x, raw, n, &len);
}

/* Decoded into the arena; *len is the decoded length (names may hold NUL). */
static const char *arena_strn(rd *x, const char *raw, size_t n, size_t *len) {
  sum_doc *d = x->d;
  if (d->arena_cap - d->arena_used < n + 1) {
    x->oom = 1;  /* cannot happen: the arena is sized from the input */
    jr_fail(&x->r, "summary arena exhausted");
    return NULL;
  }
  char *o = d->arena + d->arena_used;
  *len = jr_unescape(raw, n, o);
  d->arena_used += *len + 1;
  return o;
}

static const char *arena_copy(rd *x, const char *b, size_t n) {
  sum_doc *d = x->d;
  if (d->arena_cap - d->arena_used < n + 1) {
    jr_fail(&x->r, "summary arena exhausted");
    return NULL;
  }
  char *o = d->arena + d->arena_used;
  memcpy(o, b, n);
  o[n] = 0;
  d->arena_used += n + 1;
  return o;
}

static const char *read_str(rd *x) {
  const char *raw;
  size_t n;
  if (!jr_str(&x->r, &raw, &n)) return NULL;
  return arena_str(x, raw, n);
}

static int skip(rd *x) {
  const char *b, *e;
  return jr_skip(&x->r, &b, &e);
}

static int read_input(rd *x, sum_rank *s) {
  size_t i = 0;
  const char *k;
  size_t kn;
  int have_rank = 0;
  if (!jr_obj_begin(&x->r)) return 0;
  while (jr_obj_next(&x->r, &i, &k, &kn)) {
    if (jr_key_is(k, kn, "path")) s->path = read_str(x);
    else if (jr_key_is(k, kn, "rank")) have_rank = jr_i64(&x->r, &s->rank, FSDPA_ABSENT);
    else if (jr_key_is(k, kn, "world_size")) jr_i64(&x->r, &s->world_size, FSDPA_ABSENT);
    else if (jr_key_is(k, kn, "events")) jr_i64(&x->r, &s->events, 0);
    else if (jr_key_is(k, kn, "bytes")) jr_i64(&x->r, &s->bytes, 0);
    else skip(x);
    if (!jr_ok(&x->r)) return 0;
  }
  if (!jr_ok(&x->r)) return 0;
  if (!s->path || !have_rank || s->rank == FSDPA_ABSENT) return jr_fail(&x->r, "input needs path and rank");
  if (s->events < 0 || s->bytes < 0) return jr_fail(&x->r, "negative count in input");
  return 1;
}

static const char *const PARAM_NAMES[P__COUNT] = {
#define PARAM(id, name, def, desc) name,
#include "params.def"
#undef PARAM
};
static const int64_t PARAM_DEFAULTS[P__COUNT] = {
#define PARAM(id, name, def, desc) def,
#include "params.def"
#undef PARAM
};

/* Known parameter names take the summary's value; others (a later
 * library's) are skipped. */
static int read_params(rd *x, sum_rank *s) {
  size_t i = 0;
  const char *k;
  size_t kn;
  if (!jr_obj_begin(&x->r)) return 0;
  while (jr_obj_next(&x->r, &i, &k, &kn)) {
    int p = 0;
    while (p < P__COUNT && !jr_key_is(k, kn, PARAM_NAMES[p])) p++;
    if (p < P__COUNT) jr_i64(&x->r, &s->params[p], PARAM_DEFAULTS[p]);
    else skip(x);
    if (!jr_ok(&x->r)) return 0;
    if (p < P__COUNT && !param_ok(p, s->params[p])) return jr_fail(&x->r, "parameter out of range");
  }
  return jr_ok(&x->r);
}

static int sev_of(const char *s) {
  if (!strcmp(s, "critical")) return SEV_CRITICAL;
  if (!strcmp(s, "warning")) return SEV_WARNING;
  if (!strcmp(s, "info")) return SEV_INFO;
  return -1;
}

static int read_ranges(rd *x, sum_finding *f) {
  size_t i = 0;
  if (!jr_arr_begin(&x->r)) return 0;
  while (jr_arr_next(&x->r, &i)) {
    size_t j = 0;
    int64_t v[2] = {0, 0};
    int nv = 0;
    if (!jr_arr_begin(&x->r)) return 0;
    while (jr_arr_next(&x->r, &j)) {
      if (nv == 2) return jr_fail(&x->r, "a range has two numbers");
      if (!jr_i64(&x->r, &v[nv++], 0)) return 0;
    }
    if (!jr_ok(&x->r)) return 0;
    if (nv != 2) return jr_fail(&x->r, "a range has two numbers");
    if (f->nranges < FINDING_MAX_RANGES) f->ranges[f->nranges++] = (iv){v[0], v[1]};
  }
  return jr_ok(&x->r);
}

static int read_finding(rd *x, sum_finding *f) {
  size_t i = 0;
  const char *k, *sev = NULL;
  size_t kn;
  memset(f, 0, sizeof *f);
  f->rank = f->step = FSDPA_ABSENT;
  if (!jr_obj_begin(&x->r)) return 0;
  while (jr_obj_next(&x->r, &i, &k, &kn)) {
    if (jr_key_is(k, kn, "id")) f->id = read_str(x);
    else if (jr_key_is(k, kn, "severity")) sev = read_str(x);
    else if (jr_key_is(k, kn, "rank")) jr_i64(&x->r, &f->rank, FSDPA_ABSENT);
    else if (jr_key_is(k, kn, "step")) jr_i64(&x->r, &f->step, FSDPA_ABSENT);
    else if (jr_key_is(k, kn, "cost_ns")) jr_i64(&x->r, &f->cost, 0);
    else if (jr_key_is(k, kn, "title")) f->title = read_str(x);
    else if (jr_key_is(k, kn, "detail")) f->detail = read_str(x);
    else if (jr_key_is(k, kn, "advice")) f->advice = read_str(x);
    else if (jr_key_is(k, kn, "evidence_text")) f->evidence = read_str(x);
    else if (jr_key_is(k, kn, "evidence")) {
      const char *b, *e;
      if (jr_peek(&x->r) != '{') return jr_fail(&x->r, "evidence must be an object");
      if (jr_skip(&x->r, &b, &e)) f->evidence = arena_copy(x, b, (size_t)(e - b));
    } else if (jr_key_is(k, kn, "ranges")) read_ranges(x, f);
    else if (jr_key_is(k, kn, "ranges_total")) jr_i64(&x->r, &f->ranges_total, 0);
    else skip(x);
    if (!jr_ok(&x->r)) return 0;
  }
  if (!jr_ok(&x->r)) return 0;
  if (!f->id || !sev || !f->title || !f->detail || !f->advice)
    return jr_fail(&x->r, "finding needs id, severity, title, detail and advice");
  if ((f->severity = sev_of(sev)) < 0) return jr_fail(&x->r, "unknown severity");
  if (!f->evidence) f->evidence = "{}";
  if (f->ranges_total < 0) return jr_fail(&x->r, "negative ranges_total");
  return 1;
}

static int read_not_judged(rd *x, sum_rank *s) {
  size_t i = 0;
  fa_alloc *a = x->d->a;
  if (!jr_arr_begin(&x->r)) return 0;
  while (jr_arr_next(&x->r, &i)) {
    if (s->nnj == s->njcap) {
      size_t nc = s->njcap ? s->njcap * 2 : 8;
      sum_not_judged *nv = fa_realloc(a, s->nj, s->njcap * sizeof *nv, nc * sizeof *nv);
      if (!nv) {
        x->oom = 1;
        return jr_fail(&x->r, "out of memory");
      }
      s->nj = nv;
      s->njcap = nc;
    }
    sum_not_judged *n = &s->nj[s->nnj];
    memset(n, 0, sizeof *n);
    size_t j = 0;
    const char *k;
    size_t kn;
    if (!jr_obj_begin(&x->r)) return 0;
    while (jr_obj_next(&x->r, &j, &k, &kn)) {
      if (jr_key_is(k, kn, "rule")) n->rule = read_str(x);
      else if (jr_key_is(k, kn, "reason")) n->reason = read_str(x);
      else if (jr_key_is(k, kn, "would_judge")) n->would = read_str(x);
      else skip(x);
      if (!jr_ok(&x->r)) return 0;
    }
    if (!jr_ok(&x->r)) return 0;
    if (!n->rule || !n->reason || !n->would) return jr_fail(&x->r, "not_judged needs rule, reason and would_judge");
    s->nnj++;
  }
  return jr_ok(&x->r);
}

static int read_findings(rd *x, sum_rank *s) {
  size_t i = 0;
  fa_alloc *a = x->d->a;
  if (!jr_arr_begin(&x->r)) return 0;
  while (jr_arr_next(&x->r, &i)) {
    if (s->nf == s->fcap) {
      size_t nc = s->fcap ? s->fcap * 2 : 8;
      sum_finding *nv = fa_realloc(a, s->f, s->fcap * sizeof *nv, nc * sizeof *nv);
      if (!nv) {
        x->oom = 1;
        return jr_fail(&x->r, "out of memory");
      }
      s->f = nv;
      s->fcap = nc;
    }
    if (!read_finding(x, &s->f[s->nf])) return 0;
    s->nf++;
  }
  return jr_ok(&x->r);
}

/* "types" names -> enum coll_type (so the enum may be renumbered later). */
static int read_types(rd *x, int32_t *map, size_t cap, size_t *nmap) {
  size_t i = 0;
  if (!jr_arr_begin(&x->r)) return 0;
  while (jr_arr_next(&x->r, &i)) {
    const char *raw;
    size_t n;
    if (!jr_str(&x->r, &raw, &n)) return 0;
    if (*nmap == cap) return jr_fail(&x->r, "too many collective types");
    int32_t t = COLL_OTHER;
    for (int k = 0; k < COLL__COUNT; k++) {
      const char *nm = coll_type_name(k);
      if (strlen(nm) == n && !memcmp(nm, raw, n)) { t = k; break; }
    }
    map[(*nmap)++] = t;
  }
  return jr_ok(&x->r);
}

/* pgmap: the summary's process group index -> the table's.  Names that
 * differ in the trace can be equal in a summary (bytes that are not UTF-8
 * are written as U+FFFD), so equal names share one table entry. */
static int read_row(rd *x, sum_rank *s, const int32_t *tmap, size_t ntypes, const fa_vec *pgmap) {
  size_t i = 0;
  int64_t v[7];
  int nv = 0;
  if (!jr_arr_begin(&x->r)) return 0;
  while (jr_arr_next(&x->r, &i)) {
    if (nv == 7) return jr_fail(&x->r, "a collective row has 7 values");
    if (!jr_i64(&x->r, &v[nv++], FSDPA_ABSENT)) return 0;
  }
  if (!jr_ok(&x->r)) return 0;
  if (nv != 7) return jr_fail(&x->r, "a collective row has 7 values");
  xr_coll c;
  if (v[0] != FSDPA_ABSENT && (v[0] < 0 || (uint64_t)v[0] >= pgmap->len))
    return jr_fail(&x->r, "process group index out of range");
  if (v[2] < 0 || (uint64_t)v[2] >= ntypes) return jr_fail(&x->r, "collective type index out of range");
  if (v[4] == FSDPA_ABSENT || v[5] == FSDPA_ABSENT || v[5] < v[4])
    return jr_fail(&x->r, "a collective needs start_ns <= end_ns");
  c.pg = v[0] == FSDPA_ABSENT ? -1 : FA_VEC_AT(pgmap, int32_t, v[0]);
  c.seq = v[1];
  c.type = tmap[v[2]];
  c.step = v[3];
  c.start = v[4];
  c.end = v[5];
  c.bytes = v[6];
  if (!fa_vec_push(x->d->a, &s->tab.colls, sizeof c, &c)) {
    x->oom = 1;
    return jr_fail(&x->r, "out of memory");
  }
  return 1;
}

static int read_table_in(rd *x, sum_rank *s, fa_vec *pgmap) {
  size_t i = 0, ntypes = 0;
  int32_t tmap[256];
  int have_types = 0;
  const char *k;
  size_t kn;
  if (!jr_obj_begin(&x->r)) return 0;
  while (jr_obj_next(&x->r, &i, &k, &kn)) {
    if (jr_key_is(k, kn, "pgs")) {
      size_t j = 0;
      if (!jr_arr_begin(&x->r)) return 0;
      while (jr_arr_next(&x->r, &j)) {
        const char *raw;
        size_t n, len;
        if (!jr_str(&x->r, &raw, &n)) return 0;
        const char *str = arena_strn(x, raw, n, &len);
        if (!str) return 0;
        int32_t pg = xr_table_pg(x->d->a, &s->tab, str, len);
        if (pg < 0 || !fa_vec_push(x->d->a, pgmap, sizeof pg, &pg)) {
          x->oom = 1;
          return jr_fail(&x->r, "out of memory");
        }
      }
    } else if (jr_key_is(k, kn, "types")) {
      have_types = read_types(x, tmap, sizeof tmap / sizeof tmap[0], &ntypes);
    } else if (jr_key_is(k, kn, "rows")) {
      size_t j = 0;
      if (!have_types) return jr_fail(&x->r, "collectives: \"types\" must come before \"rows\"");
      if (!jr_arr_begin(&x->r)) return 0;
      while (jr_arr_next(&x->r, &j))
        if (!read_row(x, s, tmap, ntypes, pgmap)) return 0;
    } else {
      skip(x);
    }
    if (!jr_ok(&x->r)) return 0;
  }
  return jr_ok(&x->r);
}

static int read_table(rd *x, sum_rank *s) {
  fa_vec pgmap = {NULL, 0, 0};
  int ok = read_table_in(x, s, &pgmap);
  fa_vec_free(x->d->a, &pgmap, sizeof(int32_t));
  return ok;
}

static int read_rank(rd *x, sum_rank *s) {
  size_t i = 0;
  const char *k;
  size_t kn;
  int have[4] = {0, 0, 0, 0};
  memset(s, 0, sizeof *s);
  s->world_size = FSDPA_ABSENT;
  s->rank = FSDPA_ABSENT;
  memcpy(s->params, PARAM_DEFAULTS, sizeof s->params);
  xr_table_init(&s->tab, 0);
  jr_peek(&x->r);
  const char *b0 = x->r.p;
  if (!jr_obj_begin(&x->r)) return 0;
  while (jr_obj_next(&x->r, &i, &k, &kn)) {
    if (jr_key_is(k, kn, "input")) have[0] = read_input(x, s);
    else if (jr_key_is(k, kn, "params")) read_params(x, s);
    else if (jr_key_is(k, kn, "report")) {
      const char *b, *e;
      if (jr_peek(&x->r) != '{') return jr_fail(&x->r, "report must be an object");
      if ((have[1] = jr_skip(&x->r, &b, &e))) {
        s->section = b;
        s->section_len = (size_t)(e - b);
      }
    } else if (jr_key_is(k, kn, "findings")) have[2] = read_findings(x, s);
    else if (jr_key_is(k, kn, "not_judged")) read_not_judged(x, s);
    else if (jr_key_is(k, kn, "collectives")) have[3] = read_table(x, s);
    else skip(x);
    if (!jr_ok(&x->r)) return 0;
  }
  if (!jr_ok(&x->r)) return 0;
  if (!have[0] || !have[1] || !have[2] || !have[3])
    return jr_fail(&x->r, "a rank needs input, report, findings and collectives");
  s->tab.rank = s->rank;
  s->raw = b0;
  s->raw_len = (size_t)(x->r.p - b0);
  return 1;
}

static void rank_free(fa_alloc *a, sum_rank *s) {
  fa_free(a, s->f, s->fcap * sizeof *s->f);
  fa_free(a, s->nj, s->njcap * sizeof *s->nj);
  xr_table_free(a, &s->tab);
}

void sum_doc_free(sum_doc *d) {
  for (size_t i = 0; i < d->n; i++) rank_free(d->a, &d->r[i]);
  fa_free(d->a, d->r, d->cap * sizeof *d->r);
  fa_free(d->a, d->arena, d->arena_cap);
  d->r = NULL;
  d->arena = NULL;
  d->n = d->cap = d->arena_cap = d->arena_used = 0;
}

/* Offset of the first byte that is not valid UTF-8, or n.  Summaries we write
 * are valid UTF-8 (the JSON writer guarantees it), and stored spans are spliced
 * into reports verbatim, so anything else is refused up front. */
static size_t utf8_invalid_at(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    unsigned c = s[i];
    size_t need;
    unsigned min, cp;
    if (c < 0x80) { i++; continue; }
    if ((c & 0xE0) == 0xC0) { need = 2; min = 0x80; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { need = 3; min = 0x800; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { need = 4; min = 0x10000; cp = c & 0x07; }
    else return i;
    if (n - i < need) return i;
    for (size_t k = 1; k < need; k++) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += need;
  }
  return n;
}

fsdpa_status sum_parse(fa_alloc *a, const char *s, size_t n, sum_doc *d, char *msg, size_t msg_len,
                       int64_t *err_off) {
  memset(d, 0, sizeof *d);
  d->a = a;
  *err_off = FSDPA_ABSENT;
  if (!s) return FSDPA_EINVAL;
  size_t bad = utf8_invalid_at((const unsigned char *)s, n);
  if (bad < n) {
    if (msg && msg_len) snprintf(msg, msg_len, "byte %zu: invalid UTF-8 in summary", bad);
    *err_off = (int64_t)bad;
    return FSDPA_EPARSE;
  }
  /* every decoded string or copied span fits in its own footprint + 1 */
  if (n > SIZE_MAX / 2 - 16) return FSDPA_ELIMIT;
  d->arena_cap = n * 2 + 16;
  if (!(d->arena = fa_malloc(a, d->arena_cap))) {
    d->arena_cap = 0;
    return fa_fail_status(a);
  }
  rd x;
  jr_init(&x.r, s, n);
  x.d = d;
  x.oom = 0;
  size_t i = 0;
  const char *k;
  size_t kn;
  int have_schema = 0, have_ranks = 0;
  if (jr_obj_begin(&x.r)) {
    while (jr_obj_next(&x.r, &i, &k, &kn)) {
      if (jr_key_is(k, kn, "schema")) {
        const char *raw;
        size_t rn;
        if (jr_str(&x.r, &raw, &rn)) {
          if (rn != strlen(SUMMARY_SCHEMA) || memcmp(raw, SUMMARY_SCHEMA, rn)) {
            /* name the format found, so a summary of another version says so */
            char m[96];
            snprintf(m, sizeof m, "summary format \"%.*s\" is not " SUMMARY_SCHEMA " (the one this version reads)",
                     rn > 40 ? 40 : (int)rn, raw);
            jr_fail(&x.r, m);
          } else {
            have_schema = 1;
          }
        }
      } else if (jr_key_is(k, kn, "ranks")) {
        size_t j = 0;
        have_ranks = 1;
        if (!jr_arr_begin(&x.r)) break;
        while (jr_arr_next(&x.r, &j)) {
          if (d->n == d->cap) {
            size_t nc = d->cap ? d->cap * 2 : 4;
            sum_rank *nv = fa_realloc(a, d->r, d->cap * sizeof *nv, nc * sizeof *nv);
            if (!nv) {
              x.oom = 1;
              jr_fail(&x.r, "out of memory");
              break;
            }
            d->r = nv;
            d->cap = nc;
          }
          int ok = read_rank(&x, &d->r[d->n]);
          d->n++;  /* counted even when partial, so its allocations are freed */
          if (!ok) break;
        }
      } else {
        skip(&x);
      }
      if (!jr_ok(&x.r)) break;
    }
  }
  if (jr_ok(&x.r)) jr_end(&x.r);
  if (jr_ok(&x.r) && (!have_schema || !have_ranks))
    jr_fail(&x.r, "a summary needs \"schema\" and \"ranks\"");
  if (jr_ok(&x.r) && !d->n) jr_fail(&x.r, "a summary needs at least one rank");
  if (!jr_ok(&x.r)) {
    fsdpa_status st = x.oom ? fa_fail_status(a) : FSDPA_EPARSE;
    if (msg && msg_len)
      snprintf(msg, msg_len, "summary: %s at byte %zu", x.r.msg, x.r.err_off);
    *err_off = (int64_t)x.r.err_off;
    sum_doc_free(d);
    return st;
  }
  return FSDPA_OK;
}
