#include "events/classify_workload.h"
#include <string.h>
#include <strings.h>

#define LIT(s) s, (sizeof(s) - 1)

static int starts(const char *a, size_t la, const char *p, size_t lp) {
  return la >= lp && memcmp(a, p, lp) == 0;
}
static int ends(const char *a, size_t la, const char *p, size_t lp) {
  return la >= lp && memcmp(a + la - lp, p, lp) == 0;
}
static int has(const char *a, size_t la, const char *p, size_t lp) {
  if (lp == 0 || la < lp) return 0;
  for (size_t i = 0; i + lp <= la; i++)
    if (a[i] == p[0] && memcmp(a + i, p, lp) == 0) return 1;
  return 0;
}
static int ihas(const char *a, size_t la, const char *p, size_t lp) {
  if (lp == 0 || la < lp) return 0;
  for (size_t i = 0; i + lp <= la; i++)
    if (strncasecmp(a + i, p, lp) == 0) return 1;
  return 0;
}

/* The communication op prefixes PyTorch and the serving engines record on
 * the CPU side; what follows the prefix names the collective. */
static const struct { const char *p; size_t n; } COMM_PREFIX[] = {
    {LIT("nccl:")},          {LIT("gloo:")},          {LIT("c10d::")},
    {LIT("_c10d_functional::")}, {LIT("c10d_functional::")}, {LIT("symm_mem::")},
    {LIT("record_param_comms")}, {LIT("vllm::all_reduce")}, {LIT("_C_custom_ar::")},
    {LIT("sgl_kernel::all_reduce")}, {LIT("trtllm::allreduce")},
};

static uint32_t comm_op(const char *s, size_t n) {
  size_t k = SIZE_MAX;
  for (size_t i = 0; i < sizeof COMM_PREFIX / sizeof COMM_PREFIX[0]; i++)
    if (starts(s, n, COMM_PREFIX[i].p, COMM_PREFIX[i].n)) { k = COMM_PREFIX[i].n; break; }
  if (k == SIZE_MAX) return 0;
  uint32_t f = WH_COMM_OP;
  const char *t = s + k;
  size_t m = n - k;
  if (ihas(t, m, LIT("all_to_all")) || ihas(t, m, LIT("alltoall"))) f |= WH_ALLTOALL;
  else if (ihas(t, m, LIT("all_reduce")) || ihas(t, m, LIT("allreduce"))) f |= WH_ALLREDUCE;
  else if (ihas(t, m, LIT("all_gather")) || ihas(t, m, LIT("allgather")) ||
           ihas(t, m, LIT("reduce_scatter")))
    f |= WH_AG_RS | (ihas(t, m, LIT("reduce_scatter")) ? WH_RS : 0);
  else if (starts(t, m, LIT("send")) || starts(t, m, LIT("recv")) || starts(t, m, LIT("isend")) ||
           starts(t, m, LIT("irecv")))
    f |= WH_P2P;
  if (starts(s, n, LIT("_c10d_functional::")) || starts(s, n, LIT("c10d_functional::")))
    f |= WH_FUNC_COLL;
  if (starts(s, n, LIT("vllm::all_reduce")) || starts(s, n, LIT("_C_custom_ar::")) ||
      starts(s, n, LIT("sgl_kernel::all_reduce")) || starts(s, n, LIT("trtllm::allreduce")))
    f |= WH_ALLREDUCE;
  return f;
}

/* Megatron names the functions around its sequence-parallel regions
 * (gather_from_ / reduce_scatter_to_ / scatter_to_sequence_parallel_region)
 * and their autograd Functions (_GatherFromSequenceParallelRegion, whose
 * backward ops are ...Backward); vLLM's _pad_for_sequence_parallelism is not
 * one. */
static int seq_par(const char *s, size_t n) {
  return has(s, n, LIT("_sequence_parallel_region")) || has(s, n, LIT("SequenceParallelRegion"));
}

/* A decoder language model, the kind whose single forward over a prompt is
 * a prefill: its causal-LM or generation head, rotary position embeddings,
 * a KV cache, or attention over one (paged, flash-with-KV-cache).  An
 * encoder (BERT's masked-LM head) or a vision model has none of them, and
 * its forward-only pass is plain inference. */
static int decoder_lm(const char *s, size_t n) {
  return has(s, n, LIT("CausalLM")) || has(s, n, LIT("ForConditionalGeneration")) || ihas(s, n, LIT("rotary")) ||
         ihas(s, n, LIT("kv_cache")) || has(s, n, LIT("KVCache")) || has(s, n, LIT("past_key_value")) ||
         ihas(s, n, LIT("paged_attention")) || has(s, n, LIT("flash_attn_with_kvcache"));
}

uint32_t classify_workload(const char *s, size_t n) {
  if (!s || !n) return 0;
  uint32_t f = comm_op(s, n);
  if (starts(s, n, LIT("DistributedDataParallel.")) ||
      starts(s, n, LIT("torch.distributed.ddp.reducer::")))
    f |= WH_DDP;
  if (starts(s, n, LIT("Optimizer.step#")) || starts(s, n, LIT("Optimizer.zero_grad#"))) f |= WH_OPTIM;
  if (starts(s, n, LIT("## backward"))) f |= WH_BWD_MARK;
  if (starts(s, n, LIT("## forward")) || starts(s, n, LIT("nn.Module: ")) ||
      ends(s, n, LIT("|forward]")) || ends(s, n, LIT("|forward")))
    f |= WH_FWD_MARK;
  if (has(s, n, LIT("split_embedding")) || has(s, n, LIT("KJT")) || has(s, n, LIT("kjt")) ||
      has(s, n, LIT("PooledEmbedding")) || has(s, n, LIT("sparse_data_dist")) ||
      has(s, n, LIT("_emb ")) || ends(s, n, LIT("_emb")) || has(s, n, LIT("embedding_bag")))
    f |= WH_EMBEDDING;
  if (has(s, n, LIT("deep_ep::"))) f |= WH_DEEP_EP | WH_MOE;
  if (ihas(s, n, LIT("moe")) || ihas(s, n, LIT("expert"))) f |= WH_MOE;
  /* pipeline schedules by their names: torch.distributed.pipelining's
   * (Schedule1F1B, ScheduleGPipe, ScheduleInterleavedZeroBubble,
   * ScheduleDualPipeV ...), Megatron's forward_backward_pipelining_*, and
   * the schedule annotations of DualPipe-style trainers ("1F1B") */
  if (has(s, n, LIT("PipelineStage")) || has(s, n, LIT("pipelining")) ||
      has(s, n, LIT("PipelineSchedule")) || ihas(s, n, LIT("1F1B")) || has(s, n, LIT("DualPipe")) ||
      has(s, n, LIT("ZeroBubble")) || has(s, n, LIT("GPipe")))
    f |= WH_P2P;
  if (has(s, n, LIT("backward")) || has(s, n, LIT("_bwd")) || has(s, n, LIT("bwd_")) ||
      has(s, n, LIT("wgrad")) || has(s, n, LIT("dgrad")) || has(s, n, LIT("_wrw")))
    f |= WH_BWD_KERNEL;
  if (seq_par(s, n)) f |= WH_SEQ_PAR;
  if (decoder_lm(s, n)) f |= WH_DECODER_LM;
  return f;
}

int classify_pyframe(const char *cat, size_t cl, const char *s, size_t n) {
  if (cl != 15 || memcmp(cat, "python_function", 15) != 0 || !s) return 0;
  int f = 0;
  if (starts(s, n, LIT("nn.Module: ")) || ends(s, n, LIT("): forward"))) f |= PY_FORWARD;
  else if (ends(s, n, LIT("): backward"))) f |= PY_BACKWARD;
  if (seq_par(s, n)) f |= PY_SEQ_PAR;
  if (decoder_lm(s, n)) f |= PY_DECODER_LM;
  return f;
}

static int number_after(const char *s, size_t n, const char *key, size_t kl, int64_t *v) {
  for (size_t i = 0; i + kl <= n; i++) {
    if (memcmp(s + i, key, kl) != 0) continue;
    size_t j = i + kl;
    int64_t x = 0;
    if (j >= n || s[j] < '0' || s[j] > '9') return 0;
    for (; j < n && s[j] >= '0' && s[j] <= '9'; j++) {
      if (x > (INT64_MAX - 9) / 10) return 0;
      x = x * 10 + (s[j] - '0');
    }
    *v = x;
    return 1;
  }
  return 0;
}

int classify_engine_step(const char *s, size_t n, int64_t *context, int64_t *generation) {
  if (!s || !starts(s, n, LIT("execute_"))) return 0;
  int64_t c = 0, g = 0;
  int hc = number_after(s, n, LIT("_context_"), &c);
  int hg = number_after(s, n, LIT("_generation_"), &g);
  if (!hc && !hg) return 0;
  *context = c;
  *generation = g;
  return 1;
}

static int is_alpha(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

static int word_is(const char *w, size_t n, const char *lit, size_t ln, int any_case) {
  if (n != ln) return 0;
  for (size_t i = 0; i < n; i++) {
    char a = w[i], b = lit[i];
    if (any_case && a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
    if (a != b) return 0;
  }
  return 1;
}

int classify_phase(const char *s, size_t n) {
  int ph = 0;
  if (!s) return 0;
  for (size_t i = 0; i < n;) {
    if (!is_alpha(s[i])) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < n && is_alpha(s[j])) j++;
    const char *w = s + i;
    size_t wn = j - i;
    if (word_is(w, wn, LIT("prefill"), 1) || word_is(w, wn, LIT("EXTEND"), 0)) ph |= PH_PREFILL;
    if (word_is(w, wn, LIT("DECODE"), 0) || (word_is(w, wn, LIT("decode"), 0) && !(i && s[i - 1] == '_')))
      ph |= PH_DECODE;
    i = j;
  }
  return ph;
}

int classify_iteration_mark(const char *s, size_t n) {
  int64_t a, b;
  if (!s || !n) return IT_NONE;
  if (starts(s, n, LIT("Optimizer.step#"))) return IT_OPTIMIZER;
  if (starts(s, n, LIT("enumerate(DataLoader)#"))) return IT_DATALOADER;
  if (s[0] == '[' && s[n - 1] == ']' && (has(s, n, LIT("|warmup|")) || has(s, n, LIT("|measure|"))))
    return IT_BENCHMARK;
  if (classify_engine_step(s, n, &a, &b)) return IT_ENGINE;
  return IT_NONE;
}
