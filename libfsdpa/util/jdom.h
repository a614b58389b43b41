/* A read-only tree over a whole JSON text, built with the pull reader
 * (util/jsonr): for documents compared as a whole (two reports in
 * fsdpa_diff()).  Nodes point into the text, which must outlive the tree;
 * strings stay raw, escapes in place (jd_str() decodes). */
#ifndef FSDPA_UTIL_JDOM_H
#define FSDPA_UTIL_JDOM_H
#include "util/alloc.h"
#include <stddef.h>
#include <stdint.h>

typedef enum jd_type { JD_NULL, JD_FALSE, JD_TRUE, JD_NUM, JD_STR, JD_ARR, JD_OBJ } jd_type;

typedef struct jd_node {
  const char *key;       /* member of an object: its raw name; else NULL */
  const char *v;         /* the value's text (a string: between its quotes) */
  uint32_t key_len, v_len;
  uint32_t child;        /* first element or member (index); 0: none */
  uint32_t next;         /* next sibling; 0: none */
  uint32_t n;            /* elements or members */
  uint8_t type;          /* enum jd_type */
} jd_node;

typedef struct jd_doc {
  fa_alloc *a;
  jd_node *n;            /* n[0] is the root */
  size_t len, cap;
  size_t err_off;        /* after a parse error: its byte offset */
  char msg[96];          /* and what it was */
} jd_doc;

/* Parse s[0..len) (one value, nothing but spaces after it).  FSDPA_EPARSE
 * with err_off / msg set, or the allocator's failure; free either way. */
fsdpa_status jd_parse(jd_doc *d, fa_alloc *a, const char *s, size_t len);
void jd_free(jd_doc *d);

static inline const jd_node *jd_root(const jd_doc *d) { return d->len ? &d->n[0] : NULL; }
/* First element / member, and the next one; NULL at the end (and for NULL). */
const jd_node *jd_first(const jd_doc *d, const jd_node *x);
const jd_node *jd_next(const jd_doc *d, const jd_node *x);
/* Member `key` of object x (raw comparison: names without escapes); NULL if
 * x is not an object or lacks it. */
const jd_node *jd_get(const jd_doc *d, const jd_node *x, const char *key);
/* Follow members: jd_path(d, x, "launch_gaps", "idle_causes", NULL). */
const jd_node *jd_path(const jd_doc *d, const jd_node *x, ...);
/* An integer (no fraction or exponent, in range): 1 with *v; else 0. */
int jd_i64(const jd_node *x, int64_t *v);
/* Any number: 1 with *v; else 0 (null, absent, not a number). */
int jd_f64(const jd_node *x, double *v);
/* A string decoded into out (at most cap - 1 bytes, NUL-terminated; cut
 * at a character boundary): its length; 0 when x is not a string. */
size_t jd_str(const jd_node *x, char *out, size_t cap);
/* Whether x is the string `s` (raw comparison). */
int jd_str_is(const jd_node *x, const char *s);
#endif
