/* The tables of a report as CSV (RFC 4180), from the JSON report alone
 * (render.h): the per-rank table, the findings, the findings grouped by
 * id, the GPU streams, the idle by cause and the rules that could not
 * judge.  The Python binding's to_pandas() reads these, so the CLI's CSV
 * and a DataFrame are one table. */
#include "report/render.h"
#include <stdio.h>
#include <string.h>

typedef struct csv {
  const jdoc *d;
  sbuf *b;
  int col;  /* cells written on the current line */
} csv;

static void cell_raw(csv *c, const char *s, size_t n) {
  if (c->col++) sb_puts(c->b, ",");
  int quote = 0;
  for (size_t i = 0; i < n && !quote; i++) quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
  if (!quote) {
    sb_putn(c->b, s, n);
    return;
  }
  sb_puts(c->b, "\"");
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (s[i] == '"') {
      sb_putn(c->b, s + k, i + 1 - k);
      sb_puts(c->b, "\"");
      k = i + 1;
    }
  sb_putn(c->b, s + k, n - k);
  sb_puts(c->b, "\"");
}

static void cell(csv *c, const char *s) { cell_raw(c, s ? s : "", s ? strlen(s) : 0); }

/* A JSON value as a cell: numbers as written, strings as they are, true /
 * false, empty for null or missing; a list of numbers space-separated. */
static void cell_node(csv *c, const jdc_node *x) {
  if (!x || x->type == JDC_NULL) {
    cell(c, "");
    return;
  }
  switch (x->type) {
    case JDC_NUM:
    case JDC_STR: cell_raw(c, x->s, x->len); return;
    case JDC_TRUE: cell(c, "true"); return;
    case JDC_FALSE: cell(c, "false"); return;
    default: break;
  }
  char buf[4096];
  size_t k = 0;
  buf[0] = 0;
  for (const jdc_node *e = jdc_first(c->d, x); e && k + 32 < sizeof buf; e = jdc_next(c->d, e))
    if (e->type == JDC_NUM) k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%.*s", k ? " " : "", (int)e->len, e->s);
  cell(c, buf);
}

static void end_line(csv *c) {
  sb_puts(c->b, "\r\n");
  c->col = 0;
}

static void header(csv *c, const char *const *names) {
  for (size_t i = 0; names[i]; i++) cell(c, names[i]);
}

static const jdc_node *get(const csv *c, const jdc_node *o, const char *path) { return jdc_path(c->d, o, path); }

/* The idle causes every rank's row names, in the first rank's order, then
 * any other. */
static size_t cause_columns(const csv *c, const jdc_node *per_rank, char (*names)[48], size_t cap) {
  size_t n = 0;
  for (const jdc_node *r = jdc_first(c->d, per_rank); r; r = jdc_next(c->d, r))
    for (const jdc_node *x = jdc_first(c->d, get(c, r, "idle_causes")); x; x = jdc_next(c->d, x)) {
      int seen = 0;
      for (size_t k = 0; k < n && !seen; k++) seen = !strcmp(names[k], x->key);
      if (!seen && n < cap && x->key_len < sizeof names[0]) snprintf(names[n++], sizeof names[0], "%s", x->key);
    }
  return n;
}

static void table_ranks(csv *c, const jdc_node *rep) {
  const jdc_node *pr = get(c, rep, "job.per_rank");
  char causes[32][48];
  size_t nc = cause_columns(c, pr, causes, 32);
  static const char *const head1[] = {"rank", "iterations", "iterations_from", "step_time_ns", "step_min_ns",
                                      "step_max_ns", "span_ns", "busy_ns", "busy_share", "idle_ns", NULL};
  static const char *const head2[] = {"exposed_comm_ns", "findings", "findings_cost_ns", "costs_overlap",
                                      "top_finding", "top_finding_severity", "top_finding_cost_ns", NULL};
  header(c, head1);
  for (size_t k = 0; k < nc; k++) cell(c, causes[k]);
  header(c, head2);
  end_line(c);
  for (const jdc_node *r = jdc_first(c->d, pr); r; r = jdc_next(c->d, r)) {
    for (size_t i = 0; head1[i]; i++) cell_node(c, get(c, r, head1[i]));
    for (size_t k = 0; k < nc; k++) cell_node(c, jdc_get(c->d, get(c, r, "idle_causes"), causes[k]));
    for (size_t i = 0; i < 4; i++) cell_node(c, get(c, r, head2[i]));
    const jdc_node *tf = get(c, r, "top_finding");
    cell_node(c, get(c, tf, "id"));
    cell_node(c, get(c, tf, "severity"));
    cell_node(c, get(c, tf, "cost_ns"));
    end_line(c);
  }
}

static void table_findings(csv *c, const jdc_node *rep) {
  static const char *const head[] = {"index", "id", "severity", "rank", "step", "cost_ns", "cost_bytes",
                                     "explained_by", "ranges", "ranges_total", "title", "detail", "advice", NULL};
  header(c, head);
  end_line(c);
  size_t i = 0;
  for (const jdc_node *f = jdc_first(c->d, get(c, rep, "findings")); f; f = jdc_next(c->d, f), i++) {
    char idx[32];
    snprintf(idx, sizeof idx, "%zu", i);
    cell(c, idx);
    static const char *const k1[] = {"id", "severity", "rank", "step", "cost_ns", "cost_bytes", "evidence.explained_by"};
    for (size_t k = 0; k < sizeof k1 / sizeof k1[0]; k++) cell_node(c, get(c, f, k1[k]));
    const jdc_node *rs = get(c, f, "evidence.ranges");
    char n[32];
    snprintf(n, sizeof n, "%zu", jdc_count(rs));
    cell(c, n);
    const jdc_node *tot = get(c, f, "evidence.ranges_total");
    if (tot) cell_node(c, tot);
    else cell(c, n);
    cell_node(c, get(c, f, "title"));
    cell_node(c, get(c, f, "detail"));
    cell_node(c, get(c, f, "advice"));
    end_line(c);
  }
}

static void table_job_findings(csv *c, const jdc_node *rep) {
  static const char *const head[] = {"id", "severity", "ranks", "ranks_affected", "ranks_in_job", "cost_min_ns",
                                     "cost_median_ns", "cost_max_ns", "cost_total_ns", "worst_rank", "explained_by",
                                     "findings", NULL};
  header(c, head);
  end_line(c);
  for (const jdc_node *g = jdc_first(c->d, get(c, rep, "job.findings")); g; g = jdc_next(c->d, g)) {
    static const char *const k[] = {"id", "severity", "ranks", "ranks_affected", "ranks_in_job", "cost_ns.min",
                                    "cost_ns.median", "cost_ns.max", "cost_ns.total", "worst_rank", "explained_by",
                                    "findings"};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) cell_node(c, get(c, g, k[i]));
    end_line(c);
  }
}

static void table_streams(csv *c, const jdc_node *rep) {
  static const char *const head[] = {"rank", "device", "stream", "role", "kernels", "busy_ns", "gaps",
                                     "gap_p50_ns", "gap_p90_ns", "gap_p99_ns", "gap_max_ns", NULL};
  header(c, head);
  end_line(c);
  for (const jdc_node *r = jdc_first(c->d, get(c, rep, "ranks")); r; r = jdc_next(c->d, r)) {
    const jdc_node *gaps = get(c, r, "launch_gaps.streams");
    for (const jdc_node *s = jdc_first(c->d, get(c, r, "streams")); s; s = jdc_next(c->d, s)) {
      int64_t dev = jdc_i64(get(c, s, "device"), -1), sid = jdc_i64(get(c, s, "stream"), -1);
      const jdc_node *g = NULL;
      for (const jdc_node *y = jdc_first(c->d, gaps); y && !g; y = jdc_next(c->d, y))
        if (jdc_i64(get(c, y, "device"), -2) == dev && jdc_i64(get(c, y, "stream"), -2) == sid) g = y;
      cell_node(c, get(c, r, "rank"));
      static const char *const k[] = {"device", "stream", "role", "kernels", "busy_ns"};
      for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) cell_node(c, get(c, s, k[i]));
      static const char *const kg[] = {"gaps", "p50_ns", "p90_ns", "p99_ns", "max_ns"};
      for (size_t i = 0; i < sizeof kg / sizeof kg[0]; i++) cell_node(c, g ? get(c, g, kg[i]) : NULL);
      end_line(c);
    }
  }
}

static void table_idle_causes(csv *c, const jdc_node *rep) {
  static const char *const head[] = {"rank", "cause", "idle_ns", "share", NULL};
  header(c, head);
  end_line(c);
  for (const jdc_node *r = jdc_first(c->d, get(c, rep, "job.per_rank")); r; r = jdc_next(c->d, r)) {
    int64_t idle = jdc_i64(get(c, r, "idle_ns"), 0);
    for (const jdc_node *x = jdc_first(c->d, get(c, r, "idle_causes")); x; x = jdc_next(c->d, x)) {
      char cause[64], share[32] = "";
      size_t kl = x->key_len > 3 ? x->key_len - 3 : x->key_len;  /* without "_ns" */
      snprintf(cause, sizeof cause, "%.*s", (int)kl, x->key);
      cell_node(c, get(c, r, "rank"));
      cell(c, cause);
      cell_node(c, x);
      if (idle > 0) snprintf(share, sizeof share, "%.6f", (double)jdc_i64(x, 0) / (double)idle);
      cell(c, share);
      end_line(c);
    }
  }
}

static void table_not_judged(csv *c, const jdc_node *rep) {
  static const char *const head[] = {"rule", "ranks", "reason", "would_judge", NULL};
  header(c, head);
  end_line(c);
  for (const jdc_node *x = jdc_first(c->d, get(c, rep, "not_judged")); x; x = jdc_next(c->d, x)) {
    for (size_t i = 0; head[i]; i++) cell_node(c, get(c, x, head[i]));
    end_line(c);
  }
}

static const struct {
  const char *name;
  void (*fn)(csv *, const jdc_node *);
} TABLES[] = {{"ranks", table_ranks},     {"findings", table_findings},       {"job_findings", table_job_findings},
              {"streams", table_streams}, {"idle_causes", table_idle_causes}, {"not_judged", table_not_judged}};

fsdpa_status render_table(const jdoc *d, const char *name, sbuf *out, char *msg, size_t msg_len) {
  fsdpa_status st = render_check(d, msg, msg_len);
  if (st) return st;
  if (!name) name = "ranks";
  for (size_t i = 0; i < sizeof TABLES / sizeof TABLES[0]; i++) {
    if (strcmp(TABLES[i].name, name)) continue;
    csv c = {d, out, 0};
    TABLES[i].fn(&c, jdc_root(d));
    return out->failed ? (fsdpa_status)out->failed : FSDPA_OK;
  }
  size_t k = (size_t)snprintf(msg, msg_len, "unknown table '%s': the tables are ", name);
  for (size_t i = 0; i < sizeof TABLES / sizeof TABLES[0] && k < msg_len; i++)
    k += (size_t)snprintf(msg + k, msg_len - k, "%s%s", i ? ", " : "", TABLES[i].name);
  return FSDPA_EINVAL;
}
