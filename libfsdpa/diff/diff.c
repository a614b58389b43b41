/* fsdpa_diff(): two runs in (reports or summaries), one comparison out. */
#include "diff/diff.h"
#include "util/abi.h"
#include "util/error.h"
#include "util/jsonr.h"
#include "util/outbuf.h"
#include <string.h>

void fsdpa_diff_options_init_sized(fsdpa_diff_options *o, size_t size) {
  if (!o || size < sizeof(size_t)) return;
  fsdpa_diff_options d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.format = FSDPA_FORMAT_JSON;
  d.fail_on_regression_ppm = -1;
  d.min_change_ppm = 50000;
  memcpy(o, &d, size < sizeof d ? size : sizeof d);
  o->size = size;
}

/* Whether the document's "schema" (looked for among the top-level keys) is
 * `want`. */
static int schema_is(const char *s, size_t len, const char *want) {
  jr r;
  jr_init(&r, s, len);
  size_t i = 0;
  const char *k, *v, *b, *e;
  size_t kn, vn;
  if (!jr_obj_begin(&r)) return 0;
  while (jr_obj_next(&r, &i, &k, &kn)) {
    if (jr_key_is(k, kn, "schema")) return jr_str(&r, &v, &vn) && jr_key_is(v, vn, want);
    if (!jr_skip(&r, &b, &e)) return 0;
  }
  return 0;
}

/* One run: a report as it is, a summary through its report.  *owned holds
 * the report made from a summary (the tree points into it). */
static fsdpa_status load(fa_alloc *a, const fsdpa_diff_options *o, const char *s, size_t len, int which, drun *run,
                         char **owned, fsdpa_error *err) {
  const char *what = which ? "new" : "base";
  *owned = NULL;
  if (schema_is(s, len, "fsdpa.summary/1")) {
    fsdpa_summary_options so;
    fsdpa_summary_options_init(&so);
    so.allocator = o->allocator;
    so.max_memory_bytes = o->max_memory_bytes;
    fsdpa_error e;
    fsdpa_error_init(&e);
    size_t rlen = 0;
    fsdpa_status st = fsdpa_summary_report(s, len, &so, NULL, owned, &rlen, &e);
    if (st) return err_set(err, st, which, e.offset, "%s: %s", what, e.message);
    s = *owned;
    len = rlen;
  }
  int64_t off;
  char msg[128];
  fsdpa_status st = drun_read(a, s, len, run, &off, msg, sizeof msg);
  if (st == FSDPA_EPARSE)
    return err_set(err, st, which, *owned ? FSDPA_ABSENT : off, "%s: %s%s", what, msg,
                   *owned ? " (in the report of the summary)" : "");
  if (st) return err_set(err, st, which, FSDPA_ABSENT, "%s: %s", what, fsdpa_status_str(st));
  return FSDPA_OK;
}

fsdpa_status fsdpa_diff(const char *base, size_t base_len, const char *next, size_t next_len,
                        const fsdpa_diff_options *opts, char **out, size_t *out_len, int *regressed, fsdpa_error *err) {
  if (!err_clear(err)) return FSDPA_EINVAL;
  if (out) *out = NULL;
  if (out_len) *out_len = 0;
  if (regressed) *regressed = 0;
  if (!out || !base || !next) return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_diff: NULL argument");
  fsdpa_diff_options o;
  fsdpa_diff_options_init(&o);
  if (opts && !ABI_IN(fsdpa_diff_options, &o, opts))
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_diff_options.size");
  if (o.format != FSDPA_FORMAT_JSON && o.format != FSDPA_FORMAT_TEXT && o.format != FSDPA_FORMAT_HTML)
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_diff: unknown format");
  if (o.min_change_ppm < 0 || o.min_change_ppm > 1000000000 || o.fail_on_regression_ppm < -1 ||
      o.fail_on_regression_ppm > 1000000000)
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT,
                   "fsdpa_diff: min_change_ppm and fail_on_regression_ppm must be within 0 .. 10^9 (-1: no gate)");
  dwrite_opts wo = {o.width ? o.width : 100, o.color};
  if (wo.width < 40) wo.width = 40;
  if (wo.width > 1000) wo.width = 1000;
  fa_alloc a;
  fa_init(&a, o.allocator, o.max_memory_bytes);
  drun run[2];
  memset(run, 0, sizeof run);
  char *owned[2] = {NULL, NULL};
  dresult r;
  memset(&r, 0, sizeof r);
  int built = 0;
  sbuf b;
  sb_init(&b, &a);
  fsdpa_status st = load(&a, &o, base, base_len, 0, &run[0], &owned[0], err);
  if (!st) st = load(&a, &o, next, next_len, 1, &run[1], &owned[1], err);
  if (st) goto done;
  st = dresult_build(&a, &run[0], &run[1], o.min_change_ppm, o.fail_on_regression_ppm, &r);
  if (st) {
    err_set(err, st, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_diff: %s", fsdpa_status_str(st));
    goto done;
  }
  built = 1;
  if (o.format == FSDPA_FORMAT_JSON) diff_json(&r, &b);
  else if (o.format == FSDPA_FORMAT_TEXT) diff_text(&r, &wo, &b);
  else diff_html(&r, &b);
  if (b.failed) {
    st = (fsdpa_status)b.failed;
    err_set(err, st, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_diff: %s", fsdpa_status_str(st));
    goto done;
  }
  *out = outbuf_dup(&a, b.p ? b.p : "", b.len);
  if (!*out) {
    st = fa_fail_status(&a);
    err_set(err, st, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_diff: %s", fsdpa_status_str(st));
    goto done;
  }
  if (out_len) *out_len = b.len;
  if (regressed) *regressed = r.regressed;
done:
  sb_free(&b);
  if (built) dresult_free(&a, &r);
  for (int i = 0; i < 2; i++) {
    drun_free(&a, &run[i]);
    fsdpa_free(owned[i]);
  }
  return st;
}
