/* The HTML report: one self-contained page.  It carries the JSON report
 * (the contract, for the numbers and the findings) and the picture data of
 * html_data.c as two JSON blocks, and draws the charts as inline SVG with
 * the page's own small script (html_page.js).  A Content-Security-Policy
 * forbids every network request, so the page works offline and a reviewer
 * can see at a glance that nothing is fetched. */
#include "report/html.h"
#include <string.h>

/* Page size bounds, whatever the trace size: about 40 bytes per rectangle
 * of a detailed window, about 12 per rectangle of a coarse step view. */
#define PAGE_WINDOWS 24
#define PAGE_RECTS 100000
#define PAGE_STEP_RECTS 150000

void html_escape(sbuf *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    switch (s[i]) {
      case '<': sb_puts(b, "&lt;"); break;
      case '>': sb_puts(b, "&gt;"); break;
      case '&': sb_puts(b, "&amp;"); break;
      case '"': sb_puts(b, "&quot;"); break;
      default: sb_putn(b, s + i, 1);
    }
  }
}

/* JSON inside <script>: '<' only occurs inside JSON strings, where \u003c
 * means the same, so "</script>" in a kernel name cannot end the block. */
static void put_script_json(sbuf *b, const sbuf *json) {
  size_t k = 0;
  for (size_t i = 0; i < json->len; i++) {
    if (json->p[i] != '<') continue;
    sb_putn(b, json->p + k, i - k);
    sb_puts(b, "\\u003c");
    k = i + 1;
  }
  sb_putn(b, json->p + k, json->len - k);
}

static void put_lines(sbuf *b, const char *const *lines) {
  for (size_t i = 0; lines[i]; i++) {
    sb_puts(b, lines[i]);
    sb_puts(b, "\n");
  }
}

static fsdpa_status viz_json(report_in *in, sbuf *out) {
  html_budget bud;
  bud.max_windows = PAGE_WINDOWS / in->n;
  if (bud.max_windows > 8) bud.max_windows = 8;
  if (bud.max_windows < 1) bud.max_windows = 1;
  bud.rects_per_window = PAGE_RECTS / (in->n * bud.max_windows);
  bud.step_rects = PAGE_STEP_RECTS / in->n;
  jsonw w;
  jw_init(&w, out, 0);
  jw_obj(&w);
  jw_kstr(&w, "schema", "fsdpa.html-data/2");
  jw_key(&w, "classes");
  html_classes_json(&w);
  jw_key(&w, "ranks");
  jw_arr(&w);
  for (size_t i = 0; i < in->n; i++) {
    fsdpa_status st = html_rank_viz(in, i, &bud, &w);
    if (st) return st;
  }
  jw_arr_end(&w);
  jw_key(&w, "findings");
  jw_arr(&w);
  for (size_t k = 0; k < in->all.n; k++) {
    fsdpa_status st = html_finding_viz(in, k, &w);
    if (st) return st;
  }
  jw_arr_end(&w);
  jw_obj_end(&w);
  return out->failed ? (fsdpa_status)out->failed : FSDPA_OK;
}

fsdpa_status report_html(report_in *in, sbuf *out) {
  sbuf rep, viz;
  sb_init(&rep, out->a);
  sb_init(&viz, out->a);
  fsdpa_status st = report_json(in, &rep, 0);
  if (!st) st = viz_json(in, &viz);
  if (st) goto done;
  sb_puts(out,
          "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"generator\" content=\"libfsdpa ");
  sb_puts(out, fsdpa_version_string());
  sb_puts(out, "\">\n<title>fsdpa report: ");
  html_escape(out, report_path(in, 0), strlen(report_path(in, 0)));
  if (in->n > 1) sb_printf(out, " and %zu more", in->n - 1);
  sb_puts(out, "</title>\n<style>\n");
  put_lines(out, html_page_css);
  sb_puts(out, "</style>\n</head>\n<body data-rendered=\"pending\">\n"
               "<noscript><p>This page draws its charts with JavaScript. The JSON report is "
               "embedded in it (script #fsdpa-report), or run <code>fsdpa analyze --format "
               "text</code>.</p></noscript>\n"
               "<div id=\"fsdpa-error\" class=\"banner\" style=\"display:none\"></div>\n"
               "<main id=\"app\"></main>\n"
               "<script type=\"application/json\" id=\"fsdpa-report\">");
  put_script_json(out, &rep);
  sb_puts(out, "</script>\n<script type=\"application/json\" id=\"fsdpa-viz\">");
  put_script_json(out, &viz);
  sb_puts(out, "</script>\n<script>\n");
  put_lines(out, html_page_js);
  sb_puts(out, "</script>\n</body>\n</html>\n");
  st = out->failed ? (fsdpa_status)out->failed : FSDPA_OK;
done:
  sb_free(&rep);
  sb_free(&viz);
  return st;
}
