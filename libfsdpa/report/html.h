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
} html_budget;

/* Pixel columns of a Gantt window at most (finer than any screen). */
#define HTML_GANTT_COLUMNS 1600
/* Buckets of the whole-trace overview and memory timeline. */
#define HTML_OVERVIEW_BUCKETS 600
#define HTML_MEMORY_BUCKETS 800
#define HTML_WINDOW_MEMORY_BUCKETS 400
/* Kernel names are cut to this many bytes on the page. */
#define HTML_NAME_MAX 160

/* The picture data of context i (rank in->ranks[i]) as one JSON object:
 * lanes, steps, overview strips, Gantt windows, memory timeline. */
fsdpa_status html_rank_viz(report_in *in, size_t i, const html_budget *b, jsonw *w);
/* Finding i's rank index in `in` and its ranges relative to that rank's
 * origin (the same origin html_rank_viz uses), as a JSON object. */
fsdpa_status html_finding_viz(report_in *in, size_t k, jsonw *w);

/* Static assets (NULL-terminated arrays of lines, each without '\n'). */
extern const char *const html_page_css[];
extern const char *const html_page_js[];
#endif
