#include "util/intern.h"
#include <string.h>

/* Eight bytes per multiply: a lookup happens once per event and kernel names
 * run to 300 bytes, where byte-wise FNV-1a (one dependent multiply per byte)
 * cost more than the rest of storing the event.  Few distinct names exist,
 * so mixing quality only needs to spread them over the table. */
static uint32_t hash_bytes(const char *s, size_t len) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)len;
  while (len >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    s += 8;
    len -= 8;
  }
  uint64_t w = 0;
  memcpy(&w, s, len);
  h = (h ^ w) * 0x94D049BB133111EBull;
  h ^= h >> 32;
  return (uint32_t)h;
}

void intern_init(intern_table *t) { memset(t, 0, sizeof *t); }

void intern_free(fa_alloc *a, intern_table *t) {
  /* chunk sizes are recorded in the first 8 bytes of each chunk */
  for (size_t i = 0; i < t->nchunks; i++) {
    size_t sz;
    memcpy(&sz, t->chunks[i], sizeof sz);
    fa_free(a, t->chunks[i], sz);
  }
  fa_free(a, t->chunks, t->chunks_cap * sizeof(char *));
  fa_free(a, t->slots, t->nslots * sizeof(uint32_t));
  fa_vec_free(a, &t->entries, sizeof(intern_entry));
  memset(t, 0, sizeof *t);
}

static uint32_t lookup(const intern_table *t, const char *s, size_t len, uint32_t h, size_t *slot) {
  if (!t->nslots) return INTERN_NONE;
  size_t mask = t->nslots - 1, i = h & mask;
  for (;;) {
    uint32_t v = t->slots[i];
    if (!v) { *slot = i; return INTERN_NONE; }
    const intern_entry *e = &FA_VEC_AT(&t->entries, intern_entry, v - 1);
    if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0) return v - 1;
    i = (i + 1) & mask;
  }
}

uint32_t intern_find(const intern_table *t, const char *s, size_t len) {
  size_t slot;
  return lookup(t, s, len, hash_bytes(s, len), &slot);
}

static int rehash(fa_alloc *a, intern_table *t) {
  size_t n = t->nslots ? t->nslots * 2 : 1024;
  uint32_t *ns = fa_calloc(a, n * sizeof(uint32_t));
  if (!ns) return -1;
  for (size_t id = 0; id < t->entries.len; id++) {
    const intern_entry *e = &FA_VEC_AT(&t->entries, intern_entry, id);
    size_t i = e->hash & (n - 1);
    while (ns[i]) i = (i + 1) & (n - 1);
    ns[i] = (uint32_t)id + 1;
  }
  fa_free(a, t->slots, t->nslots * sizeof(uint32_t));
  t->slots = ns;
  t->nslots = n;
  return 0;
}

static char *arena_copy(fa_alloc *a, intern_table *t, const char *s, size_t len) {
  size_t need = len + 1;
  if (!t->nchunks || t->chunk_used + need > t->chunk_size) {
    size_t sz = 64 * 1024;
    if (need + sizeof(size_t) > sz) sz = need + sizeof(size_t);
    if (t->nchunks == t->chunks_cap) {
      size_t nc = t->chunks_cap ? t->chunks_cap * 2 : 16;
      char **nn = fa_realloc(a, t->chunks, t->chunks_cap * sizeof(char *), nc * sizeof(char *));
      if (!nn) return NULL;
      t->chunks = nn;
      t->chunks_cap = nc;
    }
    char *c = fa_malloc(a, sz);
    if (!c) return NULL;
    memcpy(c, &sz, sizeof sz);
    t->chunks[t->nchunks++] = c;
    t->chunk_size = sz;
    t->chunk_used = sizeof(size_t);
  }
  char *dst = t->chunks[t->nchunks - 1] + t->chunk_used;
  memcpy(dst, s, len);
  dst[len] = 0;
  t->chunk_used += need;
  t->bytes += need;
  return dst;
}

uint32_t intern_put(fa_alloc *a, intern_table *t, const char *s, size_t len) {
  if (!s) { s = ""; len = 0; }
  if (len > UINT32_MAX - 1) return INTERN_NONE;
  uint32_t h = hash_bytes(s, len);
  size_t slot = 0;
  uint32_t id = lookup(t, s, len, h, &slot);
  if (id != INTERN_NONE) return id;
  if ((t->entries.len + 1) * 2 > t->nslots) {
    if (rehash(a, t)) return INTERN_NONE;
    lookup(t, s, len, h, &slot);
  }
  if (fa_vec_reserve(a, &t->entries, sizeof(intern_entry), 1)) return INTERN_NONE;
  char *copy = arena_copy(a, t, s, len);
  if (!copy) return INTERN_NONE;
  intern_entry e = {copy, (uint32_t)len, h};
  id = (uint32_t)t->entries.len;
  fa_vec_push(a, &t->entries, sizeof e, &e);
  t->slots[slot] = id + 1;
  return id;
}
