/* Per-context allocation: the embedder's callbacks, else mimalloc, else malloc,
 * with byte accounting so a context can refuse to grow past a cap. */
#ifndef FSDPA_UTIL_ALLOC_H
#define FSDPA_UTIL_ALLOC_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "fsdpa/fsdpa.h"

typedef struct fa_alloc {
  fsdpa_allocator user;  /* copied from options; user.malloc_fn == NULL: default */
  uint64_t used;         /* bytes currently allocated through this allocator */
  uint64_t peak;
  uint64_t cap;          /* 0 = no cap */
  int limit_hit;         /* the last failure was the cap, not the system */
} fa_alloc;

void fa_init(fa_alloc *a, const fsdpa_allocator *user, uint64_t cap);
/* All return NULL on failure; a->limit_hit tells whether the cap refused it. */
void *fa_malloc(fa_alloc *a, size_t n);
void *fa_calloc(fa_alloc *a, size_t n);
void *fa_realloc(fa_alloc *a, void *p, size_t old_n, size_t new_n);
void fa_free(fa_alloc *a, void *p, size_t n);
/* Account for n bytes allocated elsewhere (simdjson's own buffers) against
 * the cap and the stats: 0, or -1 with limit_hit set when the cap refuses. */
int fa_charge(fa_alloc *a, uint64_t n);
void fa_uncharge(fa_alloc *a, uint64_t n);
/* The status a failed allocation maps to. */
static inline fsdpa_status fa_fail_status(const fa_alloc *a) {
  return a->limit_hit ? FSDPA_ELIMIT : FSDPA_ENOMEM;
}

/* Growable array of fixed-size items: doubles capacity, keeps amortised O(1). */
typedef struct fa_vec {
  void *data;
  size_t len, cap;  /* in items */
} fa_vec;
/* Ensure room for `extra` more items of `item` bytes. 0 ok, -1 on failure. */
int fa_vec_reserve(fa_alloc *a, fa_vec *v, size_t item, size_t extra);
/* Append one item (copied). Returns pointer to the stored copy or NULL.
 * Inline with the room check first: the store pushes once per event, and a
 * call plus a variable-size memcpy per push showed in the profiles. */
void *fa_vec_push_grow(fa_alloc *a, fa_vec *v, size_t item, const void *src);
static inline void *fa_vec_push(fa_alloc *a, fa_vec *v, size_t item, const void *src) {
  if (__builtin_expect(v->len < v->cap, 1)) {
    void *dst = (char *)v->data + v->len * item;
    memcpy(dst, src, item);
    v->len++;
    return dst;
  }
  return fa_vec_push_grow(a, v, item, src);
}
void fa_vec_free(fa_alloc *a, fa_vec *v, size_t item);
#define FA_VEC_AT(v, T, i) (((T *)(v)->data)[i])

#endif
