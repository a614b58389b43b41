/* Operands as the inputs they name: a directory stands for the files in it
 * (the traces of one job's ranks, as HTA's trace_dir). */
#ifndef FSDPA_CLI_INPUTS_H
#define FSDPA_CLI_INPUTS_H

#include "cli_table.h"
#include <fsdpa/fsdpa.h>
#include <stddef.h>

typedef struct cli_inputs {
  char **paths;  /* each an operand as given, or DIR/NAME for a directory's file */
  unsigned char *from_dir;  /* 1 where paths[i] is a directory's file, not an operand */
  size_t n;
} cli_inputs;

/* Expand the operands of a command taking `kind`: a directory becomes its
 * files (not those of its subdirectories, nor hidden ones) whose names end
 * in .json or .json.gz (traces) or .fsum (summaries), in byte order of the
 * names, as the shell's glob sorts them in the C locale; anything else,
 * "-" included, stays as it is.  A directory's file that turns out not to
 * be a trace (a config.json beside the ranks) is skipped with a warning by
 * the commands (from_dir); an operand named on the command line is not.
 * Returns 0; EXIT_USAGE for a directory
 * without such files; EXIT_IO for a directory that cannot be read.  Release
 * with cli_inputs_free() either way. */
int cli_inputs_expand(char *const *operands, size_t n, cli_operand kind, cli_inputs *out);
void cli_inputs_free(cli_inputs *in);

struct cli_args;
/* Analyze the traces `in` names (the ranks of one job) as 'fsdpa analyze'
 * does (-j, --set, --max-memory, --low-memory, the progress bar) and make
 * the report `ro` asks for: 0 with *rep (fsdpa_free()) and, when
 * `findings` is given, the report's findings (fsdpa_list_free()); else
 * EXIT_IO, the reason printed.  cmd_analyze.c. */
int cli_analyze_inputs(const struct cli_args *a, const cli_inputs *in, const fsdpa_report_options *ro, char **rep,
                       size_t *len, fsdpa_list **findings);

#endif
