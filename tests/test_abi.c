/* Size-versioned structs (fsdpa.h, "Versioned structs") in both directions
 * the caller's side can differ from the library's:
 *
 * - a caller newer than the library passes a size larger than the
 *   library's struct (here: every struct with 64 canary bytes after it and
 *   size = sizeof(struct) + 64): the bytes past the library's struct are
 *   ignored on input (garbage there changes no result) and left untouched
 *   on output, and every result equals the one of the exact size.  This
 *   covers every input struct, fsdpa_error, every query result, every list
 *   item kind, fsdpa_stats_get(), fsdpa_trace_info_get() and
 *   fsdpa_backward_get() (tests/abi/abi_core.h runs them all);
 * - a size below a struct's first size is FSDPA_EINVAL with a message on
 *   the call's channel, and nothing is written, for input and output
 *   structs alike.
 *
 * Callers older than the library (structs smaller than the library's) are
 * tests/abi/ (suite abi): the same run through a copy of the library built
 * with every struct one field longer. */
#define FSDPA_EXPERIMENTAL
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"
#include "abi/abi_core.h"
#include "util/abi.h"

static void ck_fail_cb(abi_env *e, const char *msg) {
  (void)e;
  ck_abort_msg("%s", msg);
}

/* The two ranks of a small generated job (every list kind has items). */
typedef struct job {
  char *base;
  char p0[4096], p1[4096];
  const char *paths[2];
} job;

static void job_make(job *j) {
  j->base = tu_tracegen("mixed", "--ranks 2 --steps 2 --layers 2 --seed 3", "abi_mixed.json");
  ck_assert_msg(j->base != NULL, "tools/tracegen mixed failed");
  char *dot = strstr(j->base, ".json");
  ck_assert_ptr_nonnull(dot);
  snprintf(j->p0, sizeof j->p0, "%.*s.rank0.json", (int)(dot - j->base), j->base);
  snprintf(j->p1, sizeof j->p1, "%.*s.rank1.json", (int)(dot - j->base), j->base);
  j->paths[0] = j->p0;
  j->paths[1] = j->p1;
}

/* ------------------------------------------------------------------ */
/* the layout tables                                                   */

static size_t field_align(const abi_field *f) {
  switch (f->kind) {
    case AK_CHAR: case AK_CHARS: return 1;
    case AK_ARR_I: case AK_ARR_U: return 8;
    default: return f->size;
  }
}

/* The tables of abi_core.h name every field: they tile each struct but for
 * alignment padding, and their first sizes are the library's own. */
START_TEST(t_tables_cover_every_struct) {
  for (size_t i = 0; i < ABI_NSTRUCTS; i++) {
    const abi_struct *s = abi_all[i];
    ck_assert_msg(s->size <= ABI_MAXSIZE, "%s: %zu bytes, boxes hold %d", s->name, s->size, ABI_MAXSIZE);
    ck_assert_msg(!strcmp(s->f[0].name, "size") && s->f[0].off == 0 && s->f[0].size == sizeof(size_t),
                  "%s does not start with size_t size", s->name);
    size_t end = 0;
    for (size_t k = 0; k < s->nf; k++) {
      const abi_field *f = &s->f[k];
      size_t a = field_align(f), want = (end + a - 1) / a * a;
      ck_assert_msg(f->off == want, "%s.%s at %zu: bytes %zu..%zu belong to no field of the table", s->name, f->name,
                    f->off, end, f->off);
      end = f->off + f->size;
    }
    ck_assert_msg((end + 7) / 8 * 8 == s->size, "%s: the table ends at %zu of %zu bytes: a field is missing", s->name,
                  end, s->size);
    ck_assert_msg(s->first > sizeof(size_t) && s->first <= end, "%s: first size %zu", s->name, s->first);
  }
#define FIRST_IS_THE_LIBRARYS(T, last)                                                          \
  ck_assert_msg(abi_##T.first == ABI_FIRST(T), #T ": first size %zu here, %zu in the library", \
                abi_##T.first, (size_t)ABI_FIRST(T));
  ABI_STRUCTS(FIRST_IS_THE_LIBRARYS)
#undef FIRST_IS_THE_LIBRARYS
  for (size_t k = 1; k < ABI_NKINDS; k++) ck_assert_msg(abi_kind_struct[k] != NULL, "list kind %zu has no struct", k);
  printf("# %zu size-first structs, each covered field by field\n", (size_t)ABI_NSTRUCTS);
}
END_TEST

/* ------------------------------------------------------------------ */
/* larger sizes                                                        */

static char *run_dump(const job *j, int big, unsigned garbage, size_t *len, abi_env *e) {
  char *dump = NULL;
  FILE *f = open_memstream(&dump, len);
  ck_assert_ptr_nonnull(f);
  memset(e, 0, sizeof *e);
  e->big = big;
  e->garbage = garbage;
  e->out = f;
  static char gen[4096];
  snprintf(gen, sizeof gen, "%s/tests/gen", tu_build_root()); /* made by tu_tracegen() */
  e->tmpdir = gen;
  e->on_fail = ck_fail_cb;
  abi_run(e, j->paths, 2);
  fclose(f);
  ck_assert_uint_eq(e->failures, 0);
  return dump;
}

/* The first line where two dumps differ, for the message. */
static void first_difference(const char *a, const char *b, char *out, size_t n) {
  size_t line = 1, i = 0;
  while (a[i] && a[i] == b[i]) {
    if (a[i] == '\n') line++;
    i++;
  }
  size_t la = i, lb = i;
  while (la && a[la - 1] != '\n') la--;
  lb = la;
  int wa = (int)strcspn(a + la, "\n"), wb = (int)strcspn(b + lb, "\n");
  snprintf(out, n, "line %zu: '%.*s' vs '%.*s'", line, wa, a + la, wb, b + lb);
}

START_TEST(t_larger_sizes_ignored_and_untouched) {
  job j;
  job_make(&j);
  abi_env ex, big1, big2;
  size_t n0 = 0, n1 = 0, n2 = 0;
  char *exact = run_dump(&j, 0, 0, &n0, &ex);
  /* two different garbages past every input struct */
  char *d1 = run_dump(&j, 1, 1, &n1, &big1);
  char *d2 = run_dump(&j, 1, 2, &n2, &big2);
  char why[1024];
  if (strcmp(exact, d1)) {
    first_difference(exact, d1, why, sizeof why);
    ck_abort_msg("sizes sizeof + %d (garbage 1) give other results than exact sizes: %s", ABI_CANARY, why);
  }
  if (strcmp(exact, d2)) {
    first_difference(exact, d2, why, sizeof why);
    ck_abort_msg("sizes sizeof + %d (garbage 2) give other results than exact sizes: %s", ABI_CANARY, why);
  }
  /* the run reached every kind of list item */
  size_t items = 0, lines = 0;
  for (size_t k = 1; k < ABI_NKINDS; k++) {
    ck_assert_msg(ex.items[k] > 0, "the run read no item of list kind %zu (%s)", k, abi_kind_struct[k]->name);
    ck_assert_uint_eq(ex.items[k], big1.items[k]);
    items += ex.items[k];
  }
  for (const char *p = exact; *p; p++) lines += *p == '\n';
  printf("# larger sizes: %zu dump lines (%zu list items of %zu kinds) identical at sizeof and sizeof + %d, "
         "canaries intact\n",
         lines, items, (size_t)ABI_NKINDS - 1, ABI_CANARY);
  free(exact);
  free(d1);
  free(d2);
  free(j.base);
}
END_TEST

/* ------------------------------------------------------------------ */
/* sizes below the first                                               */

/* A struct whose size field claims `size` bytes (below its first size),
 * the rest of the struct and canaries after it: a refused call writes no
 * byte of it. */
typedef struct small_box {
  union {
    max_align_t align;
    unsigned char b[ABI_MAXSIZE + ABI_CANARY];
  } u;
  unsigned char snap[ABI_MAXSIZE + ABI_CANARY];
} small_box;

/* `proto`: a valid struct of that kind (inputs), or NULL (outputs: a fill
 * pattern). */
static void *small(small_box *b, const abi_struct *s, const void *proto, size_t size) {
  memset(b->u.b, ABI_OUT_FILL, sizeof b->u.b);
  if (proto) memcpy(b->u.b, proto, s->size);
  memcpy(b->u.b, &size, sizeof size);
  memcpy(b->snap, b->u.b, sizeof b->u.b);
  return b->u.b;
}

static void untouched(const small_box *b, const char *what, size_t size) {
  for (size_t i = 0; i < sizeof b->snap; i++)
    ck_assert_msg(b->u.b[i] == b->snap[i], "%s with size %zu wrote byte %zu", what, size, i);
}

/* A call on one context: FSDPA_EINVAL and a message. */
static void refused_ctx(fsdpa_ctx *c, fsdpa_status st, const char *what, size_t size) {
  ck_assert_msg(st == FSDPA_EINVAL, "%s with size %zu: %s, not FSDPA_EINVAL", what, size, fsdpa_status_str(st));
  ck_assert_msg(fsdpa_errmsg(c)[0], "%s with size %zu: FSDPA_EINVAL without a message", what, size);
}

/* A call with an fsdpa_error: FSDPA_EINVAL there with a message. */
static void refused_err(fsdpa_status st, const fsdpa_error *e, const char *what, size_t size) {
  ck_assert_msg(st == FSDPA_EINVAL, "%s with size %zu: %s, not FSDPA_EINVAL", what, size, fsdpa_status_str(st));
  ck_assert_msg(e->status == FSDPA_EINVAL && e->message[0], "%s with size %zu: its fsdpa_error says %s '%s'", what,
                size, fsdpa_status_str(e->status), e->message);
}

static fsdpa_error err_new(void) {
  fsdpa_error e;
  fsdpa_error_init(&e);
  return e;
}

static int file_exists(const char *p) {
  FILE *f = fopen(p, "rb");
  if (f) fclose(f);
  return f != NULL;
}

/* Sizes below the first size of s: none, the size field alone, one byte short. */
static size_t below(const abi_struct *s, size_t k) {
  const size_t v[3] = {0, sizeof(size_t), s->first - 1};
  return v[k];
}
#define NBELOW 3

/* A list of each kind from the job's contexts (c: two ranks). */
static fsdpa_list *kind_list(fsdpa_ctx *const *c, size_t kind) {
  fsdpa_list *l = NULL;
  fsdpa_status st = FSDPA_EINVAL;
  switch (kind) {
    case FSDPA_LIST_STEPS: st = fsdpa_step_list(c[0], &l); break;
    case FSDPA_LIST_STREAMS: st = fsdpa_stream_list(c[0], &l); break;
    case FSDPA_LIST_COMM_SPLITS: st = fsdpa_comm_split_list(c[0], NULL, FSDPA_SPLIT_COLLECTIVE, &l); break;
    case FSDPA_LIST_FSDP_UNITS: st = fsdpa_fsdp_unit_list(c[0], NULL, &l); break;
    case FSDPA_LIST_BACKWARD_STEPS: st = fsdpa_backward_step_list(c[0], &l); break;
    case FSDPA_LIST_BACKWARD_UNITS: st = fsdpa_backward_unit_list(c[0], 0, &l); break;
    case FSDPA_LIST_SYNC_WAITS: st = fsdpa_sync_wait_list(c[0], NULL, &l); break;
    case FSDPA_LIST_SYNC_CALLS: st = fsdpa_sync_call_list(c[0], NULL, &l); break;
    case FSDPA_LIST_SYNC_STEPS: st = fsdpa_sync_step_list(c[0], NULL, &l); break;
    case FSDPA_LIST_MEMORY_DEVICES: st = fsdpa_memory_device_list(c[0], NULL, &l); break;
    case FSDPA_LIST_MEMORY_POINTS: st = fsdpa_memory_series_list(c[0], NULL, FSDPA_ABSENT, 8, &l); break;
    case FSDPA_LIST_MEMORY_STEPS: st = fsdpa_memory_step_list(c[0], NULL, &l); break;
    case FSDPA_LIST_CROSSRANK_RANKS: st = fsdpa_crossrank_rank_list(c, 2, &l, NULL); break;
    case FSDPA_LIST_FINDINGS: st = fsdpa_report_findings(c, 2, &l, NULL); break;
    case FSDPA_LIST_PARAMS: st = fsdpa_param_list(&l); break;
    case FSDPA_LIST_DEVICES: st = fsdpa_device_list(c[0], &l); break;
    case FSDPA_LIST_KERNELS: st = fsdpa_kernel_list(c[0], NULL, NULL, &l); break;
    case FSDPA_LIST_OPS: st = fsdpa_op_list(c[0], NULL, 0, &l); break;
    case FSDPA_LIST_EFFICIENCY_STEPS: st = fsdpa_efficiency_step_list(c[0], NULL, &l); break;
    default: break;
  }
  ck_assert_msg(st == FSDPA_OK, "list kind %zu: %s", kind, fsdpa_status_str(st));
  ck_assert_msg(fsdpa_list_count(l) > 0, "list kind %zu is empty", kind);
  ck_assert_int_eq(fsdpa_list_type(l), (int)kind);
  return l;
}

/* Input structs: fsdpa_options, fsdpa_allocator, fsdpa_event,
 * fsdpa_trace_info (set), fsdpa_query, fsdpa_report_options,
 * fsdpa_summary_options, fsdpa_annotate_options. */
START_TEST(t_below_first_size_inputs) {
  job j;
  job_make(&j);
  fsdpa_ctx *c[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    c[i] = tu_new_ctx();
    ck_assert_int_eq(fsdpa_feed_file(c[i], j.paths[i]), FSDPA_OK);
  }
  char *sums[2];
  size_t lens[2];
  for (int i = 0; i < 2; i++) ck_assert_int_eq(fsdpa_summary_write(c[i], "r", &sums[i], &lens[i]), FSDPA_OK);
  char *m = NULL;
  size_t ml = 0;
  ck_assert_int_eq(fsdpa_summary_merge((const char *const *)sums, lens, 2, NULL, &m, &ml, NULL), FSDPA_OK);
  char dst[4096];
  snprintf(dst, sizeof dst, "%s/abi-small-%d.json", tu_gen_dir(), (int)getpid());
  small_box b;
  size_t cases = 0;
  for (size_t k = 0; k < NBELOW; k++) {
    /* fsdpa_ctx_new: no context, so the status is the only channel */
    fsdpa_options o;
    fsdpa_options_init(&o);
    size_t sz = below(&abi_fsdpa_options, k);
    fsdpa_ctx *x = NULL;
    fsdpa_status st = fsdpa_ctx_new(&x, small(&b, &abi_fsdpa_options, &o, sz));
    ck_assert_msg(st == FSDPA_EINVAL && x == NULL, "fsdpa_options size %zu: %s", sz, fsdpa_status_str(st));
    untouched(&b, "fsdpa_ctx_new", sz);
    fsdpa_allocator al;
    memset(&al, 0, sizeof al);
    al.size = sizeof al;
    sz = below(&abi_fsdpa_allocator, k);
    o.allocator = small(&b, &abi_fsdpa_allocator, &al, sz);
    st = fsdpa_ctx_new(&x, &o);
    ck_assert_msg(st == FSDPA_EINVAL && x == NULL, "fsdpa_allocator size %zu: %s", sz, fsdpa_status_str(st));
    untouched(&b, "fsdpa_ctx_new (allocator)", sz);
    cases += 2;

    /* fsdpa_event: refused, nothing stored */
    fsdpa_stats s0 = {sizeof s0}, s1 = {sizeof s1};
    ck_assert_int_eq(fsdpa_stats_get(c[0], &s0), FSDPA_OK);
    fsdpa_event ev = tu_x("kernel", "k", 0, 7, 1000, 10, 1);
    sz = below(&abi_fsdpa_event, k);
    refused_ctx(c[0], fsdpa_event_add(c[0], small(&b, &abi_fsdpa_event, &ev, sz)), "fsdpa_event_add", sz);
    untouched(&b, "fsdpa_event_add", sz);
    ck_assert_int_eq(fsdpa_stats_get(c[0], &s1), FSDPA_OK);
    ck_assert_uint_eq(s1.events, s0.events);

    /* fsdpa_trace_info (set): refused, nothing changed */
    fsdpa_trace_info ti, t0 = {sizeof t0}, t1 = {sizeof t1};
    fsdpa_trace_info_init(&ti);
    ti.rank = 9;
    ti.world_size = 99;
    ck_assert_int_eq(fsdpa_trace_info_get(c[0], &t0), FSDPA_OK);
    sz = below(&abi_fsdpa_trace_info, k);
    refused_ctx(c[0], fsdpa_trace_info_set(c[0], small(&b, &abi_fsdpa_trace_info, &ti, sz)), "fsdpa_trace_info_set",
                sz);
    untouched(&b, "fsdpa_trace_info_set", sz);
    ck_assert_int_eq(fsdpa_trace_info_get(c[0], &t1), FSDPA_OK);
    ck_assert(t1.rank == t0.rank && t1.world_size == t0.world_size && t1.base_time_ns == t0.base_time_ns);
    cases += 2;

    /* fsdpa_query, in every call that takes one: no result written, no list */
    fsdpa_query q = FSDPA_QUERY_INIT;
    sz = below(&abi_fsdpa_query, k);
    const fsdpa_query *sq = small(&b, &abi_fsdpa_query, &q, sz);
    abi_box ob;
    abi_env ev_env;
    memset(&ev_env, 0, sizeof ev_env);
    ev_env.on_fail = ck_fail_cb;
#define QOUT(fn, T)                                                          \
  do {                                                                       \
    T *o_ = abi_out(&ev_env, &ob, &abi_##T);                                 \
    refused_ctx(c[0], fn(c[0], sq, o_), #fn, sz);                            \
    ck_assert_msg(!memcmp(ob.u.b, ob.snap, sizeof(T) + ABI_CANARY), #fn " with a refused query wrote its result"); \
    cases++;                                                                 \
  } while (0)
#define QLIST(call)                                                          \
  do {                                                                       \
    fsdpa_list *l_ = NULL;                                                   \
    refused_ctx(c[0], (call), #call, sz);                                    \
    ck_assert_msg(l_ == NULL, #call " with a refused query returned a list"); \
    cases++;                                                                 \
  } while (0)
    QOUT(fsdpa_timeline_query, fsdpa_timeline);
    QOUT(fsdpa_launch_gaps_query, fsdpa_launch_gaps);
    QOUT(fsdpa_launch_latency_query, fsdpa_launch_latency);
    QOUT(fsdpa_launch_queue_query, fsdpa_launch_queue);
    QOUT(fsdpa_overlap_query, fsdpa_overlap);
    QOUT(fsdpa_memory_query, fsdpa_memory_summary);
    QLIST(fsdpa_comm_split_list(c[0], sq, FSDPA_SPLIT_COLLECTIVE, &l_));
    QLIST(fsdpa_fsdp_unit_list(c[0], sq, &l_));
    QLIST(fsdpa_sync_wait_list(c[0], sq, &l_));
    QLIST(fsdpa_sync_call_list(c[0], sq, &l_));
    QLIST(fsdpa_sync_step_list(c[0], sq, &l_));
    QLIST(fsdpa_memory_device_list(c[0], sq, &l_));
    QLIST(fsdpa_memory_series_list(c[0], sq, FSDPA_ABSENT, 8, &l_));
    QLIST(fsdpa_memory_step_list(c[0], sq, &l_));
    QOUT(fsdpa_efficiency_query, fsdpa_efficiency);
    QLIST(fsdpa_efficiency_step_list(c[0], sq, &l_));
    QLIST(fsdpa_op_list(c[0], sq, 0, &l_));
    QLIST(fsdpa_kernel_list(c[0], sq, NULL, &l_));
#undef QOUT
#undef QLIST
    untouched(&b, "the queries", sz);

    /* fsdpa_kernel_select: no list */
    fsdpa_kernel_select ks;
    fsdpa_kernel_select_init(&ks);
    sz = below(&abi_fsdpa_kernel_select, k);
    fsdpa_list *kl = NULL;
    refused_ctx(c[0], fsdpa_kernel_list(c[0], NULL, small(&b, &abi_fsdpa_kernel_select, &ks, sz), &kl),
                "fsdpa_kernel_list", sz);
    ck_assert_ptr_null(kl);
    untouched(&b, "fsdpa_kernel_select", sz);
    /* fsdpa_device_info (set): refused, the devices unchanged */
    fsdpa_list *d0 = NULL, *d1 = NULL;
    ck_assert_int_eq(fsdpa_device_list(c[0], &d0), FSDPA_OK);
    fsdpa_device_info di;
    fsdpa_device_info_init(&di);
    di.device = 0;
    sz = below(&abi_fsdpa_device_info, k);
    refused_ctx(c[0], fsdpa_device_info_set(c[0], small(&b, &abi_fsdpa_device_info, &di, sz)), "fsdpa_device_info_set",
                sz);
    untouched(&b, "fsdpa_device_info_set", sz);
    ck_assert_int_eq(fsdpa_device_list(c[0], &d1), FSDPA_OK);
    ck_assert_uint_eq(fsdpa_list_count(d0), fsdpa_list_count(d1));
    fsdpa_list_free(d0);
    fsdpa_list_free(d1);
    cases += 2;

    /* fsdpa_report_options: fsdpa_report() and fsdpa_summary_report() */
    fsdpa_report_options ro;
    fsdpa_report_options_init(&ro);
    sz = below(&abi_fsdpa_report_options, k);
    const fsdpa_report_options *sro = small(&b, &abi_fsdpa_report_options, &ro, sz);
    fsdpa_error e = err_new();
    char *out = NULL;
    refused_err(fsdpa_report(c, NULL, 2, sro, &out, NULL, &e), &e, "fsdpa_report", sz);
    ck_assert_ptr_null(out);
    e = err_new();
    refused_err(fsdpa_summary_report(m, ml, NULL, sro, &out, NULL, &e), &e, "fsdpa_summary_report", sz);
    ck_assert_ptr_null(out);
    untouched(&b, "fsdpa_report_options", sz);
    cases += 2;

    /* fsdpa_summary_options: merge, report, findings */
    fsdpa_summary_options so;
    fsdpa_summary_options_init(&so);
    sz = below(&abi_fsdpa_summary_options, k);
    const fsdpa_summary_options *sso = small(&b, &abi_fsdpa_summary_options, &so, sz);
    e = err_new();
    refused_err(fsdpa_summary_merge((const char *const *)sums, lens, 2, sso, &out, NULL, &e), &e,
                "fsdpa_summary_merge", sz);
    ck_assert_ptr_null(out);
    e = err_new();
    refused_err(fsdpa_summary_report(m, ml, sso, NULL, &out, NULL, &e), &e, "fsdpa_summary_report", sz);
    ck_assert_ptr_null(out);
    fsdpa_list *l = NULL;
    e = err_new();
    refused_err(fsdpa_summary_findings(m, ml, sso, &l, &e), &e, "fsdpa_summary_findings", sz);
    ck_assert_ptr_null(l);
    untouched(&b, "fsdpa_summary_options", sz);
    cases += 3;

    /* fsdpa_annotate_options: no output file */
    fsdpa_annotate_options ao;
    fsdpa_annotate_options_init(&ao);
    sz = below(&abi_fsdpa_annotate_options, k);
    e = err_new();
    refused_err(fsdpa_annotate_file(c, 2, 0, j.paths[0], dst, small(&b, &abi_fsdpa_annotate_options, &ao, sz), &e),
                &e, "fsdpa_annotate_file", sz);
    ck_assert_msg(!file_exists(dst), "a refused fsdpa_annotate_file left %s", dst);
    untouched(&b, "fsdpa_annotate_options", sz);
    cases++;

    /* fsdpa_diff_options: no output, not regressed */
    fsdpa_diff_options dopt;
    fsdpa_diff_options_init(&dopt);
    sz = below(&abi_fsdpa_diff_options, k);
    e = err_new();
    int reg = -1;
    refused_err(fsdpa_diff(m, ml, m, ml, small(&b, &abi_fsdpa_diff_options, &dopt, sz), &out, NULL, &reg, &e), &e,
                "fsdpa_diff", sz);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(reg, 0);
    untouched(&b, "fsdpa_diff_options", sz);
    cases++;
  }
  printf("# sizes below the first, input structs: %zu refused calls, nothing written\n", cases);
  fsdpa_free(m);
  for (int i = 0; i < 2; i++) {
    fsdpa_free(sums[i]);
    fsdpa_ctx_free(c[i]);
  }
  free(j.base);
}
END_TEST

/* Output structs: every query result, fsdpa_stats_get(),
 * fsdpa_trace_info_get(), fsdpa_backward_get(), fsdpa_crossrank_query(),
 * every list item kind, and fsdpa_error itself. */
START_TEST(t_below_first_size_outputs) {
  job j;
  job_make(&j);
  fsdpa_ctx *c[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    c[i] = tu_new_ctx();
    ck_assert_int_eq(fsdpa_feed_file(c[i], j.paths[i]), FSDPA_OK);
  }
  char *sums[2];
  size_t lens[2];
  for (int i = 0; i < 2; i++) ck_assert_int_eq(fsdpa_summary_write(c[i], "r", &sums[i], &lens[i]), FSDPA_OK);
  char *m = NULL;
  size_t ml = 0;
  ck_assert_int_eq(fsdpa_summary_merge((const char *const *)sums, lens, 2, NULL, &m, &ml, NULL), FSDPA_OK);
  fsdpa_list *lists[ABI_NKINDS] = {NULL};
  for (size_t kind = 1; kind < ABI_NKINDS; kind++) lists[kind] = kind_list(c, kind);
  char dst[4096];
  snprintf(dst, sizeof dst, "%s/abi-small-%d.json", tu_gen_dir(), (int)getpid());
  small_box b;
  size_t cases = 0;
  fsdpa_query whole = FSDPA_QUERY_INIT;
  for (size_t k = 0; k < NBELOW; k++) {
    size_t sz;
#define OUT1(fn, T, ...)                                                     \
  do {                                                                       \
    sz = below(&abi_##T, k);                                                 \
    refused_ctx(c[0], fn(c[0], __VA_ARGS__ small(&b, &abi_##T, NULL, sz)), #fn, sz); \
    untouched(&b, #fn, sz);                                                  \
    cases++;                                                                 \
  } while (0)
    OUT1(fsdpa_timeline_query, fsdpa_timeline, &whole,);
    OUT1(fsdpa_launch_gaps_query, fsdpa_launch_gaps, &whole,);
    OUT1(fsdpa_launch_latency_query, fsdpa_launch_latency, &whole,);
    OUT1(fsdpa_launch_queue_query, fsdpa_launch_queue, &whole,);
    OUT1(fsdpa_overlap_query, fsdpa_overlap, NULL,);
    OUT1(fsdpa_memory_query, fsdpa_memory_summary, NULL,);
    OUT1(fsdpa_stats_get, fsdpa_stats,);
    OUT1(fsdpa_trace_info_get, fsdpa_trace_info,);
    OUT1(fsdpa_backward_get, fsdpa_backward,);
    OUT1(fsdpa_efficiency_query, fsdpa_efficiency, NULL,);
    OUT1(fsdpa_device_peak_get, fsdpa_device_peak, FSDPA_ABSENT,);
#undef OUT1
    fsdpa_error e = err_new();
    sz = below(&abi_fsdpa_crossrank, k);
    refused_err(fsdpa_crossrank_query(c, 2, small(&b, &abi_fsdpa_crossrank, NULL, sz), &e), &e,
                "fsdpa_crossrank_query", sz);
    untouched(&b, "fsdpa_crossrank_query", sz);
    cases++;
    /* list items: the status is a list call's only channel */
    for (size_t kind = 1; kind < ABI_NKINDS; kind++) {
      const abi_struct *s = abi_kind_struct[kind];
      sz = below(s, k);
      fsdpa_status st = fsdpa_list_get(lists[kind], 0, small(&b, s, NULL, sz));
      ck_assert_msg(st == FSDPA_EINVAL, "fsdpa_list_get of a %s with size %zu: %s", s->name, sz, fsdpa_status_str(st));
      untouched(&b, "fsdpa_list_get", sz);
      cases++;
    }
    /* fsdpa_error is the channel: refused, so written nowhere, and the
     * call does nothing */
    sz = below(&abi_fsdpa_error, k);
    fsdpa_error *se = small(&b, &abi_fsdpa_error, NULL, sz);
    char *out = NULL;
    fsdpa_list *l = NULL;
    fsdpa_crossrank xr = {sizeof xr};
    fsdpa_crossrank xr0 = xr;
#define ERR1(call, produced)                                                               \
  do {                                                                                     \
    fsdpa_status st_ = (call);                                                             \
    ck_assert_msg(st_ == FSDPA_EINVAL, #call " with an fsdpa_error of size %zu: %s", sz,   \
                  fsdpa_status_str(st_));                                                  \
    ck_assert_msg(!(produced), #call " with a refused fsdpa_error gave a result");         \
    untouched(&b, #call, sz);                                                              \
    cases++;                                                                               \
  } while (0)
    ERR1(fsdpa_report(c, NULL, 2, NULL, &out, NULL, se), out != NULL);
    ERR1(fsdpa_report_findings(c, 2, &l, se), l != NULL);
    ERR1(fsdpa_crossrank_query(c, 2, &xr, se), memcmp(&xr, &xr0, sizeof xr) != 0);
    ERR1(fsdpa_crossrank_rank_list(c, 2, &l, se), l != NULL);
    ERR1(fsdpa_summary_merge((const char *const *)sums, lens, 2, NULL, &out, NULL, se), out != NULL);
    ERR1(fsdpa_summary_report(m, ml, NULL, NULL, &out, NULL, se), out != NULL);
    ERR1(fsdpa_summary_findings(m, ml, NULL, &l, se), l != NULL);
    ERR1(fsdpa_annotate_events(c, 2, 0, &out, NULL, se), out != NULL);
    ERR1(fsdpa_annotate_file(c, 2, 0, j.paths[0], dst, NULL, se), file_exists(dst));
#undef ERR1
  }
  printf("# sizes below the first, output structs: %zu refused calls, nothing written\n", cases);
  for (size_t kind = 1; kind < ABI_NKINDS; kind++) fsdpa_list_free(lists[kind]);
  fsdpa_free(m);
  for (int i = 0; i < 2; i++) {
    fsdpa_free(sums[i]);
    fsdpa_ctx_free(c[i]);
  }
  free(j.base);
}
END_TEST

int main(void) {
  Suite *s = suite_create("abi");
  TU_CASE(s, "abi", 120, NULL, t_tables_cover_every_struct, t_larger_sizes_ignored_and_untouched,
          t_below_first_size_inputs, t_below_first_size_outputs);
  return tu_run_suite(s);
}
