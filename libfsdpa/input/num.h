/* Exact number parsing for the input pipeline, shared by the C code and the
 * C++ simdjson shim (header-only, valid C11 and C++17).
 *
 * Trace times are decimal microseconds ("1365627862757.064", "1717559238502437",
 * "12.5e-3").  They are converted to int64 nanoseconds straight from the
 * decimal digits, never through a double, so every value with at most 3
 * fraction digits is exact and longer fractions round half away from zero
 * (i.e. half up on the magnitude: 12.0005 us -> 12001 ns, -12.0005 -> -12001).
 */
#ifndef FSDPA_INPUT_NUM_H
#define FSDPA_INPUT_NUM_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  FA_NUM_OK = 0,
  FA_NUM_SYNTAX = 1,  /* not a JSON number */
  FA_NUM_RANGE = 2,   /* outside (INT64_MIN, INT64_MAX] after scaling */
  FA_NUM_INEXACT = 3  /* exact mode: the scaled value has a fractional part */
};

static inline int fa_num_isdigit_(char c) { return c >= '0' && c <= '9'; }

/* Digit j of the concatenation a[0..na) ++ b[0..nb). */
static inline int fa_num_digit_(const char *a, size_t na, const char *b, size_t j) {
  return (j < na ? a[j] : b[j - na]) - '0';
}

/* Parse s[0..n), a number in JSON grammar (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?,
 * nothing else, no surrounding blanks), and store value * 10^scale in *out.
 * exact != 0: a nonzero fractional part after scaling gives FA_NUM_INEXACT;
 * exact == 0: it is rounded half away from zero.  Any number of digits is
 * accepted as long as the result fits; INT64_MIN itself is refused
 * (FA_NUM_RANGE) because it is FSDPA_ABSENT.  *out is written only on success. */
static inline int fa_num_parse(const char *s, size_t n, int scale, int exact, int64_t *out) {
  size_t i = 0;
  int neg = 0;
  if (i < n && s[i] == '-') { neg = 1; i++; }
  size_t ib = i;
  uint64_t iv = 0; /* value of the integer digits (meaningful while ni <= 19) */
  while (i < n && fa_num_isdigit_(s[i])) iv = iv * 10u + (uint64_t)(s[i++] - '0');
  size_t ni = i - ib;
  if (ni == 0) return FA_NUM_SYNTAX;
  if (ni > 1 && s[ib] == '0') return FA_NUM_SYNTAX;
  size_t fb = i, nf = 0;
  uint64_t fv = 0; /* value of the fraction digits (meaningful while nf <= 19) */
  if (i < n && s[i] == '.') {
    i++;
    fb = i;
    while (i < n && fa_num_isdigit_(s[i])) fv = fv * 10u + (uint64_t)(s[i++] - '0');
    nf = i - fb;
    if (nf == 0) return FA_NUM_SYNTAX;
  }
  if (i == n && scale >= 0 && scale <= 3 && ni <= 15 && nf <= (size_t)scale) {
    /* fast path, the common case ("1365627862757.064", "42"): exact */
    static const uint64_t p10[4] = {1u, 10u, 100u, 1000u};
    uint64_t v = iv * p10[scale] + fv * p10[scale - (int)nf];
    *out = neg ? -(int64_t)v : (int64_t)v;
    return FA_NUM_OK;
  }
  int64_t ex = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    int eneg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) { eneg = s[i] == '-'; i++; }
    size_t eb = i;
    while (i < n && fa_num_isdigit_(s[i])) {
      if (ex < 100000000) ex = ex * 10 + (s[i] - '0'); /* saturates: result is 0 or out of range */
      i++;
    }
    if (i == eb) return FA_NUM_SYNTAX;
    if (eneg) ex = -ex;
  }
  if (i != n) return FA_NUM_SYNTAX;

  /* value = D * 10^k with D the digit string int ++ frac */
  const char *ip = s + ib, *fp = s + fb;
  size_t total = ni + nf, z = 0;
  while (z < total && fa_num_digit_(ip, ni, fp, z) == 0) z++;
  if (z == total) { *out = 0; return FA_NUM_OK; }
  int64_t nd = (int64_t)(total - z);
  int64_t k = ex - (int64_t)nf + scale;
  int64_t q = nd + k; /* digits of the integer part of the result */
  if (q > 19) return FA_NUM_RANGE;
  uint64_t acc = 0;
  int64_t take = q < nd ? q : nd;
  for (int64_t j = 0; j < take; j++) acc = acc * 10u + (uint64_t)fa_num_digit_(ip, ni, fp, z + (size_t)j);
  for (int64_t j = nd; j < q; j++) acc *= 10u; /* q <= 19 digits: fits in uint64 */
  if (q < nd) {
    /* dropped digits: from index max(q,0) of the significant digits */
    int64_t from = q > 0 ? q : 0;
    if (exact) {
      for (int64_t j = from; j < nd; j++)
        if (fa_num_digit_(ip, ni, fp, z + (size_t)j) != 0) return FA_NUM_INEXACT;
    } else if (q >= 0 && fa_num_digit_(ip, ni, fp, z + (size_t)q) >= 5) {
      acc += 1u; /* q < 0: the value is below 0.1, it rounds to 0 */
    }
  }
  if (neg) {
    if (acc > (uint64_t)INT64_MAX) return FA_NUM_RANGE; /* refuses INT64_MIN too */
    *out = -(int64_t)acc;
  } else {
    if (acc > (uint64_t)INT64_MAX) return FA_NUM_RANGE;
    *out = (int64_t)acc;
  }
  return FA_NUM_OK;
}

/* Microseconds (a JSON number token or the text of a JSON string) to ns. */
static inline int fa_us_to_ns(const char *s, size_t n, int64_t *out) {
  return fa_num_parse(s, n, 3, 0, out);
}

/* An integer-valued id given as a string: "7", "-1", "stream 7", " 7 ",
 * "stream 7 " (legacy GPU tids).  Leading/trailing blanks are ignored and
 * leading zeros allowed.  Returns FA_NUM_OK or FA_NUM_SYNTAX / FA_NUM_RANGE. */
static inline int fa_parse_id_str(const char *s, size_t n, int64_t *out) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  static const char pre[] = "stream ";
  size_t k = 0;
  while (k < 7 && i + k < n && s[i + k] == pre[k]) k++;
  if (k == 7) {
    i += 7;
    while (i < n && s[i] == ' ') i++;
  }
  int neg = 0;
  if (i < n && s[i] == '-') { neg = 1; i++; }
  if (i >= n) return FA_NUM_SYNTAX;
  uint64_t acc = 0;
  for (; i < n; i++) {
    if (!fa_num_isdigit_(s[i])) return FA_NUM_SYNTAX;
    uint64_t d = (uint64_t)(s[i] - '0');
    if (acc > ((uint64_t)INT64_MAX - d) / 10u) return FA_NUM_RANGE;
    acc = acc * 10u + d;
  }
  *out = neg ? -(int64_t)acc : (int64_t)acc;
  return FA_NUM_OK;
}

#ifdef __cplusplus
}
#endif
#endif
