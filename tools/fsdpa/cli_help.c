/* The --help texts, made from the command and option tables. */
#include "cli_doc.h"
#include <string.h>

enum { HELP_WIDTH = 80, MAX_COLUMN = 30 };

/* Write `text` from column `at`, wrapped at word boundaries before
 * HELP_WIDTH, continuation lines indented to `indent`. */
static void wrap(FILE *f, const char *text, int at, int indent) {
  const char *p = text;
  int col = at, first = 1;
  while (*p) {
    while (*p == ' ') p++;
    size_t len = strcspn(p, " ");
    if (!len) break;
    if (!first && col + 1 + (int)len >= HELP_WIDTH) {
      fprintf(f, "\n%*s", indent, "");
      col = indent;
    } else if (!first) {
      fputc(' ', f);
      col++;
    }
    fwrite(p, 1, len, f);
    col += (int)len;
    p += len;
    first = 0;
  }
  fputc('\n', f);
}

/* "  -f, --format FMT" or "      --fail-on SEV" */
static int opt_column(const cli_opt *o, char *buf, size_t n) {
  return snprintf(buf, n, "  %c%c%s--%s%s%s", o->short_name ? '-' : ' ', o->short_name ? o->short_name : ' ',
                  o->short_name ? ", " : "  ", o->long_name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
}

void cli_help_main(FILE *f) {
  fprintf(f, "usage: fsdpa <command> [options]\n\n%s\ncommands:\n", cli_about);
  for (size_t i = 0; i < cli_ncmds; i++)
    if (!cli_cmds[i].hidden) fprintf(f, "  %-10s %s\n", cli_cmds[i].name, cli_cmds[i].summary);
  fprintf(f,
          "\n"
          "Run 'fsdpa help COMMAND' (or 'fsdpa COMMAND --help') for the options of a command;\n"
          "'fsdpa --version' prints the version.\n");
}

void cli_help_cmd(FILE *f, const cli_cmd *c) {
  for (int k = 0; k < 3 && c->synopsis[k]; k++)
    fprintf(f, "%s fsdpa %s%s%s\n", k ? "      " : "usage:", c->name, *c->synopsis[k] ? " " : "",
            c->synopsis[k]);
  if (c->help) fprintf(f, "\n%s", c->help);
  char buf[128];
  int column = 0;
  for (size_t i = 0; i < cli_nopts; i++) {
    if (!cli_opt_of(&cli_opts[i], c)) continue;
    int w = opt_column(&cli_opts[i], buf, sizeof buf) + 2;
    if (w > column) column = w > MAX_COLUMN ? MAX_COLUMN : w;
  }
  fprintf(f, "\noptions:\n");
  for (size_t i = 0; i < cli_nopts; i++) {
    const cli_opt *o = &cli_opts[i];
    if (!cli_opt_of(o, c)) continue;
    int w = opt_column(o, buf, sizeof buf);
    if (w + 2 > column) fprintf(f, "%s\n%*s", buf, column, "");
    else fprintf(f, "%-*s", column, buf);
    wrap(f, o->help, column, column);
  }
  int examples = 0;
  for (size_t i = 0; i < cli_nexamples; i++) {
    const cli_example *e = &cli_examples[i];
    if (!(e->cmds & CMD_BIT(c->id))) continue;
    fprintf(f, "%s  %s\n", examples++ ? "" : "\nexamples:\n", e->what);
    for (const char *l = e->lines; *l;) {
      size_t len = strcspn(l, "\n");
      fprintf(f, "    %.*s\n", (int)len, l);
      l += len + (l[len] == '\n');
    }
  }
  if (c->exit_help) fprintf(f, "\n%s", c->exit_help);
}
