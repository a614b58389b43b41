/* Workload labels from names the frameworks write (docs/report-contract.md,
 * "workload"): one pass over CPU ops, annotations and kernels. */
#include "model/workload.h"
#include "events/classify.h"
#include "events/classify_workload.h"
#include <string.h>

typedef struct hits {
  uint64_t n;
  uint32_t first;
} hits;

static void hit(hits *h, uint32_t name) {
  if (!h->n) h->first = name;
  h->n++;
}

/* Hint bits per name id, computed on first use (bit 31 = computed). */
static uint32_t hints(const store *s, uint32_t *memo, uint32_t name) {
  if (name >= s->name_info.len) return 0;
  if (!(memo[name] & 0x80000000u)) {
    const char *p = store_name(s, name);
    memo[name] = 0x80000000u | classify_workload(p, intern_len(&s->names, name));
  }
  return memo[name] & 0x7fffffffu;
}

typedef struct scan {
  hits fsdp1, fsdp2, ddp, bwd_op, optim, fwd_mark, a2a, ar, grad_ar, agrs, emb, moe, deep_ep, p2p,
      func, func_ag, func_rs, seq_par, comm_op, comm_kernel, bwd_kernel, kernels, engine, lm, prefill,
      decode;
  int64_t engine_context, engine_generation;
} scan;

static void set_ev(wl_evidence *e, const char *rule, const hits *h) {
  e->rule = rule;
  e->count = h->n;
  e->example = h->n ? h->first : INTERN_NONE;
}

const char *wl_label_name(int l) {
  static const char *const N[WL__COUNT] = {"FSDP1", "FSDP2", "DDP", "tensor_parallel",
                                            "sequence_parallel", "expert_parallel", "pipeline",
                                            "embedding_all_to_all", "single_gpu"};
  return l >= 0 && l < WL__COUNT ? N[l] : "unknown";
}

const char *wl_mode_name(int m) {
  static const char *const N[] = {"unknown", "train", "prefill", "decode", "mixed", "inference"};
  return m >= 0 && m <= WM_INFERENCE ? N[m] : "unknown";
}

static void cpu_side(const store *s, uint32_t *memo, uint8_t *bwd_track, scan *k) {
  size_t n = s->cpu.len;
  for (size_t i = 0; i < n; i++) {
    const ev_rec *r = STORE_REC(&s->cpu, i);
    uint32_t info = store_name_info(s, r->name), h = hints(s, memo, r->name);
    if (info & NC_FSDP2) hit(&k->fsdp2, r->name);
    if (info & NC_FSDP1) hit(&k->fsdp1, r->name);
    if (h & WH_DDP) hit(&k->ddp, r->name);
    if ((info & NC_BACKWARD) || (h & WH_BWD_MARK)) {
      hit(&k->bwd_op, r->name);
      if (r->track < s->tracks.len) bwd_track[r->track] = 1;
    }
    if (h & WH_OPTIM) hit(&k->optim, r->name);
    if (h & WH_FWD_MARK) hit(&k->fwd_mark, r->name);
    if (h & WH_ALLTOALL) hit(&k->a2a, r->name);
    if (h & WH_ALLREDUCE) hit(&k->ar, r->name);
    if (h & WH_AG_RS) hit(&k->agrs, r->name);
    if (h & WH_EMBEDDING) hit(&k->emb, r->name);
    if (h & WH_MOE) hit(&k->moe, r->name);
    if (h & WH_DEEP_EP) hit(&k->deep_ep, r->name);
    if (h & WH_P2P) hit(&k->p2p, r->name);
    if (h & WH_FUNC_COLL) hit(&k->func, r->name);
    if ((h & (WH_FUNC_COLL | WH_AG_RS | WH_RS)) == (WH_FUNC_COLL | WH_AG_RS)) hit(&k->func_ag, r->name);
    if ((h & (WH_FUNC_COLL | WH_RS)) == (WH_FUNC_COLL | WH_RS)) hit(&k->func_rs, r->name);
    if (h & WH_SEQ_PAR) hit(&k->seq_par, r->name);
    if (h & WH_DECODER_LM) hit(&k->lm, r->name);
    if ((h & WH_COMM_OP) || (info & (NC_PARAM_COMMS | NC_NCCL_ANNOT))) hit(&k->comm_op, r->name);
    int64_t ctxn, genn;
    if (r->kind == RK_ANNOT &&
        classify_engine_step(store_name(s, r->name), intern_len(&s->names, r->name), &ctxn, &genn)) {
      hit(&k->engine, r->name);
      k->engine_context += ctxn > INT32_MAX ? INT32_MAX : ctxn;
      k->engine_generation += genn > INT32_MAX ? INT32_MAX : genn;
    }
    if (r->kind == RK_ANNOT) {
      int ph = classify_phase(store_name(s, r->name), intern_len(&s->names, r->name));
      if (ph & PH_PREFILL) hit(&k->prefill, r->name);
      if (ph & PH_DECODE) hit(&k->decode, r->name);
    }
  }
  /* an all-reduce issued on a thread that runs backward ops: gradients */
  if (k->ar.n)
    for (size_t i = 0; i < n; i++) {
      const ev_rec *r = STORE_REC(&s->cpu, i);
      if ((hints(s, memo, r->name) & WH_ALLREDUCE) && r->track < s->tracks.len && bwd_track[r->track])
        hit(&k->grad_ar, r->name);
    }
  for (size_t i = 0; i < s->gannot.len; i++) {
    const ev_rec *r = STORE_REC(&s->gannot, i);
    if (hints(s, memo, r->name) & WH_OPTIM) hit(&k->optim, r->name);
  }
}

static void gpu_side(const store *s, uint32_t *memo, scan *k) {
  for (size_t i = 0; i < s->gpu.len; i++) {
    const ev_rec *r = STORE_REC(&s->gpu, i);
    if (r->kind != RK_KERNEL) continue;
    uint32_t info = store_name_info(s, r->name), h = hints(s, memo, r->name);
    hit(&k->kernels, r->name);
    if (info & NC_COMM) hit(&k->comm_kernel, r->name);
    if (h & WH_BWD_KERNEL) hit(&k->bwd_kernel, r->name);
    if (h & WH_EMBEDDING) hit(&k->emb, r->name);
    if ((h & WH_DEEP_EP) || store_name_family(s, r->name) == CF_DEEP_EP) hit(&k->deep_ep, r->name);
    if (h & WH_MOE) hit(&k->moe, r->name);
  }
}

static size_t active_devices(const store_views *v) {
  size_t n = 0;
  int64_t last = 0;
  for (size_t i = 0; i < v->nstreams; i++) {  /* sorted by (device, stream) */
    if (!v->streams[i].nops || (n && v->streams[i].device == last)) continue;
    last = v->streams[i].device;
    n++;
  }
  return n;
}

static void choose_mode(const store *s, const scan *k, workload *w) {
  if (k->engine.n) {
    w->mode = k->engine_context && k->engine_generation ? WM_MIXED
              : k->engine_generation                    ? WM_DECODE
                                                        : WM_PREFILL;
    set_ev(&w->mode_ev, "inference engine step annotations (execute_<tokens>_context_<n>_generation_<m>): context = prefill, generation = decode requests", &k->engine);
    return;
  }
  hits py = {s->py_backward, s->py_backward_name};
  w->mode = WM_TRAIN;
  if (k->optim.n) set_ev(&w->mode_ev, "optimizer step / zero_grad annotations", &k->optim);
  else if (k->bwd_op.n) set_ev(&w->mode_ev, "autograd backward ops", &k->bwd_op);
  else if (py.n) set_ev(&w->mode_ev, "Python backward calls", &py);
  else if (k->bwd_kernel.n) set_ev(&w->mode_ev, "gradient kernels (backward, bwd, wgrad, dgrad, wrw)", &k->bwd_kernel);
  else if (k->prefill.n >= 2 || k->decode.n >= 2) {
    /* a forward-only loop whose repeated annotations name the serving phase
     * it runs (a vision encoder then "## prefill ##"; "step[DECODE bs=32]") */
    int pre = k->prefill.n >= 2, dec = k->decode.n >= 2;
    w->mode = pre && dec ? WM_MIXED : dec ? WM_DECODE : WM_PREFILL;
    set_ev(&w->mode_ev, "repeated annotations naming a serving phase (prefill / EXTEND, decode / DECODE) with no backward, optimizer or gradient kernel", dec ? &k->decode : &k->prefill);
  } else {
    /* a forward-only pass is a prefill only where a decoder language model
     * shows (causal-LM head, rotary embeddings, a KV cache): a vision,
     * diffusion or encoder model's forward is plain inference */
    hits fw = {s->py_forward, s->py_forward_name};
    hits lm = k->lm.n ? k->lm : (hits){s->py_decoder_lm, s->py_decoder_lm_name};
    if (fw.n || k->fwd_mark.n) {
      if (lm.n) {
        w->mode = WM_PREFILL;
        set_ev(&w->mode_ev, "a decoder language model's forward (causal-LM or generation head, rotary embeddings, a KV cache) with no backward, optimizer or gradient kernel: a prompt's prefill", &lm);
      } else {
        w->mode = WM_INFERENCE;
        if (fw.n) set_ev(&w->mode_ev, "a model's forward (module forward frames) with no backward, optimizer or gradient kernel, and no decoder language model: single-pass inference", &fw);
        else set_ev(&w->mode_ev, "forward-pass annotations with no backward, optimizer or gradient kernel, and no decoder language model: single-pass inference", &k->fwd_mark);
      }
    } else {
      w->mode = WM_UNKNOWN;
    }
  }
}

/* Sequence parallelism shards the activations of the norm and dropout
 * blocks along the sequence: an all-gather before the tensor-parallel
 * matmuls and a reduce-scatter after them, where plain tensor parallelism
 * all-reduces (DTensor's SequenceParallel: both as functional collectives,
 * beside the all-reduce of the replicated norm weights' gradients).  FSDP
 * all-gathers and reduce-scatters too, so never with FSDP; Megatron names
 * its mappings, which do nothing without communication (a tensor-parallel
 * size of 1). */
static void seq_par_label(const store *s, const scan *k, int fsdp, workload *w) {
  if (fsdp) return;
  wl_evidence *e = &w->label_ev[WL_SEQUENCE_PARALLEL];
  hits names = k->seq_par.n ? k->seq_par : (hits){s->py_seq_par, s->py_seq_par_name};
  if (!(w->labels & (1u << WL_DDP)) && k->func_ag.n && k->func_rs.n && k->ar.n) {
    w->labels |= 1u << WL_SEQUENCE_PARALLEL;
    set_ev(e, "functional all-gather and reduce-scatter (DTensor SequenceParallel) beside all-reduce, outside FSDP and DDP", &k->func_rs);
  } else if (names.n && (k->comm_op.n || k->comm_kernel.n)) {
    w->labels |= 1u << WL_SEQUENCE_PARALLEL;
    set_ev(e, "Megatron sequence-parallel mappings (*_sequence_parallel_region) with communication, outside FSDP", &names);
  }
}

static void choose_labels(const fsdpa_ctx *c, const store_views *v, const scan *k, workload *w) {
  if (k->fsdp2.n) { w->labels |= 1u << WL_FSDP2; set_ev(&w->label_ev[WL_FSDP2], "FSDP:: annotations (fully_shard)", &k->fsdp2); }
  if (k->fsdp1.n) { w->labels |= 1u << WL_FSDP1; set_ev(&w->label_ev[WL_FSDP1], "FullyShardedDataParallel.* annotations", &k->fsdp1); }
  int fsdp = (k->fsdp1.n | k->fsdp2.n) != 0;
  if (k->ddp.n) {
    w->labels |= 1u << WL_DDP;
    set_ev(&w->label_ev[WL_DDP], "DistributedDataParallel / DDP reducer annotations", &k->ddp);
  } else if (!fsdp && k->grad_ar.n && !k->func.n) {
    /* DTensor's tensor parallelism all-reduces input gradients on the
     * backward thread too, through functional collectives; DDP's reducer
     * never uses those */
    w->labels |= 1u << WL_DDP;
    set_ev(&w->label_ev[WL_DDP], "all-reduce ops issued on the thread that runs backward (gradient all-reduce)", &k->grad_ar);
  }
  if (k->a2a.n && k->emb.n) {
    w->labels |= 1u << WL_EMBEDDING_A2A;
    set_ev(&w->label_ev[WL_EMBEDDING_A2A], "all-to-all ops with sharded-embedding names (TBE kernels, KJT / pooled-embedding / sparse_data_dist annotations)", &k->a2a);
  }
  if (k->deep_ep.n) {
    w->labels |= 1u << WL_EXPERT_PARALLEL;
    set_ev(&w->label_ev[WL_EXPERT_PARALLEL], "expert-parallel dispatch/combine kernels (DeepEP: deep_ep::, or a fork's <ns>::ep::{intranode,internode,internode_ll}::)", &k->deep_ep);
  } else if (k->a2a.n && k->moe.n && !k->emb.n) {
    w->labels |= 1u << WL_EXPERT_PARALLEL;
    set_ev(&w->label_ev[WL_EXPERT_PARALLEL], "all-to-all ops with mixture-of-experts names", &k->a2a);
  }
  if (k->p2p.n) {
    w->labels |= 1u << WL_PIPELINE;
    set_ev(&w->label_ev[WL_PIPELINE], "point-to-point send/recv ops or a pipeline schedule (by name: 1F1B, GPipe, zero-bubble, DualPipe, torch.distributed.pipelining, Megatron's pipelining)", &k->p2p);
  }
  /* the trace's own rank, not one the caller assigned: the same report
   * whichever way the ranks of rankless traces are numbered */
  int64_t ws = c->info.world_size, rank = c->declared_rank;
  int inference = w->mode == WM_PREFILL || w->mode == WM_DECODE || w->mode == WM_MIXED || w->mode == WM_INFERENCE;
  if (!fsdp && !(w->labels & (1u << WL_DDP))) {
    if (k->func.n && (k->ar.n || k->agrs.n)) {
      w->labels |= 1u << WL_TENSOR_PARALLEL;
      set_ev(&w->label_ev[WL_TENSOR_PARALLEL], "functional collectives (DTensor) outside FSDP and DDP", &k->func);
    } else if (inference && k->ar.n && (ws == FSDPA_ABSENT || ws > 1)) {
      w->labels |= 1u << WL_TENSOR_PARALLEL;
      set_ev(&w->label_ev[WL_TENSOR_PARALLEL], "all-reduce ops in an inference forward", &k->ar);
    }
  }
  seq_par_label(&c->st, k, fsdp, w);
  if (!w->labels && !k->comm_kernel.n && !k->comm_op.n && active_devices(v) == 1 &&
      (ws == FSDPA_ABSENT || ws == 1) && (rank == FSDPA_ABSENT || rank == 0)) {
    w->labels |= 1u << WL_SINGLE_GPU;
    set_ev(&w->label_ev[WL_SINGLE_GPU], "GPU activity on one device, no communication kernel or op, world size absent or 1", &k->kernels);
  }
}

fsdpa_status workload_build(fsdpa_ctx *c, workload *w) {
  memset(w, 0, sizeof *w);
  for (int i = 0; i < WL__COUNT; i++) w->label_ev[i].example = INTERN_NONE;
  w->mode_ev.example = INTERN_NONE;
  const store *s = &c->st;
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  size_t nn = s->name_info.len ? s->name_info.len : 1, nt = s->tracks.len ? s->tracks.len : 1;
  uint32_t *memo = fa_malloc(&c->alloc, nn * sizeof *memo);
  uint8_t *bwd_track = memo ? fa_malloc(&c->alloc, nt) : NULL;
  if (!bwd_track) {
    if (memo) fa_free(&c->alloc, memo, nn * sizeof *memo);
    return fa_fail_status(&c->alloc);
  }
  memset(memo, 0, nn * sizeof *memo);
  memset(bwd_track, 0, nt);
  scan k;
  memset(&k, 0, sizeof k);
  cpu_side(s, memo, bwd_track, &k);
  gpu_side(s, memo, &k);
  fa_free(&c->alloc, bwd_track, nt);
  fa_free(&c->alloc, memo, nn * sizeof *memo);
  choose_mode(s, &k, w);
  choose_labels(c, v, &k, w);
  /* once per name, not per event: a name interned is a name some event has */
  for (size_t i = 0; i < s->name_info.len && !w->dataloader; i++)
    w->dataloader = classify_iteration_mark(store_name(s, (uint32_t)i), intern_len(&s->names, (uint32_t)i)) ==
                    IT_DATALOADER;
  return FSDPA_OK;
}
