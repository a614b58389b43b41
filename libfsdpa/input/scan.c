#include "input/scan.h"

#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define EV_HAVE_X86 1
#include <immintrin.h>
#else
#define EV_HAVE_X86 0
#endif
/* WebAssembly SIMD is decided when compiling (-msimd128): an engine without
 * it refuses the whole module, so there is nothing to detect at run time. */
#if defined(__wasm_simd128__)
#define EV_HAVE_WASM 1
#include <wasm_simd128.h>
#else
#define EV_HAVE_WASM 0
#endif

int ev_scan_simd_available(void) {
#if EV_HAVE_X86
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul");
#elif EV_HAVE_WASM
  return 1;
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

/* The block scanners: simdjson 3.0.1 stage-1 string scanning
 * (json_string_scanner) over 64-byte blocks, then the brace bits outside
 * strings are walked one by one (a few per event).  Each instruction set
 * only computes a block's byte masks and the prefix XOR of its quotes;
 * the escapes (EV_BLOCK_ESCAPED) and the braces (block_braces) are shared. */
typedef struct blk_state {
  uint64_t in_str;  /* all-ones if the previous block ended inside a string */
  uint64_t esc;     /* 1 if the first byte of this block is escaped */
} blk_state;

/* `escaped` := the bytes of a block that a backslash escapes, given its
 * backslash mask `bs`; carries the escape of the next block in k->esc. */
#define EV_BLOCK_ESCAPED(bs, k, escaped)                                           \
  do {                                                                            \
    const uint64_t even_bits_ = 0x5555555555555555ULL;                            \
    if (!(bs)) {                                                                  \
      (escaped) = (k)->esc;                                                       \
      (k)->esc = 0;                                                               \
    } else {                                                                      \
      uint64_t b_ = (bs) & ~(k)->esc;                                             \
      uint64_t follows_ = (b_ << 1) | (k)->esc;                                   \
      uint64_t odd_starts_ = b_ & ~even_bits_ & ~follows_;                        \
      uint64_t seq_even_;                                                         \
      (k)->esc = __builtin_add_overflow(odd_starts_, b_, &seq_even_);             \
      (escaped) = (even_bits_ ^ (seq_even_ << 1)) & follows_;                     \
    }                                                                             \
  } while (0)

/* The braces outside strings of the block at b + i, in order. */
static inline int block_braces(ev_scan *s, const char *b, size_t i, uint64_t st, size_t *pos) {
  while (st) {
    size_t p = i + (unsigned)__builtin_ctzll(st);
    st &= st - 1;
    int r = b[p] == '{' ? on_open(s, b, p) : on_close(s, b, p);
    if (r != EVS_MORE) {
      *pos = r == EVS_END ? s->end_pos : p;
      return r;
    }
  }
  return EVS_MORE;
}

static inline uint64_t valid_mask(size_t i, size_t limit) {
  return limit - i >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << (limit - i)) - 1);
}

#if EV_HAVE_X86
__attribute__((target("avx2,pclmul"))) static inline uint64_t eq64(__m256i lo, __m256i hi, __m256i v) {
  uint32_t a = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, v));
  uint32_t c = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, v));
  return (uint64_t)a | ((uint64_t)c << 32);
}

__attribute__((target("avx2,pclmul"))) static int run_avx2(ev_scan *s, const char *b, size_t *pos,
                                                          size_t limit, int eof) {
  const __m256i vq = _mm256_set1_epi8('"'), vbs = _mm256_set1_epi8('\\');
  const __m256i vl = _mm256_set1_epi8('{'), vr = _mm256_set1_epi8('}');
  blk_state k = {s->in_str, s->next_esc};
  size_t i = *pos;
  while (i + 64 <= limit || (eof && i < limit)) {
    __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)(b + i));
    __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(b + i + 32));
    uint64_t valid = valid_mask(i, limit);
    uint64_t bs = eq64(lo, hi, vbs) & valid, escaped;
    EV_BLOCK_ESCAPED(bs, &k, escaped);
    uint64_t quote = eq64(lo, hi, vq) & valid & ~escaped;
    uint64_t in_str = (uint64_t)_mm_cvtsi128_si64(
        _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)quote), _mm_set1_epi8((char)0xFF), 0));
    in_str ^= k.in_str;
    k.in_str = (uint64_t)((int64_t)in_str >> 63);
    int r = block_braces(s, b, i, (eq64(lo, hi, vl) | eq64(lo, hi, vr)) & valid & ~in_str, pos);
    if (r != EVS_MORE) return r;
    i += 64;
  }
  if (i > limit) i = limit;
  s->in_str = k.in_str;
  s->next_esc = k.esc;
  *pos = i;
  return EVS_MORE;
}
#endif

#if EV_HAVE_WASM
/* The four 16-byte lanes' byte masks as one 64-bit mask. */
static inline uint64_t weq64(const v128_t v[4], v128_t c) {
  return (uint64_t)wasm_i8x16_bitmask(wasm_i8x16_eq(v[0], c)) |
         ((uint64_t)wasm_i8x16_bitmask(wasm_i8x16_eq(v[1], c)) << 16) |
         ((uint64_t)wasm_i8x16_bitmask(wasm_i8x16_eq(v[2], c)) << 32) |
         ((uint64_t)wasm_i8x16_bitmask(wasm_i8x16_eq(v[3], c)) << 48);
}

/* WebAssembly SIMD (simd128) has no carry-less multiply: the prefix XOR is
 * six shifts. */
static inline uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

static int run_wasm(ev_scan *s, const char *b, size_t *pos, size_t limit, int eof) {
  const v128_t vq = wasm_i8x16_splat('"'), vbs = wasm_i8x16_splat('\\');
  const v128_t vl = wasm_i8x16_splat('{'), vr = wasm_i8x16_splat('}');
  blk_state k = {s->in_str, s->next_esc};
  size_t i = *pos;
  while (i + 64 <= limit || (eof && i < limit)) {
    v128_t v[4];
    for (int j = 0; j < 4; j++) v[j] = wasm_v128_load(b + i + 16 * j);
    uint64_t valid = valid_mask(i, limit);
    uint64_t bs = weq64(v, vbs) & valid, escaped;
    EV_BLOCK_ESCAPED(bs, &k, escaped);
    uint64_t in_str = prefix_xor(weq64(v, vq) & valid & ~escaped) ^ k.in_str;
    k.in_str = (uint64_t)((int64_t)in_str >> 63);
    int r = block_braces(s, b, i, (weq64(v, vl) | weq64(v, vr)) & valid & ~in_str, pos);
    if (r != EVS_MORE) return r;
    i += 64;
  }
  if (i > limit) i = limit;
  s->in_str = k.in_str;
  s->next_esc = k.esc;
  *pos = i;
  return EVS_MORE;
}
#endif

int ev_scan_run(ev_scan *s, int simd, const char *b, size_t *pos, size_t limit, int eof) {
  int r;
#if EV_HAVE_X86
  if (simd) r = run_avx2(s, b, pos, limit, eof);
  else r = run_scalar(s, b, pos, limit);
#elif EV_HAVE_WASM
  if (simd) r = run_wasm(s, b, pos, limit, eof);
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
