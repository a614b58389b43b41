/* Differential: the same bytes fed whole (default window, default
 * allocator) and split at fuzzer-chosen offsets (a fuzzer-chosen decode
 * window, SIMD or scalar splitter, checking allocator) must give the same
 * status, error offset and message, and the same JSON report.
 *
 * Input: byte 0 = number of cuts (low 3 bits) and tuning (high bits), then
 * 2 bytes (little endian) per cut, then the document.  Cut offsets are
 * taken modulo the document length + 1 and sorted. */
#include "fuzz_common.h"
#include "ctx.h"
#include "input/input.h"

typedef struct run_out {
  fsdpa_status st;
  int64_t off;
  char msg[512];
  char *report;
} run_out;

static void finish_run(fsdpa_ctx *c, fsdpa_status st, run_out *o) {
  if (st == FSDPA_OK) {
    st = fsdpa_finish(c);
    fz_input_status(st, "fsdpa_finish");
  }
  o->st = st;
  o->off = fsdpa_error_offset(c);
  snprintf(o->msg, sizeof o->msg, "%s", st ? fsdpa_errmsg(c) : "");
  size_t len = 0;
  char *r = fz_report(&c, 1, FSDPA_FORMAT_JSON, &len);
  fz_check_json(r, len);
  o->report = (char *)malloc(len + 1);
  if (!o->report) fz_die("out of memory");
  memcpy(o->report, r, len + 1);
  fsdpa_free(r);
  /* bytes fed stop at the failing chunk: not comparable */
  fz_blank_bytes(o->report);
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  unsigned ncut = data[0] & 7, tune = data[0] >> 3;
  if (size < 1 + 2 * (size_t)ncut) return 0;
  const uint8_t *doc = data + 1 + 2 * ncut;
  size_t n = size - 1 - 2 * ncut;
  size_t cuts[9];
  for (unsigned i = 0; i < ncut; i++)
    cuts[i] = (size_t)(data[1 + 2 * i] | data[2 + 2 * i] << 8) % (n + 1);
  cuts[ncut] = n;
  qsort(cuts, ncut + 1, sizeof cuts[0], cmp_size);

  /* whole, default allocator and window */
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.name = "fuzz";
  fsdpa_ctx *w = NULL;
  if (fsdpa_ctx_new(&w, &o) != FSDPA_OK) fz_die("fsdpa_ctx_new");
  fsdpa_status st = fsdpa_feed(w, doc, n);
  fz_input_status(st, "fsdpa_feed");
  run_out ow;
  finish_run(w, st, &ow);
  fsdpa_ctx_free(w);

  /* split, tuned */
  fz_heap h = {0, 0};
  fsdpa_allocator a = fz_allocator(&h);
  fsdpa_ctx *s = fz_ctx_new(&h, &a, 0);
  if (tune) {
    if (fsdpa_feed(s, doc, 0) != FSDPA_OK || !s->input) fz_die("empty feed did not create the input");
    size_t window = (size_t)64 << (tune & 15); /* 64 B .. 2 MiB */
    if (input_tune(s->input, window, 0, tune & 16 ? 0 : 1) != FSDPA_OK) fz_die("input_tune");
  }
  size_t prev = 0;
  st = FSDPA_OK;
  for (unsigned i = 0; i <= ncut && st == FSDPA_OK; i++) {
    st = fsdpa_feed(s, doc + prev, cuts[i] - prev);
    fz_input_status(st, "fsdpa_feed (split)");
    prev = cuts[i];
  }
  run_out os;
  finish_run(s, st, &os);
  fz_ctx_free(s, &h);

  if (ow.st != os.st)
    fz_die("whole: %s (%s); split: %s (%s)", fsdpa_status_str(ow.st), ow.msg, fsdpa_status_str(os.st), os.msg);
  if (ow.off != os.off) fz_die("error offset whole %lld, split %lld", (long long)ow.off, (long long)os.off);
  if (strcmp(ow.msg, os.msg) != 0) fz_die("messages differ:\n  whole: %s\n  split: %s", ow.msg, os.msg);
  fz_same("reports whole (1) and split (2)", ow.report, strlen(ow.report), os.report, strlen(os.report));
  free(ow.report);
  free(os.report);
  return 0;
}
