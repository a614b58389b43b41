/* STUB: to be implemented (see analyses.h). */
#include "analysis/analyses.h"

fsdpa_status crossrank_json(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n, jsonw *w) {
  (void)ctxs;
  (void)ranks;
  (void)n;
  jw_null(w);
  return FSDPA_OK;
}

fsdpa_status crossrank_findings(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n,
                                findings *f) {
  (void)ctxs;
  (void)ranks;
  (void)n;
  (void)f;
  return FSDPA_OK;
}
