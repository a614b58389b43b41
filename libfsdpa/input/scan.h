/* Event splitter: finds the byte spans of the elements of the traceEvents
 * array (or of a bare top-level array) in a window that is fed piecewise.
 *
 * Inside an element it tracks only strings, backslash escapes and brace
 * depth (simdjson validates each element later).  Between elements it
 * checks every byte itself: only blanks, exactly one ',' between elements,
 * and the closing ']'.  Two implementations with identical results: a
 * 64-byte block scanner (simdjson stage-1 style; AVX2+PCLMUL on x86-64,
 * WebAssembly SIMD in a -msimd128 build) and a scalar byte loop;
 * ev_scan_simd_available() says whether the block scanner can run. */
#ifndef FSDPA_INPUT_SCAN_H
#define FSDPA_INPUT_SCAN_H
#include <stddef.h>
#include <stdint.h>

/* Bytes that must be readable past `limit` (the SIMD path loads whole
 * 64-byte blocks). */
#define EV_SCAN_OVERREAD 64

enum { EVS_MORE = 0, EVS_END = 1, EVS_ERROR = 2 };
enum { EVG_OPEN = 0, EVG_AFTER_ELEM = 1, EVG_AFTER_COMMA = 2 };
enum { EVE_PARSE = 0, EVE_NOTOBJ = 1, EVE_LIMIT = 2 };

typedef struct ev_scan {
  int64_t depth;      /* brace depth inside the current element; 0 = between elements */
  uint64_t in_str;    /* all-ones if the last scanned byte left us inside a string */
  uint64_t next_esc;  /* 1 if the next byte is escaped by a backslash */
  size_t ev_begin;    /* window offset of the element in progress (depth > 0) */
  size_t max_event;   /* a complete element longer than this is an EVE_LIMIT error */
  size_t gap_from;    /* between elements: first byte not yet checked */
  int gap_state;      /* EVG_* */
  /* complete elements not yet handed on: [bfirst, blast) holds bcount of them */
  size_t bfirst, blast, bcount;
  /* EVS_END: offset just past the ']' */
  size_t end_pos;
  /* EVS_ERROR */
  size_t err_pos;
  int err_kind;       /* EVE_* */
  const char *err_what;
} ev_scan;

/* 1 if the block scanner can run (x86-64: on this CPU; wasm: simd128 build). */
int ev_scan_simd_available(void);
/* Start scanning the array whose '[' ends just before window offset `pos`. */
void ev_scan_init(ev_scan *s, size_t pos, size_t max_event);
/* Scan b[*pos .. limit).  Unless `eof`, the SIMD path leaves a partial final
 * block (< 64 bytes) unscanned.  Returns EVS_MORE (need more bytes; *pos is
 * the first unscanned byte), EVS_END (array closed, *pos = end_pos) or
 * EVS_ERROR (err_* set).  Complete elements are appended to the batch. */
int ev_scan_run(ev_scan *s, int simd, const char *b, size_t *pos, size_t limit, int eof);
/* Window compaction moved everything down by `shift` bytes (batch empty). */
void ev_scan_rebase(ev_scan *s, size_t shift);
/* Start offset of the element span that follows `from` in a span list
 * checked by the scanner (skips blanks and commas), and its end; used to walk
 * a batch one element at a time.  Returns 0 if there is none before `to`. */
int ev_scan_next_element(const char *b, size_t from, size_t to, size_t *begin, size_t *end);
#endif
