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
  /* what the verdict rests on: collectives seen on any rank, those matched
   * on 2 ranks or more, and why the unmeasured ones were left out */
  uint64_t seen, matched, lone_seq, lone_noseq, lone_clipped, unaligned, unsync;
  int weak;                  /* most were left out (crossrank.straggler_min_used_ppm) */
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
  d.seen = r->seen;
  d.matched = r->matched;
  d.lone_seq = r->lone_seq;
  d.lone_noseq = r->lone_noseq;
  d.lone_clipped = r->lone_clipped;
  d.unaligned = r->unaligned_groups;
  d.unsync = r->unsync;
  /* a verdict that rests on a minority of the collectives is a hint: the
   * ones left out may tell another story.  Exact in integers: counts stay
   * far below 2^40 and a share below 2^20 ppm. */
  uint64_t ppm = r->min_used_ppm < 0 ? 0 : r->min_used_ppm > 1000000 ? 1000000 : (uint64_t)r->min_used_ppm;
  d.weak = d.collectives * 1000000u < ppm * d.seen;
  if (d.weak) d.severity = SEV_INFO;
  for (int k = 0; k < x->nworst; k++) d.ranges[k] = x->worst[k];
  d.nranges = x->nworst;
  return d;
}

/* "those A collectives, out of B seen (M found on 2 ranks or more); left out: ..."
 * naming only the reasons that occurred. */
static void word_basis(const straggler_decision *d, char *buf, size_t size) {
  int k = snprintf(buf, size, "  The verdict rests on those %llu collectives, out of %llu seen on any rank "
                   "(%llu found on 2 ranks or more)",
                   (unsigned long long)d->collectives, (unsigned long long)d->seen,
                   (unsigned long long)d->matched);
  const struct {
    uint64_t n;
    const char *why;
  } out[] = {
      {d->lone_seq, "found on one rank only (a Seq no other rank has)"},
      {d->lone_noseq, "found on one rank only (no Seq, and no other rank has one at its position in the step)"},
      {d->lone_clipped, "clipped at a trace edge (on one rank only, outside the time every rank's trace covers)"},
      {d->unaligned, "on ranks whose clocks could not be aligned"},
      {d->unsync, "not ending together on their ranks"},
  };
  int any = 0;
  for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) {
    if (!out[i].n || k < 0 || (size_t)k >= size) continue;
    k += snprintf(buf + k, size - (size_t)k, "%s%llu %s", any ? ", " : "; left out: ",
                  (unsigned long long)out[i].n, out[i].why);
    any = 1;
  }
  if (k >= 0 && (size_t)k < size)
    k += snprintf(buf + k, size - (size_t)k, "%s", d->weak ? ".  Most collectives were left out, so this "
                  "is a hint rather than a verdict (severity info): check the ones left out." : ".");
}

static fsdpa_status word_straggler(const straggler_decision *d, findings *f) {
  char title[160], detail[1280], basis[640];
  word_basis(d, basis, sizeof basis);
  snprintf(title, sizeof title,
           "Rank %lld arrives last at collectives in %llu of %llu steps (%.3f ms late on average)",
           (long long)d->rank, (unsigned long long)d->late_steps, (unsigned long long)d->steps,
           (double)d->mean_delay_ns / 1e6);
  snprintf(detail, sizeof detail,
           "After aligning the clocks of %llu ranks on collective end times, rank %lld started a "
           "collective last, by at least %.3f ms, in %llu of %llu steps: on average %.3f ms (worst "
           "%.3f ms) after the next-latest rank.  It arrived last at %llu of %llu matched "
           "collectives, and the other ranks spent %.3f ms in total (%.3f ms per rank) waiting "
           "inside those collectives for it to arrive.%s",
           (unsigned long long)d->ranks, (long long)d->rank, (double)d->min_delay_ns / 1e6,
           (unsigned long long)d->late_steps, (unsigned long long)d->steps,
           (double)d->mean_delay_ns / 1e6, (double)d->max_delay_ns / 1e6,
           (unsigned long long)d->last_count, (unsigned long long)d->collectives,
           (double)d->lost_ns / 1e6, (double)d->cost_ns / 1e6, basis);
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
  jw_ku64(&w, "collectives_seen", d->seen);
  jw_ku64(&w, "collectives_matched", d->matched);
  jw_key(&w, "left_out");
  jw_obj(&w);
  jw_ku64(&w, "unmatched", d->lone_seq);
  jw_ku64(&w, "no_seq", d->lone_noseq);
  jw_ku64(&w, "clipped", d->lone_clipped);
  jw_ku64(&w, "unaligned", d->unaligned);
  jw_ku64(&w, "unsynchronized", d->unsync);
  jw_obj_end(&w);
  jw_key(&w, "weak");
  jw_bool(&w, d->weak);
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

/* Why the rule could not judge the job, if it could not. */
static void say_not_judged(const xr_result *r, findings *f) {
  static const char all_ranks[] = "the traces of all ranks of the job, given together (fsdpa analyze DIR, or their "
                                  "summaries merged)";
  if (!r || r->nranks < 2) {
    findings_not_judged(f, "straggler-rank", FSDPA_ABSENT,
                        "one rank: a straggler is told only against the other ranks of the job", all_ranks);
  } else if (!r->groups) {
    findings_not_judged(f, "straggler-rank", FSDPA_ABSENT,
                        "no collective was measured on two ranks or more (no NCCL/RCCL kernels matched across the "
                        "ranks: see cross_rank.left_out)",
                        "traces of the ranks of one job over the same steps, with their NCCL kernels "
                        "(ProfilerActivity.CUDA)");
  } else if (r->units < 2) {
    findings_not_judged(f, "straggler-rank", FSDPA_ABSENT,
                        "one step with measured collectives: being last repeatedly needs steps to repeat in "
                        "(crossrank.straggler_min_steps)",
                        "a profile of several steps: a torch.profiler schedule with active=2 or more");
  }
}

fsdpa_status crossrank_findings(const xr_result *r, findings *f) {
  straggler_decision d = r ? decide_straggler(r) : (straggler_decision){0};
  if (!d.fires) {
    say_not_judged(r, f);
    return (fsdpa_status)f->failed;
  }
  return word_straggler(&d, f);
}
