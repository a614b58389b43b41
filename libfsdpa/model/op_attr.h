/* Which CPU op every GPU op belongs to (fsdpa.h, group "efficiency",
 * Attribution): its launch call by correlation id, the innermost cpu_op of
 * the launching thread around the call's start, then outwards to the op
 * whose model counts its time; the op whose External id it carries when the
 * call lies in no op.  Built once per store generation and kept in the
 * context (CACHE_OP_ATTR); the object is the cache's. */
#ifndef FSDPA_MODEL_OP_ATTR_H
#define FSDPA_MODEL_OP_ATTR_H
#include "ctx.h"

#define OA_NONE UINT32_MAX

typedef struct op_attr {
  uint32_t *op;        /* per st.gpu record: index in st.cpu of its op, OA_NONE if unattributed */
  size_t n;            /* st.gpu.len */
  uint16_t *cls;       /* per name id: category << 8 | model (events/classify_ops.h), 0xFFFF unknown */
  size_t ncls;
} op_attr;

fsdpa_status op_attr_get(fsdpa_ctx *c, const op_attr **out);
/* Category and model of a CPU op name (enum op_cat, enum op_model), from
 * the attribution's per-name memo (names of ops it met) or classified now. */
void op_attr_class(const fsdpa_ctx *c, const op_attr *oa, uint32_t name, int *cat, int *model);
#endif
