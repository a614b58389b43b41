/* The diff as JSON (fsdpa.diff/1, docs/diff.schema.json), text and HTML.
 * Text and HTML show the same things: the gate, the job's metrics, the
 * ranks' metrics that changed, and the rows of the tables and the findings
 * that changed (text: the ten largest of each table). */
#include "diff/diff.h"
#include "report/html.h"
#include "util/fmt.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const UNIT[] = {"ns", "ratio", "count", "bytes"};
static const char *const SEV[] = {"info", "warning", "critical"};

static int is_f(int m) { return dm_defs[m].unit == DU_RATIO || dm_defs[m].unit == DU_COUNT; }

/* ---- JSON ---- */

static void jval(jsonw *w, int m, const dval *v, int spread) {
  if (!(spread ? v->have_spread : v->have)) jw_null(w);
  else if (is_f(m)) jw_f64(w, spread ? v->spread_f : v->v_f, 6);
  else jw_i64(w, spread ? v->spread_i : v->v_i);
}

static void metric_json(jsonw *w, int m, const dcmp *c, int crossed) {
  jw_obj(w);
  jw_kstr(w, "metric", dm_defs[m].name);
  jw_kstr(w, "unit", UNIT[dm_defs[m].unit]);
  jw_kstr(w, "better", dm_defs[m].lower_better ? "lower" : "higher");
  jw_key(w, "base");
  jval(w, m, &c->b, 0);
  jw_key(w, "new");
  jval(w, m, &c->n, 0);
  jw_key(w, "delta");
  if (!c->b.have || !c->n.have) jw_null(w);
  else if (is_f(m)) jw_f64(w, c->n.v_f - c->b.v_f, 6);
  else jw_i64(w, c->n.v_i - c->b.v_i);
  jw_key(w, "change_pct");
  if (c->b.have && c->n.have && c->have_change) jw_f64(w, c->change * 100, 3);
  else jw_null(w);
  jw_key(w, "spread");
  if (!c->have_spread) jw_null(w);
  else if (is_f(m)) jw_f64(w, c->spread_f, 6);
  else jw_i64(w, c->spread_i);
  jw_key(w, "beyond_spread");
  if (c->b.have && c->n.have) jw_bool(w, c->beyond);
  else jw_null(w);
  jw_kstr(w, "status", ds_name(c->status));
  jw_key(w, "crossed_gate");
  jw_bool(w, crossed);
  jw_obj_end(w);
}

static void run_json(jsonw *w, const drun *r) {
  jw_obj(w);
  jw_key(w, "inputs");
  jw_arr(w);
  for (const jdc_node *x = jdc_first(&r->doc, r->inputs); x; x = jdc_next(&r->doc, x)) {
    const jdc_node *p = jdc_get(&r->doc, x, "path");
    if (p && p->type == JDC_STR) jw_raw(w, p->raw, p->raw_len);
    else jw_null(w);
  }
  jw_arr_end(w);
  jw_key(w, "ranks");
  jw_arr(w);
  for (size_t i = 0; i < r->n; i++) jw_i64(w, r->r[i].rank);
  jw_arr_end(w);
  jw_obj_end(w);
}

static void i64s(jsonw *w, const char *k, const int64_t *v, size_t n) {
  jw_key(w, k);
  jw_arr(w);
  for (size_t i = 0; i < n; i++) jw_i64(w, v[i]);
  jw_arr_end(w);
}

/* A string member of a table row, copied as the report wrote it. */
static void copy_member(jsonw *w, const jdc_node *row, const jdoc *d, const char *k) {
  const jdc_node *x = jdc_get(d, row, k);
  jw_key(w, k);
  if (!x || x->type == JDC_NULL) jw_null(w);
  else jw_raw(w, x->raw, x->raw_len);
}

static const jdoc *row_doc(const dresult *r, const dtrow *w) { return w->present[1] ? &r->run[1]->doc : &r->run[0]->doc; }

static void pair_i(jsonw *w, const char *b, const char *n, const char *dl, const int64_t v[2], const int present[2]) {
  jw_key(w, b);
  if (present[0]) jw_i64(w, v[0]);
  else jw_null(w);
  jw_key(w, n);
  if (present[1]) jw_i64(w, v[1]);
  else jw_null(w);
  jw_ki64(w, dl, (present[1] ? v[1] : 0) - (present[0] ? v[0] : 0));
}

static void pair_f(jsonw *w, const char *b, const char *n, const double v[2], int decimals) {
  jw_key(w, b);
  if (v[0] >= 0) jw_f64(w, v[0], decimals);
  else jw_null(w);
  jw_key(w, n);
  if (v[1] >= 0) jw_f64(w, v[1], decimals);
  else jw_null(w);
}

static void table_json(jsonw *w, const dresult *r, const dtable *t, int kind) {
  jw_arr(w);
  for (size_t i = 0; i < t->n; i++) {
    const dtrow *x = &t->rows[i];
    const jdoc *d = row_doc(r, x);
    jw_obj(w);
    switch (kind) {
      case 0:
        copy_member(w, x->row, d, "name");
        copy_member(w, x->row, d, "short_name");
        copy_member(w, x->row, d, "class");
        break;
      case 1:
        copy_member(w, x->row, d, "name");
        copy_member(w, x->row, d, "gpu_op");
        copy_member(w, x->row, d, "category");
        copy_member(w, x->row, d, "input_dims");
        copy_member(w, x->row, d, "input_types");
        break;
      case 2: copy_member(w, x->row, d, "collective"); break;
      default:
        copy_member(w, x->row, d, "name");
        copy_member(w, x->row, d, "phase");
        break;
    }
    jw_kstr(w, "status", ds_name(x->status));
    int present[2] = {x->present[0] > 0, x->present[1] > 0};
    if (kind <= 1) {
      pair_i(w, kind ? "base_kernel_ns" : "base_total_ns", kind ? "new_kernel_ns" : "new_total_ns", "delta_ns", x->ns,
             present);
      double cnt[2] = {present[0] ? x->count[0] : -1, present[1] ? x->count[1] : -1};
      pair_f(w, "base_count", "new_count", cnt, 3);
      if (kind == 0) pair_f(w, "base_mean_ns", "new_mean_ns", x->rate, 0);
      else pair_f(w, "base_tflops_per_s", "new_tflops_per_s", x->rate, 3);
    } else {
      pair_i(w, "base_exposed_ns", "new_exposed_ns", "delta_ns", x->ns, present);
      int64_t c[2] = {x->aux_ns[0], x->aux_ns[1]};
      jw_key(w, "base_comm_ns");
      if (present[0]) jw_i64(w, c[0]);
      else jw_null(w);
      jw_key(w, "new_comm_ns");
      if (present[1]) jw_i64(w, c[1]);
      else jw_null(w);
    }
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

static const char *find_status(int s) {
  static const char *const N[] = {"same", "worse", "better", "new", "resolved"};
  return N[s];
}

static void findings_json(jsonw *w, const dresult *r) {
  jw_arr(w);
  for (size_t i = 0; i < r->nfinds; i++) {
    const dfind *f = &r->finds[i];
    int s = f->f[1] ? 1 : 0;
    const jdoc *d = &r->run[s]->doc;
    jw_obj(w);
    copy_member(w, f->f[s], d, "id");
    copy_member(w, f->f[s], d, "rank");
    jw_kstr(w, "status", find_status(f->status));
    jw_key(w, "base_severity");
    if (f->sev[0] >= 0) jw_str(w, SEV[f->sev[0]]);
    else jw_null(w);
    jw_key(w, "new_severity");
    if (f->sev[1] >= 0) jw_str(w, SEV[f->sev[1]]);
    else jw_null(w);
    int present[2] = {f->f[0] != NULL, f->f[1] != NULL};
    pair_i(w, "base_cost_ns", "new_cost_ns", "delta_cost_ns", f->cost, present);
    copy_member(w, f->f[s], d, "title");
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

void diff_json(const dresult *r, sbuf *b) {
  jsonw w;
  jw_init(&w, b, 1);
  jw_obj(&w);
  jw_kstr(&w, "schema", "fsdpa.diff/1");
  jw_kstr(&w, "version", fsdpa_version_string());
  jw_key(&w, "base");
  run_json(&w, r->run[0]);
  jw_key(&w, "new");
  run_json(&w, r->run[1]);
  jw_key(&w, "min_change_pct");
  jw_f64(&w, (double)r->min_change_ppm / 1e4, 4);
  jw_key(&w, "gate");
  jw_obj(&w);
  jw_key(&w, "threshold_pct");
  if (r->fail_ppm >= 0) jw_f64(&w, (double)r->fail_ppm / 1e4, 4);
  else jw_null(&w);
  jw_key(&w, "regressed");
  jw_bool(&w, r->regressed);
  jw_key(&w, "crossed");
  jw_arr(&w);
  for (int m = 0; m < DM__COUNT; m++)
    if (dcmp_crossed(r, m, &r->job[m])) jw_str(&w, dm_defs[m].name);
  jw_arr_end(&w);
  jw_obj_end(&w);
  i64s(&w, "ranks_matched", r->matched, r->nmatched);
  i64s(&w, "ranks_only_in_base", r->only[0], r->nonly[0]);
  i64s(&w, "ranks_only_in_new", r->only[1], r->nonly[1]);
  jw_key(&w, "job");
  jw_arr(&w);
  for (int m = 0; m < DM__COUNT; m++) metric_json(&w, m, &r->job[m], dcmp_crossed(r, m, &r->job[m]));
  jw_arr_end(&w);
  jw_key(&w, "ranks");
  jw_arr(&w);
  for (size_t i = 0; i < r->nmatched; i++) {
    jw_obj(&w);
    jw_ki64(&w, "rank", r->matched[i]);
    jw_key(&w, "metrics");
    jw_arr(&w);
    for (int m = 0; m < DM__COUNT; m++) metric_json(&w, m, &r->ranks[i * DM__COUNT + m], 0);
    jw_arr_end(&w);
    jw_obj_end(&w);
  }
  jw_arr_end(&w);
  jw_key(&w, "collectives");
  table_json(&w, r, &r->collectives, 2);
  jw_key(&w, "fsdp_units");
  table_json(&w, r, &r->units, 3);
  jw_key(&w, "kernels");
  table_json(&w, r, &r->kernels, 0);
  jw_key(&w, "ops");
  table_json(&w, r, &r->ops, 1);
  jw_key(&w, "findings");
  findings_json(&w, r);
  jw_obj_end(&w);
  sb_putn(b, "\n", 1);
}

/* ---- text and HTML: values for people ---- */

static void fmt_val(char *buf, size_t n, int m, const dval *v) {
  if (!v->have) snprintf(buf, n, "-");
  else if (dm_defs[m].unit == DU_NS) fmt_dur(buf, n, v->v_i);
  else if (dm_defs[m].unit == DU_BYTES) fmt_bytes(buf, n, v->v_i);
  else if (dm_defs[m].unit == DU_RATIO) snprintf(buf, n, "%.1f%%", v->v_f * 100);
  else snprintf(buf, n, "%.2f", v->v_f);
}

static void fmt_signed_dur(char *buf, size_t n, int64_t ns) {
  char t[24];
  fmt_dur(t, sizeof t, ns < 0 ? -ns : ns);
  snprintf(buf, n, "%s%s", ns < 0 ? "-" : "+", t);
}

static void fmt_change(char *buf, size_t n, const dcmp *c, int m) {
  if (!c->b.have || !c->n.have) snprintf(buf, n, "-");
  else if (c->have_change) snprintf(buf, n, "%+.1f%%", c->change * 100);
  else if (is_f(m) ? c->n.v_f == c->b.v_f : c->n.v_i == c->b.v_i) snprintf(buf, n, "0");
  else snprintf(buf, n, "new");
}

static void fmt_spread(char *buf, size_t n, const dcmp *c, int m) {
  if (!c->have_spread) {
    snprintf(buf, n, "-");
    return;
  }
  dval v = {1, 0, c->spread_i, c->spread_f, 0, 0};
  char t[32];
  fmt_val(t, sizeof t, m, &v);
  snprintf(buf, n, "±%s", t);
}

/* The gate in one sentence. */
static void gate_line(const dresult *r, sbuf *b) {
  char pct[32];
  snprintf(pct, sizeof pct, "%g%%", (double)r->fail_ppm / 1e4);
  if (r->fail_ppm < 0) return;
  sb_printf(b, "Regression gate %s: %s", pct, r->regressed ? "REGRESSED" : "passed");
  int first = 1;
  for (int m = 0; m < DM__COUNT; m++) {
    if (!dm_defs[m].gated) continue;
    const dcmp *c = &r->job[m];
    char bv[32], nv[32], ch[32], sp[40];
    fmt_val(bv, sizeof bv, m, &c->b);
    fmt_val(nv, sizeof nv, m, &c->n);
    fmt_change(ch, sizeof ch, c, m);
    fmt_spread(sp, sizeof sp, c, m);
    int crossed = dcmp_crossed(r, m, c);
    if (r->regressed && !crossed) continue;
    sb_printf(b, "%s%s %s (%s -> %s%s%s%s)", first ? " - " : "; ", dm_defs[m].label, ch, bv, nv,
              c->have_spread ? ", run-to-run spread " : "", c->have_spread ? sp : "",
              crossed ? ", crossed" : c->b.have && c->n.have && !c->beyond ? ", within the spread" : "");
    first = 0;
  }
  sb_puts(b, "\n");
}

/* Whether matched rank i changed unlike the job (some metric's status differs). */
static int rank_differs(const dresult *r, size_t i) {
  const dcmp *cs = &r->ranks[i * DM__COUNT];
  for (int m = 0; m < DM__COUNT; m++)
    if (cs[m].status != r->job[m].status) return 1;
  return 0;
}

/* ---- text ---- */

/* s right-aligned in w columns (a column per character, not per byte: µ). */
static void rpad(sbuf *b, const char *s, int w) {
  int cols = 0;
  for (const char *p = s; *p; p++) cols += ((unsigned char)*p & 0xC0) != 0x80;
  for (; cols < w; cols++) sb_putn(b, " ", 1);
  sb_puts(b, s);
}

static const char *col(const dwrite_opts *o, int status) {
  if (!o->color) return "";
  return status == DS_WORSE || status == DS_NEW ? "\033[31m" : status == DS_BETTER || status == DS_GONE ? "\033[32m" : "";
}
static const char *off(const dwrite_opts *o, int status) {
  return o->color && (status == DS_WORSE || status == DS_BETTER || status == DS_NEW || status == DS_GONE) ? "\033[0m" : "";
}

/* A name cut to n bytes (at a character start), for a column. */
static void cut(char *out, size_t cap, const jdc_node *x, size_t n) {
  char buf[512];
  size_t len = jdc_str_copy(x, buf, sizeof buf);
  if (!len && x && x->type != JDC_STR) {
    size_t k = x->raw_len < sizeof buf - 1 ? x->raw_len : sizeof buf - 1;
    memcpy(buf, x->raw, k);
    buf[k] = 0;
    len = k;
  }
  if (n + 1 > cap) n = cap - 1;
  if (len > n) {
    size_t k = n > 3 ? n - 3 : 0;
    while (k > 0 && ((unsigned char)buf[k] & 0xC0) == 0x80) k--;
    memcpy(out, buf, k);
    memcpy(out + k, "...", 4);
  } else {
    memcpy(out, buf, len + 1);
  }
}

/* The metrics (a rank's: only those that changed). */
static void text_metrics(sbuf *b, const dwrite_opts *o, const dcmp *cs, const dresult *r, int job) {
  sb_printf(b, "  %-28s %12s %12s %9s %12s\n", "metric", "base", "new", "change", "spread");
  for (int m = 0; m < DM__COUNT; m++) {
    const dcmp *c = &cs[m];
    if ((!c->b.have && !c->n.have) || (!job && c->status == DS_SAME)) continue;
    char bv[32], nv[32], ch[32], sp[40];
    fmt_val(bv, sizeof bv, m, &c->b);
    fmt_val(nv, sizeof nv, m, &c->n);
    fmt_change(ch, sizeof ch, c, m);
    fmt_spread(sp, sizeof sp, c, m);
    int crossed = job && dcmp_crossed(r, m, c);
    sb_printf(b, "  %-28s ", dm_defs[m].label);
    rpad(b, bv, 12);
    sb_putn(b, " ", 1);
    rpad(b, nv, 12);
    sb_putn(b, " ", 1);
    rpad(b, ch, 9);
    sb_putn(b, " ", 1);
    rpad(b, sp, 12);
    if (c->status == DS_SAME && !crossed) sb_puts(b, "\n");
    else
      sb_printf(b, "  %s%s%s%s\n", col(o, c->status), c->status == DS_SAME ? "" : ds_name(c->status),
                off(o, c->status), crossed ? " (gate)" : "");
  }
}

static void text_table(sbuf *b, const dwrite_opts *o, const dresult *r, const dtable *t, int kind, const char *title) {
  size_t shown = 0;
  for (size_t i = 0; i < t->n; i++) shown += t->rows[i].status != DS_SAME;
  if (!shown) return;
  sb_printf(b, "\n%s (per iteration, mean per rank; %zu of %zu rows changed%s)\n", title, shown, t->n,
            shown > 10 ? ", the 10 largest" : "");
  size_t namew = o->width > 70 ? (size_t)o->width - 58 : 12;
  shown = 0;
  for (size_t i = 0; i < t->n && shown < 10; i++) {
    const dtrow *x = &t->rows[i];
    if (x->status == DS_SAME) continue;
    shown++;
    const jdoc *d = row_doc(r, x);
    char name[512], bv[32], nv[32], dv[40], extra[96] = "";
    const jdc_node *nm = jdc_get(d, x->row, kind == 0 ? "short_name" : kind == 2 ? "collective" : "name");
    if (kind == 1 && (!nm || nm->type != JDC_STR)) nm = jdc_get(d, x->row, "gpu_op");
    cut(name, sizeof name, nm, namew);
    if (kind == 3) {
      char ph[32];
      jdc_str_copy(jdc_get(d, x->row, "phase"), ph, sizeof ph);
      size_t l = strlen(name);
      snprintf(name + l, sizeof name - l, " %s", ph);
    }
    fmt_dur(bv, sizeof bv, x->present[0] ? x->ns[0] : 0);
    fmt_dur(nv, sizeof nv, x->present[1] ? x->ns[1] : 0);
    fmt_signed_dur(dv, sizeof dv, (x->present[1] ? x->ns[1] : 0) - (x->present[0] ? x->ns[0] : 0));
    if (kind == 1 && x->rate[0] >= 0 && x->rate[1] >= 0)
      snprintf(extra, sizeof extra, " %.1f->%.1f TFLOP/s", x->rate[0], x->rate[1]);
    else if (kind == 0 && x->rate[0] >= 0 && x->rate[1] >= 0) {
      char m0[32], m1[32];
      fmt_dur(m0, sizeof m0, (int64_t)llround(x->rate[0]));
      fmt_dur(m1, sizeof m1, (int64_t)llround(x->rate[1]));
      snprintf(extra, sizeof extra, " mean %s->%s", m0, m1);
    }
    sb_printf(b, "  %s%-6s%s ", col(o, x->status), ds_name(x->status), off(o, x->status));
    rpad(b, bv, 10);
    sb_putn(b, " ", 1);
    rpad(b, nv, 10);
    sb_putn(b, " ", 1);
    rpad(b, dv, 11);
    sb_printf(b, "  %s%s\n", name, extra);
  }
}

static void text_findings(sbuf *b, const dwrite_opts *o, const dresult *r) {
  size_t changed = 0;
  for (size_t i = 0; i < r->nfinds; i++) changed += r->finds[i].status != DS_SAME;
  if (!changed) return;
  sb_puts(b, "\nFindings\n");
  for (size_t i = 0; i < r->nfinds; i++) {
    const dfind *f = &r->finds[i];
    if (f->status == DS_SAME) continue;
    int s = f->f[1] ? 1 : 0;
    const jdoc *d = &r->run[s]->doc;
    char id[64], title[512], sev[40];
    jdc_str_copy(jdc_get(d, f->f[s], "id"), id, sizeof id);
    cut(title, sizeof title, jdc_get(d, f->f[s], "title"), o->width > 60 ? (size_t)o->width - 40 : 20);
    if (f->f[0] && f->f[1] && f->sev[0] != f->sev[1])
      snprintf(sev, sizeof sev, "%s->%s", f->sev[0] >= 0 ? SEV[f->sev[0]] : "?", f->sev[1] >= 0 ? SEV[f->sev[1]] : "?");
    else snprintf(sev, sizeof sev, "%s", f->sev[s] >= 0 ? SEV[f->sev[s]] : "?");
    int64_t rank = -1;
    jdc_to_i64(jdc_get(d, f->f[s], "rank"), &rank);
    sb_printf(b, "  %s%-8s%s %-16s %s rank %lld: %s\n", col(o, f->status), find_status(f->status), off(o, f->status),
              sev, id, (long long)rank, title);
  }
}

static void inputs_text(sbuf *b, const drun *r) {
  const jdc_node *x = jdc_first(&r->doc, r->inputs);
  char p[256];
  jdc_str_copy(jdc_get(&r->doc, x, "path"), p, sizeof p);
  sb_printf(b, "%s%s (%zu rank%s)", p[0] ? p : "?", r->n > 1 ? " ..." : "", r->n, r->n == 1 ? "" : "s");
}

void diff_text(const dresult *r, const dwrite_opts *o, sbuf *b) {
  sb_puts(b, "fsdpa diff\n  base: ");
  inputs_text(b, r->run[0]);
  sb_puts(b, "\n  new:  ");
  inputs_text(b, r->run[1]);
  sb_puts(b, "\n");
  gate_line(r, b);
  if (r->nonly[0] || r->nonly[1])
    sb_printf(b, "Ranks in one run only: %zu in base, %zu in new (left out of the job)\n", r->nonly[0], r->nonly[1]);
  if (!r->nmatched) {
    sb_puts(b, "No rank is in both runs: nothing to compare.\n");
    return;
  }
  sb_printf(b, "\nJob (mean of %zu matched rank%s; steady steps, per iteration; changes of at least %g%% beyond the "
               "run-to-run spread are marked)\n",
            r->nmatched, r->nmatched == 1 ? "" : "s", (double)r->min_change_ppm / 1e4);
  text_metrics(b, o, r->job, r, 1);
  /* a rank whose changes differ from the job's: listed (at most 8) */
  size_t listed = 0, differ = 0;
  for (size_t i = 0; r->nmatched > 1 && i < r->nmatched; i++) {
    const dcmp *cs = &r->ranks[i * DM__COUNT];
    if (!rank_differs(r, i)) continue;
    differ++;
    if (listed == 8) continue;
    listed++;
    sb_printf(b, "\nRank %lld (the metrics that changed)\n", (long long)r->matched[i]);
    text_metrics(b, o, cs, r, 0);
  }
  if (differ > listed) sb_printf(b, "\n%zu more ranks changed unlike the job (see -f json)\n", differ - listed);
  text_table(b, o, r, &r->collectives, 2, "Exposed communication by collective");
  text_table(b, o, r, &r->units, 3, "Exposed communication by FSDP unit");
  text_table(b, o, r, &r->kernels, 0, "Kernels");
  text_table(b, o, r, &r->ops, 1, "Ops");
  text_findings(b, o, r);
}

/* ---- HTML ---- */

static void h(sbuf *b, const char *s) { html_escape(b, s, strlen(s)); }

static void html_metrics(sbuf *b, const dcmp *cs, const dresult *r, int job) {
  sb_puts(b, "<table><tr><th>metric</th><th>base</th><th>new</th><th>change</th><th>spread</th><th></th></tr>\n");
  for (int m = 0; m < DM__COUNT; m++) {
    const dcmp *c = &cs[m];
    if ((!c->b.have && !c->n.have) || (!job && c->status == DS_SAME)) continue;
    char bv[32], nv[32], ch[32], sp[40];
    fmt_val(bv, sizeof bv, m, &c->b);
    fmt_val(nv, sizeof nv, m, &c->n);
    fmt_change(ch, sizeof ch, c, m);
    fmt_spread(sp, sizeof sp, c, m);
    sb_printf(b, "<tr class=\"%s\"><td>", ds_name(c->status));
    h(b, dm_defs[m].label);
    sb_puts(b, "</td><td>");
    h(b, bv);
    sb_puts(b, "</td><td>");
    h(b, nv);
    sb_puts(b, "</td><td>");
    h(b, ch);
    sb_puts(b, "</td><td>");
    h(b, sp);
    sb_printf(b, "</td><td>%s%s</td></tr>\n", c->status == DS_SAME ? "" : ds_name(c->status),
              job && dcmp_crossed(r, m, c) ? " (gate)" : "");
  }
  sb_puts(b, "</table>\n");
}

static void html_table(sbuf *b, const dresult *r, const dtable *t, int kind, const char *title) {
  if (!t->n) return;
  sb_puts(b, "<h2>");
  h(b, title);
  sb_puts(b, "</h2>\n<table><tr><th>status</th><th>base / iteration</th><th>new / iteration</th><th>change</th>"
             "<th>rate</th><th>name</th></tr>\n");
  for (size_t i = 0; i < t->n; i++) {
    const dtrow *x = &t->rows[i];
    const jdoc *d = row_doc(r, x);
    char bv[32], nv[32], dv[40], rate[96] = "", name[1024], full[1024];
    const jdc_node *nm = jdc_get(d, x->row, kind == 0 ? "short_name" : kind == 2 ? "collective" : "name");
    if (kind == 1 && (!nm || nm->type != JDC_STR)) nm = jdc_get(d, x->row, "gpu_op");
    jdc_str_copy(nm, name, sizeof name);
    jdc_str_copy(jdc_get(d, x->row, "name"), full, sizeof full);
    if (kind == 3) {
      char ph[32];
      jdc_str_copy(jdc_get(d, x->row, "phase"), ph, sizeof ph);
      size_t l = strlen(name);
      snprintf(name + l, sizeof name - l, " %s", ph);
    }
    if (kind == 1) {
      const jdc_node *dims = jdc_get(d, x->row, "input_dims");
      if (dims && dims->type == JDC_ARR) snprintf(full, sizeof full, "%.*s", (int)dims->raw_len, dims->raw);
    }
    fmt_dur(bv, sizeof bv, x->present[0] ? x->ns[0] : 0);
    fmt_dur(nv, sizeof nv, x->present[1] ? x->ns[1] : 0);
    fmt_signed_dur(dv, sizeof dv, (x->present[1] ? x->ns[1] : 0) - (x->present[0] ? x->ns[0] : 0));
    if (kind == 1 && x->rate[0] >= 0 && x->rate[1] >= 0) snprintf(rate, sizeof rate, "%.1f -> %.1f TFLOP/s", x->rate[0], x->rate[1]);
    else if (kind == 0 && x->rate[0] >= 0 && x->rate[1] >= 0) {
      char m0[32], m1[32];
      fmt_dur(m0, sizeof m0, (int64_t)llround(x->rate[0]));
      fmt_dur(m1, sizeof m1, (int64_t)llround(x->rate[1]));
      snprintf(rate, sizeof rate, "mean %s -> %s", m0, m1);
    }
    sb_printf(b, "<tr class=\"%s\"><td>%s</td><td>", ds_name(x->status), ds_name(x->status));
    h(b, bv);
    sb_puts(b, "</td><td>");
    h(b, nv);
    sb_puts(b, "</td><td>");
    h(b, dv);
    sb_puts(b, "</td><td>");
    h(b, rate);
    sb_puts(b, "</td><td title=\"");
    h(b, full);
    sb_puts(b, "\">");
    h(b, name);
    sb_puts(b, "</td></tr>\n");
  }
  sb_puts(b, "</table>\n");
}

void diff_html(const dresult *r, sbuf *b) {
  sb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
             "<meta name=\"generator\" content=\"libfsdpa ");
  sb_puts(b, fsdpa_version_string());
  sb_puts(b, "\">\n<title>fsdpa diff</title>\n<style>\n"
             "body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}"
             "table{border-collapse:collapse;margin:.5em 0 1.5em}"
             "td,th{padding:2px 10px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}"
             "td:last-child,th:last-child,td:first-child,th:first-child{text-align:left}"
             "tr.worse td,tr.new td{color:#b00020}tr.better td,tr.gone td,tr.resolved td{color:#1b7f2a}"
             ".gate{padding:.5em 1em;border-radius:4px;display:inline-block}"
             ".regressed{background:#fde2e4}.passed{background:#e2f5e6}\n"
             "</style>\n</head>\n<body>\n<h1>fsdpa diff</h1>\n<p>base: ");
  sbuf t;
  sb_init(&t, b->a);
  inputs_text(&t, r->run[0]);
  html_escape(b, t.p ? t.p : "", t.len);
  t.len = 0;
  sb_puts(b, "<br>new: ");
  inputs_text(&t, r->run[1]);
  html_escape(b, t.p ? t.p : "", t.len);
  sb_puts(b, "</p>\n");
  if (r->fail_ppm >= 0) {
    t.len = 0;
    gate_line(r, &t);
    sb_printf(b, "<p class=\"gate %s\">", r->regressed ? "regressed" : "passed");
    html_escape(b, t.p ? t.p : "", t.len);
    sb_puts(b, "</p>\n");
  }
  if (t.failed && !b->failed) b->failed = t.failed;
  sb_free(&t);
  if (r->nonly[0] || r->nonly[1])
    sb_printf(b, "<p>Ranks in one run only: %zu in base, %zu in new (left out of the job).</p>\n", r->nonly[0],
              r->nonly[1]);
  sb_printf(b, "<h2>Job: mean of %zu matched rank%s</h2>\n", r->nmatched, r->nmatched == 1 ? "" : "s");
  html_metrics(b, r->job, r, 1);
  for (size_t i = 0; r->nmatched > 1 && i < r->nmatched; i++) {
    if (!rank_differs(r, i)) continue;
    sb_printf(b, "<h3>Rank %lld (the metrics that changed)</h3>\n", (long long)r->matched[i]);
    html_metrics(b, &r->ranks[i * DM__COUNT], r, 0);
  }
  html_table(b, r, &r->collectives, 2, "Exposed communication by collective");
  html_table(b, r, &r->units, 3, "Exposed communication by FSDP unit");
  html_table(b, r, &r->kernels, 0, "Kernels");
  html_table(b, r, &r->ops, 1, "Ops");
  if (r->nfinds) {
    sb_puts(b, "<h2>Findings</h2>\n<table><tr><th>status</th><th>severity</th><th>id</th><th>rank</th><th>title</th></tr>\n");
    for (size_t i = 0; i < r->nfinds; i++) {
      const dfind *f = &r->finds[i];
      int s = f->f[1] ? 1 : 0;
      const jdoc *d = &r->run[s]->doc;
      char id[64], title[1024];
      int64_t rank = -1;
      jdc_str_copy(jdc_get(d, f->f[s], "id"), id, sizeof id);
      jdc_str_copy(jdc_get(d, f->f[s], "title"), title, sizeof title);
      jdc_to_i64(jdc_get(d, f->f[s], "rank"), &rank);
      sb_printf(b, "<tr class=\"%s\"><td>%s</td><td>%s%s%s</td><td>", find_status(f->status), find_status(f->status),
                f->f[0] && f->sev[0] >= 0 ? SEV[f->sev[0]] : "", f->f[0] && f->f[1] ? " -> " : "",
                f->f[1] && f->sev[1] >= 0 ? SEV[f->sev[1]] : "");
      h(b, id);
      sb_printf(b, "</td><td>%lld</td><td>", (long long)rank);
      h(b, title);
      sb_puts(b, "</td></tr>\n");
    }
    sb_puts(b, "</table>\n");
  }
  sb_puts(b, "</body>\n</html>\n");
}
