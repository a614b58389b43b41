/* Parsing a command's arguments with getopt_long() from the option table,
 * and checking every value before anything is read. */
#ifndef FSDPA_CLI_OPTS_H
#define FSDPA_CLI_OPTS_H

#include "cli_table.h"
#include <fsdpa/fsdpa.h>
#include <stddef.h>
#include <stdint.h>

/* Exit status (the report contract): 0 written; 1 findings at or above
 * --fail-on (diff: a regression beyond --fail-on-regression); 2 bad usage; 3 an input could not be read or is not a trace,
 * or an output could not be written. */
enum { EXIT_FINDINGS = 1, EXIT_USAGE = 2, EXIT_IO = 3 };

/* One --set, checked by fsdpa_param_set() when parsed. */
typedef struct cli_set {
  char key[128];
  const char *text;  /* the value as given (the library takes "30%" too) */
} cli_set;
/* The value to hand to fsdpa_param_set(). */
static inline const char *cli_set_value(const cli_set *s) { return s->text; }

typedef struct cli_args {
  const cli_cmd *cmd;
  int has_format;          /* --format given */
  fsdpa_format format;
  const char *output;      /* -o; NULL: not given */
  const char *dir;         /* annotate -d */
  int summary;             /* merge --summary */
  int64_t rank;            /* summarize --rank; FSDPA_ABSENT: not given */
  int gzip;                /* annotate: 1 --gzip, 0 --no-gzip, -1 by name */
  int fail_on;             /* lowest severity that fails; -1: off */
  cli_set *sets;
  size_t nsets;
  int jobs;
  int low_memory;
  int allow_empty;         /* --allow-empty: report a trace with no event */
  int color;               /* 1 --color, 0 --no-color, -1 not given */
  int progress;            /* 0 after --no-progress */
  int64_t html_step;       /* FSDPA_ABSENT: not given */
  uint64_t max_memory;     /* bytes; 0: no cap */
  const char *max_memory_text;  /* as given, for messages */
  int64_t fail_regression_ppm;  /* diff --fail-on-regression; -1: off */
  int64_t min_change_ppm;       /* diff --min-change; -1: the library's default */
  char **operands;
  size_t noperands;
} cli_args;

/* Parse argv[1..argc-1] (argv[0] is the command's name) for command `c`.
 * Returns 0 with `a` filled; or, having printed what to print, -1 after
 * --help (exit 0) or EXIT_USAGE.  Release with cli_args_free() either way. */
int cli_parse(const cli_cmd *c, int argc, char **argv, cli_args *a);
void cli_args_free(cli_args *a);

/* The format an output file's name asks for (.html, .json, .txt, any case):
 * 1 with *fmt set, 0 for any other name. */
int cli_format_of_name(const char *path, fsdpa_format *fmt);

/* The report format of a command with -f and -o: -f's; else by -o's name
 * (a name that says none is a usage error: EXIT_USAGE after a message);
 * else text to a terminal (`to_tty`), json otherwise.  Returns 0. */
int cli_output_format(const cli_args *a, int to_tty, fsdpa_format *fmt);

/* The program's name in messages. */
extern const char cli_prog[];

#endif
