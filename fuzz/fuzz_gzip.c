/* The gzip path.  The first byte picks a mode:
 *   0, 3: the rest is fed as is (real .gz pieces from the corpus, mutated:
 *         corrupt headers, bad CRCs, truncated members), in chunks;
 *   1, 2: the rest is plain JSON that the harness compresses (one member,
 *         or two members with zero padding between them, as tape blocks
 *         leave) and feeds in chunks; the same JSON is also fed plain, and
 *         both must give the same status, error offset and report.
 * Decompressed input is capped (max_input_bytes), so a bomb ends in
 * FSDPA_ELIMIT after a bounded amount of work. */
#include <zlib.h>
#include "fuzz_common.h"

#define FZ_MAX_INPUT ((uint64_t)4 << 20)

typedef struct gzbuf {
  unsigned char *p;
  size_t len, cap;
} gzbuf;

static void gz_member(gzbuf *out, const uint8_t *d, size_t n, int level) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) fz_die("deflateInit2");
  size_t bound = deflateBound(&zs, (uLong)n) + 16;
  if (out->len + bound > out->cap) {
    out->cap = out->len + bound;
    out->p = (unsigned char *)realloc(out->p, out->cap);
    if (!out->p) fz_die("out of memory");
  }
  zs.next_in = (Bytef *)(uintptr_t)d;
  zs.avail_in = (uInt)n;
  zs.next_out = out->p + out->len;
  zs.avail_out = (uInt)(out->cap - out->len);
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) fz_die("deflate");
  out->len = out->cap - zs.avail_out;
  deflateEnd(&zs);
}

/* First failing status of feeding d in chunks of `chunk` and finishing. */
static fsdpa_status feed_chunks(fsdpa_ctx *c, const uint8_t *d, size_t n, size_t chunk) {
  for (size_t off = 0; off < n; off += chunk) {
    size_t k = n - off < chunk ? n - off : chunk;
    fsdpa_status st = fsdpa_feed(c, d + off, k);
    fz_input_status(st, "fsdpa_feed");
    if (st) return st;
  }
  fsdpa_status st = fsdpa_finish(c);
  fz_input_status(st, "fsdpa_finish");
  return st;
}

/* The report with the inputs' byte count (compressed vs plain) blanked. */
static char *report_norm(fsdpa_ctx *c) {
  size_t len = 0;
  char *r = fz_report(&c, 1, FSDPA_FORMAT_JSON, &len);
  fz_check_json(r, len);
  char *copy = (char *)malloc(len + 1);
  if (!copy) fz_die("out of memory");
  memcpy(copy, r, len + 1);
  fsdpa_free(r);
  fz_blank_bytes(copy);
  return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  unsigned mode = data[0] % 4, knob = data[0] / 4;
  size_t chunk = 1 + (size_t)knob * 97;
  data++;
  size--;
  fz_heap h = {0, 0};
  fsdpa_allocator a = fz_allocator(&h);
  fsdpa_ctx *c = fz_ctx_new(&h, &a, FZ_MAX_INPUT);
  if (mode == 0 || mode == 3) {
    feed_chunks(c, data, size, mode == 0 ? size + 1 : chunk);
    fz_reports(&c, 1, knob);
    fz_ctx_free(c, &h);
    return 0;
  }
  gzbuf gz = {NULL, 0, 0};
  int level = (int)(knob % 10);
  if (mode == 1) {
    gz_member(&gz, data, size, level);
  } else {
    size_t half = size / 2;
    gz_member(&gz, data, half, level);
    unsigned char zeros[512] = {0};
    gz_member(&gz, zeros, 0, level); /* an empty member is legal too */
    gzbuf pad = {zeros, 0, sizeof zeros};
    pad.len = knob % sizeof zeros;
    if (gz.len + pad.len > gz.cap) {
      gz.cap = gz.len + pad.len;
      gz.p = (unsigned char *)realloc(gz.p, gz.cap);
      if (!gz.p) fz_die("out of memory");
    }
    memcpy(gz.p + gz.len, pad.p, pad.len);
    gz.len += pad.len;
    gz_member(&gz, data + half, size - half, level);
  }
  fsdpa_status sg = feed_chunks(c, gz.p, gz.len, chunk);
  free(gz.p);
  if (size && data[0] == 0x1f) { /* fed plain it would be taken for gzip */
    fz_ctx_free(c, &h);
    return 0;
  }
  fz_heap h2 = {0, 0};
  fsdpa_allocator a2 = fz_allocator(&h2);
  fsdpa_ctx *p = fz_ctx_new(&h2, &a2, FZ_MAX_INPUT);
  fsdpa_status sp = feed_chunks(p, data, size, size + 1);
  if (sg != sp) fz_die("gzip gives %s, plain gives %s (%s | %s)", fsdpa_status_str(sg),
                       fsdpa_status_str(sp), fsdpa_errmsg(c), fsdpa_errmsg(p));
  if (fsdpa_error_offset(c) != fsdpa_error_offset(p))
    fz_die("error offset gzip %lld, plain %lld", (long long)fsdpa_error_offset(c),
           (long long)fsdpa_error_offset(p));
  char *rg = report_norm(c), *rp = report_norm(p);
  fz_same("reports gzip (1) and plain (2)", rg, strlen(rg), rp, strlen(rp));
  free(rg);
  free(rp);
  fz_ctx_free(p, &h2);
  fz_ctx_free(c, &h);
  return 0;
}
