#include "util/jsonr.h"
#include <stdio.h>
#include <string.h>

#define JR_MAX_DEPTH 128

void jr_init(jr *r, const char *s, size_t n) {
  memset(r, 0, sizeof *r);
  r->s = r->p = s;
  r->end = s + n;
  r->max_depth = JR_MAX_DEPTH;
}

int jr_fail(jr *r, const char *what) {
  if (!r->err) {
    r->err = 1;
    r->err_off = (size_t)(r->p - r->s);
    snprintf(r->msg, sizeof r->msg, "%s", what);
  }
  return 0;
}

static void ws(jr *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t')) r->p++;
}

int jr_peek(jr *r) {
  if (r->err) return -1;
  ws(r);
  return r->p < r->end ? (unsigned char)*r->p : -1;
}

static int lit(jr *r, char c, const char *what) {
  if (jr_peek(r) != (unsigned char)c) return jr_fail(r, what);
  r->p++;
  return 1;
}

int jr_key_is(const char *k, size_t kn, const char *l) { return strlen(l) == kn && !memcmp(k, l, kn); }

static int hexv(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int jr_str(jr *r, const char **raw, size_t *n) {
  if (!lit(r, '"', "expected a string")) return 0;
  const char *b = r->p;
  while (r->p < r->end) {
    unsigned char c = (unsigned char)*r->p;
    if (c == '"') {
      *raw = b;
      *n = (size_t)(r->p - b);
      r->p++;
      return 1;
    }
    if (c < 0x20) return jr_fail(r, "control character in a string");
    if (c == '\\') {
      if (r->end - r->p < 2) break;
      char e = r->p[1];
      if (e == 'u') {
        if (r->end - r->p < 6) break;
        for (int k = 2; k < 6; k++)
          if (hexv((unsigned char)r->p[k]) < 0) return jr_fail(r, "bad \\u escape");
        r->p += 6;
        continue;
      }
      if (!strchr("\"\\/bfnrt", e) || !e) return jr_fail(r, "bad escape");
      r->p += 2;
      continue;
    }
    r->p++;
  }
  return jr_fail(r, "unterminated string");
}

static int number(jr *r) {
  const char *b = r->p;
  if (r->p < r->end && *r->p == '-') r->p++;
  const char *d = r->p;
  while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
  if (r->p == d) return jr_fail(r, "bad number");
  if (*d == '0' && r->p - d > 1) return jr_fail(r, "leading zero in a number");
  if (r->p < r->end && *r->p == '.') {
    r->p++;
    const char *f = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    if (r->p == f) return jr_fail(r, "bad fraction");
  }
  if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
    r->p++;
    if (r->p < r->end && (*r->p == '+' || *r->p == '-')) r->p++;
    const char *f = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    if (r->p == f) return jr_fail(r, "bad exponent");
  }
  (void)b;
  return 1;
}

static int word(jr *r, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n)) return jr_fail(r, "bad literal");
  r->p += n;
  return 1;
}

static int skip_value(jr *r, int depth) {
  if (depth > r->max_depth) return jr_fail(r, "nesting too deep");
  int c = jr_peek(r);
  const char *s;
  size_t n, i = 0;
  const char *k;
  size_t kn;
  switch (c) {
    case '{':
      jr_obj_begin(r);
      while (jr_obj_next(r, &i, &k, &kn))
        if (!skip_value(r, depth + 1)) return 0;
      return jr_ok(r);
    case '[':
      jr_arr_begin(r);
      while (jr_arr_next(r, &i))
        if (!skip_value(r, depth + 1)) return 0;
      return jr_ok(r);
    case '"': return jr_str(r, &s, &n);
    case 't': return word(r, "true");
    case 'f': return word(r, "false");
    case 'n': return word(r, "null");
    case -1: return jr_fail(r, "unexpected end");
    default:
      if (c == '-' || (c >= '0' && c <= '9')) return number(r);
      return jr_fail(r, "unexpected character");
  }
}

int jr_skip(jr *r, const char **b, const char **e) {
  if (jr_peek(r) < 0) return jr_fail(r, "expected a value");
  *b = r->p;
  if (!skip_value(r, 0)) return 0;
  *e = r->p;
  return 1;
}

int jr_obj_begin(jr *r) { return lit(r, '{', "expected an object"); }
int jr_arr_begin(jr *r) { return lit(r, '[', "expected an array"); }

int jr_obj_next(jr *r, size_t *i, const char **key, size_t *kn) {
  int c = jr_peek(r);
  if (c == '}') {
    r->p++;
    return 0;
  }
  if (*i && !lit(r, ',', "expected ',' or '}'")) return 0;
  if (!jr_str(r, key, kn) || !lit(r, ':', "expected ':'")) return 0;
  (*i)++;
  return 1;
}

int jr_arr_next(jr *r, size_t *i) {
  int c = jr_peek(r);
  if (c == ']') {
    r->p++;
    return 0;
  }
  if (c < 0) return jr_fail(r, "unexpected end in an array");
  if (*i && !lit(r, ',', "expected ',' or ']'")) return 0;
  (*i)++;
  return 1;
}

int jr_null(jr *r) {
  if (jr_peek(r) != 'n') return 0;
  return word(r, "null");
}

int jr_i64(jr *r, int64_t *v, int64_t absent) {
  int c = jr_peek(r);
  if (c == 'n') {
    if (!word(r, "null")) return 0;
    *v = absent;
    return 1;
  }
  int neg = 0;
  if (c == '-') {
    neg = 1;
    r->p++;
  }
  if (r->p >= r->end || *r->p < '0' || *r->p > '9') return jr_fail(r, "expected an integer");
  uint64_t x = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  const char *d = r->p;
  while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
    unsigned dig = (unsigned)(*r->p - '0');
    if (x > (lim - dig) / 10) return jr_fail(r, "integer out of range");
    x = x * 10 + dig;
    r->p++;
  }
  if (*d == '0' && r->p - d > 1) return jr_fail(r, "leading zero in a number");
  if (r->p < r->end && (*r->p == '.' || *r->p == 'e' || *r->p == 'E'))
    return jr_fail(r, "expected an integer");
  *v = neg ? (x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x) : (int64_t)x;
  return 1;
}

int jr_end(jr *r) {
  if (jr_peek(r) != -1 && !r->err) return jr_fail(r, "trailing bytes after the document");
  return jr_ok(r);
}

static size_t put_utf8(char *o, uint32_t cp) {
  if (cp < 0x80) { o[0] = (char)cp; return 1; }
  if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (cp >> 18));
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

static uint32_t hex4(const char *p) {
  return (uint32_t)(hexv((unsigned char)p[0]) << 12 | hexv((unsigned char)p[1]) << 8 |
                    hexv((unsigned char)p[2]) << 4 | hexv((unsigned char)p[3]));
}

size_t jr_unescape(const char *s, size_t n, char *out) {
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    if (s[i] != '\\' || i + 1 >= n) {
      out[o++] = s[i++];
      continue;
    }
    char e = s[i + 1];
    if (e == 'u' && i + 6 <= n) {
      uint32_t cp = hex4(s + i + 2);
      i += 6;
      if (cp == 0xFFFD) {
        out[o++] = (char)0xFF;
        continue;
      }
      if (cp >= 0xD800 && cp < 0xDC00 && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
        uint32_t lo = hex4(s + i + 2);
        if (lo >= 0xDC00 && lo < 0xE000) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          i += 6;
        }
      }
      if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;  /* lone surrogate */
      o += put_utf8(out + o, cp);
      continue;
    }
    char c;
    switch (e) {
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      case 'r': c = '\r'; break;
      case 'b': c = '\b'; break;
      case 'f': c = '\f'; break;
      default: c = e;
    }
    out[o++] = c;
    i += 2;
  }
  out[o] = 0;
  return o;
}
