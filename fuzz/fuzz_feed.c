/* The JSON byte feed: fsdpa_feed() of the whole input, fsdpa_finish(), then
 * the report, so the analyses run on whatever the parser accepted (also
 * after an input error: queries answer for the events decoded so far). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_heap h = {0, 0};
  fsdpa_allocator a = fz_allocator(&h);
  fsdpa_ctx *c = fz_ctx_new(&h, &a, 0);
  fsdpa_status st = fsdpa_feed(c, data, size);
  fz_input_status(st, "fsdpa_feed");
  fsdpa_status fin = fsdpa_finish(c);
  fz_input_status(fin, "fsdpa_finish");
  if (st != FSDPA_OK && fin != FSDPA_ESTATE) fz_die("fsdpa_finish after a failed feed: %s", fsdpa_status_str(fin));
  if ((st != FSDPA_OK || fin != FSDPA_OK) && !fsdpa_errmsg(c)[0]) fz_die("error without a message");
  fz_reports(&c, 1, size ? (unsigned)(data[size - 1] ^ size) : 0);
  fz_summary_roundtrip(&c, 1, 1);
  fz_ctx_free(c, &h);
  return 0;
}
