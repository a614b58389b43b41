/* A small matcher of stream-schedule patterns: expected ordering and
 * concurrency relations between labelled GPU intervals of consecutive
 * "slots" (FSDP units in backward order, forward units, DDP buckets, ...).
 *
 * A pattern is text, one rule per line (docs/patterns.md):
 *
 *     prefetch:  AG[i+1] overlaps C[i]
 *     rs_hidden: RS[i] overlaps C[i+1] | AG[i+1]
 *
 * Labels are resolved against the names the caller passes, so the same
 * machinery checks any schedule whose slots carry labelled interval sets.
 * Parsing and evaluation never allocate. */
#ifndef FSDPA_ANALYSIS_PATTERN_H
#define FSDPA_ANALYSIS_PATTERN_H
#include <stddef.h>
#include <stdint.h>
#include "util/interval.h"

#define PAT_MAX_RULES 8
#define PAT_MAX_ALTS 4
#define PAT_NAME_MAX 24

enum pat_rel {
  PAT_OVERLAPS = 0,        /* |A ∩ B| > 0 */
  PAT_DISJOINT,            /* |A ∩ B| = 0 */
  PAT_PRECEDES,            /* end(A) <= start(B) */
  PAT_STARTS_BEFORE,       /* start(A) < start(B) */
  PAT_STARTS_BEFORE_END    /* start(A) < end(B) */
};

typedef struct pat_ref {
  uint8_t label;  /* index into the caller's label names */
  int8_t off;     /* slot offset relative to i */
} pat_ref;

typedef struct pat_rule {
  char name[PAT_NAME_MAX];
  pat_ref a;
  uint8_t rel;
  uint8_t nalt;
  pat_ref b[PAT_MAX_ALTS];  /* the rule holds if it holds for any alternative */
} pat_rule;

typedef struct pattern {
  int nrules;
  pat_rule rules[PAT_MAX_RULES];
} pattern;

/* A union of intervals (sorted, disjoint); n == 0 means the label is absent
 * in that slot, and rules touching it are not evaluated there. */
typedef struct pat_set {
  const iv *v;
  size_t n;
} pat_set;

/* Rule outcome for one slot. */
enum { PAT_NA = -1, PAT_BROKEN = 0, PAT_HOLDS = 1 };

/* Parse `text`; labels[0..nlabels) are the label names.  Returns 0, or -1
 * with a message (line number and reason) in err. */
int pattern_parse(const char *text, const char *const *labels, int nlabels, pattern *p, char *err,
                  size_t errn);
/* Index of a rule by name, or -1. */
int pattern_rule(const pattern *p, const char *name);
/* Evaluate every rule on every slot i in [0, n).  sets[i * nlabels + l] is
 * slot i's set for label l.  state[r * n + i] receives PAT_HOLDS / PAT_BROKEN
 * / PAT_NA; measure[r * n + i] (may be NULL) the rule's quantity for the
 * first evaluable alternative that decided it: overlap length for
 * overlaps/disjoint, else start(B) - end(A) (the gap, negative when they
 * overlap).  ABSENT (INT64_MIN) when not evaluated. */
void pattern_eval(const pattern *p, const pat_set *sets, size_t n, int nlabels, int8_t *state,
                  int64_t *measure);
/* Write rule r back as text ("AG[i+1] overlaps C[i]") into buf. */
void pattern_rule_text(const pattern *p, int r, const char *const *labels, char *buf, size_t n);
#endif
