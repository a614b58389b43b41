/* The GPU waiting for the batch: idle time while the DataLoader fetches it.
 * The room's interface for the report layer (JSON section and finding). */
#ifndef FSDPA_ANALYSIS_DATALOADER_H
#define FSDPA_ANALYSIS_DATALOADER_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"

/* dataloader_report.c: ranks[].dataloader */
fsdpa_status dataloader_json(fsdpa_ctx *c, jsonw *w);
/* dataloader_findings.c: dataloader-stall */
fsdpa_status dataloader_findings(fsdpa_ctx *c, int64_t rank, findings *f);
#endif
