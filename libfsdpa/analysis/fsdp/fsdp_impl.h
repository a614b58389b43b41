/* Private to the FSDP room: the stream-schedule pattern matcher
 * (fsdp_engine_pattern.c), the per-step backward schedule
 * (fsdp_engine_backward.c) and the per-unit totals (fsdp_engine_units.c)
 * that the queries, the report section and the finding share. */
#ifndef FSDPA_ANALYSIS_FSDP_IMPL_H
#define FSDPA_ANALYSIS_FSDP_IMPL_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/fsdp/fsdp.h"
#include "model/fsdp_model.h"
#include "util/interval.h"

/* ---- fsdp_engine_pattern.c ----
 *
 * A small matcher of stream-schedule patterns: expected ordering and
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

/* ---- fsdp_engine_backward.c ---- */

/* The zigzag pattern text (docs/patterns.md section 4). */
extern const char BW_PATTERN[];

typedef struct bw_unit {
  uint32_t inst;
  int prefetched;   /* PAT_HOLDS / PAT_BROKEN / PAT_NA */
  int rs_hidden;
  int64_t idle;     /* ABSENT when not evaluated */
  iv gap;           /* the compute gap of a broken link (relative) */
} bw_unit;

typedef struct bw_step {
  int32_t step;     /* model step index, -1 none */
  int pattern;
  size_t u0, nu;    /* units[u0 .. u0+nu) */
  uint64_t links, prefetched, rs_hidden;
  int64_t idle;
  int64_t s, e;
  double overlap_pct;
} bw_step;

typedef struct bw_result {
  fsdp_model m;
  bw_unit *units;
  size_t nunits;
  bw_step *steps;
  size_t nsteps;
  int pattern;
  int borrowed;     /* a view of the context's cached result: bw_free only forgets it */
} bw_result;

/* Per unit over all steps. */
typedef struct bw_agg {
  int seen;
  int prefetched;      /* PAT_NA until evaluated; PAT_BROKEN once any step broke it */
  uint64_t broken;
  int64_t idle;        /* Σ idle of broken links into the unit */
  int64_t worst_idle;
} bw_agg;

/* Whole-trace result, computed once per store generation and kept in the
 * context (CACHE_BACKWARD); *r is a read-only view until bw_free(r). */
fsdpa_status bw_analyze(fsdpa_ctx *c, bw_result *r);
void bw_free(bw_result *r);
/* Per unit over all steps; *out has r->m.nunits entries (NULL if none). */
fsdpa_status bw_aggregate(const bw_result *r, bw_agg **out);
void bw_summary(const bw_result *r, const bw_agg *g, fsdpa_backward *o);
int64_t bw_step_number(const fsdp_model *m, int32_t k);
void bw_step_public(fsdpa_ctx *c, const bw_result *r, const bw_step *bs, fsdpa_backward_step *o);
void bw_unit_public(fsdpa_ctx *c, const bw_result *r, size_t k, uint32_t pos, fsdpa_backward_unit *o);

/* ---- fsdp_engine_units.c ---- */

/* Totals of the instances whose anchor lies in [t0, t1), laid out as `all`
 * (the whole-trace totals, n entries). */
fsdpa_status fsdp_units_in_window(const fsdp_model *m, const fm_total *all, size_t n, int64_t t0,
                                  int64_t t1, fm_total **out);
/* The full length of unit u's name, of which `shown` is what was written:
 * an FSDP2 FQN may be longer than the caller's buffer. */
size_t fsdp_unit_name_len(const fsdp_model *m, uint32_t u, const char *shown);
void fsdp_unit_public(const fsdp_model *m, const fm_total *x, fsdpa_fsdp_unit *o);
#endif
