/* Documents made from the tables of cli_table.c: the --help texts
 * (cli_help.c), the manual page and the shell completions (cli_gen.c). */
#ifndef FSDPA_CLI_DOC_H
#define FSDPA_CLI_DOC_H

#include "cli_table.h"
#include <stdio.h>

/* `fsdpa --help`: the commands. */
void cli_help_main(FILE *f);
/* `fsdpa help CMD`, `fsdpa CMD --help`. */
void cli_help_cmd(FILE *f, const cli_cmd *c);

/* `fsdpa __generate WHAT` for WHAT man, bash or zsh: 0; -1 for another WHAT;
 * -2 when the tables break their own rules (said on stderr). */
int cli_generate(FILE *f, const char *what);

#endif
