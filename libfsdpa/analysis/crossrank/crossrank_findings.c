/* The straggler-rank finding: the decision (from the straggler the engine's
 * rule picked) and its wording, apart. */
#include "analysis/crossrank/crossrank_impl.h"
#include <stdio.h>

typedef struct straggler_decision {
  int fires;
  int severity;
  int64_t rank, cost_ns;     /* cost: the others' waiting for it, per other rank */
  uint64_t late_steps, steps, last_count, collectives;
  uint64_t ranks;            /* ranks that took part in a matched collective */
  int64_t mean_delay_ns, max_delay_ns, lost_ns;
  int64_t min_delay_ns;      /* the rule's threshold */
  iv ranges[XR_WORST];       /* the straggler's worst waits, own clock, largest first */
  int nranges;
} straggler_decision;

static uint64_t aligned_ranks(const xr_result *r) {
  uint64_t k = 0;
  for (size_t i = 0; i < r->nranks; i++) k += r->r[i].colls > 0;
  return k;
}

static straggler_decision decide_straggler(const xr_result *r) {
  straggler_decision d;
  memset(&d, 0, sizeof d);
  if (r->straggler_idx < 0) return d;
  const xr_rank_res *x = &r->r[r->straggler_idx];
  d.fires = 1;
  d.severity = SEV_WARNING;
  d.rank = x->rank;
  d.ranks = aligned_ranks(r);
  uint64_t others = d.ranks > 1 ? d.ranks - 1 : 1;
  d.cost_ns = x->lost / (int64_t)others;
  d.late_steps = x->late_steps;
  d.steps = r->units;
  d.last_count = x->last_count;
  d.collectives = r->groups;
  d.mean_delay_ns = xr_mean_delay(x);
  d.max_delay_ns = x->delay_max;
  d.lost_ns = x->lost;
  d.min_delay_ns = r->min_delay;
  for (int k = 0; k < x->nworst; k++) d.ranges[k] = x->worst[k];
  d.nranges = x->nworst;
  return d;
}

static fsdpa_status word_straggler(const straggler_decision *d, findings *f) {
  char title[160], detail[640];
  snprintf(title, sizeof title,
           "Rank %lld arrives last at collectives in %llu of %llu steps (%.3f ms late on average)",
           (long long)d->rank, (unsigned long long)d->late_steps, (unsigned long long)d->steps,
           (double)d->mean_delay_ns / 1e6);
  snprintf(detail, sizeof detail,
           "After aligning the clocks of %llu ranks on collective end times, rank %lld started a "
           "collective last, by at least %.3f ms, in %llu of %llu steps: on average %.3f ms (worst "
           "%.3f ms) after the next-latest rank.  It arrived last at %llu of %llu matched "
           "collectives, and the other ranks spent %.3f ms in total (%.3f ms per rank) waiting "
           "inside those collectives for it to arrive.",
           (unsigned long long)d->ranks, (long long)d->rank, (double)d->min_delay_ns / 1e6,
           (unsigned long long)d->late_steps, (unsigned long long)d->steps,
           (double)d->mean_delay_ns / 1e6, (double)d->max_delay_ns / 1e6,
           (unsigned long long)d->last_count, (unsigned long long)d->collectives,
           (double)d->lost_ns / 1e6, (double)d->cost_ns / 1e6);
  const char *advice =
      "Find what this rank does before its collectives that the others do not: slower data "
      "loading or preprocessing, extra CPU work or logging on this rank only, a throttled or "
      "slower GPU, or a busy host.  Compare its trace with a fast rank's for the same step; "
      "every rank pays this delay at the next collective.";
  sbuf b;
  sb_init(&b, f->a);
  jsonw w;
  jw_init(&w, &b, 0);
  jw_obj(&w);
  jw_ki64(&w, "rank", d->rank);
  jw_ku64(&w, "late_steps", d->late_steps);
  jw_ku64(&w, "steps", d->steps);
  jw_ku64(&w, "last_count", d->last_count);
  jw_ku64(&w, "collectives", d->collectives);
  jw_ki64(&w, "mean_delay_ns", d->mean_delay_ns);
  jw_ki64(&w, "max_delay_ns", d->max_delay_ns);
  jw_ki64(&w, "lost_ns", d->lost_ns);
  jw_ku64(&w, "ranks", d->ranks);
  jw_obj_end(&w);
  if (b.failed) {
    fsdpa_status st = (fsdpa_status)b.failed;
    sb_free(&b);
    return st;
  }
  finding *fd = findings_add(f, "straggler-rank", d->severity, d->rank, FSDPA_ABSENT, d->cost_ns,
                             title, detail, advice, b.p);
  sb_free(&b);
  if (!fd) return (fsdpa_status)f->failed;
  for (int k = 0; k < d->nranges; k++) finding_add_range(fd, d->ranges[k].s, d->ranges[k].e);
  return FSDPA_OK;
}

fsdpa_status crossrank_findings(const xr_result *r, findings *f) {
  if (!r) return FSDPA_OK;
  straggler_decision d = decide_straggler(r);
  return d.fires ? word_straggler(&d, f) : FSDPA_OK;
}
