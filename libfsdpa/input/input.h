/* Bytes -> events: the input pipeline (plain or gzip: inflate.h, then a
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
  /* One entry of the top-level deviceProperties array (only entries with a
   * non-negative integer `id`), as it ends; NULL: not wanted. */
  fsdpa_status (*device)(void *ud, const fsdpa_device_info *info);
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
/* Where the events are in the JSON stream (offsets after inflate, as
 * inflate.h decodes the same bytes): the offset of the '[' that opens the
 * top-level "traceEvents" array (the first, if the key repeats) or the
 * top-level array of the JSON Array Format; FSDPA_ABSENT while none was
 * seen.  Kept after input_finish() and after an error. */
int64_t input_events_array_offset(const fsdpa_input *in);
/* 1 if that array has an element: the first non-blank byte after its '['
 * is not its ']'.  0 when it is, or while that byte was not read yet (an
 * input that ends there: an empty unterminated bare array). */
int input_events_array_nonempty(const fsdpa_input *in);

/* ---- additions (input/) ---- */

/* Events handed to sink->event that returned FSDPA_OK. */
uint64_t input_events(const fsdpa_input *in);
/* Tuning, for tests and benchmarks; call before the first input_feed().
 * window: bytes of the decode window (0 = default 256 KiB, min 64);
 * max_event: largest single event (0 = default 64 MiB);
 * simd: 1 = AVX2 splitter if the CPU has it, 0 = scalar splitter, -1 = keep.
 * Returns FSDPA_ESTATE after the first feed. */
fsdpa_status input_tune(fsdpa_input *in, size_t window, size_t max_event, int simd);
/* 1 if this input uses the AVX2/PCLMUL splitter. */
int input_simd_active(const fsdpa_input *in);
/* Name of the simdjson kernel in use ("icelake", "haswell", "fallback"...). */
const char *input_json_impl(void);
#endif
