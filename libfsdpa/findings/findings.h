/* Findings: the one place diagnoses are collected.  Each analysis appends
 * findings (id from the report contract, severity, the time they cost, a
 * sentence with the numbers, advice, evidence); the report orders them by
 * cost, worst first. */
#ifndef FSDPA_FINDINGS_H
#define FSDPA_FINDINGS_H
#include <stdint.h>
#include "util/alloc.h"
#include "util/jsonw.h"
#include "util/interval.h"

enum { SEV_INFO = 0, SEV_WARNING = 1, SEV_CRITICAL = 2 };

#define FINDING_MAX_RANGES 4

typedef struct finding {
  const char *id;        /* static: "gpu-starvation", ... */
  int severity;
  int64_t rank;          /* FSDPA_ABSENT if unknown */
  int64_t step;          /* ProfilerStep number, FSDPA_ABSENT = whole trace */
  int64_t cost_ns;       /* time the problem costs (ordering key) */
  int64_t cost_bytes;    /* memory it costs, FSDPA_ABSENT: from its evidence's
                          * top-level integer "cost_bytes", so a finding rebuilt
                          * from its evidence (summaries) keeps it */
  int64_t saving_ns;     /* what fixing it saves (a replay of the dependency graph
                          * with its edges removed), FSDPA_ABSENT when not
                          * replayed; from its evidence's "saving_ns" */
  int64_t saving_window_ns; /* the time the saving was measured over ("saving_window_ns") */
  char *title, *detail, *advice;  /* owned (fa_alloc) */
  char *evidence;        /* JSON object text, owned; ranges are added by the writer */
  size_t title_n, detail_n, advice_n, evidence_n;  /* allocation sizes */
  iv ranges[FINDING_MAX_RANGES];  /* absolute ns, worst first: the report's */
  int nranges;
  /* every range past the report's few, worst first (annotate marks them
   * all), in the list's allocator; and how many ranges the finding has in
   * all, which the report states when it is more than it lists (a finding
   * rebuilt from a summary has the count without the ranges) */
  iv *more;
  size_t nmore, more_cap;
  uint64_t ranges_total;
  fa_alloc *a;
  int failed;            /* a range could not be kept (fsdpa_status): see findings_check() */
  /* findings_sort's scratch: the order key of the root cause this one is
   * listed after (its own when none), how many causes away it is (0: none;
   * a symptom of a symptom is listed after its cause), and its cause's index */
  struct finding_key {
    int64_t cost_ns, rank, step;
    int severity;
    const char *id, *title, *detail;
  } anchor;
  int follows;
  size_t cause;
} finding;

/* A rule that could not judge a rank (or the job): silence that must be
 * told apart from "nothing crossed a threshold". */
typedef struct not_judged {
  const char *rule;      /* the finding id the rule gives (static, or the list's copy) */
  int64_t rank;          /* FSDPA_ABSENT: a rule over the whole job (straggler-rank) */
  char *reason, *would;  /* owned: why it could not, and what would let it */
  size_t reason_n, would_n, rule_n;
  char *rule_own;        /* a copy of rule when it came from a summary, else NULL */
} not_judged;

typedef struct findings {
  fa_alloc *a;
  finding *v;
  size_t n, cap;
  not_judged *nj;
  size_t nnj, njcap;
  int failed;            /* fsdpa_status of the first failure */
} findings;

void findings_init(findings *f, fa_alloc *a);
void findings_free(findings *f);
/* Add a finding; strings are copied; evidence_json may be NULL ("{}").
 * Returns the stored finding (to add ranges) or NULL on failure. */
finding *findings_add(findings *f, const char *id, int severity, int64_t rank, int64_t step,
                      int64_t cost_ns, const char *title, const char *detail, const char *advice,
                      const char *evidence_json);
/* Add an evidence range (absolute ns); call in worst-first order: the first
 * FINDING_MAX_RANGES are the report's, the rest kept for annotate. */
void finding_add_range(finding *x, int64_t t0_abs, int64_t t1_abs);
/* Say that `rule` could not judge `rank` (FSDPA_ABSENT: the job), why, and
 * what would let it; once per (rule, rank, reason).  The words must not
 * depend on the rank's numbers, so that the report can say it once for all
 * ranks it holds for (the numbers are in the rank's section). */
void findings_not_judged(findings *f, const char *rule, int64_t rank, const char *reason, const char *would);
/* Whether `rule` could not judge `rank`. */
int findings_is_not_judged(const findings *f, const char *rule, int64_t rank);
/* The top-level "not_judged" array: one entry per (rule, reason, would),
 * with the ranks it holds for (null for a rule over the job), ordered by
 * rule, reason, would. */
fsdpa_status not_judged_write_json(const findings *f, jsonw *w);
/* Whether the list holds a finding of that id for that rank: a room whose
 * findings are made after it (report/rank_part.c runs the rooms of root
 * causes first) names it as a symptom's cause only when it is there. */
int findings_has(const findings *f, const char *id, int64_t rank);
/* Append a copy of every finding of src (strings and ranges) and every
 * not-judged entry to dst. */
int findings_append(findings *dst, const findings *src);
/* The list's status: f->failed, or else that of a finding that could not
 * keep one of its ranges (finding_add_range() has no list to fail), which
 * it then also sets as f->failed.  A range dropped for want of memory would
 * change what annotate marks, so it fails the call like any allocation. */
int findings_check(findings *f);
/* Sort by cost (desc), then severity (desc), then rank, step, id, title,
 * detail; except that a symptom is listed right after its cause: a finding
 * whose evidence names `"explained_by":"<id>"` follows the finding of that
 * id and the same rank (of several, the one whose ranges overlap its own
 * most, else the first in that order), when the list has one.  The
 * link is read from the evidence text, so a report rebuilt from summaries
 * orders the same way. */
void findings_sort(findings *f);
/* The id x's evidence names as its cause ("explained_by") into b; 0 if none. */
int finding_explained_by(const finding *x, char *b, size_t n);
void findings_write_json(const findings *f, jsonw *w);
/* One finding's `evidence` value: its evidence object with `ranges` added. */
void finding_write_evidence(const finding *x, jsonw *w);
#endif
