// json_shim.cpp - batch decoder of trace events over simdjson On-Demand.
// Built -fno-exceptions -fno-rtti -g0 with hidden visibility; error codes only
// (never .value()).  See json_shim.h for the contract.
//
// Field rules (the C side's tests pin them down):
//  * ph: a string; its first byte ("" -> 0).  Other types: absent (0).
//  * cat, name and the string args: JSON strings only (unescaped by simdjson);
//    any other type is treated as absent.
//  * ts, dur: a JSON number or a string holding one, microseconds, converted
//    to int64 ns exactly from the decimal text (fa_us_to_ns, no double).
//    null is absent.  Anything else ("abc", true, {}, out of int64 range) is
//    an error (SJ_EVALUE -> FSDPA_EPARSE with the byte offset): a trace whose
//    times cannot be read cannot be analysed.  Negative dur is clamped to 0.
//  * pid, tid: an integer-valued number, or a string "7" / "stream 7" /
//    "stream 7 "; anything else ("Spans", "", 7.5, 1e30) is FSDPA_ABSENT.
//  * integer args: integer-valued numbers that fit int64 (1, 1.0, 1e3), or
//    numeric strings; non-integral numbers, values outside int64 (e.g. the
//    uint64 "Comms Id" 10159970886766084423) and other types are ABSENT.
//  * A number token that is not valid JSON in a field we read is SJ_EVALUE.
//  * "External id" wins over legacy "external id"; "Bytes" over "bytes".
//  * label is args.name of ph "M" events only.
//  * Input Dims / Input type / Concrete Inputs: a JSON array's exact text
//    (the store checks and compacts it); any other type is absent.
#include "input/json_shim.h"
#include "input/num.h"

#include <simdjson.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <new>

using namespace simdjson;

static_assert(SJ_PADDING >= SIMDJSON_PADDING, "SJ_PADDING too small");

struct sj_parser {
  ondemand::parser od;
  explicit sj_parser(size_t max_cap) : od(max_cap) {}
};

// The C side allocates the parser object with its allocator (malloc alignment).
static_assert(alignof(sj_parser) <= alignof(std::max_align_t), "sj_parser over-aligned");

extern "C" size_t sj_parser_size(void) { return sizeof(sj_parser); }
extern "C" size_t sj_parser_align(void) { return alignof(sj_parser); }

extern "C" sj_parser *sj_parser_init(void *mem, size_t max_capacity) {
  if (!mem) return nullptr;
  if (max_capacity == 0 || max_capacity > SIMDJSON_MAXSIZE_BYTES) max_capacity = SIMDJSON_MAXSIZE_BYTES;
  return new (mem) sj_parser(max_capacity);
}

extern "C" void sj_parser_destroy(sj_parser *p) {
  if (p) p->~sj_parser();
}

extern "C" int sj_parser_reserve(sj_parser *p, size_t capacity) {
  if (capacity <= p->od.capacity()) return SJ_OK;
  if (capacity > p->od.max_capacity()) return SJ_ECAPACITY;
  error_code e = p->od.allocate(capacity, p->od.max_depth());
  if (e == CAPACITY) return SJ_ECAPACITY;
  return e ? SJ_ENOMEM : SJ_OK;
}

extern "C" size_t sj_parser_footprint(const sj_parser *p) {
  // ondemand::parser::allocate(): string buffer 5/3 * capacity; the stage-1
  // implementation: a uint32 structural index per input byte, plus small
  // per-depth arrays.
  size_t c = p->od.capacity();
  if (c == 0) return 0;
  size_t d = p->od.max_depth();
  return (5 * c / 3 + SIMDJSON_PADDING + 64) + 4 * (c + 64 + 16) + d * 16;
}

extern "C" const char *sj_implementation_name(void) {
  return simdjson::get_active_implementation()->name().data();
}

namespace {

struct ctx {
  const char *base;      // start of the batch buffer
  const char *ev_start;  // start of the event being decoded
  const char *bad;       // SJ_EVALUE: offending token
  const char *what;      // SJ_EVALUE: description
};

// Compare a raw key (pointer just past its opening quote, not unescaped)
// with a literal, closing quote included: keys with escapes never match,
// which is fine for trace keys.  Reads at most sizeof(lit) bytes, all inside
// the key or at its closing quote.
#define KEY_IS(k, lit) (std::memcmp((k), lit "\"", sizeof(lit)) == 0)

inline std::string_view trim_token(std::string_view t) {
  size_t n = t.size();
  while (n && (t[n - 1] == ' ' || t[n - 1] == '\n' || t[n - 1] == '\r' || t[n - 1] == '\t')) n--;
  return std::string_view(t.data(), n);
}

inline error_code value_error(ctx &c, const char *tok, const char *what) {
  c.bad = tok;
  c.what = what;
  return INCORRECT_TYPE;  // marker; the caller turns it into SJ_EVALUE via c.what
}

inline bool is_blank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A value of the wrong type in a field we decode is treated as absent, but
// it must still be a JSON value: On-Demand does not look at scalars it is
// not asked to parse, so check the token here (objects and arrays are
// skipped structurally by On-Demand).
inline error_code check_other(ctx &c, std::string_view tok) {
  char f = tok[0];
  if (f == '{' || f == '[') return SUCCESS;
  tok = trim_token(tok);
  if (tok == "true" || tok == "false" || tok == "null") return SUCCESS;
  if (f == '-' || (f >= '0' && f <= '9')) {
    int64_t x;
    if (fa_num_parse(tok.data(), tok.size(), 0, 0, &x) != FA_NUM_SYNTAX) return SUCCESS;
    return value_error(c, tok.data(), "invalid number");
  }
  return value_error(c, tok.data(), "invalid JSON value");
}

// Strings: the raw token of a string value is the whole "..." (plus
// blanks up to the next structural character).  Without a backslash it
// needs no unescaping: point into the input (simdjson's first pass has
// checked UTF-8 and control characters for the whole batch).
inline error_code get_str(ctx &c, ondemand::value &v, const char **s, size_t *n) {
  std::string_view tok = v.raw_json_token();
  if (tok.empty()) return SUCCESS;
  if (tok[0] != '"') return check_other(c, tok);  // wrong type: absent
  size_t end = tok.size();
  while (end > 1 && is_blank(tok[end - 1])) end--;
  if (end >= 2 && tok[end - 1] == '"' && !std::memchr(tok.data() + 1, '\\', end - 2)) {
    *s = tok.data() + 1;
    *n = end - 2;
    return SUCCESS;
  }
  std::string_view sv;
  error_code e = v.get_string().get(sv);
  if (e) return e;
  *s = sv.data();
  *n = sv.size();
  return SUCCESS;
}

// An array value's text, '[' to ']'.
inline error_code get_arr_text(ctx &c, ondemand::value &v, const char **s, size_t *n) {
  std::string_view tok = v.raw_json_token();
  if (tok.empty()) return SUCCESS;
  if (tok[0] == '"') return SUCCESS;               // a string: absent
  if (tok[0] != '[') return check_other(c, tok);  // wrong type: absent
  ondemand::array arr;
  error_code e = v.get_array().get(arr);
  if (e) return e;
  std::string_view sv;
  e = arr.raw_json().get(sv);
  if (e) return e;
  *s = sv.data();
  *n = sv.size();
  return SUCCESS;
}

inline error_code get_ph(ctx &c, ondemand::value &v, char *ph) {
  const char *s = nullptr;
  size_t n = 0;
  error_code e = get_str(c, v, &s, &n);
  if (e) return e;
  if (s) *ph = n ? s[0] : 0;
  return SUCCESS;
}

// Fast path for the usual number tokens: [-]digits[.digits] with at most
// 15 integer and `scale` fraction digits, then blanks.  Returns false to
// fall back to fa_num_parse() (exponents, long numbers, bad tokens).
inline bool fast_num(std::string_view tok, int scale, int64_t *out) {
  const char *p = tok.data(), *e = p + tok.size();
  bool neg = *p == '-';
  if (neg) p++;
  const char *d = p;
  uint64_t v = 0;
  while (p < e && (unsigned char)(*p - '0') < 10) v = v * 10 + (uint64_t)(*p++ - '0');
  size_t ni = (size_t)(p - d);
  if (ni == 0 || ni > 15 || (ni > 1 && *d == '0')) return false;
  int nf = 0;
  if (p < e && *p == '.') {
    p++;
    while (p < e && (unsigned char)(*p - '0') < 10 && nf < 4) {
      v = v * 10 + (uint64_t)(*p++ - '0');
      nf++;
    }
    if (nf == 0 || nf > scale) return false;
  }
  if (p < e && !is_blank(*p)) return false;
  static const uint64_t p10[4] = {1, 10, 100, 1000};
  v *= p10[scale - nf];
  *out = neg ? -(int64_t)v : (int64_t)v;
  return true;
}

// Integer fields (ids, args).  Absent unless exactly representable.
inline error_code get_int(ctx &c, ondemand::value &v, int64_t *out) {
  std::string_view tok = v.raw_json_token();
  if (tok.empty()) return SUCCESS;
  char f = tok[0];
  if (f == '-' || (f >= '0' && f <= '9')) {
    if (fast_num(tok, 0, out)) return SUCCESS;
    tok = trim_token(tok);
    int64_t x;
    int r = fa_num_parse(tok.data(), tok.size(), 0, 1, &x);
    if (r == FA_NUM_OK) *out = x;
    else if (r == FA_NUM_SYNTAX) return value_error(c, tok.data(), "invalid number");
    return SUCCESS;
  }
  if (f == '"') {
    std::string_view sv;
    error_code e = v.get_string().get(sv);
    if (e) return e;
    int64_t x;
    if (fa_parse_id_str(sv.data(), sv.size(), &x) == FA_NUM_OK) *out = x;
    return SUCCESS;
  }
  return check_other(c, tok);
}

// ts / dur: microseconds -> ns, exact.
inline error_code get_time(ctx &c, ondemand::value &v, int64_t *out, const char *field) {
  std::string_view tok = v.raw_json_token();
  if (tok.empty()) return SUCCESS;
  char f = tok[0];
  int r;
  int64_t x = 0;
  if (f == '-' || (f >= '0' && f <= '9')) {
    if (fast_num(tok, 3, out)) return SUCCESS;
    tok = trim_token(tok);
    r = fa_us_to_ns(tok.data(), tok.size(), &x);
    if (r == FA_NUM_SYNTAX) return value_error(c, tok.data(), "invalid number");
  } else if (f == '"') {
    std::string_view sv;
    error_code e = v.get_string().get(sv);
    if (e) return e;
    r = fa_us_to_ns(sv.data(), sv.size(), &x);
    if (r == FA_NUM_SYNTAX) {
      return value_error(c, tok.data(), field[0] == 't' ? "\"ts\" is not a number" : "\"dur\" is not a number");
    }
  } else if (f == 'n') {
    bool isnull = false;
    error_code e = v.is_null().get(isnull);
    if (e) return e;
    if (!isnull) return value_error(c, tok.data(), "invalid literal");
    return SUCCESS;
  } else {
    return value_error(c, tok.data(), field[0] == 't' ? "\"ts\" is not a number" : "\"dur\" is not a number");
  }
  if (r == FA_NUM_RANGE) {
    return value_error(c, tok.data(), field[0] == 't' ? "\"ts\" out of range" : "\"dur\" out of range");
  }
  *out = x;
  return SUCCESS;
}

struct extra {
  int64_t ext_lower, bytes_lower;
};

error_code decode_args(ctx &c, ondemand::object obj, fsdpa_event *ev, extra *x) {
  for (auto fr : obj) {
    ondemand::field fld;
    error_code e = std::move(fr).get(fld);
    if (e) return e;
    const char *k = fld.key().raw();
    ondemand::value &v = fld.value();
    switch (k[0]) {
      case 'B': if (KEY_IS(k, "Bytes")) e = get_int(c, v, &ev->bytes); break;
      case 'C':
        if (KEY_IS(k, "Collective name")) e = get_str(c, v, &ev->collective, &ev->collective_len);
        else if (KEY_IS(k, "Concrete Inputs")) e = get_arr_text(c, v, &ev->concrete_inputs, &ev->concrete_inputs_len);
        break;
      case 'D':
        if (KEY_IS(k, "Device Type")) e = get_int(c, v, &ev->device_type);
        else if (KEY_IS(k, "Device Id")) e = get_int(c, v, &ev->device_id);
        break;
      case 'E': if (KEY_IS(k, "External id")) e = get_int(c, v, &ev->external_id); break;
      case 'G': if (KEY_IS(k, "Group size")) e = get_int(c, v, &ev->group_size); break;
      case 'I':
        if (KEY_IS(k, "In msg nelems")) e = get_int(c, v, &ev->in_msg_nelems);
        else if (KEY_IS(k, "Input Dims")) e = get_arr_text(c, v, &ev->input_dims, &ev->input_dims_len);
        else if (KEY_IS(k, "Input type")) e = get_arr_text(c, v, &ev->input_types, &ev->input_types_len);
        break;
      case 'O': if (KEY_IS(k, "Out msg nelems")) e = get_int(c, v, &ev->out_msg_nelems); break;
      case 'P': if (KEY_IS(k, "Process Group Name")) e = get_str(c, v, &ev->pg_name, &ev->pg_name_len); break;
      case 'S': if (KEY_IS(k, "Seq")) e = get_int(c, v, &ev->seq); break;
      case 'T':
        if (KEY_IS(k, "Total Allocated")) e = get_int(c, v, &ev->total_allocated);
        else if (KEY_IS(k, "Total Reserved")) e = get_int(c, v, &ev->total_reserved);
        break;
      case 'b': if (KEY_IS(k, "bytes")) e = get_int(c, v, &x->bytes_lower); break;
      case 'c':
        if (KEY_IS(k, "correlation")) e = get_int(c, v, &ev->correlation);
        else if (KEY_IS(k, "cuda_sync_kind")) e = get_str(c, v, &ev->sync_kind, &ev->sync_kind_len);
        break;
      case 'd':
        if (KEY_IS(k, "device")) e = get_int(c, v, &ev->device);
        else if (KEY_IS(k, "dtype")) e = get_str(c, v, &ev->dtype, &ev->dtype_len);
        break;
      case 'e': if (KEY_IS(k, "external id")) e = get_int(c, v, &x->ext_lower); break;
      case 'n': if (KEY_IS(k, "name")) e = get_str(c, v, &ev->label, &ev->label_len); break;
      case 's': if (KEY_IS(k, "stream")) e = get_int(c, v, &ev->stream); break;
      case 'w':
        if (KEY_IS(k, "wait_on_stream")) e = get_int(c, v, &ev->wait_on_stream);
        else if (KEY_IS(k, "wait_on_cuda_event_record_corr_id")) e = get_int(c, v, &ev->wait_on_event_corr);
        break;
      default: break;
    }
    if (e) return e;
  }
  return SUCCESS;
}

error_code decode_event(ctx &c, ondemand::object obj, fsdpa_event *ev) {
  extra x = {FSDPA_ABSENT, FSDPA_ABSENT};
  for (auto fr : obj) {
    ondemand::field fld;
    error_code e = std::move(fr).get(fld);
    if (e) return e;
    const char *k = fld.key().raw();
    ondemand::value &v = fld.value();
    switch (k[0]) {
      case 'p':
        if (KEY_IS(k, "ph")) e = get_ph(c, v, &ev->ph);
        else if (KEY_IS(k, "pid")) e = get_int(c, v, &ev->pid);
        break;
      case 't':
        if (KEY_IS(k, "ts")) e = get_time(c, v, &ev->ts_ns, "ts");
        else if (KEY_IS(k, "tid")) e = get_int(c, v, &ev->tid);
        break;
      case 'd': if (KEY_IS(k, "dur")) e = get_time(c, v, &ev->dur_ns, "dur"); break;
      case 'c': if (KEY_IS(k, "cat")) e = get_str(c, v, &ev->cat, &ev->cat_len); break;
      case 'n': if (KEY_IS(k, "name")) e = get_str(c, v, &ev->name, &ev->name_len); break;
      case 'a':
        if (KEY_IS(k, "args")) {
          std::string_view tok = v.raw_json_token();
          if (!tok.empty() && tok[0] == '{') {
            ondemand::object args;
            e = v.get_object().get(args);
            if (!e) e = decode_args(c, args, ev, &x);
          }
        }
        break;
      default: break;
    }
    if (e) return e;
  }
  if (ev->external_id == FSDPA_ABSENT) ev->external_id = x.ext_lower;
  if (ev->bytes == FSDPA_ABSENT) ev->bytes = x.bytes_lower;
  if (ev->ph != 'M') { ev->label = nullptr; ev->label_len = 0; }
  if (ev->dur_ns != FSDPA_ABSENT && ev->dur_ns < 0) ev->dur_ns = 0;
  return SUCCESS;
}

void event_init(fsdpa_event *ev) {
  std::memset(ev, 0, sizeof *ev);
  ev->size = sizeof *ev;
  ev->pid = ev->tid = ev->ts_ns = ev->dur_ns = FSDPA_ABSENT;
  ev->correlation = ev->external_id = ev->stream = ev->device = ev->bytes = FSDPA_ABSENT;
  ev->total_allocated = ev->total_reserved = ev->device_type = ev->device_id = FSDPA_ABSENT;
  ev->in_msg_nelems = ev->out_msg_nelems = ev->group_size = ev->seq = FSDPA_ABSENT;
  ev->wait_on_stream = ev->wait_on_event_corr = FSDPA_ABSENT;
}

int fail(sj_result *res, int code, size_t off, const char *what) {
  res->err_off = off;
  std::snprintf(res->what, sizeof res->what, "%s", what);
  return code;
}

}  // namespace

extern "C" int sj_decode_events(sj_parser *p, const char *buf, size_t len, size_t cap,
                                sj_event_fn cb, void *ud, sj_result *res) {
  res->count = 0;
  res->err_off = SIZE_MAX;
  res->cb_ret = 0;
  res->what[0] = 0;
  ondemand::document doc;
  error_code e = p->od.iterate(buf, len, cap).get(doc);
  if (e) {
    if (e == MEMALLOC) return fail(res, SJ_ENOMEM, SIZE_MAX, "out of memory in simdjson");
    if (e == CAPACITY) return fail(res, SJ_ECAPACITY, SIZE_MAX, "batch too large for the parser");
    return fail(res, SJ_EJSON, SIZE_MAX, error_message(e));
  }
  ondemand::array arr;
  if ((e = doc.get_array().get(arr))) return fail(res, SJ_EJSON, 0, error_message(e));
  fsdpa_event tmpl;
  event_init(&tmpl);
  fsdpa_event ev;
  ctx c = {buf, buf, nullptr, nullptr};
  for (auto er : arr) {
    ondemand::value v;
    if ((e = std::move(er).get(v))) break;
    std::string_view tok = v.raw_json_token();
    c.ev_start = tok.data();
    if (tok.empty() || tok[0] != '{') {
      return fail(res, SJ_ENOTOBJ, (size_t)(c.ev_start - buf), "traceEvents element is not an object");
    }
    ondemand::object obj;
    if ((e = v.get_object().get(obj))) break;
    ev = tmpl;
    if ((e = decode_event(c, obj, &ev))) break;
    int r = cb(ud, &ev, (size_t)(c.ev_start - buf));
    if (r) {
      res->cb_ret = r;
      return fail(res, SJ_ESTOP, (size_t)(c.ev_start - buf), "stopped by the event handler");
    }
    res->count++;
  }
  if (!e) return SJ_OK;
  if (c.what) return fail(res, SJ_EVALUE, (size_t)(c.bad - buf), c.what);
  // Malformed JSON inside the batch: point at simdjson's position if it has
  // one inside the current event, else at the event.
  const char *loc = nullptr;
  if (doc.current_location().get(loc) || loc < c.ev_start || loc >= buf + len) loc = c.ev_start;
  if (e == MEMALLOC) return fail(res, SJ_ENOMEM, (size_t)(loc - buf), "out of memory in simdjson");
  return fail(res, SJ_EJSON, (size_t)(loc - buf), error_message(e));
}
