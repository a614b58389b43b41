/* The progress bar (progress.h). */
#include "progress.h"
#include <stdio.h>
#include <time.h>

enum { BAR = 40 };
#define LARGE_INPUT ((uint64_t)64 << 20)
#define SHOW_AFTER_S 1.0
#define REDRAW_S 0.2

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void draw(const progress *p, int final) {
  if (p->total) {
    double frac = (double)p->done / (double)p->total;
    if (frac > 1) frac = 1;
    int full = (int)(frac * BAR);
    fprintf(stderr, "\rreading [");
    for (int i = 0; i < BAR; i++) fputc(i < full ? '=' : ' ', stderr);
    fprintf(stderr, "] %3d%% %llu MB", (int)(frac * 100), (unsigned long long)(p->done >> 20));
  } else {
    fprintf(stderr, "\rreading %llu MB", (unsigned long long)(p->done >> 20));
  }
  if (final) fputc('\n', stderr);
  fflush(stderr);
}

void progress_start(progress *p, int allowed, uint64_t file_bytes, uint64_t data_bytes) {
  p->allowed = allowed;
  p->shown = 0;
  p->at_once = data_bytes >= LARGE_INPUT;
  p->total = file_bytes;
  p->done = 0;
  p->start = p->last = now_s();
}

void progress_add(progress *p, uint64_t n) {
  p->done += n;
  if (!p->allowed) return;
  double t = now_s();
  if (!p->shown && !p->at_once && t - p->start < SHOW_AFTER_S) return;
  if (p->shown && t - p->last < REDRAW_S) return;
  p->shown = 1;
  p->last = t;
  draw(p, 0);
}

void progress_end(progress *p) {
  if (p->shown) draw(p, 1);
}
