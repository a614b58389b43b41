/* fsdpa annotate: a copy of each trace with the findings added as events,
 * for Perfetto and chrome://tracing. */
#define FSDPA_EXPERIMENTAL /* fsdpa_annotate_file() */
#include "cli_inputs.h"
#include "cli_job.h"
#include "cli_io.h"
#include "cli_opts.h"
#include "cmd.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_annotate(const cli_args *a) {
  cli_inputs in;
  fsdpa_ctx **ctxs = NULL;
  const char **paths = NULL;
  int rc = cli_inputs_expand(a->operands, a->noperands, OPERAND_TRACES, &in);
  if (rc) goto out;
  size_t n = in.n;
  if ((!a->output && !a->dir) || (a->output && a->dir) || (a->output && n > 1)) {
    fprintf(stderr, "%s: annotate needs TRACE -o OUT, or -d DIR TRACE [TRACE ...]%s (see 'fsdpa help annotate')\n",
            cli_prog, a->output && n > 1 ? ": -o takes a single TRACE" : "");
    rc = EXIT_USAGE;
    goto out;
  }
  for (size_t i = 0; i < n; i++) {
    if (!strcmp(in.paths[i], "-")) {
      fprintf(stderr, "%s: annotate reads each TRACE twice: it cannot be standard input\n", cli_prog);
      rc = EXIT_USAGE;
      goto out;
    }
  }
  if ((rc = a->dir ? cli_check_output_dir(a->dir) : cli_check_output(a->output))) goto out;
  ctxs = calloc(n, sizeof *ctxs);
  paths = calloc(n, sizeof *paths);
  if (!ctxs || !paths) {
    fprintf(stderr, "%s: out of memory\n", cli_prog);
    rc = EXIT_IO;
    goto out;
  }
  for (size_t i = 0; i < n; i++) {
    fsdpa_options o;
    fsdpa_options_init(&o);
    o.name = in.paths[i];
    o.max_memory_bytes = a->max_memory;
    fsdpa_status st = fsdpa_ctx_new(&ctxs[i], &o);
    if (st) {
      cli_trace_failed(in.paths[i], NULL, st, a->max_memory ? a->max_memory_text : NULL);
      rc = EXIT_IO;
      goto out;
    }
    for (size_t k = 0; k < a->nsets; k++) {
      if (fsdpa_param_set(ctxs[i], a->sets[k].key, cli_set_value(&a->sets[k]))) {
        fprintf(stderr, "%s: --set: %s (see 'fsdpa params')\n", cli_prog, fsdpa_errmsg(ctxs[i]));
        rc = EXIT_USAGE;
        goto out;
      }
    }
    st = fsdpa_feed_file(ctxs[i], in.paths[i]);
    if (st == FSDPA_ENOTTRACE && in.from_dir[i]) {
      cli_warn_skipped(in.paths[i], ctxs[i]);
      fsdpa_ctx_free(ctxs[i]);
      ctxs[i] = NULL;
      continue;
    }
    if (!st && !a->allow_empty && cli_trace_empty(ctxs[i])) {
      cli_trace_empty_failed(in.paths[i]);
      rc = EXIT_IO;
      goto out;
    }
    int64_t ws;
    if (!st) st = cli_number_unranked(ctxs[i], i, &ws);
    if (st) {
      cli_trace_failed(in.paths[i], ctxs[i], st, a->max_memory ? a->max_memory_text : NULL);
      rc = EXIT_IO;
      goto out;
    }
  }
  /* the traces left, in the order given (the skipped ones' paths stay in
   * `in`, which frees them) */
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    if (ctxs[i]) {
      fsdpa_ctx *c = ctxs[i];
      ctxs[i] = NULL;
      ctxs[kept] = c;
      paths[kept++] = in.paths[i];
    }
  n = kept;
  if (!n) {
    fprintf(stderr, "%s: no traces to annotate: every file of the directories given was skipped\n", cli_prog);
    rc = EXIT_IO;
    goto out;
  }
  fsdpa_annotate_options ao;
  fsdpa_annotate_options_init(&ao);
  ao.gzip = a->gzip;
  for (size_t i = 0; i < n && !rc; i++) {
    char *target = NULL;
    if (a->dir) {
      const char *base = strrchr(paths[i], '/');
      base = base ? base + 1 : paths[i];
      size_t len = strlen(a->dir) + strlen(base) + 2;
      target = malloc(len);
      if (!target) {
        fprintf(stderr, "%s: out of memory\n", cli_prog);
        rc = EXIT_IO;
        break;
      }
      snprintf(target, len, "%s/%s", a->dir, base);
    }
    fsdpa_error e;
    fsdpa_error_init(&e);
    fsdpa_status st = fsdpa_annotate_file(ctxs, n, i, paths[i], target ? target : a->output, &ao, &e);
    if (st) {
      fprintf(stderr, "%s: %s\n", cli_prog, e.message[0] ? e.message : cli_status_text(st));
      rc = EXIT_IO;
    }
    free(target);
  }
out:
  for (size_t i = 0; ctxs && i < in.n; i++) fsdpa_ctx_free(ctxs[i]);
  free(ctxs);
  free(paths);
  cli_inputs_free(&in);
  return rc;
}
