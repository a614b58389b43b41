/* A small JSON writer over a growable byte buffer (reports, evidence,
 * summaries).  Errors are sticky: after an allocation failure every call is
 * a no-op and jw_status() says why, so writers need not check each call. */
#ifndef FSDPA_UTIL_JSONW_H
#define FSDPA_UTIL_JSONW_H
#include <stddef.h>
#include <stdint.h>
#include "util/alloc.h"

typedef struct sbuf {
  fa_alloc *a;
  char *p;
  size_t len, cap;
  int failed;       /* 0 ok, else fsdpa_status of the failure */
} sbuf;

void sb_init(sbuf *b, fa_alloc *a);
void sb_free(sbuf *b);
void sb_putn(sbuf *b, const char *s, size_t n);
void sb_puts(sbuf *b, const char *s);
void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* JSON string literal with escapes (invalid UTF-8 bytes become U+FFFD). */
void sb_json_str(sbuf *b, const char *s, size_t n);

typedef struct jsonw {
  sbuf *b;
  int depth;
  int pretty;            /* indent with 2 spaces */
  uint8_t first[64];     /* per depth: no element written yet */
  int after_key;
} jsonw;

void jw_init(jsonw *w, sbuf *b, int pretty);
void jw_obj(jsonw *w);              /* { */
void jw_obj_end(jsonw *w);          /* } */
void jw_arr(jsonw *w);              /* [ */
void jw_arr_end(jsonw *w);          /* ] */
void jw_key(jsonw *w, const char *k);
void jw_str(jsonw *w, const char *s);
void jw_strn(jsonw *w, const char *s, size_t n);
void jw_i64(jsonw *w, int64_t v);   /* FSDPA_ABSENT -> null */
void jw_u64(jsonw *w, uint64_t v);
void jw_f64(jsonw *w, double v, int decimals);  /* negative or non-finite -> null when neg_is_null */
void jw_ratio(jsonw *w, double v);  /* v < 0 -> null, else 6 decimals */
void jw_bool(jsonw *w, int v);
void jw_null(jsonw *w);
void jw_raw(jsonw *w, const char *json, size_t n);  /* pre-built JSON value */
/* key + value shorthands */
void jw_kstr(jsonw *w, const char *k, const char *s);
void jw_ki64(jsonw *w, const char *k, int64_t v);
void jw_ku64(jsonw *w, const char *k, uint64_t v);
void jw_kratio(jsonw *w, const char *k, double v);
void jw_knull(jsonw *w, const char *k);
void jw_kstr_or_null(jsonw *w, const char *k, const char *s);             /* NULL s -> null */
void jw_kstrn_or_null(jsonw *w, const char *k, const char *s, size_t n);  /* NULL s -> null */
#endif
