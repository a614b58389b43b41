/* Named analysis parameters (params.def). */
#include "ctx.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[P__COUNT] = {
#define PARAM(id, name, def, desc) name,
#include "params.def"
#undef PARAM
};

fsdpa_status fsdpa_set_param(fsdpa_ctx *c, const char *key, const char *value) {
  if (!c || !key || !value) return FSDPA_EINVAL;
  ctx_clear(c);
  for (int i = 0; i < P__COUNT; i++) {
    if (strcmp(NAMES[i], key) != 0) continue;
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
  return ctx_fail(c, FSDPA_EINVAL, "unknown parameter '%s' (see fsdpa_param_list())", key);
}

const char *fsdpa_param_list(void) {
  return
#define STR2(x) #x
#define STR(x) STR2(x)
#define PARAM(id, name, def, desc) name "=" STR(def) "  " desc "\n"
#include "params.def"
#undef PARAM
      "";
}
