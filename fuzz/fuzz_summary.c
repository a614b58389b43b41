/* The summary reader (fsdpa_summary_merge / fsdpa_summary_report take
 * bytes from other processes or files, so they are an input parser too).
 * Bytes 0-1 (u16, little endian, modulo the rest's length + 1) split the
 * rest into two summaries for a 2-way merge.  Checked:
 * only documented statuses, valid JSON out, merge of one summary reports
 * the same as the summary itself, and every byte allocated is released. */
#include "fuzz_common.h"

static void status_ok(fsdpa_status st, const char *what, const char *err) {
  if (st != FSDPA_OK && st != FSDPA_EPARSE && st != FSDPA_EINVAL && st != FSDPA_ELIMIT)
    fz_die("%s: %s: %s", what, fsdpa_status_str(st), err);
  if (st != FSDPA_OK && !err[0]) fz_die("%s failed without a message", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  const char *s = (const char *)data + 2;
  size_t n = size - 2;
  size_t cut = (size_t)(data[0] | data[1] << 8) % (n + 1);
  fz_heap h = {0, 0};
  fsdpa_allocator a = fz_allocator(&h);
  fsdpa_summary_options so;
  fsdpa_summary_options_init(&so);
  so.allocator = &a;
  so.max_memory_bytes = (uint64_t)64 << 20;
  fsdpa_error e;
  fsdpa_error_init(&e);
  const char *err = e.message;

  char *r1 = NULL, *m = NULL, *r2 = NULL, *m2 = NULL;
  size_t r1len = 0, mlen = 0, r2len = 0, m2len = 0;
  fsdpa_status st1 = fsdpa_summary_report(s, n, &so, NULL, &r1, &r1len, &e);
  status_ok(st1, "fsdpa_summary_report", err);
  if (st1 == FSDPA_OK) fz_check_json(r1, r1len);

  fsdpa_status sm = fsdpa_summary_merge(&s, &n, 1, &so, &m, &mlen, &e);
  status_ok(sm, "fsdpa_summary_merge", err);
  if (sm == FSDPA_OK) {
    fz_check_json(m, mlen);
      fsdpa_status st2 = fsdpa_summary_report(m, mlen, &so, NULL, &r2, &r2len, &e);
    if (st2 != FSDPA_OK) fz_die("report of a merged summary: %s: %s", fsdpa_status_str(st2), err);
    if (st1 != FSDPA_OK) fz_die("a summary that merges must report (report said: %s)", fsdpa_status_str(st1));
    fz_same("reports of a summary (1) and of its merge (2)", r1, r1len, r2, r2len);
  }

  const char *parts[2] = {s, s + cut};
  size_t plens[2] = {cut, n - cut};
  fsdpa_status s2 = fsdpa_summary_merge(parts, plens, 2, &so, &m2, &m2len, &e);
  status_ok(s2, "fsdpa_summary_merge (2)", err);
  if (s2 == FSDPA_OK) {
    fz_check_json(m2, m2len);
    char *r3 = NULL;
    size_t r3len = 0;
      fsdpa_status st3 = fsdpa_summary_report(m2, m2len, &so, NULL, &r3, &r3len, &e);
    if (st3 != FSDPA_OK) fz_die("report of a 2-way merge: %s: %s", fsdpa_status_str(st3), err);
    fz_check_json(r3, r3len);
    fsdpa_free(r3);
  }
  fsdpa_free(r1);
  fsdpa_free(r2);
  fsdpa_free(m);
  fsdpa_free(m2);
  if (h.live) fz_die("%llu bytes still allocated", (unsigned long long)h.live);
  return 0;
}
