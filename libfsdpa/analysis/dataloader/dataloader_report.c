/* ranks[].dataloader (docs/report-contract.md, "DataLoader"). */
#include "analysis/dataloader/dataloader.h"
#include "analysis/dataloader/dataloader_impl.h"

fsdpa_status dataloader_json(fsdpa_ctx *c, jsonw *w) {
  dl_result r;
  fsdpa_status st = dl_compute(c, &r);
  if (st) return st;
  jw_obj(w);
  jw_ku64(w, "calls", r.calls);
  jw_ki64(w, "total_ns", r.total_ns);
  jw_kstr(w, "window", r.window == DL_AFTER_FIRST_ITERATION ? "after_first_iteration" : "whole_trace");
  jw_ki64(w, "window_ns", r.window_ns);
  jw_ki64(w, "idle_ns", r.idle_ns);
  jw_ki64(w, "idle_in_dataloader_ns", r.cost_ns);
  jw_obj_end(w);
  return FSDPA_OK;
}
