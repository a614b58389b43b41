/* Building the caller-owned lists of the public API (fsdpa_list, group
 * "lists" of fsdpa.h).  A builder collects items of one kind in scratch
 * memory; lb_finish() packs items, their strings and their ranges into one
 * block the caller owns, so a list outlives the context that made it and is
 * freed with one call. */
#ifndef FSDPA_UTIL_LIST_H
#define FSDPA_UTIL_LIST_H
#include "util/alloc.h"
#include "util/jsonw.h"

typedef struct list_build {
  fa_alloc *a;           /* scratch (and, for the final block, the callbacks) */
  fsdpa_list_kind kind;
  size_t item_size;      /* the library's struct size of that kind */
  fa_vec items;
  sbuf str;              /* NUL-terminated strings, referred to by token */
  fa_vec ranges;         /* fsdpa_range */
  fsdpa_status failed;
} list_build;

void lb_init(list_build *b, fa_alloc *a, fsdpa_list_kind kind);
/* Append a copy of `item` (a struct of the builder's kind whose string and
 * range fields hold tokens from lb_str / lb_ranges, or NULL).  Returns the
 * stored copy, NULL on failure (sticky: lb_finish reports it). */
void *lb_push(list_build *b, const void *item);
/* A token for a string field: the string (n bytes, need not be
 * NUL-terminated) is copied into the list.  NULL for s == NULL. */
const char *lb_str(list_build *b, const char *s, size_t n);
static inline const char *lb_cstr(list_build *b, const char *s) { return lb_str(b, s, s ? strlen(s) : 0); }
/* A token for a finding's ranges (copied).  NULL when n == 0. */
const fsdpa_range *lb_ranges(list_build *b, const fsdpa_range *r, size_t n);
/* Pack into one caller-owned block; the scratch is freed either way. */
fsdpa_status lb_finish(list_build *b, fsdpa_list **out);
/* Drop everything (after an error elsewhere). */
void lb_free(list_build *b);
#endif
