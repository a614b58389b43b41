/* The kernel table of a selection (fsdpa.h, group "efficiency"): GPU ops
 * grouped by name and class, with count, total, mean, median, min, max and
 * the share of the selection's busy time.  The report's ranks[].kernels,
 * fsdpa_kernel_list() and the text / HTML tables read it. */
#ifndef FSDPA_MODEL_KERNEL_TABLE_H
#define FSDPA_MODEL_KERNEL_TABLE_H
#include "ctx.h"

enum { KT_COMPUTE = 0, KT_COMM, KT_MEMCPY, KT_MEMSET };
const char *kt_class_name(int cls);  /* "compute", ... */

typedef struct kt_row {
  uint32_t name;           /* intern id; INTERN_NONE for the folded row */
  uint8_t cls;             /* KT_*; the folded row's is meaningless */
  uint32_t code;           /* communication: its comm_class code */
  const char *str;         /* the name (the store's), NULL for the folded row */
  size_t len;
  uint64_t count, names;
  int64_t total, min, max, p50;  /* p50 ABSENT for the folded row */
} kt_row;

typedef struct kt_table {
  kt_row *rows;            /* sorted by total (desc), then name, class */
  size_t n, cap;
  int64_t busy;            /* |union of the selected streams' GPU ops ∩ window| */
} kt_table;

/* The table of the selected streams in w; fsdp_unit >= 0 keeps only the
 * GPU ops of that fsdpa_fsdp_unit_list() entry (EINVAL past the last);
 * max_rows > 0 folds the rows past it into one. */
fsdpa_status kt_build(fsdpa_ctx *c, const qwin *w, int64_t fsdp_unit, uint64_t max_rows, kt_table *t);
void kt_free(fsdpa_ctx *c, kt_table *t);
/* The display name of a GPU op name into out (cap bytes, NUL-terminated);
 * returns its length. */
size_t kt_short_name(const char *name, size_t n, char *out, size_t cap);
/* The row's family (communication) or NULL; *len its length. */
const char *kt_row_family(const fsdpa_ctx *c, const kt_row *r, size_t *len);
#endif
