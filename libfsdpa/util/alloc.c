#include "util/alloc.h"
#include "fsdpa_config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if FSDPA_HAVE_MIMALLOC
#include <mimalloc.h>
#endif
#if defined(__linux__) && !defined(FSDPA_NO_BIG_BLOCKS) /* the switch: for A/B benchmarks */
#include <sys/mman.h>
#define FA_HAVE_BIG 1
#else
#define FA_HAVE_BIG 0
#endif

/* Only mi_* names are used (never malloc through libmimalloc's exported
 * override symbols), and never a per-context mi_heap_t: a mimalloc v2 heap
 * allocates only on its creating thread, and Go/Python callers switch threads. */
static void *def_malloc(size_t n) {
#if FSDPA_HAVE_MIMALLOC
  return mi_malloc(n);
#else
  return malloc(n);
#endif
}
static void *def_realloc(void *p, size_t n) {
#if FSDPA_HAVE_MIMALLOC
  return mi_realloc(p, n);
#else
  return realloc(p, n);
#endif
}
static void def_free(void *p) {
#if FSDPA_HAVE_MIMALLOC
  mi_free(p);
#else
  free(p);
#endif
}

/* Big blocks (the event store's record arrays, views) bypass malloc: they
 * grow by doubling, and a realloc that copies touches every byte twice and
 * faults in fresh pages for the whole new capacity (measured: ~0.5 us per
 * 48-byte record on the 1 GB benchmark trace, more than parsing it; see
 * bench/README.md).  mremap() moves the pages instead of copying them, and
 * capacity not yet written is never faulted in, so it costs no RSS.  Arrays
 * past FA_HUGE_MIN ask for transparent huge pages: one fault per 2 MiB
 * instead of 512.  Which path a block took follows from its size alone
 * (callers pass the same size to free, as they must for the accounting);
 * the mapping length is kept in a header so munmap never trusts it. */
#if FA_HAVE_BIG
#define FA_BIG_MIN ((size_t)1 << 20)
/* Every big block is a run of aligned huge pages: the analyses allocate and
 * free multi-MiB scratch arrays many times per report, and each fresh 4 KiB
 * mapping faults in page by page again (1 GB trace, analyze: 46 k faults
 * without huge pages, 21 k with them past 2 MiB, 12 k past 1 MiB; at most
 * 2 MiB of RSS more per live block). */
#ifndef FA_HUGE_MIN
#define FA_HUGE_MIN FA_BIG_MIN
#endif
#ifndef FA_HUGE_ROUND
#define FA_HUGE_ROUND FA_HUGE_MIN
#endif
#define FA_BIG_HDR 64 /* keeps the block 64-byte aligned */
#ifndef FA_VEC_JUMP
#define FA_VEC_JUMP ((size_t)256 << 10)
#endif

static int is_big(const fa_alloc *a, size_t n) { return !a->user.malloc_fn && n >= FA_BIG_MIN; }

#define FA_HUGE ((size_t)2 << 20)

static void big_advise(char *map, size_t len) {
#ifdef MADV_HUGEPAGE
  if (len >= FA_HUGE_MIN) (void)madvise(map, len, MADV_HUGEPAGE);  /* a hint: failure is harmless */
#else
  (void)map;
  (void)len;
#endif
}

/* Mapping length for n bytes: whole huge pages past FA_HUGE_MIN. */
static size_t big_map_len(size_t n) {
  if (n > SIZE_MAX - FA_BIG_HDR - FA_HUGE) return 0;
  size_t len = n + FA_BIG_HDR;
  size_t unit = len >= FA_HUGE_ROUND ? FA_HUGE : 4096;
  return (len + unit - 1) & ~(unit - 1);
}

/* A fresh mapping of len bytes.  Past FA_HUGE_MIN it starts on a 2 MiB
 * boundary: the kernel backs only aligned 2 MiB ranges with huge pages, and
 * on the VMs measured a 4 KiB first-touch fault costs ~18 us (128 MiB written
 * 48 bytes at a time: 0.59 s in 4 KiB faults, 0.015 s in aligned huge pages). */
static char *big_map(size_t len) {
  if (len < FA_HUGE_MIN) {
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
  }
  if (len > SIZE_MAX - FA_HUGE) return NULL;
  char *m = mmap(NULL, len + FA_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  char *al = (char *)(((uintptr_t)m + FA_HUGE - 1) & ~(uintptr_t)(FA_HUGE - 1));
  size_t head = (size_t)(al - m), tail = FA_HUGE - head;
  if (head) munmap(m, head);
  if (tail) munmap(al + len, tail);
  big_advise(al, len);
  return al;
}

static void *big_alloc(size_t n) {
  size_t len = big_map_len(n);
  if (!len) return NULL;
  char *map = big_map(len);
  if (!map) return NULL;
  memcpy(map, &len, sizeof len);
  return map + FA_BIG_HDR;
}

static size_t big_len(void *p) {
  size_t len;
  memcpy(&len, (char *)p - FA_BIG_HDR, sizeof len);
  return len;
}

/* Grow in place when the address space after the block is free, else move
 * the pages (not the bytes) to a fresh aligned mapping; shrink in place. */
static void *big_realloc(void *p, size_t n) {
  size_t have = big_len(p), len = big_map_len(n);
  char *map = (char *)p - FA_BIG_HDR;
  if (!len) return NULL;
  if (len == have) return p;
  if (len < have || mremap(map, have, len, 0) != MAP_FAILED) {
    if (len < have && mremap(map, have, len, 0) == MAP_FAILED) return p; /* keeping more is harmless */
    big_advise(map, len);
  } else {
    char *dst = big_map(len);
    if (!dst) return NULL;
    if (mremap(map, have, have, MREMAP_MAYMOVE | MREMAP_FIXED, dst) == MAP_FAILED) {
      munmap(dst, len);
      return NULL;
    }
    map = dst;
  }
  memcpy(map, &len, sizeof len);
  return map + FA_BIG_HDR;
}

static void big_free(void *p) { munmap((char *)p - FA_BIG_HDR, big_len(p)); }
#else
static int is_big(const fa_alloc *a, size_t n) {
  (void)a;
  (void)n;
  return 0;
}
#define big_alloc(n) NULL
#define big_realloc(p, n) NULL
#define big_free(p) ((void)0)
#endif

void fa_init(fa_alloc *a, const fsdpa_allocator *user, uint64_t cap) {
  memset(a, 0, sizeof *a);
  if (user && user->malloc_fn && user->free_fn) a->user = *user;
  a->cap = cap;
}

static int over_cap(fa_alloc *a, size_t add) {
  if (a->cap && (a->used + add > a->cap || a->used + add < a->used)) {
    a->limit_hit = 1;
    return 1;
  }
  return 0;
}

int fa_charge(fa_alloc *a, uint64_t n) {
  if (over_cap(a, n)) return -1;
  a->used += n;
  if (a->used > a->peak) a->peak = a->used;
  return 0;
}

void fa_uncharge(fa_alloc *a, uint64_t n) { a->used -= n; }

void *fa_malloc(fa_alloc *a, size_t n) {
  if (n == 0) n = 1;
  if (over_cap(a, n)) return NULL;
  void *p = a->user.malloc_fn ? a->user.malloc_fn(a->user.ud, n) : is_big(a, n) ? big_alloc(n) : def_malloc(n);
  if (!p) { a->limit_hit = 0; return NULL; }
  a->used += n;
  if (a->used > a->peak) a->peak = a->used;
  return p;
}

void *fa_calloc(fa_alloc *a, size_t n) {
  void *p = fa_malloc(a, n);
  /* fresh mappings are already zero: writing them would fault every page in */
  if (p && !is_big(a, n)) memset(p, 0, n);
  return p;
}

void *fa_realloc(fa_alloc *a, void *p, size_t old_n, size_t new_n) {
  if (!p) return fa_malloc(a, new_n);
  if (new_n == 0) new_n = 1;
  if (new_n > old_n && over_cap(a, new_n - old_n)) return NULL;
  void *q;
  if (a->user.malloc_fn) {
    if (a->user.realloc_fn) {
      q = a->user.realloc_fn(a->user.ud, p, old_n, new_n);
    } else {
      q = a->user.malloc_fn(a->user.ud, new_n);
      if (q) {
        memcpy(q, p, old_n < new_n ? old_n : new_n);
        a->user.free_fn(a->user.ud, p, old_n);
      }
    }
  } else if (is_big(a, old_n) && is_big(a, new_n)) {
    q = big_realloc(p, new_n);
  } else if (is_big(a, old_n) || is_big(a, new_n)) {  /* crossing the threshold: copy once */
    q = is_big(a, new_n) ? big_alloc(new_n) : def_malloc(new_n);
    if (q) {
      memcpy(q, p, old_n < new_n ? old_n : new_n);
      if (is_big(a, old_n)) big_free(p);
      else def_free(p);
    }
  } else {
    q = def_realloc(p, new_n);
  }
  if (!q) { a->limit_hit = 0; return NULL; }
  a->used = a->used - old_n + new_n;
  if (a->used > a->peak) a->peak = a->used;
  return q;
}

void fa_free(fa_alloc *a, void *p, size_t n) {
  if (!p) return;
  if (n == 0) n = 1;
  a->used -= n;
  if (a->user.malloc_fn) a->user.free_fn(a->user.ud, p, n);
  else if (is_big(a, n)) big_free(p);
  else def_free(p);
}

int fa_vec_reserve(fa_alloc *a, fa_vec *v, size_t item, size_t extra) {
  if (v->len + extra <= v->cap) return 0;
  size_t nc = v->cap ? v->cap : 16;
  while (nc < v->len + extra) {
    if (nc > SIZE_MAX / 2 / item) return -1;
    nc *= 2;
  }
#if FA_HAVE_BIG
  /* An array past FA_VEC_JUMP is a hot one (event records, per-kernel
   * scratch): go straight to a big block instead of doubling through
   * malloc's fresh 4 KiB pages (each a page fault, ~18 us on the VMs
   * measured) up to FA_BIG_MIN. */
  if (!a->user.malloc_fn && nc * item > FA_VEC_JUMP && nc * item < FA_BIG_MIN) nc = (FA_BIG_MIN + item - 1) / item;
#endif
  void *nd = fa_realloc(a, v->data, v->cap * item, nc * item);
  if (!nd) return -1;
  v->data = nd;
  v->cap = nc;
  return 0;
}

void *fa_vec_push_grow(fa_alloc *a, fa_vec *v, size_t item, const void *src) {
  if (fa_vec_reserve(a, v, item, 1)) return NULL;
  void *dst = (char *)v->data + v->len * item;
  memcpy(dst, src, item);
  v->len++;
  return dst;
}

void fa_vec_free(fa_alloc *a, fa_vec *v, size_t item) {
  fa_free(a, v->data, v->cap * item);
  v->data = NULL;
  v->len = v->cap = 0;
}
