/* fsdpa summarize / merge: per-rank summaries written where the traces
 * are, combined centrally into the report of the whole job. */
#include "cli_inputs.h"
#include "cli_job.h"
#include "cli_io.h"
#include "cli_opts.h"
#include "cmd.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_summarize(const cli_args *a) {
  cli_inputs in;
  fsdpa_ctx *c = NULL;
  char *sum = NULL;
  size_t len = 0;
  int rc = cli_inputs_expand(a->operands, a->noperands, OPERAND_TRACES, &in);
  if (rc) goto out;
  if (in.n != 1) {
    fprintf(stderr, "%s: summarize takes one TRACE (one rank); %s holds %zu (see 'fsdpa help summarize')\n",
            cli_prog, a->operands[0], in.n);
    rc = EXIT_USAGE;
    goto out;
  }
  const char *path = in.paths[0];
  if ((rc = cli_check_output(a->output))) goto out;
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.name = path;
  o.rank = a->rank;
  o.max_memory_bytes = a->max_memory;
  fsdpa_status st = fsdpa_ctx_new(&c, &o);
  if (st) {
    cli_trace_failed(path, NULL, st, a->max_memory ? a->max_memory_text : NULL);
    rc = EXIT_IO;
    goto out;
  }
  for (size_t i = 0; i < a->nsets; i++) {
    if (fsdpa_param_set(c, a->sets[i].key, cli_set_value(&a->sets[i]))) {
      fprintf(stderr, "%s: --set: %s (see 'fsdpa params')\n", cli_prog, fsdpa_errmsg(c));
      rc = EXIT_USAGE;
      goto out;
    }
  }
  st = fsdpa_feed_file(c, path);
  if (!st && !a->allow_empty && cli_trace_empty(c)) {
    cli_trace_empty_failed(path);
    rc = EXIT_IO;
    goto out;
  }
  if (!st) st = fsdpa_summary_write(c, path, &sum, &len);
  if (st) {
    cli_trace_failed(path, c, st, a->max_memory ? a->max_memory_text : NULL);
    rc = EXIT_IO;
    goto out;
  }
  rc = cli_write_output(a->output, sum, len);
out:
  fsdpa_free(sum);
  fsdpa_ctx_free(c);
  cli_inputs_free(&in);
  return rc;
}

int cmd_merge(const cli_args *a) {
  cli_inputs in;
  char **bufs = NULL, *merged = NULL, *rep = NULL;
  size_t *lens = NULL;
  int rc = cli_inputs_expand(a->operands, a->noperands, OPERAND_SUMMARIES, &in);
  if (rc) goto out;
  fsdpa_format fmt;
  if (!a->summary && !a->has_format && !cli_is_stdout(a->output) && cli_format_of_name(a->output, &fmt) &&
      fmt != FSDPA_FORMAT_JSON) {
    fprintf(stderr, "%s: %s: merge writes JSON only (text and html need the traces: use 'fsdpa analyze'; "
            "-f json writes JSON to this name)\n", cli_prog, a->output);
    rc = EXIT_USAGE;
    goto out;
  }
  if ((rc = cli_check_output(a->output))) goto out;
  bufs = calloc(in.n, sizeof *bufs);
  lens = calloc(in.n, sizeof *lens);
  if (!bufs || !lens) {
    fprintf(stderr, "%s: out of memory\n", cli_prog);
    rc = EXIT_IO;
    goto out;
  }
  for (size_t i = 0; i < in.n; i++) {
    if (!(bufs[i] = cli_slurp(in.paths[i], &lens[i]))) {
      fprintf(stderr, "%s: %s: cannot read: %s\n", cli_prog, in.paths[i], strerror(errno));
      rc = EXIT_IO;
      goto out;
    }
  }
  fsdpa_error err;
  fsdpa_error_init(&err);
  size_t mlen = 0, rlen = 0;
  fsdpa_status st = fsdpa_summary_merge((const char *const *)bufs, lens, in.n, NULL, &merged, &mlen, &err);
  if (!st && a->summary) {
    rc = cli_write_output(a->output, merged, mlen);
    goto out;
  }
  if (!st) st = fsdpa_summary_report(merged, mlen, NULL, NULL, &rep, &rlen, &err);
  fsdpa_list *fl = NULL;
  if (!st && a->fail_on >= 0) st = fsdpa_summary_findings(merged, mlen, NULL, &fl, &err);
  if (st) {
    cli_report_failed(&err, st, (const char *const *)in.paths, in.n);
    rc = EXIT_IO;
    goto out;
  }
  rc = cli_write_output(a->output, rep, rlen);
  if (!rc && a->fail_on >= 0 && cli_fail_on(fl, a->fail_on)) rc = EXIT_FINDINGS;
  fsdpa_list_free(fl);
out:
  fsdpa_free(merged);
  fsdpa_free(rep);
  for (size_t i = 0; bufs && i < in.n; i++) free(bufs[i]);
  free(bufs);
  free(lens);
  cli_inputs_free(&in);
  return rc;
}
