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
  iv ranges[FINDING_MAX_RANGES];  /* absolute ns, worst first */
  int nranges;
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

typedef struct findings {
  fa_alloc *a;
  finding *v;
  size_t n, cap;
  int failed;            /* fsdpa_status of the first failure */
} findings;

void findings_init(findings *f, fa_alloc *a);
void findings_free(findings *f);
/* Add a finding; strings are copied; evidence_json may be NULL ("{}").
 * Returns the stored finding (to add ranges) or NULL on failure. */
finding *findings_add(findings *f, const char *id, int severity, int64_t rank, int64_t step,
                      int64_t cost_ns, const char *title, const char *detail, const char *advice,
                      const char *evidence_json);
void finding_add_range(finding *x, int64_t t0_abs, int64_t t1_abs);
/* Whether the list holds a finding of that id for that rank: a room whose
 * findings are made after it (report/rank_part.c runs the rooms of root
 * causes first) names it as a symptom's cause only when it is there. */
int findings_has(const findings *f, const char *id, int64_t rank);
/* Append a copy of every finding of src (strings and ranges) to dst. */
int findings_append(findings *dst, const findings *src);
/* Sort by cost (desc), then severity (desc), then rank, step, id, title,
 * detail; except that a symptom is listed right after its cause: a finding
 * whose evidence names `"explained_by":"<id>"` follows the finding of that
 * id and the same rank (of several, the one whose ranges overlap its own
 * most, else the first in that order), when the list has one.  The
 * link is read from the evidence text, so a report rebuilt from summaries
 * orders the same way. */
void findings_sort(findings *f);
void findings_write_json(const findings *f, jsonw *w);
/* One finding's `evidence` value: its evidence object with `ranges` added. */
void finding_write_evidence(const finding *x, jsonw *w);
#endif
