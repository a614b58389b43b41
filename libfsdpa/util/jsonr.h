/* A minimal pull reader (summaries we write ourselves; the input layer's
 * check of a malformed event, where its errors are deterministic, unlike
 * simdjson's on such input, which depend on the parser's history): strict JSON,
 * bounds-checked, no allocation.  Values are read in place; a value's exact
 * bytes can be taken as a span (the summary embeds report sections verbatim).
 * Errors are sticky: after the first one every call fails and jr_ok() is 0. */
#ifndef FSDPA_UTIL_JSONR_H
#define FSDPA_UTIL_JSONR_H
#include <stddef.h>
#include <stdint.h>

typedef struct jr {
  const char *s, *p, *end;
  int err;
  size_t err_off;
  int max_depth;  /* nesting allowed in jr_skip (jr_init: 128) */
  char msg[96];
} jr;

void jr_init(jr *r, const char *s, size_t n);
static inline int jr_ok(const jr *r) { return !r->err; }
/* Record an error at the current position (first one wins); returns 0. */
int jr_fail(jr *r, const char *what);
/* Next non-space byte, or -1 at the end. */
int jr_peek(jr *r);
/* `{`: then `while (jr_obj_next(r, &i, &k, &kn)) { value }` with i = 0 first. */
int jr_obj_begin(jr *r);
int jr_obj_next(jr *r, size_t *i, const char **key, size_t *key_len);
/* `[`: then `while (jr_arr_next(r, &i)) { value }` with i = 0 first. */
int jr_arr_begin(jr *r);
int jr_arr_next(jr *r, size_t *i);
/* null -> 1 (consumed), anything else -> 0 (nothing consumed). */
int jr_null(jr *r);
/* An integer (no fraction or exponent) in int64 range, or null -> absent. */
int jr_i64(jr *r, int64_t *v, int64_t absent);
/* A string: raw bytes between the quotes, escapes left in place. */
int jr_str(jr *r, const char **raw, size_t *n);
/* Any value; its exact bytes are [*b, *e). */
int jr_skip(jr *r, const char **b, const char **e);
/* End of document: only spaces may follow. */
int jr_end(jr *r);
/* Decode a raw string (validated by jr_str) into out (capacity n + 1 is
 * enough); returns the length.  `\ufffd` decodes to the byte 0xFF: our
 * writer emits that escape only for invalid UTF-8 input, and writing 0xFF
 * again reproduces the same escape. */
size_t jr_unescape(const char *raw, size_t n, char *out);
int jr_key_is(const char *k, size_t kn, const char *lit);
#endif
