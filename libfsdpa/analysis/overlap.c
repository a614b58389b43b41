/* STUB: to be implemented (see analyses.h). */
#include "analysis/analyses.h"

fsdpa_status overlap_json(fsdpa_ctx *c, jsonw *w) {
  (void)c;
  jw_null(w);
  return FSDPA_OK;
}

fsdpa_status overlap_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  (void)c;
  (void)rank;
  (void)f;
  return FSDPA_OK;
}
