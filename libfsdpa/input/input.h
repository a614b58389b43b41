/* Bytes -> events: the input pipeline (gzip detection and streaming inflate,
 * chunk-fed structural splitter, simdjson decode of each event, exact
 * number parsing).  It knows nothing about analyses: it hands each decoded
 * event and the trace metadata to callbacks. */
#ifndef FSDPA_INPUT_H
#define FSDPA_INPUT_H
#include <stddef.h>
#include <stdint.h>
#include "fsdpa/fsdpa.h"
#include "util/alloc.h"

typedef struct fsdpa_input fsdpa_input;

typedef struct input_sink {
  /* One decoded event.  Strings point into parser memory valid only during
   * the call.  Return FSDPA_OK or an error status to stop the input. */
  fsdpa_status (*event)(void *ud, const fsdpa_event *ev);
  /* Top-level metadata found (may be called more than once, before or after
   * the events, as the keys appear; absent fields are FSDPA_ABSENT). */
  fsdpa_status (*meta)(void *ud, const fsdpa_trace_info *info);
  void *ud;
} input_sink;

/* name: used in messages ("<name>: byte 123: ...").  max_input_bytes: cap on
 * decompressed bytes (0 = none). */
fsdpa_status input_new(fsdpa_input **out, fa_alloc *a, const char *name,
                       uint64_t max_input_bytes, const input_sink *sink);
void input_free(fsdpa_input *in);
/* Any chunking.  On error returns a status and fills the message/offset
 * retrievable below; the input then refuses more bytes. */
fsdpa_status input_feed(fsdpa_input *in, const void *data, size_t len);
fsdpa_status input_finish(fsdpa_input *in);
const char *input_errmsg(const fsdpa_input *in);   /* "" if no error */
int64_t input_error_offset(const fsdpa_input *in); /* FSDPA_ABSENT if none */
uint64_t input_bytes_in(const fsdpa_input *in);    /* as fed */
uint64_t input_json_bytes(const fsdpa_input *in);  /* after inflate */
#endif
