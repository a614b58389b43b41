#include "util/outbuf.h"
#include "fsdpa_config.h"
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#if FSDPA_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

typedef union outbuf_hdr {
  struct {
    fsdpa_allocator user;  /* user.malloc_fn == NULL: default allocator */
    size_t n;              /* total bytes including this header */
  } h;
  max_align_t align;
} outbuf_hdr;

void *outbuf_alloc(fa_alloc *a, size_t n) {
  if (n > SIZE_MAX - sizeof(outbuf_hdr)) return NULL;
  size_t total = sizeof(outbuf_hdr) + n;
  outbuf_hdr *h;
  if (a->user.malloc_fn) {
    h = a->user.malloc_fn(a->user.ud, total);
  } else {
#if FSDPA_HAVE_MIMALLOC
    h = mi_malloc(total);
#else
    h = malloc(total);
#endif
  }
  if (!h) return NULL;
  h->h.user = a->user;
  h->h.n = total;
  return h + 1;
}

char *outbuf_dup(fa_alloc *a, const char *data, size_t n) {
  if (n == SIZE_MAX) return NULL;
  char *p = outbuf_alloc(a, n + 1);
  if (!p) return NULL;
  if (n) memcpy(p, data, n);
  p[n] = 0;
  return p;
}

void fsdpa_free(void *p) {
  if (!p) return;
  outbuf_hdr *h = (outbuf_hdr *)p - 1;
  if (h->h.user.malloc_fn) {
    fsdpa_allocator u = h->h.user;
    u.free_fn(u.ud, h, h->h.n);
  } else {
#if FSDPA_HAVE_MIMALLOC
    mi_free(h);
#else
    free(h);
#endif
  }
}
