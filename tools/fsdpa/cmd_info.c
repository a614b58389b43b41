/* The commands that read no trace: params, version, help, __generate. */
#include "cli_doc.h"
#include "cli_opts.h"
#include "cmd.h"
#include <stdio.h>
#include <string.h>

/* `name=default  description`, one line per parameter */
int cmd_params(const cli_args *a) {
  (void)a;
  fsdpa_list *l = NULL;
  if (fsdpa_param_list(&l)) {
    fprintf(stderr, "%s: out of memory\n", cli_prog);
    return EXIT_IO;
  }
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_param p;
    memset(&p, 0, sizeof p);
    p.size = sizeof p;
    if (fsdpa_list_get(l, i, &p) == FSDPA_OK) printf("%s=%lld  %s\n", p.name, (long long)p.default_value, p.description);
  }
  fsdpa_list_free(l);
  return 0;
}

int cmd_version(const cli_args *a) {
  (void)a;
  printf("fsdpa %s\n", fsdpa_version_string());
  return 0;
}

int cmd_help(const cli_args *a) {
  if (!a->noperands) {
    cli_help_main(stdout);
    return 0;
  }
  const cli_cmd *c = cli_cmd_find(a->operands[0]);
  if (!c) {
    fprintf(stderr, "%s: help: unknown command '%s' (see 'fsdpa --help')\n", cli_prog, a->operands[0]);
    return EXIT_USAGE;
  }
  cli_help_cmd(stdout, c);
  return 0;
}

int cmd_generate(const cli_args *a) {
  int r = cli_generate(stdout, a->operands[0]);
  if (r == -1) {
    fprintf(stderr, "%s: __generate: '%s' is not man, bash or zsh\n", cli_prog, a->operands[0]);
    return EXIT_USAGE;
  }
  if (r) return EXIT_USAGE;
  if (fflush(stdout)) {
    perror("fsdpa: standard output");
    return EXIT_IO;
  }
  return 0;
}
