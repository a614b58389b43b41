/* Named analysis parameters (params.def). */
#include "ctx.h"
#include "util/list.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct param_def {
  const char *name;
  int64_t def;
  const char *desc;
} param_def;

static const param_def DEFS[P__COUNT] = {
#define PARAM(id, name, def, desc) {name, def, desc},
#include "params.def"
#undef PARAM
};

static int param_index(const char *key) {
  for (int i = 0; i < P__COUNT; i++)
    if (strcmp(DEFS[i].name, key) == 0) return i;
  return -1;
}

int64_t param_default(int i) { return DEFS[i].def; }

static int is_share(int i) {
  size_t n = strlen(DEFS[i].name);
  return n > 4 && !strcmp(DEFS[i].name + n - 4, "_ppm");
}

int64_t param_max(int i) { return is_share(i) ? PARAM_SHARE_MAX : PARAM_MAX; }

/* A percentage as ppm: "30%" -> 300000, "12.5%" -> 125000; ppm are whole,
 * so at most four decimals (more only as zeros).  0 if `s` is not one. */
static int parse_percent(const char *s, int64_t *ppm) {
  const char *p = s;
  int neg = *p == '-';
  if (neg) p++;
  if (*p < '0' || *p > '9') return 0;
  int64_t whole = 0, frac = 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    if (whole > (INT64_MAX / 10000 - 9) / 10) return 0;
    whole = whole * 10 + (*p - '0');
  }
  if (*p == '.') {
    p++;
    if (*p < '0' || *p > '9') return 0;
    int d = 0;
    for (; *p >= '0' && *p <= '9'; p++, d++) {
      if (d < 4) frac = frac * 10 + (*p - '0');
      else if (*p != '0') return 0;
    }
    for (; d < 4; d++) frac *= 10;
  }
  if (p[0] != '%' || p[1]) return 0;
  int64_t v = whole * 10000 + frac;
  *ppm = neg ? -v : v;
  return 1;
}

static char lower(char ch) { return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch; }

/* Edit distance (insert, delete, substitute, swap of neighbours; case
 * ignored) between two short names, capped at 99: what a typo costs. */
static int edit_distance(const char *a, const char *b) {
  enum { MAXN = 64 };
  size_t n = strlen(a), m = strlen(b);
  if (n >= MAXN || m >= MAXN) return 99;
  int d[MAXN][MAXN];
  for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      int c = d[i - 1][j - 1] + (lower(a[i - 1]) != lower(b[j - 1]));
      if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]) &&
          d[i - 2][j - 2] + 1 < c)
        c = d[i - 2][j - 2] + 1;
      d[i][j] = c;
    }
  return d[n][m];
}

/* The parameter a mistyped key most likely meant: the nearest name by edit
 * distance, or the one whose part after the dot is the key (a section
 * forgotten), when it is near enough to be a typo; NULL if none is. */
static const char *nearest_param(const char *key) {
  const char *best = PARAM_COMM_PATTERNS;
  int bd = edit_distance(key, best);
  for (int i = 0; i < P__COUNT; i++) {
    const char *dot = strchr(DEFS[i].name, '.');
    if (dot && !strcmp(dot + 1, key)) return DEFS[i].name;
    int d = edit_distance(key, DEFS[i].name);
    if (d < bd) bd = d, best = DEFS[i].name;
  }
  size_t n = strlen(key);
  return bd <= 2 + (int)(n / 8) ? best : NULL;
}

fsdpa_status fsdpa_param_set(fsdpa_ctx *c, const char *key, const char *value) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!key || !value) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_param_set: NULL name or value");
  if (strcmp(key, PARAM_COMM_PATTERNS) == 0) {
    /* the one string-valued parameter: it changes which kernels are
     * communication, so every memoized result goes */
    if (store_set_comm_patterns(&c->alloc, &c->st, value))
      return ctx_fail(c, fa_fail_status(&c->alloc), "parameter %s: out of memory", key);
    ctx_cache_clear(c);
    return FSDPA_OK;
  }
  int i = param_index(key);
  if (i < 0) {
    const char *near = nearest_param(key);
    if (near) return ctx_fail(c, FSDPA_EINVAL, "unknown parameter '%s' (did you mean '%s'?)", key, near);
    return ctx_fail(c, FSDPA_EINVAL, "unknown parameter '%s'", key);
  }
  int64_t v = 0;
  size_t vn = strlen(value);
  if (vn && value[vn - 1] == '%') {
    if (!is_share(i))
      return ctx_fail(c, FSDPA_EINVAL, "parameter %s: '%s': only a share (a name ending in _ppm) takes a percentage",
                      key, value);
    if (!parse_percent(value, &v))
      return ctx_fail(c, FSDPA_EINVAL,
                      "parameter %s: '%s' is not a percentage with at most four decimals, such as 30%% or 12.5%%", key,
                      value);
  } else {
    char *end = NULL;
    errno = 0;
    long long ll = strtoll(value, &end, 10);
    if (errno || end == value || *end)
      return ctx_fail(c, FSDPA_EINVAL, "parameter %s: '%s' is not an integer%s", key, value,
                      is_share(i) ? " or a percentage such as 30%" : "");
    v = (int64_t)ll;
  }
  if (!param_ok(i, v)) {
    if (is_share(i))
      return ctx_fail(c, FSDPA_EINVAL, "parameter %s: %s is out of range: a share is 0 .. 1000000 ppm (0%% .. 100%%)",
                      key, value);
    return ctx_fail(c, FSDPA_EINVAL, "parameter %s: %lld is out of range (%s .. 2^61%s)", key, (long long)v,
                    i == P_WARMUP_STEPS ? "-1" : "0", i == P_WARMUP_STEPS ? ", -1 for automatic" : "");
  }
  c->params[i] = v;
  return FSDPA_OK;
}

fsdpa_status fsdpa_param_get(fsdpa_ctx *c, const char *key, int64_t *value) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!key || !value) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_param_get: NULL name or value");
  if (strcmp(key, PARAM_COMM_PATTERNS) == 0) {
    *value = (int64_t)c->st.ncomm_pats;
    return FSDPA_OK;
  }
  int i = param_index(key);
  if (i < 0) return ctx_fail(c, FSDPA_EINVAL, "unknown parameter '%s'", key);
  *value = c->params[i];
  return FSDPA_OK;
}

fsdpa_status fsdpa_param_list(fsdpa_list **out) {
  if (!out) return FSDPA_EINVAL;
  *out = NULL;
  fa_alloc a;
  fa_init(&a, NULL, 0);
  list_build b;
  lb_init(&b, &a, FSDPA_LIST_PARAMS);
  for (int i = 0; i < P__COUNT; i++) {
    fsdpa_param p;
    memset(&p, 0, sizeof p);
    p.size = sizeof p;
    p.name = lb_cstr(&b, DEFS[i].name);
    p.default_value = DEFS[i].def;
    p.min_value = param_min(i);
    p.max_value = param_max(i);
    p.description = lb_cstr(&b, DEFS[i].desc);
    lb_push(&b, &p);
  }
  return lb_finish(&b, out);
}
