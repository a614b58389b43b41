/* A caller compiled against the real include/fsdpa/fsdpa.h: every call of
 * abi_core.h at the exact sizes of that header, the dump on stdout, broken
 * promises on stderr (exit 1).  Built twice (tests/abi/meson.build): with
 * the real library, and with the test-only copy whose structs are each one
 * field longer, where every call must read and write only the caller's
 * bytes; compare.py checks that both print the same dump.
 *
 *   abi_probe [--grown] RANK0.json RANK1.json TMPDIR
 *
 * --grown: the library must be the grown copy (checked, so a build that
 * links the real library twice cannot pass unnoticed). */
#define FSDPA_EXPERIMENTAL
#include "abi_core.h"
#ifdef FSDPA_TEST_GROWN_HEADER
#error "abi_probe.c must be compiled against the real header, not the grown copy"
#endif

/* Each distinct failure once, with how often it happened (an *_init()
 * that overruns does it on every struct the run makes). */
enum { MAXMSG = 128 };
static char *msgs[MAXMSG];
static unsigned counts[MAXMSG], nmsgs, dropped;

static void probe_fail(abi_env *e, const char *msg) {
  (void)e;
  for (unsigned i = 0; i < nmsgs; i++)
    if (!strcmp(msgs[i], msg)) {
      counts[i]++;
      return;
    }
  if (nmsgs == MAXMSG) {
    dropped++;
    return;
  }
  msgs[nmsgs] = strdup(msg);
  counts[nmsgs++] = 1;
}

/* Whether the library's fsdpa_step is longer than this header's: an item
 * read at 8 bytes more than this header's size gets those bytes written
 * only by a longer struct. */
static int library_is_grown(abi_env *e) {
  static const char doc[] =
      "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
      "\"tid\":1,\"ts\":1,\"dur\":5}]}";
  fsdpa_ctx *c = NULL;
  fsdpa_list *l = NULL;
  int grown = -1;
  if (fsdpa_ctx_new(&c, NULL) == FSDPA_OK && fsdpa_feed(c, doc, sizeof doc - 1) == FSDPA_OK &&
      fsdpa_finish(c) == FSDPA_OK && fsdpa_step_list(c, &l) == FSDPA_OK && fsdpa_list_count(l) == 1) {
    abi_box b;
    abi_out(e, &b, &abi_fsdpa_step);
    b.given = sizeof(fsdpa_step) + 8;
    abi_seal(&b);
    if (fsdpa_list_get(l, 0, b.u.b) == FSDPA_OK)
      grown = memcmp(b.u.b + sizeof(fsdpa_step), b.snap + sizeof(fsdpa_step), 8) != 0;
  }
  fsdpa_list_free(l);
  fsdpa_ctx_free(c);
  return grown;
}

int main(int argc, char **argv) {
  int want_grown = argc > 1 && !strcmp(argv[1], "--grown");
  argc -= want_grown;
  argv += want_grown;
  if (argc != 4) {
    fprintf(stderr, "usage: abi_probe [--grown] RANK0.json RANK1.json TMPDIR\n");
    return 2;
  }
  abi_env e;
  memset(&e, 0, sizeof e);
  e.portable = 1; /* the two libraries hold their results in structs of different sizes */
  e.out = stdout;
  e.tmpdir = argv[3];
  e.on_fail = probe_fail;
  const char *paths[2] = {argv[1], argv[2]};
  abi_run(&e, paths, 2);
  int grown = library_is_grown(&e);
  if (grown != want_grown)
    abi_failf(&e, "the library's fsdpa_step is %s this header's, expected %s",
              grown < 0 ? "not readable at" : grown ? "longer than" : "the size of",
              want_grown ? "longer" : "the same");
  for (size_t k = 1; k < ABI_NKINDS; k++)
    if (!e.items[k]) abi_failf(&e, "the run read no %s list item", abi_kind_struct[k]->name);
  for (unsigned i = 0; i < nmsgs; i++) {
    fprintf(stderr, "FAIL (%ux): %s\n", counts[i], msgs[i]);
    free(msgs[i]);
  }
  fprintf(stderr, "abi_probe (%s library): %u failures (%u distinct%s)\n", want_grown ? "grown" : "real",
          e.failures, nmsgs, dropped ? ", more not shown" : "");
  return e.failures ? 1 : 0;
}
