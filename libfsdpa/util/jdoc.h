/* A JSON document as a tree, the library's one reader of whole documents:
 * the report read back (rendering text and HTML from the JSON alone), the
 * rank sections a report is made of (the job section), two reports compared
 * (fsdpa_diff()).  Strict JSON through the pull reader (util/jsonr.h), nodes
 * in one array, strings decoded once, every value's bytes kept (an integer
 * is read exactly; a number is written back as it came), numbers read
 * without the C library's locale.  Bounded: depth 128. */
#ifndef FSDPA_UTIL_JDOC_H
#define FSDPA_UTIL_JDOC_H
#include <stddef.h>
#include <stdint.h>
#include "util/alloc.h"
#include "util/jsonw.h"

enum { JDC_NULL, JDC_FALSE, JDC_TRUE, JDC_NUM, JDC_STR, JDC_ARR, JDC_OBJ };

typedef struct jdc_node {
  uint8_t type;
  uint32_t next;      /* next sibling, 0: none (node 0 is the root, never a sibling) */
  uint32_t first;     /* first child (array / object), 0: none */
  uint32_t n;         /* children (array / object) */
  const char *key;    /* decoded member name in an object, else NULL */
  size_t key_len;
  const char *s;      /* JDC_STR: decoded bytes (NUL-terminated); JDC_NUM: the number's bytes in the input */
  size_t len;
  const char *raw;    /* the value's bytes in the input (a string with its quotes, a container whole) */
  size_t raw_len;
} jdc_node;

typedef struct jdoc {
  fa_alloc *a;
  jdc_node *v;
  size_t n, cap;
  char *strs;         /* decoded strings and keys */
  size_t strs_cap;
  size_t err_off;     /* after EPARSE: the byte offset of the error */
  char err[96];       /* and what it was */
} jdoc;

/* Parse s[0..n) (which must outlive the doc: numbers and raw bytes point
 * into it).  EPARSE with err_off / err set and a message naming the byte
 * offset in msg (may be NULL), ENOMEM/ELIMIT from the allocator.  Free with
 * jdc_free() either way. */
int jdc_parse(fa_alloc *a, const char *s, size_t n, jdoc *d, char *msg, size_t msg_len);
void jdc_free(jdoc *d);

static inline const jdc_node *jdc_root(const jdoc *d) { return d->n ? &d->v[0] : NULL; }
/* A member of an object (NULL if absent or `o` is not an object). */
const jdc_node *jdc_get(const jdoc *d, const jdc_node *o, const char *key);
/* Members along a dotted path ("launch_gaps.idle_causes.idle_ns"). */
const jdc_node *jdc_path(const jdoc *d, const jdc_node *o, const char *path);
/* Children in order: for (c = jdc_first(d, x); c; c = jdc_next(d, c)). */
const jdc_node *jdc_first(const jdoc *d, const jdc_node *x);
const jdc_node *jdc_next(const jdoc *d, const jdc_node *c);
/* Element i of an array (linear in i). */
const jdc_node *jdc_at(const jdoc *d, const jdc_node *a, size_t i);
static inline size_t jdc_count(const jdc_node *x) { return x && (x->type == JDC_ARR || x->type == JDC_OBJ) ? x->n : 0; }
/* An integer (no fraction or exponent) in int64 range: 1 with *v, else 0
 * (null, a missing node and anything else alike). */
int jdc_to_i64(const jdc_node *x, int64_t *v);
/* Any number: 1 with *v, else 0. */
int jdc_to_f64(const jdc_node *x, double *v);
/* The same, `absent` for anything else. */
int64_t jdc_i64(const jdc_node *x, int64_t absent);
double jdc_f64(const jdc_node *x, double absent);
/* A string's decoded bytes, else `absent`. */
const char *jdc_str(const jdc_node *x, const char *absent);
/* A string's decoded bytes into out (at most cap - 1 of them, cut at a
 * character start, NUL-terminated): their count; 0 when x is not a string. */
size_t jdc_str_copy(const jdc_node *x, char *out, size_t cap);
static inline int jdc_is_null(const jdc_node *x) { return !x || x->type == JDC_NULL; }
static inline int jdc_is_true(const jdc_node *x) { return x && x->type == JDC_TRUE; }
/* Whether string node x is `lit`. */
int jdc_str_is(const jdc_node *x, const char *lit);
/* Write x back with w (compact or pretty as w is): strings escaped as the
 * writer escapes them, numbers as their bytes, so a document the writer
 * made comes back byte for byte. */
void jdc_write(const jdoc *d, const jdc_node *x, jsonw *w);

/* Shorthands on an object: member `key` as an integer / string. */
static inline int64_t jdc_get_i64(const jdoc *d, const jdc_node *o, const char *key, int64_t absent) {
  return jdc_i64(jdc_get(d, o, key), absent);
}
static inline const char *jdc_get_str(const jdoc *d, const jdc_node *o, const char *key, const char *absent) {
  return jdc_str(jdc_get(d, o, key), absent);
}
#endif
