/* A JSON document as a tree, for reading back what the library wrote: the
 * report (rendering text and HTML from the JSON alone) and the rank
 * sections a report is made of (the job section).  Strict JSON through the
 * pull reader (util/jsonr.h), nodes in one array, strings decoded once,
 * numbers kept as their bytes (an integer is read exactly; a number is
 * written back as it came).  Bounded: depth 128. */
#ifndef FSDPA_UTIL_JDOC_H
#define FSDPA_UTIL_JDOC_H
#include <stddef.h>
#include <stdint.h>
#include "util/alloc.h"
#include "util/jsonw.h"

enum { JD_NULL, JD_FALSE, JD_TRUE, JD_NUM, JD_STR, JD_ARR, JD_OBJ };

typedef struct jd_node {
  uint8_t type;
  uint32_t next;      /* next sibling, 0: none (node 0 is the root, never a sibling) */
  uint32_t first;     /* first child (array / object), 0: none */
  uint32_t n;         /* children (array / object) */
  const char *key;    /* decoded member name in an object, else NULL */
  size_t key_len;
  const char *s;      /* JD_STR: decoded bytes (NUL-terminated); JD_NUM: the number's bytes in the input */
  size_t len;
} jd_node;

typedef struct jdoc {
  fa_alloc *a;
  jd_node *v;
  size_t n, cap;
  char *strs;         /* decoded strings and keys */
  size_t strs_cap;
} jdoc;

/* Parse s[0..n) (which must outlive the doc: numbers point into it).
 * EPARSE with a message naming the byte offset in msg, ENOMEM/ELIMIT from
 * the allocator.  Free with jd_free() either way. */
int jd_parse(fa_alloc *a, const char *s, size_t n, jdoc *d, char *msg, size_t msg_len);
void jd_free(jdoc *d);

static inline const jd_node *jd_root(const jdoc *d) { return d->n ? &d->v[0] : NULL; }
/* A member of an object (NULL if absent or `o` is not an object). */
const jd_node *jd_get(const jdoc *d, const jd_node *o, const char *key);
/* Members along a dotted path ("launch_gaps.idle_causes.idle_ns"). */
const jd_node *jd_path(const jdoc *d, const jd_node *o, const char *path);
/* Children in order: for (c = jd_first(d, x); c; c = jd_next(d, c)). */
const jd_node *jd_first(const jdoc *d, const jd_node *x);
const jd_node *jd_next(const jdoc *d, const jd_node *c);
/* Element i of an array (linear in i). */
const jd_node *jd_at(const jdoc *d, const jd_node *a, size_t i);
static inline size_t jd_count(const jd_node *x) { return x && (x->type == JD_ARR || x->type == JD_OBJ) ? x->n : 0; }
/* An integer (no fraction or exponent) in int64 range, else `absent`
 * (null, a missing node and anything else alike). */
int64_t jd_i64(const jd_node *x, int64_t absent);
/* A number as a double, else `absent`. */
double jd_f64(const jd_node *x, double absent);
/* A string's decoded bytes, else `absent`. */
const char *jd_str(const jd_node *x, const char *absent);
static inline int jd_is_null(const jd_node *x) { return !x || x->type == JD_NULL; }
static inline int jd_is_true(const jd_node *x) { return x && x->type == JD_TRUE; }
/* Whether string node x is `lit`. */
int jd_str_is(const jd_node *x, const char *lit);
/* Write x back with w (compact or pretty as w is): strings escaped as the
 * writer escapes them, numbers as their bytes, so a document the writer
 * made comes back byte for byte. */
void jd_write(const jdoc *d, const jd_node *x, jsonw *w);

/* Shorthands on an object: member `key` as an integer / string. */
static inline int64_t jd_get_i64(const jdoc *d, const jd_node *o, const char *key, int64_t absent) {
  return jd_i64(jd_get(d, o, key), absent);
}
static inline const char *jd_get_str(const jdoc *d, const jd_node *o, const char *key, const char *absent) {
  return jd_str(jd_get(d, o, key), absent);
}
#endif
