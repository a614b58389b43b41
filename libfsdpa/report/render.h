/* Text and HTML reports are made from the JSON report alone: fsdpa_report()
 * writes the JSON and renders it, and fsdpa_report_render() renders a JSON
 * report read back (from a file, a merge of summaries, --low-memory), so the
 * text of a report is the same bytes whichever way it was made. */
#ifndef FSDPA_REPORT_RENDER_H
#define FSDPA_REPORT_RENDER_H
#include "util/jdoc.h"
#include "util/jsonw.h"
#include "fsdpa/fsdpa.h"

/* The text report of the parsed JSON report `d` (opts: width, color).
 * EINVAL with a message in msg when the document is not a report this
 * library can render (another schema, a missing section). */
fsdpa_status render_text(const jdoc *d, const fsdpa_report_options *opts, sbuf *out, char *msg, size_t msg_len);
/* One table of the report as CSV (fsdpa_report_options.table; NULL =
 * "ranks").  EINVAL naming the tables for an unknown name. */
fsdpa_status render_table(const jdoc *d, const char *name, sbuf *out, char *msg, size_t msg_len);
/* Check that `d` is a report that render_text() and the HTML page can show:
 * its schema, and the sections they read.  EINVAL with a message if not. */
fsdpa_status render_check(const jdoc *d, char *msg, size_t msg_len);
#endif
