/* json_shim: the only C++ in the input pipeline.  A tiny extern "C" facade
 * over simdjson On-Demand (Debian libsimdjson-dev 3.0.1) that decodes a whole
 * batch of trace events per call and fills fsdpa_event structs directly, so
 * the C/C++ boundary is crossed once per window plus once per event (the
 * callback), never per field.  Built -fno-exceptions -fno-rtti, error codes
 * only (no .value()), hidden visibility. */
#ifndef FSDPA_INPUT_JSON_SHIM_H
#define FSDPA_INPUT_JSON_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include "fsdpa/fsdpa.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes that must be readable (any value) after the end of every input. */
#define SJ_PADDING 64

typedef struct sj_parser sj_parser;

enum {
  SJ_OK = 0,
  SJ_ENOMEM = 1,     /* simdjson could not allocate its buffers */
  SJ_ECAPACITY = 2,  /* batch larger than the parser's maximum capacity */
  SJ_EJSON = 3,      /* malformed JSON (simdjson error) */
  SJ_EVALUE = 4,     /* a field we decode has a bad value (e.g. ts "abc", bad number) */
  SJ_ENOTOBJ = 5,    /* an array element is not an object */
  SJ_ESTOP = 6       /* the callback returned nonzero */
};

/** Outcome of sj_decode_events(). */
typedef struct sj_result {
  size_t count;    /* events handed to the callback that returned 0 */
  size_t err_off;  /* error / stopping event: byte offset in buf; SIZE_MAX if unknown */
  int cb_ret;      /* SJ_ESTOP: the callback's return value */
  char what[112];  /* error description, NUL-terminated ("" if none) */
} sj_result;

/** Called once per decoded event.  `off` is the event's byte offset in the
 *  buf given to sj_decode_events().  Strings in *ev point into parser memory
 *  valid only during the call.  Nonzero return stops decoding (SJ_ESTOP). */
typedef int (*sj_event_fn)(void *ud, const fsdpa_event *ev, size_t off);

/** sizeof/alignof the parser object; the caller allocates it (through its
 *  own allocator) and passes the memory to sj_parser_init().  simdjson's
 *  internal index buffers are still allocated by libsimdjson (operator new):
 *  see sj_parser_footprint(). */
size_t sj_parser_size(void);
size_t sj_parser_align(void);
/** Construct a parser in `mem`; documents may be up to max_capacity bytes. */
sj_parser *sj_parser_init(void *mem, size_t max_capacity);
/** Destroy (does not release `mem`). */
void sj_parser_destroy(sj_parser *p);
/** Make room for documents of `capacity` bytes now (SJ_OK, SJ_ENOMEM,
 *  SJ_ECAPACITY), so batches do not trigger reallocation one by one. */
int sj_parser_reserve(sj_parser *p, size_t capacity);
/** Approximate bytes simdjson holds for this parser's current capacity. */
size_t sj_parser_footprint(const sj_parser *p);
/** Name of the simdjson kernel picked at runtime ("icelake", "haswell", ...). */
const char *sj_implementation_name(void);

/**
 * Decode a JSON array of trace events: buf[0..len) is "[ {..}, {..} ]" and
 * cap >= len + SJ_PADDING bytes are readable.  Returns SJ_OK or an SJ_E*
 * code with *res filled.  Events are passed to cb in order; on error the
 * events before the bad one have been delivered (res->count of them) unless
 * the error is in simdjson's first pass (malformed UTF-8, unescaped control
 * characters): then none were (count 0) and the caller should decode the
 * events one by one to find the bad one.
 *
 * What is validated: everything simdjson's first pass checks over the whole
 * batch (UTF-8, string termination and control characters, bracket
 * structure) and every value the decoder reads.  Values of fields that are
 * not decoded are skipped by On-Demand without full validation.
 */
int sj_decode_events(sj_parser *p, const char *buf, size_t len, size_t cap,
                     sj_event_fn cb, void *ud, sj_result *res);

#ifdef __cplusplus
}
#endif
#endif
