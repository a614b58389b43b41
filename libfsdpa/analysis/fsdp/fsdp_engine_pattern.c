/* The stream-schedule pattern matcher (the language: fsdp_impl.h and
 * docs/patterns.md): parsing a pattern text and evaluating its rules on
 * consecutive slots of labelled interval sets.  Never allocates. */
#include "analysis/fsdp/fsdp_impl.h"
#include <stdio.h>
#include <string.h>

static const struct {
  const char *word;
  int rel;
} RELS[] = {
    {"overlaps", PAT_OVERLAPS},
    {"disjoint", PAT_DISJOINT},
    {"precedes", PAT_PRECEDES},
    {"starts_before_end", PAT_STARTS_BEFORE_END},
    {"starts_before", PAT_STARTS_BEFORE},
};

typedef struct lex {
  const char *p, *end;
  int line;
} lex;

static void skip_ws(lex *l) {
  while (l->p < l->end && (*l->p == ' ' || *l->p == '\t' || *l->p == '\r')) l->p++;
}

static int is_ident(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_';
}

/* Reads an identifier into out (NUL-terminated); returns its length, 0 if none. */
static size_t ident(lex *l, char *out, size_t cap) {
  skip_ws(l);
  size_t n = 0;
  while (l->p < l->end && is_ident(*l->p)) {
    if (n + 1 < cap) out[n] = *l->p;
    n++;
    l->p++;
  }
  if (cap) out[n < cap ? n : cap - 1] = 0;
  return n;
}

static int fail(lex *l, char *err, size_t errn, const char *why) {
  if (err && errn) snprintf(err, errn, "pattern line %d: %s", l->line, why);
  return -1;
}

static int ref(lex *l, const char *const *labels, int nlabels, pat_ref *r, char *err, size_t errn) {
  char name[PAT_NAME_MAX];
  size_t n = ident(l, name, sizeof name);
  if (!n) return fail(l, err, errn, "expected a label");
  if (n >= sizeof name) return fail(l, err, errn, "label too long");
  int found = -1;
  for (int k = 0; k < nlabels; k++)
    if (strcmp(labels[k], name) == 0) found = k;
  if (found < 0) return fail(l, err, errn, "unknown label");
  r->label = (uint8_t)found;
  skip_ws(l);
  if (l->p >= l->end || *l->p != '[') return fail(l, err, errn, "expected '[' after label");
  l->p++;
  skip_ws(l);
  if (l->p >= l->end || *l->p != 'i') return fail(l, err, errn, "expected 'i' inside []");
  l->p++;
  skip_ws(l);
  int off = 0;
  if (l->p < l->end && (*l->p == '+' || *l->p == '-')) {
    int sign = *l->p == '-' ? -1 : 1;
    l->p++;
    skip_ws(l);
    if (l->p >= l->end || *l->p < '0' || *l->p > '9') return fail(l, err, errn, "expected an offset");
    while (l->p < l->end && *l->p >= '0' && *l->p <= '9') {
      off = off * 10 + (*l->p - '0');
      if (off > 100) return fail(l, err, errn, "offset out of range");
      l->p++;
    }
    off *= sign;
  }
  skip_ws(l);
  if (l->p >= l->end || *l->p != ']') return fail(l, err, errn, "expected ']'");
  l->p++;
  r->off = (int8_t)off;
  return 0;
}

static int rule_line(lex *l, const char *const *labels, int nlabels, pattern *p, char *err,
                     size_t errn) {
  if (p->nrules >= PAT_MAX_RULES) return fail(l, err, errn, "too many rules");
  pat_rule *r = &p->rules[p->nrules];
  memset(r, 0, sizeof *r);
  size_t n = ident(l, r->name, sizeof r->name);
  if (!n) return fail(l, err, errn, "expected a rule name");
  if (n >= sizeof r->name) return fail(l, err, errn, "rule name too long");
  skip_ws(l);
  if (l->p >= l->end || *l->p != ':') return fail(l, err, errn, "expected ':' after the rule name");
  l->p++;
  if (ref(l, labels, nlabels, &r->a, err, errn)) return -1;
  char word[32];
  if (!ident(l, word, sizeof word)) return fail(l, err, errn, "expected a relation");
  int rel = -1;
  for (size_t k = 0; k < sizeof RELS / sizeof RELS[0]; k++)
    if (strcmp(word, RELS[k].word) == 0) rel = RELS[k].rel;
  if (rel < 0) return fail(l, err, errn, "unknown relation");
  r->rel = (uint8_t)rel;
  for (;;) {
    if (r->nalt >= PAT_MAX_ALTS) return fail(l, err, errn, "too many alternatives");
    if (ref(l, labels, nlabels, &r->b[r->nalt], err, errn)) return -1;
    r->nalt++;
    skip_ws(l);
    if (l->p < l->end && *l->p == '|') {
      l->p++;
      continue;
    }
    break;
  }
  skip_ws(l);
  if (l->p < l->end && *l->p == '#')
    while (l->p < l->end && *l->p != '\n' && *l->p != ';') l->p++;
  if (l->p < l->end && *l->p != '\n' && *l->p != ';')
    return fail(l, err, errn, "unexpected text after the rule");
  p->nrules++;
  return 0;
}

int pattern_parse(const char *text, const char *const *labels, int nlabels, pattern *p, char *err,
                  size_t errn) {
  memset(p, 0, sizeof *p);
  if (err && errn) err[0] = 0;
  lex l = {text, text + strlen(text), 1};
  while (l.p < l.end) {
    skip_ws(&l);
    if (l.p >= l.end) break;
    if (*l.p == '\n' || *l.p == ';') {
      if (*l.p == '\n') l.line++;
      l.p++;
      continue;
    }
    if (*l.p == '#') {
      while (l.p < l.end && *l.p != '\n') l.p++;
      continue;
    }
    if (rule_line(&l, labels, nlabels, p, err, errn)) return -1;
  }
  if (!p->nrules) return fail(&l, err, errn, "no rules");
  return 0;
}

int pattern_rule(const pattern *p, const char *name) {
  for (int r = 0; r < p->nrules; r++)
    if (strcmp(p->rules[r].name, name) == 0) return r;
  return -1;
}

static int64_t set_start(const pat_set *s) { return s->v[0].s; }
static int64_t set_end(const pat_set *s) { return s->v[s->n - 1].e; }

/* One alternative: PAT_HOLDS / PAT_BROKEN and its measure. */
static int eval1(int rel, const pat_set *a, const pat_set *b, int64_t *m) {
  switch (rel) {
    case PAT_OVERLAPS:
    case PAT_DISJOINT: {
      int64_t x = iv_intersect_len(a->v, a->n, b->v, b->n);
      *m = x;
      return (rel == PAT_OVERLAPS) == (x > 0) ? PAT_HOLDS : PAT_BROKEN;
    }
    case PAT_PRECEDES:
      *m = set_start(b) - set_end(a);
      return *m >= 0 ? PAT_HOLDS : PAT_BROKEN;
    case PAT_STARTS_BEFORE:
      *m = set_start(b) - set_end(a);
      return set_start(a) < set_start(b) ? PAT_HOLDS : PAT_BROKEN;
    default: /* PAT_STARTS_BEFORE_END */
      *m = set_start(b) - set_end(a);
      return set_start(a) < set_end(b) ? PAT_HOLDS : PAT_BROKEN;
  }
}

static const pat_set *slot(const pat_set *sets, size_t n, int nlabels, size_t i, pat_ref r) {
  int64_t k = (int64_t)i + r.off;
  if (k < 0 || (size_t)k >= n) return NULL;
  const pat_set *s = &sets[(size_t)k * (size_t)nlabels + r.label];
  return s->n ? s : NULL;
}

void pattern_eval(const pattern *p, const pat_set *sets, size_t n, int nlabels, int8_t *state,
                  int64_t *measure) {
  for (int r = 0; r < p->nrules; r++) {
    const pat_rule *ru = &p->rules[r];
    for (size_t i = 0; i < n; i++) {
      int st = PAT_NA;
      int64_t m = INT64_MIN;
      const pat_set *a = slot(sets, n, nlabels, i, ru->a);
      for (int k = 0; a && k < ru->nalt; k++) {
        const pat_set *b = slot(sets, n, nlabels, i, ru->b[k]);
        if (!b) continue;
        int64_t mk;
        int sk = eval1(ru->rel, a, b, &mk);
        if (st == PAT_NA || (st == PAT_BROKEN && sk == PAT_HOLDS)) {
          st = sk;
          m = mk;
        }
        if (st == PAT_HOLDS) break;
      }
      state[(size_t)r * n + i] = (int8_t)st;
      if (measure) measure[(size_t)r * n + i] = m;
    }
  }
}

static int ref_text(char *buf, size_t n, const char *const *labels, pat_ref r) {
  if (r.off) return snprintf(buf, n, "%s[i%+d]", labels[r.label], (int)r.off);
  return snprintf(buf, n, "%s[i]", labels[r.label]);
}

void pattern_rule_text(const pattern *p, int r, const char *const *labels, char *buf, size_t n) {
  if (!n) return;
  buf[0] = 0;
  if (r < 0 || r >= p->nrules) return;
  const pat_rule *ru = &p->rules[r];
  size_t used = 0;
  int w = ref_text(buf, n, labels, ru->a);
  used = w > 0 ? (size_t)w : 0;
  const char *word = "?";
  for (size_t k = 0; k < sizeof RELS / sizeof RELS[0]; k++)
    if (RELS[k].rel == ru->rel) word = RELS[k].word;
  if (used < n) used += (size_t)snprintf(buf + used, n - used, " %s ", word);
  for (int k = 0; k < ru->nalt && used < n; k++) {
    if (k && used < n) used += (size_t)snprintf(buf + used, n - used, " | ");
    if (used < n) used += (size_t)ref_text(buf + used, n - used, labels, ru->b[k]);
  }
}
