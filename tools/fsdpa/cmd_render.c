/* fsdpa render: a JSON report as text, the HTML page or a CSV table, made
 * from the JSON alone (fsdpa_report_render()), for reports made where the
 * traces are not (merged summaries, --low-memory, a file kept from a run). */
#include "cli_io.h"
#include "cli_job.h"
#include "cli_opts.h"
#include "cmd.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_render(const cli_args *a) {
  fsdpa_report_options ro;
  int rc = cli_check_output(a->output);
  if (!rc) rc = cli_report_options(a, &ro);
  if (rc) return rc;
  const char *path = a->operands[0];
  size_t len = 0;
  char *json = cli_slurp(path, &len);
  if (!json) {
    fprintf(stderr, "%s: %s: cannot read: %s\n", cli_prog, path, strerror(errno));
    return EXIT_IO;
  }
  char *out = NULL;
  size_t olen = 0;
  fsdpa_error e;
  fsdpa_error_init(&e);
  fsdpa_status st = fsdpa_report_render(json, len, &ro, &out, &olen, &e);
  if (st) {
    fprintf(stderr, "%s: %s: %s\n", cli_prog, strcmp(path, "-") ? path : "standard input",
            e.message[0] ? e.message : cli_status_text(st));
    rc = EXIT_IO;
  } else {
    rc = cli_write_output(a->output, out, olen);
  }
  fsdpa_free(out);
  free(json);
  return rc;
}
