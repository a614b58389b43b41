/* `fsdpa __generate man|bash|zsh`: the manual page and the shell
 * completions, made from the same tables the arguments are parsed with
 * (the build runs it for the completions; a test compares the manual page
 * with docs/man/fsdpa.1). */
#include "cli_doc.h"
#include <fsdpa/fsdpa.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tables' own rules, checked before anything is made from them ---- */

static int check_tables(void) {
  int bad = 0;
  for (size_t c = 0; c < cli_ncmds; c++) {
    for (size_t i = 0; i < cli_nopts; i++) {
      const cli_opt *o = &cli_opts[i];
      if (!cli_opt_of(o, &cli_cmds[c])) continue;
      if ((o->arg == ARG_NONE) != (o->metavar == NULL) || (o->arg == ARG_CHOICE) != (o->choices != NULL)) {
        fprintf(stderr, "fsdpa: option table: --%s: a value needs a metavar (and a choice its choices)\n", o->long_name);
        bad = 1;
      }
      for (size_t j = 0; j < i; j++) {
        const cli_opt *p = &cli_opts[j];
        if (cli_opt_of(p, &cli_cmds[c]) &&
            (!strcmp(p->long_name, o->long_name) || (o->short_name && p->short_name == o->short_name))) {
          fprintf(stderr, "fsdpa: option table: %s has --%s twice\n", cli_cmds[c].name, o->long_name);
          bad = 1;
        }
      }
    }
  }
  return bad ? -1 : 0;
}

/* ---- manual page ---- */

/* Plain text as roff: a typed minus is "\-", a backslash "\e", and a line
 * must not start with a control character. */
static void roff_text(FILE *f, const char *s, size_t n) {
  int bol = 1;
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    if (bol && (ch == '.' || ch == '\'')) fputs("\\&", f);
    if (ch == '-') fputs("\\-", f);
    else if (ch == '\\') fputs("\\e", f);
    else fputc(ch, f);
    bol = ch == '\n';
  }
}

static void roff_block(FILE *f, const char *roff) {
  size_t n = strlen(roff);
  fputs(roff, f);
  if (n && roff[n - 1] != '\n') fputc('\n', f);
}

/* A synopsis line: "[options]" -> .RI [ options ], "[TRACE ...]" ->
 * .RI [ TRACE ...], "-o" -> .B \-o, "TRACE" -> .I TRACE. */
static void man_synopsis(FILE *f, const cli_cmd *c, const char *line) {
  fprintf(f, ".B fsdpa %s\n", c->name);
  const char *p = line;
  while (*p) {
    while (*p == ' ') p++;
    if (!*p) break;
    size_t len = strcspn(p, " ");
    if (*p == '[') {
      const char *close = strchr(p, ']');
      len = close ? (size_t)(close - p) + 1 : strlen(p);
      int spaced = memchr(p, ' ', len) != NULL;
      fputs(".RI [ ", f);
      roff_text(f, p + 1, len - 2);
      fputs(spaced ? "]\n" : " ]\n", f);
    } else {
      fputs(*p == '-' ? ".B " : ".I ", f);
      roff_text(f, p, len);
      fputc('\n', f);
    }
    p += len;
  }
}

static void man_option(FILE *f, const cli_opt *o) {
  fputs(".TP\n", f);
  if (o->short_name) fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
  fputs("\\fB\\-\\-", f);
  roff_text(f, o->long_name, strlen(o->long_name));
  fputs("\\fR", f);
  if (o->metavar) {
    fputs(" \\fI", f);
    roff_text(f, o->metavar, strlen(o->metavar));
    fputs("\\fR", f);
  }
  fputc('\n', f);
  roff_block(f, o->man);
}

static void gen_man(FILE *f) {
  fprintf(f,
          ".\\\" Manual page of fsdpa, the command-line front end of libfsdpa.\n"
          ".\\\" Made by `fsdpa __generate man` from tools/fsdpa/cli_table.c: edit the tables there,\n"
          ".\\\" then regenerate this file (a test compares the two).\n"
          ".\\\" View it with: man -l docs/man/fsdpa.1\n"
          ".TH FSDPA 1 \"%s\" \"libfsdpa %s\" \"User Commands\"\n",
          cli_man_date, fsdpa_version_string());
  for (size_t s = 0; s < cli_nman_sections; s++) {
    const cli_man_section *sec = &cli_man_sections[s];
    fprintf(f, ".SH %s\n", sec->title);
    switch (sec->kind) {
      case MAN_TEXT: roff_block(f, sec->roff); break;
      case MAN_SYNOPSIS: {
        int first = 1;
        for (size_t i = 0; i < cli_ncmds; i++) {
          const cli_cmd *c = &cli_cmds[i];
          for (int k = 0; !c->hidden && k < 3 && c->synopsis[k]; k++) {
            if (!first) fputs(".br\n", f);
            man_synopsis(f, c, c->synopsis[k]);
            first = 0;
          }
        }
        break;
      }
      case MAN_COMMANDS:
        roff_block(f, sec->roff);
        for (size_t i = 0; i < cli_ncmds; i++) {
          const cli_cmd *c = &cli_cmds[i];
          if (c->hidden) continue;
          fprintf(f, ".SS %s\n", c->name);
          roff_block(f, c->man);
          for (size_t k = 0; k < cli_nopts; k++)
            if (cli_opt_of(&cli_opts[k], c) && cli_opts[k].man) man_option(f, &cli_opts[k]);
        }
        break;
      case MAN_EXAMPLES:
        for (size_t i = 0; i < cli_nexamples; i++) {
          const cli_example *e = &cli_examples[i];
          if (i) fputs(".PP\n", f);
          roff_text(f, e->what, strlen(e->what));
          fputs("\n.PP\n.RS\n", f);
          for (const char *l = e->lines; *l;) {
            size_t len = strcspn(l, "\n");
            if (l != e->lines) fputs(".br\n", f);
            roff_text(f, l, len);
            fputc('\n', f);
            l += len + (l[len] == '\n');
          }
          fputs(".RE\n", f);
        }
        break;
    }
  }
}

/* ---- shell completions ---- */

/* the names of the parameters --set takes, each with its '=' */
static void param_words(FILE *f) {
  fsdpa_list *l = NULL;
  if (fsdpa_param_list(&l) != FSDPA_OK) return;
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_param p;
    memset(&p, 0, sizeof p);
    p.size = sizeof p;
    if (fsdpa_list_get(l, i, &p) == FSDPA_OK) fprintf(f, "%s%s=", i ? " " : "", p.name);
  }
  fsdpa_list_free(l);
}

static void command_words(FILE *f) {
  int first = 1;
  for (size_t i = 0; i < cli_ncmds; i++)
    if (!cli_cmds[i].hidden) fprintf(f, "%s%s", first ? "" : " ", cli_cmds[i].name), first = 0;
}

/* "-f|--format" */
static void bash_pattern(FILE *f, const cli_opt *o) {
  if (o->short_name) fprintf(f, "-%c|", o->short_name);
  fprintf(f, "--%s", o->long_name);
}

static void bash_operands(FILE *f, const cli_cmd *c) {
  switch (c->operand) {
    case OPERAND_TRACES: fputs("_fsdpa_files .json .json.gz", f); break;
    case OPERAND_SUMMARIES: fputs("_fsdpa_files", f); break;
    case OPERAND_RUNS: fputs("_fsdpa_files .json .json.gz .fsum", f); break;
    case OPERAND_COMMAND: fputs("_fsdpa_words \"", f), command_words(f), fputc('"', f); break;
    case OPERAND_NONE:
    case OPERAND_GENERATE: fputs(":", f); break;
  }
}

static void gen_bash(FILE *f) {
  fputs("# bash completion for fsdpa                                   -*- shell-script -*-\n"
        "# Made by `fsdpa __generate bash` from the tables the options are parsed with\n"
        "# (tools/fsdpa/cli_table.c); the build installs it.\n"
        "\n"
        "_fsdpa_params=\"",
        f);
  param_words(f);
  fputs("\"\n"
        "\n"
        "# the words of $1 that start with $cur, each after $pre\n"
        "_fsdpa_words() {\n"
        "  local w\n"
        "  for w in $(compgen -W \"$1\" -- \"$cur\"); do COMPREPLY+=(\"$pre$w\"); done\n"
        "}\n"
        "\n"
        "# directories, and the files whose names end in one of the arguments (all files without one)\n"
        "_fsdpa_files() {\n"
        "  local IFS=$'\\n' w s\n"
        "  compopt -o filenames 2>/dev/null\n"
        "  if (($# == 0)); then\n"
        "    for w in $(compgen -f -- \"$cur\"); do COMPREPLY+=(\"$pre$w\"); done\n"
        "    return\n"
        "  fi\n"
        "  for w in $(compgen -d -- \"$cur\"); do COMPREPLY+=(\"$pre$w\"); done\n"
        "  for s; do\n"
        "    for w in $(compgen -f -X \"!*$s\" -- \"$cur\"); do [[ -d $w ]] || COMPREPLY+=(\"$pre$w\"); done\n"
        "  done\n"
        "}\n"
        "\n"
        "_fsdpa_dirs() {\n"
        "  local IFS=$'\\n' w\n"
        "  compopt -o filenames 2>/dev/null\n"
        "  for w in $(compgen -d -- \"$cur\"); do COMPREPLY+=(\"$pre$w\"); done\n"
        "}\n"
        "\n"
        "_fsdpa() {\n"
        "  local cur=${COMP_WORDS[COMP_CWORD]} prev= opt= pre= cmd= i\n"
        "  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
        "  COMPREPLY=()\n"
        "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
        "    case ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac\n"
        "  done\n"
        "  # the option whose value is completed: \"-f V\", \"--format V\", or \"--format=V\"\n"
        "  # (which bash splits into --format, = and V)\n"
        "  if [[ $cur == = ]]; then\n"
        "    opt=$prev cur=\n"
        "    [[ ${COMP_WORDS[COMP_CWORD-2]} == --set ]] && return  # --set KEY=VALUE: no values to offer\n"
        "  elif [[ $prev == = ]]; then\n"
        "    opt=${COMP_WORDS[COMP_CWORD-2]}\n"
        "    [[ ${COMP_WORDS[COMP_CWORD-3]} == --set ]] && return\n"
        "  elif [[ $cur == --*=* ]]; then\n"
        "    opt=${cur%%=*} pre=${cur%%=*}= cur=${cur#*=}\n"
        "  else\n"
        "    opt=$prev\n"
        "  fi\n"
        "  case $cmd in\n"
        "  \"\")\n"
        "    if [[ $cur == -* ]]; then _fsdpa_words \"-h --help --version\"\n"
        "    else _fsdpa_words \"",
        f);
  command_words(f);
  fputs("\"; fi\n"
        "    ;;\n",
        f);
  for (size_t i = 0; i < cli_ncmds; i++) {
    const cli_cmd *c = &cli_cmds[i];
    if (c->hidden) continue;
    fprintf(f, "  %s)\n", c->name);
    int values = 0, quiet = 0;
    for (size_t k = 0; k < cli_nopts; k++) values |= cli_opt_of(&cli_opts[k], c) && cli_opts[k].arg != ARG_NONE;
    if (values) fputs("    case $opt in\n", f);
    for (size_t k = 0; k < cli_nopts; k++) {
      const cli_opt *o = &cli_opts[k];
      if (!cli_opt_of(o, c) || o->arg == ARG_NONE) continue;
      switch (o->arg) {
        case ARG_CHOICE:
          fputs("    ", f), bash_pattern(f, o), fprintf(f, ") _fsdpa_words \"%s\"; return ;;\n", o->choices);
          break;
        case ARG_FILE: fputs("    ", f), bash_pattern(f, o), fputs(") _fsdpa_files; return ;;\n", f); break;
        case ARG_DIR: fputs("    ", f), bash_pattern(f, o), fputs(") _fsdpa_dirs; return ;;\n", f); break;
        case ARG_PARAM:
          fputs("    ", f), bash_pattern(f, o);
          fputs(") compopt -o nospace 2>/dev/null; _fsdpa_words \"$_fsdpa_params\"; return ;;\n", f);
          break;
        default: quiet = 1; break;
      }
    }
    if (quiet) {  /* numbers and sizes: nothing to offer */
      fputs("    ", f);
      int first = 1;
      for (size_t k = 0; k < cli_nopts; k++) {
        const cli_opt *o = &cli_opts[k];
        if (!cli_opt_of(o, c) || (o->arg != ARG_COUNT && o->arg != ARG_INDEX && o->arg != ARG_SIZE && o->arg != ARG_PERCENT))
          continue;
        if (!first) fputc('|', f);
        bash_pattern(f, o);
        first = 0;
      }
      fputs(") return ;;\n", f);
    }
    if (values) fputs("    esac\n", f);
    fputs("    if [[ $cur == -* ]]; then _fsdpa_words \"", f);
    int first = 1;
    for (size_t k = 0; k < cli_nopts; k++) {
      const cli_opt *o = &cli_opts[k];
      if (!cli_opt_of(o, c)) continue;
      if (o->short_name) fprintf(f, "%s-%c", first ? "" : " ", o->short_name), first = 0;
      fprintf(f, "%s--%s", first ? "" : " ", o->long_name);
      first = 0;
    }
    fputs("\"\n    else ", f);
    bash_operands(f, c);
    fputs("; fi\n    ;;\n", f);
  }
  fputs("  esac\n"
        "}\n"
        "complete -F _fsdpa fsdpa\n",
        f);
}

/* text inside '...[here]...' of an _arguments spec or a _describe entry */
static void zsh_quoted(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '\'') fputs("'\\''", f);
    else if (*s == '[' || *s == ']' || *s == ':' || *s == '\\') fprintf(f, "\\%c", *s);
    else fputc(*s, f);
  }
}

/* '(-f --format)'{-f+,--format=}'[help]:FMT:(text json html)', or for an
 * option without a short name '(--fail-on)--fail-on=[help]:SEV:(...)' */
static void zsh_option(FILE *f, const cli_opt *o) {
  const char *value = o->arg == ARG_NONE ? "" : "=";
  fputs("      '", f);
  if (o->id == OPT_HELP) fputs("(- *)", f);
  else if (o->arg == ARG_PARAM) fputs("*", f);  /* may be given several times */
  else if (o->short_name) fprintf(f, "(-%c --%s)", o->short_name, o->long_name);
  else fprintf(f, "(--%s)", o->long_name);
  if (o->short_name) fprintf(f, "'{-%c%s,--%s%s}'", o->short_name, *value ? "+" : "", o->long_name, value);
  else fprintf(f, "--%s%s", o->long_name, value);
  fputc('[', f);
  zsh_quoted(f, o->help);
  fputc(']', f);
  if (o->arg != ARG_NONE) {
    fputc(':', f);
    zsh_quoted(f, o->metavar);
    fputc(':', f);
    switch (o->arg) {
      case ARG_CHOICE: fprintf(f, "(%s)", o->choices); break;
      case ARG_FILE: fputs("_files", f); break;
      case ARG_DIR: fputs("_files -/", f); break;
      case ARG_PARAM: fputs("_fsdpa_params", f); break;
      default: fputs(" ", f); break;  /* a number: nothing to offer */
    }
  }
  fputs("' \\\n", f);
}

static void gen_zsh(FILE *f) {
  fputs("#compdef fsdpa\n"
        "# zsh completion for fsdpa, made by `fsdpa __generate zsh` from the tables the\n"
        "# options are parsed with (tools/fsdpa/cli_table.c); the build installs it.\n"
        "\n"
        "_fsdpa_traces() {\n"
        "  _files -g '*.(json|json.gz)(-.)'\n"
        "}\n"
        "\n"
        "_fsdpa_runs() {\n"
        "  _files -g '*.(json|json.gz|fsum)(-.)'\n"
        "}\n"
        "\n"
        "_fsdpa_params() {\n"
        "  if compset -P '*='; then\n"
        "    _message -e values 'VALUE (see fsdpa params)'\n"
        "  else\n"
        "    local -a params\n"
        "    params=(",
        f);
  fsdpa_list *l = NULL;
  if (fsdpa_param_list(&l) == FSDPA_OK) {
    for (size_t i = 0; i < fsdpa_list_count(l); i++) {
      fsdpa_param p;
      memset(&p, 0, sizeof p);
      p.size = sizeof p;
      if (fsdpa_list_get(l, i, &p) == FSDPA_OK) fprintf(f, "%s%s", i ? " " : "", p.name);
    }
    fsdpa_list_free(l);
  }
  fputs(")\n"
        "    compadd -S = -q -a params\n"
        "  fi\n"
        "}\n"
        "\n"
        "_fsdpa() {\n"
        "  local curcontext=$curcontext state state_descr line ret=1\n"
        "  typeset -A opt_args\n"
        "  _arguments -C \\\n"
        "    '(- :)'{-h,--help}'[list the commands]' \\\n"
        "    '(- :)--version[print the version]' \\\n"
        "    '1:command:->command' \\\n"
        "    '*:: :->argument' && ret=0\n"
        "  case $state in\n"
        "  command)\n"
        "    local -a commands\n"
        "    commands=(\n",
        f);
  for (size_t i = 0; i < cli_ncmds; i++) {
    if (cli_cmds[i].hidden) continue;
    fputs("      '", f);
    zsh_quoted(f, cli_cmds[i].name);
    fputc(':', f);
    zsh_quoted(f, cli_cmds[i].summary);
    fputs("'\n", f);
  }
  fputs("    )\n"
        "    _describe -t commands 'fsdpa command' commands && ret=0\n"
        "    ;;\n"
        "  argument)\n"
        "    curcontext=${curcontext%:*:*}:fsdpa-$words[1]:\n"
        "    case $words[1] in\n",
        f);
  for (size_t i = 0; i < cli_ncmds; i++) {
    const cli_cmd *c = &cli_cmds[i];
    if (c->hidden) continue;
    fprintf(f, "    %s)\n      _arguments -s -S \\\n", c->name);
    for (size_t k = 0; k < cli_nopts; k++)
      if (cli_opt_of(&cli_opts[k], c)) zsh_option(f, &cli_opts[k]);
    switch (c->operand) {
      case OPERAND_TRACES:
        fprintf(f, "      '%s:%s:_fsdpa_traces' \\\n", c->max_operands == 1 ? "1" : "*", c->operand_name);
        break;
      case OPERAND_SUMMARIES: fprintf(f, "      '*:%s:_files' \\\n", c->operand_name); break;
      case OPERAND_RUNS: fputs("      '1:BASE:_fsdpa_runs' '2:NEW:_fsdpa_runs' \\\n", f); break;
      case OPERAND_COMMAND:
        fprintf(f, "      '1:%s:(", c->operand_name), command_words(f), fputs(")' \\\n", f);
        break;
      case OPERAND_NONE:
      case OPERAND_GENERATE: break;
    }
    fputs("        && ret=0\n      ;;\n", f);
  }
  fputs("    esac\n"
        "    ;;\n"
        "  esac\n"
        "  return ret\n"
        "}\n"
        "\n"
        "_fsdpa \"$@\"\n",
        f);
}

int cli_generate(FILE *f, const char *what) {
  if (check_tables()) return -2;
  if (!strcmp(what, "man")) gen_man(f);
  else if (!strcmp(what, "bash")) gen_bash(f);
  else if (!strcmp(what, "zsh")) gen_zsh(f);
  else return -1;
  return 0;
}
