/* The decompressed byte stream (see inflate.h). */
#include "input/inflate.h"

#include <string.h>

/* zlib's counters are 32-bit: larger buffers go through in pieces */
#define INFL_PIECE ((size_t)1 << 30)

/* zlib frees without a size and fa_alloc needs one: it is kept in front of
 * the block (16 bytes, so the block stays aligned for anything). */
voidpf infl_zalloc(voidpf opaque, uInt items, uInt size) {
  fa_alloc *a = (fa_alloc *)opaque;
  size_t n = (size_t)items * size;
  if (size && n / size != items) return Z_NULL;
  unsigned char *p = (unsigned char *)fa_malloc(a, n + 16);
  if (!p) return Z_NULL;
  memcpy(p, &n, sizeof n);
  return p + 16;
}

void infl_zfree(voidpf opaque, voidpf addr) {
  if (!addr) return;
  unsigned char *p = (unsigned char *)addr - 16;
  size_t n;
  memcpy(&n, p, sizeof n);
  fa_free((fa_alloc *)opaque, p, n + 16);
}

void infl_init(infl *f, fa_alloc *a) {
  memset(f, 0, sizeof *f);
  f->a = a;
}

void infl_free(infl *f) {
  if (f->z_init) inflateEnd(&f->zs);
  f->z_init = 0;
}

const char *infl_msg(const infl *f) { return f->zs.msg ? f->zs.msg : "inflate failed"; }

static int plain_step(const unsigned char *p, size_t n, size_t *used, unsigned char *d, size_t cap,
                      size_t *made) {
  size_t k = n < cap ? n : cap;
  if (k) memcpy(d, p, k);
  *used = *made = k;
  return INFL_OK;
}

static int gzip_step(infl *f, const unsigned char *p, size_t n, size_t *used, unsigned char *d, size_t cap,
                     size_t *made) {
  size_t u = 0, m = 0;
  int r = INFL_OK;
  z_stream *zs = &f->zs;
  if (!f->z_init) {
    memset(zs, 0, sizeof *zs);
    zs->zalloc = infl_zalloc;
    zs->zfree = infl_zfree;
    zs->opaque = f->a;
    /* 15 + 32: gzip (or zlib) header detected by inflate itself */
    if (inflateInit2(zs, 15 + 32) != Z_OK) {
      *used = *made = 0;
      return INFL_ENOMEM;
    }
    f->z_init = 1;
  }
  while (m < cap) {
    if (f->member_done) {
      while (u < n && p[u] == 0) { /* zero padding after a member (tape blocks) */
        u++;
        f->in_off++;
      }
      if (u == n) break;
      if (inflateReset(zs) != Z_OK) {
        r = INFL_ECORRUPT;
        break;
      }
      f->member_done = 0;
    }
    size_t chunk = n - u < INFL_PIECE ? n - u : INFL_PIECE;
    size_t room = cap - m < INFL_PIECE ? cap - m : INFL_PIECE;
    zs->next_in = chunk ? (Bytef *)(uintptr_t)(p + u) : Z_NULL;
    zs->avail_in = (uInt)chunk;
    zs->next_out = (Bytef *)(d + m);
    zs->avail_out = (uInt)room;
    int zr = inflate(zs, Z_NO_FLUSH);
    size_t cu = chunk - zs->avail_in, cm = room - zs->avail_out;
    u += cu;
    m += cm;
    f->in_off += cu;
    if (zr == Z_STREAM_END) {
      f->member_done = 1;
      continue;
    }
    if (zr == Z_OK) {
      /* room left: inflate took all it was given and has nothing pending */
      if (u == n && zs->avail_out) break;
      continue;
    }
    if (zr == Z_BUF_ERROR) { /* no progress possible: needs more input */
      if (!cu && !cm) break;
      continue;
    }
    r = zr == Z_MEM_ERROR ? INFL_ENOMEM : INFL_ECORRUPT;
    break;
  }
  *used = u;
  *made = m;
  return r;
}

static int step(infl *f, const unsigned char *p, size_t n, size_t *used, unsigned char *d, size_t cap,
                size_t *made) {
  if (f->fmt == INFL_GZIP) return gzip_step(f, p, n, used, d, cap, made);
  return plain_step(p, n, used, d, cap, made);
}

int infl_run(infl *f, const void *src, size_t len, size_t *used, void *dst, size_t cap, size_t *made,
             int eof) {
  const unsigned char *s = (const unsigned char *)src;
  unsigned char *d = (unsigned char *)dst;
  size_t u = 0, m = 0;
  *used = *made = 0;
  if (f->fmt == INFL_UNKNOWN) {
    /* gzip magic 1f 8b; anything else is plain JSON */
    while (f->hdr_len < 2 && u < len) {
      f->hdr[f->hdr_len++] = s[u++];
      if (f->hdr[0] != 0x1f) break;
    }
    if (f->hdr_len && f->hdr[0] != 0x1f) f->fmt = INFL_PLAIN;
    else if (f->hdr_len == 2) f->fmt = f->hdr[1] == 0x8b ? INFL_GZIP : INFL_PLAIN;
    else if (f->hdr_len && eof) f->fmt = INFL_PLAIN;
    else {
      *used = u; /* nothing, or one byte 1f: wait for the next */
      return INFL_OK;
    }
  }
  int r = INFL_OK;
  if (f->hdr_pos < f->hdr_len) { /* the held first bytes go first */
    size_t hu, hm;
    r = step(f, f->hdr + f->hdr_pos, f->hdr_len - f->hdr_pos, &hu, d, cap, &hm);
    f->hdr_pos += hu;
    m += hm;
    if (r || f->hdr_pos < f->hdr_len) goto out;
  }
  if (m < cap) {
    size_t su, sm;
    r = step(f, u < len ? s + u : NULL, len - u, &su, d + m, cap - m, &sm);
    u += su;
    m += sm;
  }
out:
  *used = u;
  *made = m;
  return r;
}
