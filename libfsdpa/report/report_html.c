/* STUB: the HTML page (issue 7). */
#include "report/report.h"

fsdpa_status report_html(report_in *in, sbuf *out) {
  sb_puts(out, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>fsdpa report</title>"
               "</head><body><pre id=\"report\">");
  sbuf tmp;
  sb_init(&tmp, out->a);
  fsdpa_status st = report_json(in, &tmp, 1);
  if (!st) {
    for (size_t i = 0; i < tmp.len; i++) {
      char ch = tmp.p[i];
      if (ch == '<') sb_puts(out, "&lt;");
      else if (ch == '&') sb_puts(out, "&amp;");
      else sb_putn(out, &ch, 1);
    }
  }
  sb_free(&tmp);
  sb_puts(out, "</pre></body></html>\n");
  return st;
}
