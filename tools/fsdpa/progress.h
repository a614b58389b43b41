/* The progress bar on standard error while analyze reads its inputs. */
#ifndef FSDPA_PROGRESS_H
#define FSDPA_PROGRESS_H

#include <stdint.h>

typedef struct progress {
  int allowed;        /* standard error is a terminal and --no-progress was not given */
  int shown;          /* the bar is on the screen */
  int at_once;        /* the inputs are large: show the bar from the start */
  uint64_t total;     /* bytes of the files to read; 0: unknown (standard input) */
  uint64_t done;      /* bytes read */
  double start, last; /* seconds on the monotonic clock: reading began, last drawn */
} progress;

/* `file_bytes`: the inputs' sizes on disk, 0 when one is standard input;
 * `data_bytes`: their decompressed sizes where known (a gzip file's
 * trailer), else their sizes on disk.  The bar shows from the start when
 * data_bytes is 64 MiB or more, otherwise once reading has taken a second,
 * so a small but slow (highly compressed) input still gets one. */
void progress_start(progress *p, int allowed, uint64_t file_bytes, uint64_t data_bytes);
/* `n` more bytes read; the callers serialize their calls. */
void progress_add(progress *p, uint64_t n);
/* Reading is over: the bar's last state and a newline, if it was shown. */
void progress_end(progress *p);

#endif
