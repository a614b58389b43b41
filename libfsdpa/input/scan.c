#include "input/scan.h"

#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define EV_HAVE_X86 1
#include <immintrin.h>
#else
#define EV_HAVE_X86 0
#endif

int ev_scan_simd_available(void) {
#if EV_HAVE_X86
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul");
#else
  return 0;
#endif
}

void ev_scan_init(ev_scan *s, size_t pos, size_t max_event) {
  memset(s, 0, sizeof *s);
  s->max_event = max_event;
  s->gap_from = pos;
  s->gap_state = EVG_OPEN;
}

void ev_scan_rebase(ev_scan *s, size_t shift) {
  s->ev_begin = s->ev_begin >= shift ? s->ev_begin - shift : 0;
  s->gap_from = s->gap_from >= shift ? s->gap_from - shift : 0;
}

static int scan_err(ev_scan *s, size_t at, int kind, const char *what) {
  s->err_pos = at;
  s->err_kind = kind;
  s->err_what = what;
  return EVS_ERROR;
}

/* Check the bytes between elements, [gap_from, to).  EVS_MORE: all blanks /
 * a proper ','; EVS_END: found the closing ']'; EVS_ERROR. */
static int gap_check(ev_scan *s, const char *b, size_t to) {
  for (size_t q = s->gap_from; q < to; q++) {
    unsigned char c = (unsigned char)b[q];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == ',') {
      if (s->gap_state != EVG_AFTER_ELEM)
        return scan_err(s, q, EVE_PARSE, s->gap_state == EVG_OPEN ? "unexpected ',' before the first event"
                                                                  : "unexpected ',' (missing event)");
      s->gap_state = EVG_AFTER_COMMA;
      continue;
    }
    if (c == ']') {
      if (s->gap_state == EVG_AFTER_COMMA) return scan_err(s, q, EVE_PARSE, "trailing ',' before ']'");
      s->end_pos = q + 1;
      return EVS_END;
    }
    if (s->gap_state == EVG_AFTER_ELEM) return scan_err(s, q, EVE_PARSE, "expected ',' or ']' after an event");
    if (c == '"' || c == '[' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n')
      return scan_err(s, q, EVE_NOTOBJ, "traceEvents element is not an object");
    return scan_err(s, q, EVE_PARSE, "unexpected character in the event array");
  }
  s->gap_from = to;
  return EVS_MORE;
}

static inline int on_open(ev_scan *s, const char *b, size_t p) {
  if (s->depth == 0) {
    int r = gap_check(s, b, p);
    if (r != EVS_MORE) return r;
    if (s->gap_state == EVG_AFTER_ELEM) return scan_err(s, p, EVE_PARSE, "expected ',' or ']' after an event");
    s->ev_begin = p;
  }
  s->depth++;
  return EVS_MORE;
}

static inline int on_close(ev_scan *s, const char *b, size_t p) {
  if (s->depth == 0) {
    int r = gap_check(s, b, p);
    if (r != EVS_MORE) return r;
    return scan_err(s, p, EVE_PARSE, "unexpected '}'");
  }
  if (--s->depth == 0) {
    if (p + 1 - s->ev_begin > s->max_event) return scan_err(s, s->ev_begin, EVE_LIMIT, "event larger than the limit");
    if (s->bcount == 0) s->bfirst = s->ev_begin;
    s->blast = p + 1;
    s->bcount++;
    s->gap_from = p + 1;
    s->gap_state = EVG_AFTER_ELEM;
  }
  return EVS_MORE;
}

/* Reference implementation.  Mirrors the SIMD semantics exactly: a
 * backslash escapes the next byte wherever it is (an escaped backslash does
 * not), unescaped quotes toggle the string state, and '{' '}' outside
 * strings are structural even right after a backslash. */
static int run_scalar(ev_scan *s, const char *b, size_t *pos, size_t limit) {
  size_t i = *pos;
  int in_str = s->in_str != 0;
  int esc = (int)s->next_esc;
  for (; i < limit; i++) {
    char c = b[i];
    int escaped = esc;
    esc = 0;
    if (c == '\\') {
      esc = !escaped;
      continue;
    }
    if (c == '"') {
      if (!escaped) in_str = !in_str;
      continue;
    }
    if (in_str || (c != '{' && c != '}')) continue;
    int r = c == '{' ? on_open(s, b, i) : on_close(s, b, i);
    if (r != EVS_MORE) {
      *pos = r == EVS_END ? s->end_pos : i;
      return r;
    }
  }
  s->in_str = in_str ? ~(uint64_t)0 : 0;
  s->next_esc = (uint64_t)esc;
  *pos = i;
  return EVS_MORE;
}

#if EV_HAVE_X86
__attribute__((target("avx2,pclmul"))) static inline uint64_t eq64(__m256i lo, __m256i hi, __m256i v) {
  uint32_t a = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, v));
  uint32_t c = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, v));
  return (uint64_t)a | ((uint64_t)c << 32);
}

/* simdjson 3.0.1 stage-1 string scanning (json_string_scanner), then the
 * brace bits outside strings are walked one by one (a few per event). */
__attribute__((target("avx2,pclmul"))) static int run_avx2(ev_scan *s, const char *b, size_t *pos,
                                                          size_t limit, int eof) {
  const uint64_t even_bits = 0x5555555555555555ULL;
  const __m256i vq = _mm256_set1_epi8('"'), vbs = _mm256_set1_epi8('\\');
  const __m256i vl = _mm256_set1_epi8('{'), vr = _mm256_set1_epi8('}');
  uint64_t prev_in_str = s->in_str, prev_esc = s->next_esc;
  size_t i = *pos;
  while (i + 64 <= limit || (eof && i < limit)) {
    __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)(b + i));
    __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(b + i + 32));
    uint64_t valid = limit - i >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << (limit - i)) - 1);
    uint64_t bs = eq64(lo, hi, vbs) & valid;
    uint64_t escaped;
    if (!bs) {
      escaped = prev_esc;
      prev_esc = 0;
    } else {
      bs &= ~prev_esc;
      uint64_t follows = (bs << 1) | prev_esc;
      uint64_t odd_starts = bs & ~even_bits & ~follows;
      uint64_t seq_even;
      prev_esc = __builtin_add_overflow(odd_starts, bs, &seq_even);
      escaped = (even_bits ^ (seq_even << 1)) & follows;
    }
    uint64_t quote = eq64(lo, hi, vq) & valid & ~escaped;
    uint64_t in_str = (uint64_t)_mm_cvtsi128_si64(
        _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)quote), _mm_set1_epi8((char)0xFF), 0));
    in_str ^= prev_in_str;
    prev_in_str = (uint64_t)((int64_t)in_str >> 63);
    uint64_t st = (eq64(lo, hi, vl) | eq64(lo, hi, vr)) & valid & ~in_str;
    while (st) {
      size_t p = i + (unsigned)__builtin_ctzll(st);
      st &= st - 1;
      int r = b[p] == '{' ? on_open(s, b, p) : on_close(s, b, p);
      if (r != EVS_MORE) {
        *pos = r == EVS_END ? s->end_pos : p;
        return r;
      }
    }
    i += 64;
  }
  if (i > limit) i = limit;
  s->in_str = prev_in_str;
  s->next_esc = prev_esc;
  *pos = i;
  return EVS_MORE;
}
#endif

int ev_scan_run(ev_scan *s, int simd, const char *b, size_t *pos, size_t limit, int eof) {
  int r;
#if EV_HAVE_X86
  if (simd) r = run_avx2(s, b, pos, limit, eof);
  else r = run_scalar(s, b, pos, limit);
#else
  (void)simd;
  (void)eof;
  r = run_scalar(s, b, pos, limit);
#endif
  if (r != EVS_MORE || s->depth != 0) return r;
  /* Between elements: check the blanks scanned so far now, so the window
   * never has to keep them. */
  r = gap_check(s, b, *pos);
  if (r == EVS_END) *pos = s->end_pos;
  else if (r == EVS_ERROR) *pos = s->err_pos;
  return r;
}

int ev_scan_next_element(const char *b, size_t from, size_t to, size_t *begin, size_t *end) {
  size_t i = from;
  while (i < to && b[i] != '{') i++;
  if (i >= to) return 0;
  *begin = i;
  int in_str = 0, esc = 0;
  int64_t depth = 0;
  for (; i < to; i++) {
    char c = b[i];
    int escaped = esc;
    esc = 0;
    if (c == '\\') { esc = !escaped; continue; }
    if (c == '"') { if (!escaped) in_str = !in_str; continue; }
    if (in_str) continue;
    if (c == '{') depth++;
    else if (c == '}' && --depth == 0) {
      *end = i + 1;
      return 1;
    }
  }
  return 0;
}
