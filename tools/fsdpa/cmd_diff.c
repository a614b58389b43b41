/* fsdpa diff BASE NEW: each side a trace, a directory of traces or
 * summaries, a summary or a JSON report, made into what fsdpa_diff() takes
 * (a report, or a summary) and compared. */
#define FSDPA_EXPERIMENTAL /* fsdpa_diff() */
#include "cli_inputs.h"
#include "cli_io.h"
#include "cli_opts.h"
#include "cmd.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the file starts like one of ours (a summary or a JSON report):
 * its "schema" is among the first bytes.  A gzip file is a trace. */
static int is_ours(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char buf[512];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  if (n >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) return 0;
  return strstr(buf, "\"fsdpa.summary/") != NULL || strstr(buf, "\"fsdpa.report/") != NULL;
}

static int dir_has_summaries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  int found = 0;
  while (!found && (e = readdir(d))) {
    size_t n = strlen(e->d_name);
    found = e->d_name[0] != '.' && n > 5 && !strcmp(e->d_name + n - 5, ".fsum");
  }
  closedir(d);
  return found;
}

/* The summaries a directory holds, merged. */
static int merged_summaries(const char *dir, char **out, size_t *len) {
  cli_inputs in;
  char *op = (char *)dir;
  int rc = cli_inputs_expand(&op, 1, OPERAND_SUMMARIES, &in);
  char **bufs = rc ? NULL : calloc(in.n, sizeof *bufs);
  size_t *lens = rc ? NULL : calloc(in.n, sizeof *lens);
  if (!rc && (!bufs || !lens)) {
    fprintf(stderr, "%s: out of memory\n", cli_prog);
    rc = EXIT_IO;
  }
  for (size_t i = 0; !rc && i < in.n; i++)
    if (!(bufs[i] = cli_slurp(in.paths[i], &lens[i]))) {
      fprintf(stderr, "%s: %s: cannot read: %s\n", cli_prog, in.paths[i], strerror(errno));
      rc = EXIT_IO;
    }
  if (!rc) {
    fsdpa_error e;
    fsdpa_error_init(&e);
    fsdpa_status st = fsdpa_summary_merge((const char *const *)bufs, lens, in.n, NULL, out, len, &e);
    if (st) {
      fprintf(stderr, "%s: %s\n", cli_prog, e.message[0] ? e.message : cli_status_text(st));
      rc = EXIT_IO;
    }
  }
  for (size_t i = 0; bufs && i < in.n; i++) free(bufs[i]);
  free(bufs);
  free(lens);
  cli_inputs_free(&in);
  return rc;
}

/* One side as text fsdpa_diff() takes; *lib: allocated by the library
 * (fsdpa_free), else by malloc. */
static int load_side(const cli_args *a, const char *operand, char **text, size_t *len, int *lib) {
  struct stat st;
  int is_dir = strcmp(operand, "-") && stat(operand, &st) == 0 && S_ISDIR(st.st_mode);
  *text = NULL;
  *lib = 1;
  if (is_dir && dir_has_summaries(operand)) return merged_summaries(operand, text, len);
  if (!is_dir && strcmp(operand, "-") && is_ours(operand)) {
    *lib = 0;
    if (!(*text = cli_slurp(operand, len))) {
      fprintf(stderr, "%s: %s: cannot read: %s\n", cli_prog, operand, strerror(errno));
      return EXIT_IO;
    }
    return 0;
  }
  cli_inputs in;
  char *op = (char *)operand;
  int rc = cli_inputs_expand(&op, 1, OPERAND_TRACES, &in);
  if (!rc) {
    fsdpa_report_options ro;
    fsdpa_report_options_init(&ro);
    ro.format = FSDPA_FORMAT_JSON;
    rc = cli_analyze_inputs(a, &in, &ro, text, len, NULL);
  }
  cli_inputs_free(&in);
  return rc;
}

static void free_side(char *text, int lib) {
  if (lib) fsdpa_free(text);
  else free(text);
}

static void gate_to_stderr(char *const text[2], const size_t len[2], const fsdpa_diff_options *o) {
  fsdpa_diff_options t = *o;
  t.format = FSDPA_FORMAT_TEXT;
  t.color = 0;
  char *out = NULL;
  if (fsdpa_diff(text[0], len[0], text[1], len[1], &t, &out, NULL, NULL, NULL) == FSDPA_OK) {
    const char *g = strstr(out, "Regression gate");
    if (g) fprintf(stderr, "%s: %.*s\n", cli_prog, (int)strcspn(g, "\n"), g);
  }
  fsdpa_free(out);
}

int cmd_diff(const cli_args *a) {
  if (!strcmp(a->operands[0], "-") && !strcmp(a->operands[1], "-")) {
    fprintf(stderr, "%s: diff: only one of BASE and NEW can be '-' (standard input)\n", cli_prog);
    return EXIT_USAGE;
  }
  int to_stdout = cli_is_stdout(a->output);
  int to_tty = to_stdout && isatty(STDOUT_FILENO);
  fsdpa_diff_options o;
  fsdpa_diff_options_init(&o);
  /* an output that cannot be written says so (exit 3) before its name's
   * format is questioned */
  int rc = cli_check_output(a->output);
  if (rc || (rc = cli_output_format(a, to_tty, &o.format))) return rc;
  const char *nc = getenv("NO_COLOR");
  o.color = a->color >= 0 ? a->color : (to_tty && !(nc && *nc));
  o.width = cli_term_width(to_stdout);
  o.fail_on_regression_ppm = a->fail_regression_ppm;
  if (a->min_change_ppm >= 0) o.min_change_ppm = a->min_change_ppm;
  o.max_memory_bytes = a->max_memory;
  char *text[2] = {NULL, NULL};
  size_t len[2] = {0, 0};
  int lib[2] = {1, 1};
  for (int i = 0; i < 2 && !rc; i++) rc = load_side(a, a->operands[i], &text[i], &len[i], &lib[i]);
  if (!rc) {
    char *out = NULL;
    size_t olen = 0;
    int regressed = 0;
    fsdpa_error e;
    fsdpa_error_init(&e);
    fsdpa_status st = fsdpa_diff(text[0], len[0], text[1], len[1], &o, &out, &olen, &regressed, &e);
    if (st) {
      const char *which = e.input == 0 || e.input == 1 ? a->operands[e.input] : NULL;
      if (which && e.offset != FSDPA_ABSENT)
        fprintf(stderr, "%s: %s: byte %lld: %s\n", cli_prog, which, (long long)e.offset, e.message);
      else if (which) fprintf(stderr, "%s: %s: %s\n", cli_prog, which, e.message);
      else fprintf(stderr, "%s: diff: %s\n", cli_prog, e.message[0] ? e.message : cli_status_text(st));
      rc = EXIT_IO;
    } else {
      rc = cli_write_output(a->output, out, olen);
      if (!rc && regressed) {
        /* which metric crossed, on stderr whatever the format: the text's gate line */
        if (o.format != FSDPA_FORMAT_TEXT || !to_stdout) gate_to_stderr(text, len, &o);
        rc = EXIT_FINDINGS;
      }
    }
    fsdpa_free(out);
  }
  for (int i = 0; i < 2; i++) free_side(text[i], lib[i]);
  return rc;
}
