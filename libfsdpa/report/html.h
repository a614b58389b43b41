/* The HTML page's parts: the per-rank picture data (html_data.c) and the
 * page's static CSS and JavaScript (html_assets.c, generated from
 * html_page.css / html_page.js at build time). */
#ifndef FSDPA_REPORT_HTML_H
#define FSDPA_REPORT_HTML_H
#include "report/report.h"

/* Size limits of the page: the Gantt data is bounded by these, whatever the
 * size of the trace. */
typedef struct html_budget {
  size_t max_windows;       /* Gantt windows (steps) per rank */
  size_t rects_per_window;  /* rectangles of one window, all lanes together */
  size_t step_rects;        /* rectangles of the coarse views of all other steps */
} html_budget;

/* Pixel columns of a Gantt window at most (finer than any screen). */
#define HTML_GANTT_COLUMNS 1600
/* Buckets of the whole-trace overview and memory timeline. */
#define HTML_OVERVIEW_BUCKETS 1000
#define HTML_MEMORY_BUCKETS 800
#define HTML_WINDOW_MEMORY_BUCKETS 400
/* Kernel names are cut to this many bytes on the page. */
#define HTML_NAME_MAX 160

/* The picture data of context i (rank in->ranks[i]) as one JSON object:
 * GPU and CPU lanes, steps, overview strips, Gantt windows, the coarse
 * views of the other steps, memory timeline. */
fsdpa_status html_rank_viz(report_in *in, size_t i, const html_budget *b, jsonw *w);
/* Finding k's rank index in `in`, the side it is about ("cpu": runtime
 * calls of a CPU thread, then the thread of each range; "gpu"; "none"
 * without ranges) and its ranges relative to that rank's origin (the same
 * origin html_rank_viz uses), as a JSON object. */
fsdpa_status html_finding_viz(report_in *in, size_t k, jsonw *w);
/* The op classes the page colours, in the order of their numbers in the
 * picture data: [{name, side}]. */
void html_classes_json(jsonw *w);

/* Text as HTML: < > & " escaped. */
void html_escape(sbuf *b, const char *s, size_t n);

/* Static assets (NULL-terminated arrays of lines, each without '\n'). */
extern const char *const html_page_css[];
extern const char *const html_page_js[];
#endif
