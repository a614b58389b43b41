/* fsdpa: command-line front end of libfsdpa.
 *
 *   fsdpa COMMAND [options] [operands]
 *
 * The commands and their options are the tables of cli_table.c; this file
 * only finds the command and runs it. */
#include "cli_doc.h"
#include "cli_opts.h"
#include <fsdpa/fsdpa.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_help_main(stderr);
    return EXIT_USAGE;
  }
  const char *name = argv[1];
  if (!strcmp(name, "--version")) {
    printf("fsdpa %s\n", fsdpa_version_string());
    return 0;
  }
  if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
    cli_help_main(stdout);
    return 0;
  }
  const cli_cmd *c = cli_cmd_find(name);
  if (!c) {
    fprintf(stderr, "%s: unknown %s '%s' (see 'fsdpa --help')\n", cli_prog, name[0] == '-' ? "option" : "command",
            name);
    return EXIT_USAGE;
  }
  cli_args a;
  int rc = cli_parse(c, argc - 1, argv + 1, &a);
  if (rc == 0) rc = c->run(&a);
  else if (rc < 0) rc = 0; /* --help */
  cli_args_free(&a);
  return rc;
}
