#include "util/list.h"
#include "util/abi.h"
#include "util/outbuf.h"
#include <stdint.h>

/* Per kind: the struct, its first size, and where its pointers are (they
 * hold tokens while building and point into the block after lb_finish). */
#define MAXSTR 8
typedef struct kind_info {
  size_t size, first;
  uint8_t nstr;
  uint16_t str[MAXSTR];
  int16_t ranges;        /* offset of `const fsdpa_range *`, -1 if none */
} kind_info;

#define K(T, ...) {sizeof(T), ABI_FIRST(T), __VA_ARGS__}
#define NOSTR 0, {0}, -1
static const kind_info KINDS[] = {
  [FSDPA_LIST_STEPS] = K(fsdpa_step, NOSTR),
  [FSDPA_LIST_STREAMS] = K(fsdpa_stream_info, NOSTR),
  [FSDPA_LIST_COMM_SPLITS] = K(fsdpa_comm_split, NOSTR),
  [FSDPA_LIST_FSDP_UNITS] = K(fsdpa_fsdp_unit, NOSTR),
  [FSDPA_LIST_BACKWARD_STEPS] = K(fsdpa_backward_step, NOSTR),
  [FSDPA_LIST_BACKWARD_UNITS] = K(fsdpa_backward_unit, NOSTR),
  [FSDPA_LIST_SYNC_WAITS] = K(fsdpa_sync_wait, 1, {offsetof(fsdpa_sync_wait, api)}, -1),
  [FSDPA_LIST_SYNC_CALLS] = K(fsdpa_sync_call, 3,
                              {offsetof(fsdpa_sync_call, api), offsetof(fsdpa_sync_call, sync_kind),
                               offsetof(fsdpa_sync_call, waited_op)},
                              -1),
  [FSDPA_LIST_SYNC_STEPS] = K(fsdpa_sync_step, NOSTR),
  [FSDPA_LIST_MEMORY_DEVICES] = K(fsdpa_memory_device, NOSTR),
  [FSDPA_LIST_MEMORY_POINTS] = K(fsdpa_memory_point, NOSTR),
  [FSDPA_LIST_MEMORY_STEPS] = K(fsdpa_memory_step, NOSTR),
  [FSDPA_LIST_CROSSRANK_RANKS] = K(fsdpa_crossrank_rank, NOSTR),
  [FSDPA_LIST_FINDINGS] = K(fsdpa_finding, 5,
                            {offsetof(fsdpa_finding, id), offsetof(fsdpa_finding, title),
                             offsetof(fsdpa_finding, detail), offsetof(fsdpa_finding, advice),
                             offsetof(fsdpa_finding, evidence_json)},
                            (int16_t)offsetof(fsdpa_finding, ranges)),
  [FSDPA_LIST_PARAMS] = K(fsdpa_param, 2, {offsetof(fsdpa_param, name), offsetof(fsdpa_param, description)}, -1),
  [FSDPA_LIST_DEVICES] = K(fsdpa_device_info, NOSTR),
  [FSDPA_LIST_KERNELS] = K(fsdpa_kernel_stat, 4,
                           {offsetof(fsdpa_kernel_stat, name), offsetof(fsdpa_kernel_stat, short_name),
                            offsetof(fsdpa_kernel_stat, kernel_class), offsetof(fsdpa_kernel_stat, family)},
                           -1),
  [FSDPA_LIST_OPS] = K(fsdpa_op_stat, 8,
                       {offsetof(fsdpa_op_stat, name), offsetof(fsdpa_op_stat, gpu_op),
                        offsetof(fsdpa_op_stat, category), offsetof(fsdpa_op_stat, input_dims),
                        offsetof(fsdpa_op_stat, input_types), offsetof(fsdpa_op_stat, concrete_inputs),
                        offsetof(fsdpa_op_stat, model), offsetof(fsdpa_op_stat, dtype)},
                       -1),
  [FSDPA_LIST_EFFICIENCY_STEPS] = K(fsdpa_efficiency, NOSTR),
};
#define NKINDS (sizeof KINDS / sizeof KINDS[0])

struct fsdpa_list {
  fsdpa_list_kind kind;
  size_t n;
  size_t item_size;
  const char *items;     /* n * item_size bytes inside this block */
};

static const kind_info *kind_of(fsdpa_list_kind k) {
  return (size_t)k > 0 && (size_t)k < NKINDS && KINDS[k].size ? &KINDS[k] : NULL;
}

void lb_init(list_build *b, fa_alloc *a, fsdpa_list_kind kind) {
  memset(b, 0, sizeof *b);
  b->a = a;
  b->kind = kind;
  b->item_size = kind_of(kind) ? kind_of(kind)->size : 0;
  sb_init(&b->str, a);
  if (!b->item_size) b->failed = FSDPA_EINVAL;
}

void *lb_push(list_build *b, const void *item) {
  if (b->failed) return NULL;
  void *p = fa_vec_push(b->a, &b->items, b->item_size, item);
  if (!p) b->failed = fa_fail_status(b->a);
  return p;
}

const char *lb_str(list_build *b, const char *s, size_t n) {
  if (!s || b->failed) return NULL;
  size_t at = b->str.len;
  sb_putn(&b->str, s, n);
  sb_putn(&b->str, "", 1);
  if (b->str.failed) {
    b->failed = (fsdpa_status)b->str.failed;
    return NULL;
  }
  return (const char *)(uintptr_t)(at + 1);
}

const fsdpa_range *lb_ranges(list_build *b, const fsdpa_range *r, size_t n) {
  if (!n || b->failed) return NULL;
  size_t at = b->ranges.len;
  if (fa_vec_reserve(b->a, &b->ranges, sizeof(fsdpa_range), n)) {
    b->failed = fa_fail_status(b->a);
    return NULL;
  }
  memcpy((fsdpa_range *)b->ranges.data + at, r, n * sizeof *r);
  b->ranges.len += n;
  return (const fsdpa_range *)(uintptr_t)(at + 1);
}

void lb_free(list_build *b) {
  fa_vec_free(b->a, &b->items, b->item_size ? b->item_size : 1);
  fa_vec_free(b->a, &b->ranges, sizeof(fsdpa_range));
  sb_free(&b->str);
}

static size_t align_up(size_t n) { return (n + 15) & ~(size_t)15; }

fsdpa_status lb_finish(list_build *b, fsdpa_list **out) {
  *out = NULL;
  fsdpa_status st = b->failed;
  const kind_info *k = kind_of(b->kind);
  if (!st && !k) st = FSDPA_EINVAL;
  if (st) {
    lb_free(b);
    return st;
  }
  size_t n = b->items.len, isz = n * k->size, rsz = b->ranges.len * sizeof(fsdpa_range);
  size_t o_items = align_up(sizeof(struct fsdpa_list)), o_ranges = o_items + align_up(isz),
         o_str = o_ranges + align_up(rsz), total = o_str + b->str.len;
  char *blk = outbuf_alloc(b->a, total);
  if (!blk) {
    st = fa_fail_status(b->a);
    lb_free(b);
    return st;
  }
  struct fsdpa_list *l = (struct fsdpa_list *)blk;
  l->kind = b->kind;
  l->n = n;
  l->item_size = k->size;
  l->items = blk + o_items;
  if (isz) memcpy(blk + o_items, b->items.data, isz);
  if (rsz) memcpy(blk + o_ranges, b->ranges.data, rsz);
  if (b->str.len) memcpy(blk + o_str, b->str.p, b->str.len);
  for (size_t i = 0; i < n; i++) {
    char *it = blk + o_items + i * k->size;
    for (unsigned f = 0; f < k->nstr; f++) {
      uintptr_t t;
      memcpy(&t, it + k->str[f], sizeof t);
      const char *p = t ? blk + o_str + (t - 1) : NULL;
      memcpy(it + k->str[f], &p, sizeof p);
    }
    if (k->ranges >= 0) {
      uintptr_t t;
      memcpy(&t, it + k->ranges, sizeof t);
      const fsdpa_range *p = t ? (const fsdpa_range *)(blk + o_ranges) + (t - 1) : NULL;
      memcpy(it + k->ranges, &p, sizeof p);
    }
  }
  lb_free(b);
  *out = l;
  return FSDPA_OK;
}

fsdpa_list_kind fsdpa_list_type(const fsdpa_list *l) { return l ? l->kind : (fsdpa_list_kind)0; }

size_t fsdpa_list_count(const fsdpa_list *l) { return l ? l->n : 0; }

fsdpa_status fsdpa_list_get(const fsdpa_list *l, size_t i, void *item) {
  if (!l || !item || i >= l->n) return FSDPA_EINVAL;
  const kind_info *k = kind_of(l->kind);
  if (!abi_copy_out(item, l->items + i * l->item_size, l->item_size, k->first)) return FSDPA_EINVAL;
  return FSDPA_OK;
}

void fsdpa_list_free(fsdpa_list *l) { fsdpa_free(l); }
