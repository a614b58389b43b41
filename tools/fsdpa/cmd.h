/* The commands: each runs on its parsed arguments and returns the exit
 * status (cli_opts.h). */
#ifndef FSDPA_CMD_H
#define FSDPA_CMD_H

struct cli_args;

int cmd_analyze(const struct cli_args *a);   /* cmd_analyze.c */
int cmd_annotate(const struct cli_args *a);  /* cmd_annotate.c */
int cmd_summarize(const struct cli_args *a); /* cmd_summary.c */
int cmd_merge(const struct cli_args *a);     /* cmd_summary.c */
int cmd_diff(const struct cli_args *a);      /* cmd_diff.c */
int cmd_params(const struct cli_args *a);    /* cmd_info.c */
int cmd_version(const struct cli_args *a);   /* cmd_info.c */
int cmd_help(const struct cli_args *a);      /* cmd_info.c */
int cmd_generate(const struct cli_args *a);  /* cmd_info.c */

#endif
