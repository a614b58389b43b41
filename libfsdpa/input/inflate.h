/* The decompressed byte stream of a trace file: plain JSON or gzip, told
 * apart by the first two bytes (1f 8b = gzip).  The one gzip reader of the
 * library: the feed path (input.c) and the annotated copy (report/annotate.c)
 * both read through it, so they see the same bytes at the same offsets.
 *
 * gzip: zlib inflate with automatic header detection, concatenated members,
 * zero bytes after a member (tape block padding) skipped.  Memory comes from
 * the caller's allocator (infl_zalloc / infl_zfree, also usable for a
 * deflate stream). */
#ifndef FSDPA_INPUT_INFLATE_H
#define FSDPA_INPUT_INFLATE_H
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>
#include "util/alloc.h"

enum { INFL_UNKNOWN = 0, INFL_PLAIN, INFL_GZIP };
enum { INFL_OK = 0, INFL_ECORRUPT, INFL_ENOMEM };

typedef struct infl {
  fa_alloc *a;
  int fmt;                 /* INFL_*: decided by the first bytes */
  unsigned char hdr[2];    /* the first bytes, held until the format is known */
  size_t hdr_len, hdr_pos; /* held bytes, and how many of them were passed on */
  z_stream zs;
  int z_init, member_done;
  uint64_t in_off;         /* compressed bytes consumed (gzip), for messages */
} infl;

void infl_init(infl *f, fa_alloc *a);
void infl_free(infl *f);

/* Decode: takes bytes from src[0, len) (*used of them) and writes the
 * decoded bytes to dst[0, cap) (*made of them).  It goes on until all of src
 * is taken or dst is full: made < cap means every byte of src was taken and
 * nothing decoded is pending, so the caller needs more input; made == cap
 * means call again with the rest of src, or, when all of it was taken,
 * only if infl_more() says so.  eof: no byte
 * follows src (a lone first byte 1f is then plain JSON).  Returns INFL_OK,
 * INFL_ENOMEM (the allocator refused) or INFL_ECORRUPT (infl_msg() says
 * why); *used / *made count what happened before the failure. */
int infl_run(infl *f, const void *src, size_t len, size_t *used, void *dst, size_t cap, size_t *made,
             int eof);

/* 1 once any byte was given to infl_run(). */
static inline int infl_started(const infl *f) { return f->fmt != INFL_UNKNOWN || f->hdr_len != 0; }
static inline int infl_is_gzip(const infl *f) { return f->fmt == INFL_GZIP; }
/* Decoded bytes may be pending without more input (inside a gzip member,
 * or the held first bytes). */
static inline int infl_more(const infl *f) {
  return (f->fmt == INFL_GZIP && !f->member_done) || f->hdr_pos < f->hdr_len;
}
/* gzip input that has not ended at the end of a member. */
static inline int infl_truncated(const infl *f) { return f->fmt == INFL_GZIP && !f->member_done; }
/* zlib's message for the last INFL_ECORRUPT. */
const char *infl_msg(const infl *f);

/* zlib allocation hooks over an fa_alloc (opaque = the fa_alloc *). */
voidpf infl_zalloc(voidpf opaque, uInt items, uInt size);
void infl_zfree(voidpf opaque, voidpf addr);
#endif
