package fsdpa

/*
#include <stdlib.h>
#include <fsdpa/fsdpa.h>

// A counting fsdpa_allocator over the C heap, in C so that the callbacks
// never cross into Go: the tests use it to prove a context frees every byte.
typedef struct cnt_state { long long live_bytes, live_blocks, calls; } cnt_state;

static void *cnt_malloc(void *ud, size_t n) {
  cnt_state *s = ud;
  void *p = malloc(n);
  if (p) {
    __atomic_add_fetch(&s->live_bytes, (long long)n, __ATOMIC_RELAXED);
    __atomic_add_fetch(&s->live_blocks, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
  }
  return p;
}
static void *cnt_realloc(void *ud, void *p, size_t old_n, size_t new_n) {
  cnt_state *s = ud;
  void *q = realloc(p, new_n);
  if (q) {
    __atomic_add_fetch(&s->live_bytes, (long long)new_n - (long long)old_n, __ATOMIC_RELAXED);
    __atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
  }
  return q;
}
static void cnt_free(void *ud, void *p, size_t n) {
  cnt_state *s = ud;
  if (p) {
    __atomic_sub_fetch(&s->live_bytes, (long long)n, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&s->live_blocks, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
  }
  free(p);
}
static fsdpa_allocator *cnt_new(void) {
  fsdpa_allocator *a = calloc(1, sizeof *a);
  cnt_state *s = calloc(1, sizeof *s);
  if (!a || !s) { free(a); free(s); return NULL; }
  a->size = sizeof *a;
  a->malloc_fn = cnt_malloc;
  a->realloc_fn = cnt_realloc;
  a->free_fn = cnt_free;
  a->ud = s;
  return a;
}
static void cnt_delete(fsdpa_allocator *a) {
  if (a) { free(a->ud); free(a); }
}
static long long cnt_get(const fsdpa_allocator *a, int which) {
  const cnt_state *s = a->ud;
  return which == 0 ? __atomic_load_n(&s->live_bytes, __ATOMIC_RELAXED)
       : which == 1 ? __atomic_load_n(&s->live_blocks, __ATOMIC_RELAXED)
                    : __atomic_load_n(&s->calls, __ATOMIC_RELAXED);
}
*/
import "C"

// countingAllocator counts the bytes and blocks a context holds through
// fsdpa_allocator (test support; unexported).
type countingAllocator struct{ a *C.fsdpa_allocator }

func newCountingAllocator() *countingAllocator { return &countingAllocator{C.cnt_new()} }

func (c *countingAllocator) liveBytes() int64  { return int64(C.cnt_get(c.a, 0)) }
func (c *countingAllocator) liveBlocks() int64 { return int64(C.cnt_get(c.a, 1)) }
func (c *countingAllocator) calls() int64      { return int64(C.cnt_get(c.a, 2)) }

// release frees the allocator itself (after every context using it is closed).
func (c *countingAllocator) release() { C.cnt_delete(c.a); c.a = nil }

func (o *Options) useAllocator(c *countingAllocator) { o.allocator = c.a }

func (o *SummaryOptions) useAllocator(c *countingAllocator) { o.allocator = c.a }
