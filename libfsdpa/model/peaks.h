/* The peak table: dense per-dtype peaks and memory bandwidth of a device,
 * keyed by what the trace's deviceProperties say about it (name, SM or CU
 * count, compute capability).  docs/report-contract.md ("Peak table") lists
 * every row and its source. */
#ifndef FSDPA_MODEL_PEAKS_H
#define FSDPA_MODEL_PEAKS_H
#include "fsdpa/fsdpa.h"
#include "model/perf_model.h"

typedef struct peak_row {
  const char *model;          /* "H100 SXM", ... */
  double tflops[PD__COUNT];   /* per enum pm_dtype, 10^12 FLOP/s dense; <= 0: none */
  double hbm_tb_per_s;
} peak_row;

/* The row of a described device, NULL if the table does not know it. */
const peak_row *peak_lookup(const fsdpa_device_info *d);
/* Every row, for the docs' test (n rows). */
const peak_row *peak_rows(size_t *n);
#endif
