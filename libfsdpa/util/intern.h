/* String interning: each distinct name is stored once; events carry a
 * 32-bit id.  Ids are dense (0..count-1) so per-name facts live in arrays. */
#ifndef FSDPA_UTIL_INTERN_H
#define FSDPA_UTIL_INTERN_H
#include <stddef.h>
#include <stdint.h>
#include "util/alloc.h"

#define INTERN_NONE UINT32_MAX

typedef struct intern_entry {
  const char *s;  /* NUL-terminated copy, in the string arena */
  uint32_t len;
  uint32_t hash;
} intern_entry;

typedef struct intern_table {
  fa_vec entries;   /* intern_entry, index = id */
  uint32_t *slots;  /* open addressing: id+1, 0 = empty */
  size_t nslots;
  /* string arena: chunks of >= 64 KiB so interned strings cost no per-string header */
  char **chunks;
  size_t nchunks, chunks_cap;
  size_t chunk_used, chunk_size;
  uint64_t bytes;   /* string bytes stored */
} intern_table;

void intern_init(intern_table *t);
void intern_free(fa_alloc *a, intern_table *t);
/* Returns the id, or INTERN_NONE on allocation failure. */
uint32_t intern_put(fa_alloc *a, intern_table *t, const char *s, size_t len);
/* INTERN_NONE if absent. */
uint32_t intern_find(const intern_table *t, const char *s, size_t len);
static inline const char *intern_str(const intern_table *t, uint32_t id) {
  return id == INTERN_NONE ? "" : FA_VEC_AT(&t->entries, intern_entry, id).s;
}
static inline uint32_t intern_len(const intern_table *t, uint32_t id) {
  return id == INTERN_NONE ? 0 : FA_VEC_AT(&t->entries, intern_entry, id).len;
}
static inline size_t intern_count(const intern_table *t) { return t->entries.len; }
#endif
