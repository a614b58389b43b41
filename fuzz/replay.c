/* Standalone replay driver (as libgit2's and zstd's): main() runs
 * LLVMFuzzerTestOneInput on every file under the directories (or files)
 * given, so any compiler's build replays the committed corpus and the crash
 * regressions as an ordinary test.  A missing directory is reported and
 * skipped (tests/data/regress/<target> exists only once a crash was kept);
 * replaying no file at all is a failure.  On a crash the file's name is
 * written to stderr first. */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char current[4096];

static void on_crash(int sig) {
  static const char pre[] = "\nreplay: crashed on ";
  ssize_t r = write(2, pre, sizeof pre - 1);
  r = write(2, current, strlen(current));
  r = write(2, "\n", 1);
  (void)r;
  signal(sig, SIG_DFL);
  raise(sig);
}

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  size_t cap = 1 << 16, n = 0, r;
  uint8_t *buf = malloc(cap);
  while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) {
      uint8_t *nb = realloc(buf, cap *= 2);
      if (!nb) { free(buf); buf = NULL; }
      else buf = nb;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "replay: out of memory reading %s\n", path);
    return -1;
  }
  snprintf(current, sizeof current, "%s", path);
  /* an exact-size copy, so ASan sees reads past the end of the input */
  uint8_t *exact = malloc(n ? n : 1);
  if (!exact) { free(buf); return -1; }
  memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 1;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of a directory tree in name order (so runs are reproducible). */
static long run_path(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    printf("# replay: %s does not exist (nothing to replay there)\n", path);
    return 0;
  }
  if (!S_ISDIR(st.st_mode)) return run_file(path);
  DIR *d = opendir(path);
  if (!d) return -1;
  char **names = NULL;
  size_t nn = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md")) continue;
    if (nn == cap) {
      char **nb = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
      if (!nb) break;
      names = nb;
    }
    names[nn++] = strdup(e->d_name);
  }
  closedir(d);
  if (nn) qsort(names, nn, sizeof *names, cmp_str);
  long total = 0;
  for (size_t i = 0; i < nn; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", path, names[i]);
    long k = names[i] ? run_path(p) : -1;
    if (k < 0) total = -1;
    else if (total >= 0) total += k;
    free(names[i]);
  }
  free(names);
  return total;
}

int main(int argc, char **argv) {
  signal(SIGABRT, on_crash);
  signal(SIGSEGV, on_crash);
  signal(SIGBUS, on_crash);
  signal(SIGFPE, on_crash);
  long total = 0;
  for (int i = 1; i < argc; i++) {
    long k = run_path(argv[i]);
    if (k < 0) return 1;
    printf("# replay: %ld inputs from %s\n", k, argv[i]);
    total += k;
  }
  if (total == 0) {
    fprintf(stderr, "replay: no input replayed\n");
    return 1;
  }
  printf("replay: %ld inputs, no crash\n", total);
  return 0;
}
