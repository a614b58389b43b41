/* Operands as the inputs they name: a directory stands for the files in it
 * (the traces of one job's ranks, as HTA's trace_dir). */
#ifndef FSDPA_CLI_INPUTS_H
#define FSDPA_CLI_INPUTS_H

#include "cli_table.h"
#include <stddef.h>

typedef struct cli_inputs {
  char **paths;  /* each an operand as given, or DIR/NAME for a directory's file */
  size_t n;
} cli_inputs;

/* Expand the operands of a command taking `kind`: a directory becomes its
 * files (not those of its subdirectories, nor hidden ones) whose names end
 * in .json or .json.gz (traces) or .fsum (summaries), in byte order of the
 * names, as the shell's glob sorts them in the C locale; anything else,
 * "-" included, stays as it is.  Returns 0; EXIT_USAGE for a directory
 * without such files; EXIT_IO for a directory that cannot be read.  Release
 * with cli_inputs_free() either way. */
int cli_inputs_expand(char *const *operands, size_t n, cli_operand kind, cli_inputs *out);
void cli_inputs_free(cli_inputs *in);

#endif
