#include "util/jsonw.h"
#include "fsdpa/fsdpa.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sb_init(sbuf *b, fa_alloc *a) { memset(b, 0, sizeof *b); b->a = a; }
void sb_free(sbuf *b) { fa_free(b->a, b->p, b->cap); b->p = NULL; b->len = b->cap = 0; }

static int sb_grow(sbuf *b, size_t extra) {
  if (b->failed) return -1;
  if (b->len + extra + 1 <= b->cap) return 0;
  size_t nc = b->cap ? b->cap : 4096;
  while (nc < b->len + extra + 1) nc *= 2;
  char *np = fa_realloc(b->a, b->p, b->cap, nc);
  if (!np) { b->failed = fa_fail_status(b->a); return -1; }
  b->p = np;
  b->cap = nc;
  return 0;
}

void sb_putn(sbuf *b, const char *s, size_t n) {
  if (sb_grow(b, n)) return;
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
}
void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

void sb_printf(sbuf *b, const char *fmt, ...) {
  char tmp[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof tmp) { sb_putn(b, tmp, (size_t)n); return; }
  if (sb_grow(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* length of a valid UTF-8 sequence at s (n bytes available), 0 if invalid */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t need;
  unsigned min;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) { need = 2; min = 0x80; c &= 0x1F; }
  else if ((c & 0xF0) == 0xE0) { need = 3; min = 0x800; c &= 0x0F; }
  else if ((c & 0xF8) == 0xF0) { need = 4; min = 0x10000; c &= 0x07; }
  else return 0;
  if (n < need) return 0;
  for (size_t i = 1; i < need; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    c = (c << 6) | (s[i] & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  return need;
}

void sb_json_str(sbuf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  sb_putn(b, "\"", 1);
  size_t run = 0;
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) { i++; run++; continue; }
    if (run) { sb_putn(b, s + i - run, run); run = 0; }
    if (c >= 0x80) {
      size_t k = utf8_len((const unsigned char *)s + i, n - i);
      if (k) sb_putn(b, s + i, k);
      else sb_puts(b, "\\ufffd");
      i += k ? k : 1;
      continue;
    }
    char esc[7];
    switch (c) {
      case '"': sb_putn(b, "\\\"", 2); break;
      case '\\': sb_putn(b, "\\\\", 2); break;
      case '\n': sb_putn(b, "\\n", 2); break;
      case '\r': sb_putn(b, "\\r", 2); break;
      case '\t': sb_putn(b, "\\t", 2); break;
      default:
        memcpy(esc, "\\u00", 4);
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        sb_putn(b, esc, 6);
    }
    i++;
  }
  if (run) sb_putn(b, s + n - run, run);
  sb_putn(b, "\"", 1);
}

void jw_init(jsonw *w, sbuf *b, int pretty) {
  memset(w, 0, sizeof *w);
  w->b = b;
  w->pretty = pretty;
  w->first[0] = 1;
}

static void newline(jsonw *w) {
  if (!w->pretty) return;
  sb_putn(w->b, "\n", 1);
  for (int i = 0; i < w->depth; i++) sb_putn(w->b, "  ", 2);
}

/* separator before a value or key */
static void pre(jsonw *w) {
  if (w->after_key) { w->after_key = 0; return; }
  if (w->depth > 0) {
    if (!w->first[w->depth]) sb_putn(w->b, ",", 1);
    w->first[w->depth] = 0;
    newline(w);
  }
}

static void open(jsonw *w, char c) {
  pre(w);
  sb_putn(w->b, &c, 1);
  if (w->depth < 63) w->depth++;
  w->first[w->depth] = 1;
}
static void close_(jsonw *w, char c) {
  int empty = w->first[w->depth];
  if (w->depth > 0) w->depth--;
  if (!empty) newline(w);
  sb_putn(w->b, &c, 1);
}

void jw_obj(jsonw *w) { open(w, '{'); }
void jw_obj_end(jsonw *w) { close_(w, '}'); }
void jw_arr(jsonw *w) { open(w, '['); }
void jw_arr_end(jsonw *w) { close_(w, ']'); }

void jw_key(jsonw *w, const char *k) {
  pre(w);
  sb_json_str(w->b, k, strlen(k));
  sb_putn(w->b, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
  w->after_key = 1;
}
void jw_strn(jsonw *w, const char *s, size_t n) { pre(w); sb_json_str(w->b, s ? s : "", s ? n : 0); }
void jw_str(jsonw *w, const char *s) { jw_strn(w, s, s ? strlen(s) : 0); }
void jw_null(jsonw *w) { pre(w); sb_putn(w->b, "null", 4); }
void jw_i64(jsonw *w, int64_t v) {
  if (v == FSDPA_ABSENT) { jw_null(w); return; }
  pre(w);
  sb_printf(w->b, "%lld", (long long)v);
}
void jw_u64(jsonw *w, uint64_t v) { pre(w); sb_printf(w->b, "%llu", (unsigned long long)v); }
void jw_f64(jsonw *w, double v, int decimals) {
  if (!isfinite(v)) { jw_null(w); return; }
  pre(w);
  sb_printf(w->b, "%.*f", decimals, v);
}
void jw_ratio(jsonw *w, double v) {
  if (v < 0 || !isfinite(v)) { jw_null(w); return; }
  jw_f64(w, v, 6);
}
void jw_bool(jsonw *w, int v) { pre(w); sb_puts(w->b, v ? "true" : "false"); }
void jw_raw(jsonw *w, const char *json, size_t n) { pre(w); sb_putn(w->b, json, n); }
void jw_kstr(jsonw *w, const char *k, const char *s) { jw_key(w, k); jw_str(w, s); }
void jw_ki64(jsonw *w, const char *k, int64_t v) { jw_key(w, k); jw_i64(w, v); }
void jw_ku64(jsonw *w, const char *k, uint64_t v) { jw_key(w, k); jw_u64(w, v); }
void jw_kratio(jsonw *w, const char *k, double v) { jw_key(w, k); jw_ratio(w, v); }
void jw_knull(jsonw *w, const char *k) { jw_key(w, k); jw_null(w); }
void jw_kstr_or_null(jsonw *w, const char *k, const char *s) { jw_kstrn_or_null(w, k, s, s ? strlen(s) : 0); }
void jw_kstrn_or_null(jsonw *w, const char *k, const char *s, size_t n) {
  jw_key(w, k);
  if (s) jw_strn(w, s, n);
  else jw_null(w);
}
