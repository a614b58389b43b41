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
  if (i < 0) return ctx_fail(c, FSDPA_EINVAL, "unknown parameter '%s'", key);
  char *end = NULL;
  errno = 0;
  long long v = strtoll(value, &end, 10);
  if (errno || end == value || *end) return ctx_fail(c, FSDPA_EINVAL, "parameter %s: '%s' is not an integer", key, value);
  if (!param_ok(i, (int64_t)v))
    return ctx_fail(c, FSDPA_EINVAL, "parameter %s: %lld is out of range (0 .. 2^61%s)", key, v,
                    i == P_WARMUP_STEPS ? ", or -1 for automatic" : "");
  c->params[i] = (int64_t)v;
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
    p.max_value = PARAM_MAX;
    p.description = lb_cstr(&b, DEFS[i].desc);
    lb_push(&b, &p);
  }
  return lb_finish(&b, out);
}
