/* The command line as data: every command and every option of fsdpa, with
 * the line --help prints for it and the paragraph the manual page prints.
 * Parsing (cli_opts.c), --help (cli_help.c), the manual page and the bash
 * and zsh completions (cli_gen.c) all read these tables and nothing else,
 * so they cannot disagree about what fsdpa accepts. */
#ifndef FSDPA_CLI_TABLE_H
#define FSDPA_CLI_TABLE_H

#include <stddef.h>

struct cli_args;

typedef enum cli_cmd_id {
  CMD_ANALYZE,
  CMD_ANNOTATE,
  CMD_SUMMARIZE,
  CMD_MERGE,
  CMD_DIFF,
  CMD_PARAMS,
  CMD_VERSION,
  CMD_HELP,
  CMD_GENERATE,
  CMD__COUNT
} cli_cmd_id;

#define CMD_BIT(id) (1u << (id))
#define CMD_ALL ((1u << CMD__COUNT) - 1)

/* What an option's value is: how it is checked and how a shell completes it. */
typedef enum cli_arg {
  ARG_NONE,    /* a flag */
  ARG_CHOICE,  /* one word of cli_opt.choices */
  ARG_FILE,    /* a file to write */
  ARG_DIR,     /* an existing directory */
  ARG_PARAM,   /* KEY=VALUE of fsdpa_param_list(), shares also as percentages */
  ARG_COUNT,   /* an integer >= 1 */
  ARG_INDEX,   /* an integer >= 0 */
  ARG_SIZE,    /* bytes: a number with an optional unit K, M, G, T (bare: MiB) */
  ARG_PERCENT  /* a percentage >= 0, with an optional '%' and at most four decimals */
} cli_arg;

/* What a command's operands are, for messages, directories and completion. */
typedef enum cli_operand {
  OPERAND_NONE,
  OPERAND_TRACES,     /* trace files or directories of them */
  OPERAND_SUMMARIES,  /* summary files or directories of them */
  OPERAND_RUNS,       /* each a run: a trace, a directory of traces or summaries, a summary or a JSON report */
  OPERAND_COMMAND,    /* a command name (help) */
  OPERAND_GENERATE    /* what __generate writes */
} cli_operand;

/* What an option sets in struct cli_args. */
typedef enum cli_opt_id {
  OPT_HELP,
  OPT_FORMAT,
  OPT_OUTPUT,
  OPT_DIR,
  OPT_SUMMARY,
  OPT_RANK,
  OPT_GZIP,
  OPT_NO_GZIP,
  OPT_FAIL_ON,
  OPT_SET,
  OPT_JOBS,
  OPT_LOW_MEMORY,
  OPT_COLOR,
  OPT_NO_COLOR,
  OPT_NO_PROGRESS,
  OPT_HTML_STEP,
  OPT_MAX_MEMORY,
  OPT_ALLOW_EMPTY,
  OPT_FAIL_ON_REGRESSION,
  OPT_MIN_CHANGE
} cli_opt_id;

/* One option of the commands in `cmds`.  An option whose meaning differs
 * between commands (-o: a report, a summary, a copy of the trace) has one
 * row per meaning; rows are listed in --help and the manual in table order. */
typedef struct cli_opt {
  unsigned cmds;          /* CMD_BIT()s of the commands that take it */
  cli_opt_id id;
  char short_name;        /* 0: none */
  const char *long_name;
  const char *metavar;    /* the value's name in help texts; NULL for ARG_NONE */
  cli_arg arg;
  const char *choices;    /* ARG_CHOICE: the accepted words, separated by spaces */
  const char *hint;       /* appended to the message about a bad value; NULL: none */
  const char *help;       /* plain text: the --help line (wrapped) and completion description */
  const char *man;        /* roff: the manual's paragraph; NULL: not in the manual */
} cli_opt;

/* Synopsis lines are plain words: "[options]", "[X ...]", "-o", and
 * upper-case names of operands; cli_gen.c sets each in its font. */
typedef struct cli_cmd {
  cli_cmd_id id;
  const char *name;
  int hidden;                /* not listed, not documented, not completed */
  const char *synopsis[3];   /* what follows "fsdpa NAME" on each usage line */
  const char *summary;       /* one line for the list of commands */
  const char *help;          /* plain text paragraphs (pre-wrapped) of --help; NULL: none */
  const char *man;           /* roff: the manual's section of the command */
  cli_operand operand;
  const char *operand_name;  /* as in the synopsis ("TRACE"), for messages */
  int min_operands;
  int max_operands;          /* -1: any number */
  const char *exit_help;     /* plain text: the exit status line of --help; NULL: none */
  int (*run)(const struct cli_args *a);
} cli_cmd;

/* An example, shown by the --help of its commands and in EXAMPLES. */
typedef struct cli_example {
  unsigned cmds;      /* CMD_BIT()s of the commands whose --help shows it */
  const char *what;   /* plain text, a sentence ending in ':' */
  const char *lines;  /* plain text, one command per line */
} cli_example;

/* A section of the manual page, in order.  Most are roff text; three are
 * made from the tables above. */
typedef enum cli_man_kind { MAN_TEXT, MAN_SYNOPSIS, MAN_COMMANDS, MAN_EXAMPLES } cli_man_kind;

typedef struct cli_man_section {
  const char *title;
  cli_man_kind kind;
  const char *roff;  /* MAN_TEXT: the section; MAN_COMMANDS: the paragraph before the commands */
} cli_man_section;

extern const cli_cmd cli_cmds[];
extern const size_t cli_ncmds;
extern const cli_opt cli_opts[];
extern const size_t cli_nopts;
extern const cli_example cli_examples[];
extern const size_t cli_nexamples;
extern const cli_man_section cli_man_sections[];
extern const size_t cli_nman_sections;

extern const char cli_about[];     /* plain text: what fsdpa does, for `fsdpa --help` */
extern const char cli_man_name[];  /* roff: the NAME line of the manual */
extern const char cli_man_date[];  /* the manual's date */

/* The command named `name`, hidden ones included; NULL if none. */
const cli_cmd *cli_cmd_find(const char *name);
/* Whether option row `o` belongs to command `c`. */
int cli_opt_of(const cli_opt *o, const cli_cmd *c);

#endif
