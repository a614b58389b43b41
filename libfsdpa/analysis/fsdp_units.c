/* STUB: to be implemented (see analyses.h). */
#include "analysis/analyses.h"

const char *fsdp_version_name(fsdpa_ctx *c) {
  (void)c;
  return NULL;
}

fsdpa_status fsdp_units_json(fsdpa_ctx *c, jsonw *w) {
  (void)c;
  jw_null(w);
  return FSDPA_OK;
}
