/* Arguments of a command: getopt_long() over the rows of the option table
 * that belong to the command, then every value checked, so that a typo
 * fails at once (exit 2, the message naming the option and the value)
 * instead of after minutes of reading. */
#include "cli_opts.h"
#include "cli_doc.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char cli_prog[] = "fsdpa";

/* getopt_long()'s val of a row: its short name, else a code no character has */
static int val_of(size_t row) { return cli_opts[row].short_name ? cli_opts[row].short_name : 256 + (int)row; }

static const cli_opt *row_of_val(const cli_cmd *c, int val) {
  for (size_t i = 0; i < cli_nopts; i++)
    if (cli_opt_of(&cli_opts[i], c) && val_of(i) == val) return &cli_opts[i];
  return NULL;
}

static void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", cli_prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* ---- values ---- */

/* A decimal integer, all of `s`, in [lo, hi]: no blanks, no '+', no junk. */
static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  const char *p = s[0] == '-' ? s + 1 : s;
  if (!isdigit((unsigned char)*p)) return -1;
  errno = 0;
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return -1;
  *out = (int64_t)v;
  return 0;
}

/* Bytes: digits, an optional fraction, an optional unit K M G T (powers of
 * 1024; "GiB" and "GB" say the same) or B; a bare number is MiB, as
 * --max-memory has always read it.  Exact: 1.5G is 1610612736, and a
 * fraction of a byte is dropped. */
static int parse_size(const char *s, uint64_t *bytes) {
  const char *p = s;
  uint64_t whole = 0;
  if (!isdigit((unsigned char)*p)) return -1;
  for (; isdigit((unsigned char)*p); p++) {
    if (whole > (UINT64_MAX - 9) / 10) return -1;
    whole = whole * 10 + (uint64_t)(*p - '0');
  }
  const char *frac = NULL;
  size_t nfrac = 0;
  if (*p == '.') {
    frac = ++p;
    for (; isdigit((unsigned char)*p); p++) nfrac++;
    if (!nfrac) return -1;
  }
  int shift = 20;
  if (*p) {
    int u = toupper((unsigned char)*p++);
    if (u == 'B') shift = 0;
    else if (u == 'K' || u == 'M' || u == 'G' || u == 'T') {
      shift = u == 'K' ? 10 : u == 'M' ? 20 : u == 'G' ? 30 : 40;
      if (!strcasecmp(p, "iB") || !strcasecmp(p, "B")) p += strlen(p);
    } else return -1;
  }
  if (*p) return -1;
  if (whole > (UINT64_MAX >> shift)) return -1;
  /* floor(0.d1..dk * 2^shift), by Horner from the last digit: the floor of
   * each step's division loses nothing the next step needs */
  uint64_t unit = (uint64_t)1 << shift, part = 0;
  for (size_t i = nfrac; i-- > 0;) part = ((uint64_t)(frac[i] - '0') * unit + part) / 10;
  uint64_t v = whole << shift;
  if (v > UINT64_MAX - part) return -1;
  *bytes = v + part;
  return 0;
}

/* A percentage of an option such as --min-change as ppm: "5" -> 50000,
 * "2.5" -> 25000; ppm are whole, so at most four decimals (more only as
 * zeros).  --set's percentages are parsed by the library, which checks them
 * against the parameter; these options are no parameter of the library.
 * 0 on success. */
static int parse_percent(const char *s, int64_t *ppm) {
  const char *p = s;
  if (!isdigit((unsigned char)*p)) return -1;
  int64_t whole = 0, frac = 0;
  for (; isdigit((unsigned char)*p); p++) {
    if (whole > (INT64_MAX / 10000 - 9) / 10) return -1;
    whole = whole * 10 + (*p - '0');
  }
  if (*p == '.') {
    p++;
    if (!isdigit((unsigned char)*p)) return -1;
    int d = 0;
    for (; isdigit((unsigned char)*p); p++, d++) {
      if (d < 4) frac = frac * 10 + (*p - '0');
      else if (*p != '0') return -1;
    }
    for (; d < 4; d++) frac *= 10;
  }
  if (*p) return -1;
  *ppm = whole * 10000 + frac;
  return 0;
}

/* --set KEY=VALUE, checked by the library on a scratch context (the same
 * check, the same messages and the same syntax, percentages included, as
 * every caller of fsdpa_param_set() gets), so that a typo in a key or a value
 * fails before any trace is read. */
static int parse_set(const char *opt, const char *s, cli_set *out) {
  const char *eq = strchr(s, '=');
  if (!eq || eq == s) {
    fail("%s: '%s' is not KEY=VALUE (see 'fsdpa params')", opt, s);
    return -1;
  }
  size_t klen = (size_t)(eq - s);
  if (klen >= sizeof out->key) {
    fail("%s: unknown parameter '%.*s' (see 'fsdpa params')", opt, (int)klen, s);
    return -1;
  }
  memcpy(out->key, s, klen);
  out->key[klen] = 0;
  out->text = eq + 1;
  fsdpa_ctx *c = NULL;
  if (fsdpa_ctx_new(&c, NULL) != FSDPA_OK) {
    fail("out of memory");
    return -1;
  }
  int rc = 0;
  if (fsdpa_param_set(c, out->key, out->text) != FSDPA_OK) {
    fail("%s %s: %s (see 'fsdpa params')", opt, s, fsdpa_errmsg(c));
    rc = -1;
  }
  fsdpa_ctx_free(c);
  return rc;
}

/* index of `word` among the space-separated `choices`, or -1 */
static int choice_index(const char *choices, const char *word) {
  size_t n = strlen(word);
  int k = 0;
  for (const char *p = choices; *p; k++) {
    const char *e = strchr(p, ' ');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (n && len == n && !strncasecmp(p, word, n)) return k;
    p += len + (e != NULL);
  }
  return -1;
}

/* "text, json or html" */
static void choices_phrase(const char *choices, char *buf, size_t n) {
  size_t words = 1, k = 0, at = 0;
  for (const char *p = choices; *p; p++) words += *p == ' ';
  buf[0] = 0;
  for (const char *p = choices; *p && at + 8 < n; k++) {
    const char *e = strchr(p, ' ');
    int len = e ? (int)(e - p) : (int)strlen(p);
    at += (size_t)snprintf(buf + at, n - at, "%s%.*s", k == 0 ? "" : k + 1 == words ? " or " : ", ", len, p);
    p += len + (e != NULL);
  }
}

static int apply(const cli_opt *o, const char *name, const char *v, cli_args *a) {
  int64_t n = 0;
  switch (o->arg) {
    case ARG_NONE: break;
    case ARG_CHOICE:
      if (choice_index(o->choices, v) < 0) {
        char words[128];
        choices_phrase(o->choices, words, sizeof words);
        fail("%s: '%s' is not %s%s%s", name, v, words, o->hint ? "; " : "", o->hint ? o->hint : "");
        return EXIT_USAGE;
      }
      break;
    case ARG_FILE:
    case ARG_DIR:
      if (!*v) {
        fail("%s: needs a %s name, not ''", name, o->arg == ARG_DIR ? "directory" : "file");
        return EXIT_USAGE;
      }
      break;
    case ARG_COUNT:
      if (parse_int(v, 1, INT_MAX, &n)) {
        fail("%s: '%s' is not a positive integer (1, 2, ...)", name, v);
        return EXIT_USAGE;
      }
      break;
    case ARG_INDEX:
      if (parse_int(v, 0, INT64_MAX, &n)) {
        fail("%s: '%s' is not a non-negative integer (0, 1, 2, ...)", name, v);
        return EXIT_USAGE;
      }
      break;
    case ARG_SIZE:
      if (parse_size(v, &a->max_memory)) {
        fail("%s: '%s' is not a size: a number with an optional unit K, M, G or T "
             "(powers of 1024, e.g. 4G); a bare number is MiB", name, v);
        return EXIT_USAGE;
      }
      a->max_memory_text = v;
      break;
    case ARG_PARAM:
      if (parse_set(name, v, &a->sets[a->nsets])) return EXIT_USAGE;
      a->nsets++;
      break;
    case ARG_PERCENT: {
      char num[64];
      size_t len = strlen(v);
      if (len && v[len - 1] == '%') len--;
      if (!len || len >= sizeof num || (memcpy(num, v, len), num[len] = 0, parse_percent(num, &n)) || n < 0 ||
          n > 1000000000) {
        fail("%s: '%s' is not a percentage (0 .. 100000, at most four decimals, such as 5 or 2.5%%)", name, v);
        return EXIT_USAGE;
      }
      break;
    }
  }
  switch (o->id) {
    case OPT_HELP: break;
    case OPT_FORMAT:
      a->has_format = 1;
      a->format = !strcasecmp(v, "text") ? FSDPA_FORMAT_TEXT : !strcasecmp(v, "html") ? FSDPA_FORMAT_HTML : FSDPA_FORMAT_JSON;
      break;
    case OPT_OUTPUT: a->output = v; break;
    case OPT_DIR: a->dir = v; break;
    case OPT_SUMMARY: a->summary = 1; break;
    case OPT_RANK: a->rank = n; break;
    case OPT_GZIP: a->gzip = 1; break;
    case OPT_NO_GZIP: a->gzip = 0; break;
    case OPT_FAIL_ON: a->fail_on = choice_index(o->choices, v); break;
    case OPT_SET: break;
    case OPT_JOBS: a->jobs = (int)n; break;
    case OPT_LOW_MEMORY: a->low_memory = 1; break;
    case OPT_ALLOW_EMPTY: a->allow_empty = 1; break;
    case OPT_COLOR: a->color = 1; break;
    case OPT_NO_COLOR: a->color = 0; break;
    case OPT_NO_PROGRESS: a->progress = 0; break;
    case OPT_HTML_STEP: a->html_step = n; break;
    case OPT_MAX_MEMORY: break;
    case OPT_FAIL_ON_REGRESSION: a->fail_regression_ppm = n; break;
    case OPT_MIN_CHANGE: a->min_change_ppm = n; break;
  }
  return 0;
}

/* The long options of `c` that `word` ("--no") abbreviates, for the
 * message: getopt_long() says only '?' for an ambiguous one. */
static size_t prefixes(const cli_cmd *c, const char *word, char *buf, size_t n) {
  size_t len = strcspn(word, "="), count = 0, at = 0;
  buf[0] = 0;
  for (size_t i = 0; i < cli_nopts; i++) {
    const cli_opt *o = &cli_opts[i];
    if (!cli_opt_of(o, c) || strncmp(o->long_name, word, len)) continue;
    int dup = 0;  /* one name may have a row per meaning, but only one per command */
    for (size_t j = 0; j < i; j++) dup |= cli_opt_of(&cli_opts[j], c) && !strcmp(cli_opts[j].long_name, o->long_name);
    if (dup) continue;
    if (at + strlen(o->long_name) + 5 < n) at += (size_t)snprintf(buf + at, n - at, "%s--%s", count ? ", " : "", o->long_name);
    count++;
  }
  return count;
}

int cli_parse(const cli_cmd *c, int argc, char **argv, cli_args *a) {
  memset(a, 0, sizeof *a);
  a->cmd = c;
  a->rank = FSDPA_ABSENT;
  a->gzip = -1;
  a->fail_on = -1;
  a->jobs = 1;
  a->color = -1;
  a->progress = 1;
  a->html_step = FSDPA_ABSENT;
  a->fail_regression_ppm = -1;
  a->min_change_ppm = -1;
  a->sets = calloc((size_t)argc + 1, sizeof *a->sets);
  struct option *longs = calloc(cli_nopts + 1, sizeof *longs);
  char shorts[2 * 64 + 2] = ":";  /* ':' first: a missing value is reported as ':' */
  int rc = 0;
  if (!a->sets || !longs) {
    fail("out of memory");
    rc = EXIT_IO;
    goto out;
  }
  size_t nl = 0, ns = 1;
  for (size_t i = 0; i < cli_nopts; i++) {
    const cli_opt *o = &cli_opts[i];
    if (!cli_opt_of(o, c)) continue;
    longs[nl].name = o->long_name;
    longs[nl].has_arg = o->arg == ARG_NONE ? no_argument : required_argument;
    longs[nl].val = val_of(i);
    nl++;
    if (o->short_name && ns + 2 < sizeof shorts) {
      shorts[ns++] = o->short_name;
      if (o->arg != ARG_NONE) shorts[ns++] = ':';
    }
  }
  shorts[ns] = 0;
  optind = 1;
  opterr = 0;
  for (;;) {
    int li = -1;
    int ch = getopt_long(argc, argv, shorts, longs, &li);
    if (ch == -1) break;
    const char *arg = argv[optind - 1];
    if (ch == '?' || ch == ':') {
      const cli_opt *o = optopt ? row_of_val(c, optopt) : NULL;
      int as_long = !strncmp(arg, "--", 2);
      char name[80] = "";
      if (o && as_long) snprintf(name, sizeof name, "--%s", o->long_name);
      else if (o) snprintf(name, sizeof name, "-%c", o->short_name);
      if (ch == ':' && o) {
        fail("option '%s' needs a value (%s) (see 'fsdpa help %s')", name, o->metavar, c->name);
      } else if (o) {
        fail("option '%s' takes no value (see 'fsdpa help %s')", name, c->name);
      } else if (optopt) {
        fail("unknown option '-%c' (see 'fsdpa help %s')", optopt, c->name);
      } else {
        char cands[256];
        size_t k = as_long ? prefixes(c, arg + 2, cands, sizeof cands) : 0;
        int len = (int)strcspn(arg, "=");
        if (k > 1) fail("ambiguous option '%.*s': %s", len, arg, cands);
        else fail("unknown option '%.*s' (see 'fsdpa help %s')", len, arg, c->name);
      }
      rc = EXIT_USAGE;
      goto out;
    }
    const cli_opt *o = row_of_val(c, ch);
    if (!o) continue; /* cannot happen: getopt returns only what it was given */
    if (o->id == OPT_HELP) {
      cli_help_cmd(stdout, c);
      rc = -1;
      goto out;
    }
    char name[80];
    if (li >= 0) snprintf(name, sizeof name, "--%s", o->long_name);
    else snprintf(name, sizeof name, "-%c", o->short_name);
    if ((rc = apply(o, name, optarg ? optarg : "", a))) goto out;
  }
  a->operands = argv + optind;
  a->noperands = (size_t)(argc - optind);
  if (a->noperands < (size_t)c->min_operands) {
    if (c->min_operands > 1)
      fail("%s needs %d operands, %s (see 'fsdpa help %s')", c->name, c->min_operands, c->operand_name, c->name);
    else
      fail("%s needs %s %s (see 'fsdpa help %s')", c->name, c->max_operands == 1 ? "a" : "at least one",
           c->operand_name, c->name);
    rc = EXIT_USAGE;
  } else if (c->max_operands >= 0 && a->noperands > (size_t)c->max_operands) {
    if (c->max_operands == 0)
      fail("%s takes no operands, got '%s' (see 'fsdpa help %s')", c->name, a->operands[0], c->name);
    else if (c->max_operands == 1)
      fail("%s takes one %s, got %zu (see 'fsdpa help %s')", c->name, c->operand_name, a->noperands, c->name);
    else
      fail("%s takes %d operands, %s; got %zu (see 'fsdpa help %s')", c->name, c->max_operands, c->operand_name,
           a->noperands, c->name);
    rc = EXIT_USAGE;
  }
out:
  free(longs);
  return rc;
}

void cli_args_free(cli_args *a) {
  free(a->sets);
  a->sets = NULL;
}

int cli_format_of_name(const char *path, fsdpa_format *fmt) {
  const char *dot = strrchr(path, '.');
  if (!dot || strchr(dot, '/')) return 0;
  if (!strcasecmp(dot, ".html")) *fmt = FSDPA_FORMAT_HTML;
  else if (!strcasecmp(dot, ".json")) *fmt = FSDPA_FORMAT_JSON;
  else if (!strcasecmp(dot, ".txt")) *fmt = FSDPA_FORMAT_TEXT;
  else return 0;
  return 1;
}

int cli_output_format(const cli_args *a, int to_tty, fsdpa_format *fmt) {
  if (a->has_format) {
    *fmt = a->format;
    return 0;
  }
  if (!a->output || !strcmp(a->output, "-")) {
    *fmt = to_tty ? FSDPA_FORMAT_TEXT : FSDPA_FORMAT_JSON;
    return 0;
  }
  if (cli_format_of_name(a->output, fmt)) return 0;
  fail("-o %s: the name does not say the format: end it in .json, .html or .txt, or give -f json|text|html",
       a->output);
  return EXIT_USAGE;
}
