/* Directory operands (cli_inputs.h). */
#include "cli_inputs.h"
#include "cli_opts.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n > m && strcmp(s + n - m, suffix) == 0;
}

static int wanted(const char *name, cli_operand kind) {
  if (name[0] == '.') return 0;
  if (kind == OPERAND_SUMMARIES) return ends_with(name, ".fsum");
  return ends_with(name, ".json") || ends_with(name, ".json.gz");
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int push(cli_inputs *in, size_t *cap, char *path, int from_dir) {
  if (!path) return -1;
  if (in->n == *cap) {
    size_t nc = *cap ? *cap * 2 : 16;
    char **np = realloc(in->paths, nc * sizeof *np);
    if (np) in->paths = np;
    unsigned char *nd = np ? realloc(in->from_dir, nc) : NULL;
    if (!nd) {
      free(path);
      return -1;
    }
    in->from_dir = nd;
    *cap = nc;
  }
  in->from_dir[in->n] = (unsigned char)from_dir;
  in->paths[in->n++] = path;
  return 0;
}

/* DIR/NAME, with DIR's trailing slashes dropped so the names are the ones
 * `DIR/` followed by a glob gives */
static char *join(const char *dir, const char *name) {
  size_t dl = strlen(dir);
  while (dl > 1 && dir[dl - 1] == '/') dl--;
  int root = dl == 1 && dir[0] == '/';
  size_t len = dl + strlen(name) + 2;
  char *p = malloc(len);
  if (p) snprintf(p, len, "%.*s%s%s", (int)dl, dir, root ? "" : "/", name);
  return p;
}

static int expand_dir(const char *dir, cli_operand kind, cli_inputs *out, size_t *cap) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "%s: %s: cannot read the directory: %s\n", cli_prog, dir, strerror(errno));
    return EXIT_IO;
  }
  size_t first = out->n;
  struct dirent *e;
  int rc = 0;
  while (!rc && (e = readdir(d))) {
    if (!wanted(e->d_name, kind)) continue;
    char *p = join(dir, e->d_name);
    struct stat st;
    if (p && (stat(p, &st) || !S_ISREG(st.st_mode))) {  /* subdirectories named x.json are not traces */
      free(p);
      continue;
    }
    if (push(out, cap, p, 1)) rc = EXIT_IO;
  }
  closedir(d);
  if (rc) {
    fprintf(stderr, "%s: out of memory\n", cli_prog);
    return rc;
  }
  if (out->n == first) {
    fprintf(stderr, "%s: %s: no %s in this directory (%s; subdirectories are not searched)\n", cli_prog, dir,
            kind == OPERAND_SUMMARIES ? "summaries" : "traces",
            kind == OPERAND_SUMMARIES ? "*.fsum" : "*.json, *.json.gz");
    return EXIT_USAGE;
  }
  qsort(out->paths + first, out->n - first, sizeof *out->paths, by_name);
  return 0;
}

int cli_inputs_expand(char *const *operands, size_t n, cli_operand kind, cli_inputs *out) {
  size_t cap = 0;
  out->paths = NULL;
  out->from_dir = NULL;
  out->n = 0;
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (strcmp(operands[i], "-") && stat(operands[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      int rc = expand_dir(operands[i], kind, out, &cap);
      if (rc) return rc;
    } else if (push(out, &cap, strdup(operands[i]), 0)) {
      fprintf(stderr, "%s: out of memory\n", cli_prog);
      return EXIT_IO;
    }
  }
  return 0;
}

void cli_inputs_free(cli_inputs *in) {
  for (size_t i = 0; i < in->n; i++) free(in->paths[i]);
  free(in->paths);
  free(in->from_dir);
  in->paths = NULL;
  in->from_dir = NULL;
  in->n = 0;
}
