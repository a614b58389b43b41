/* The JavaScript API over libfsdpa's C API, for the wasm module.
 *
 * fsdpaMakeApi(M, ABI) takes an instantiated emscripten module and the
 * table gen_api.py made from the header and the wasm32 compiler's view of
 * it (FSDPA_ABI: struct layouts, enums, which functions are queries, lists
 * and getters), and returns { Analyzer, FsdpaError, report, findings, ... }.
 * The same text serves the ES module (fsdpa.mjs, esm_tail.js) and the
 * classic script of the viewer's worker (worker_tail.js).
 *
 * Conventions (what fsdpa.d.ts declares):
 * - Objects that mirror a C struct keep its field names.  int64_t and
 *   uint64_t fields are BigInt (times are exact integer nanoseconds), and
 *   FSDPA_ABSENT is null; size_t, int and double fields are numbers; enum
 *   fields are their names as the report spells them ("critical").
 * - A failed call throws FsdpaError with status (the negative fsdpa_status),
 *   code ("FSDPA_EPARSE"), the library's message (it names the input and
 *   the byte offset), offset (the byte offset, or null) and input (for calls
 *   over several analyzers: the index of the one at fault, or null).
 * - feed() copies the caller's bytes through one staging buffer of
 *   STAGE bytes per analyzer: the heap never holds more than that of the
 *   input at once; the library keeps only what it retains of the events.
 */
function fsdpaMakeApi(M, ABI) {
  'use strict';
  const STAGE = 1 << 20;
  const ABSENT = -(1n << 63n);
  const S = ABI.structs;
  const STATUS = ABI.enums.fsdpa_status.values;
  const STATUS_NAME = {};
  for (const k of Object.keys(STATUS)) STATUS_NAME[STATUS[k]] = k;
  const enc = new TextEncoder();
  const dec = new TextDecoder('utf-8');

  const heap = () => M.HEAPU8;
  const view = () => new DataView(M.HEAPU8.buffer);
  const cstr = (p) => (p ? M.UTF8ToString(p) : null);

  function malloc(n) {
    const p = M._malloc(n);
    if (!p) throw new FsdpaError(STATUS.FSDPA_ENOMEM, 'out of memory in the wasm heap', null, null);
    heap().fill(0, p, p + n);
    return p;
  }
  /* Temporary C memory for one call: everything it hands out is freed by done(). */
  function scope() {
    const ptrs = [];
    return {
      alloc(n) { const p = malloc(n); ptrs.push(p); return p; },
      str(s) {
        const b = enc.encode(String(s));
        const p = this.alloc(b.length + 1);
        heap().set(b, p);
        return p;
      },
      done() { for (const p of ptrs) M._free(p); ptrs.length = 0; },
    };
  }

  class FsdpaError extends Error {
    constructor(status, message, offset, input) {
      super(message || cstr(M._fsdpa_status_str(status)) || 'fsdpa error ' + status);
      this.name = 'FsdpaError';
      this.status = status;
      this.code = STATUS_NAME[status] || String(status);
      this.offset = offset;
      this.input = input;
    }
  }

  /* ---- struct fields ---- */
  function readScalar(v, k, p) {
    switch (k) {
      case 'i64': { const x = v.getBigInt64(p, true); return x === ABSENT ? null : x; }
      case 'u64': return v.getBigUint64(p, true);
      case 'usize': case 'u32': return v.getUint32(p, true);
      case 'i32': return v.getInt32(p, true);
      case 'f64': return v.getFloat64(p, true);
      case 'str': return cstr(v.getUint32(p, true));
    }
    throw new Error('fsdpa: unknown field kind ' + k);
  }
  const SCALAR_SIZE = { i64: 8, u64: 8, usize: 4, u32: 4, i32: 4, f64: 8, str: 4 };

  function readStruct(name, p) {
    const st = S[name];
    const v = view();
    const o = {};
    for (const f of st.fields) {
      if (f.name === 'size' || f.k === 'skip') continue;
      const at = p + f.offset;
      if (f.k.startsWith('enum:')) {
        const x = v.getInt32(at, true);
        const short = ABI.enums[f.k.slice(5)].short[String(x)];
        o[f.name] = short === undefined ? x : short;
      } else if (f.k === 'chars') {
        const b = heap().subarray(at, at + f.size);
        const z = b.indexOf(0);
        o[f.name] = dec.decode(b.subarray(0, z < 0 ? b.length : z));
      } else if (f.k.startsWith('arr:')) {
        const k = f.k.slice(4);
        const a = [];
        for (let i = 0; i < f.count; i++) a.push(readScalar(v, k, at + i * SCALAR_SIZE[k]));
        o[f.name] = a;
      } else if (f.k.startsWith('ptrarr:')) {
        const [, sub, nfield] = f.k.split(':');
        const nf = st.fields.find((g) => g.name === nfield);
        const n = readScalar(v, nf.k, p + nf.offset);
        const base = v.getUint32(at, true);
        const a = [];
        for (let i = 0; i < Number(n); i++) a.push(readStruct(sub, base + i * S[sub].size));
        o[f.name] = a;
      } else {
        o[f.name] = readScalar(v, f.k, at);
      }
    }
    for (const f of st.fields)  // the count of an array read above is its length
      if (f.k.startsWith('ptrarr:')) delete o[f.k.split(':')[2]];
    return o;
  }

  function enumValue(ename, x) {
    if (typeof x === 'number') return x;
    const e = ABI.enums[ename];
    for (const v of Object.keys(e.short)) if (e.short[v] === x) return Number(v);
    if (x in e.values) return e.values[x];
    throw new TypeError('fsdpa: ' + JSON.stringify(x) + ' is not a ' + ename + ' (' +
                        Object.values(e.short).join(', ') + ')');
  }
  function writeScalar(v, k, p, x, sc) {
    switch (k) {
      case 'i64': v.setBigInt64(p, x === null ? ABSENT : BigInt(x), true); return;
      case 'u64': v.setBigUint64(p, BigInt(x), true); return;
      case 'usize': case 'u32': v.setUint32(p, Number(x), true); return;
      case 'i32': v.setInt32(p, typeof x === 'boolean' ? (x ? 1 : 0) : Number(x), true); return;
      case 'f64': v.setFloat64(p, Number(x), true); return;
      case 'str': v.setUint32(p, x === null ? 0 : sc.str(x), true); return;
    }
    throw new TypeError('fsdpa: cannot write a field of kind ' + k);
  }
  /* A struct for a call: its defaults (the library's *_init_sized where it
   * has one, else zeros with `size` set), then the fields `o` names. */
  function makeStruct(name, o, sc) {
    const st = S[name];
    const p = sc.alloc(st.size);
    const init = M['_' + name + '_init_sized'];
    if (init) init(p, st.size);
    else view().setUint32(p, st.size, true);
    if (o) {
      for (const key of Object.keys(o)) {
        if (o[key] === undefined) continue;
        const f = st.fields.find((g) => g.name === key);
        if (!f || f.name === 'size' || f.k === 'skip')
          throw new TypeError('fsdpa: ' + name + ' has no field ' + JSON.stringify(key));
        if (f.k.startsWith('enum:')) view().setInt32(p + f.offset, enumValue(f.k.slice(5), o[key]), true);
        else writeScalar(view(), f.k, p + f.offset, o[key], sc);
      }
    }
    return p;
  }
  function outStruct(name, sc) {
    const p = sc.alloc(S[name].size);
    view().setUint32(p, S[name].size, true);
    return p;
  }

  /* A query object {t0_ns, t1_ns, step, device, stream} -> fsdpa_query with
   * the bit of each selector given set in `fields`. */
  const QUERY_BITS = { t0_ns: 'FSDPA_QUERY_T0', t1_ns: 'FSDPA_QUERY_T1', step: 'FSDPA_QUERY_STEP',
                       device: 'FSDPA_QUERY_DEVICE', stream: 'FSDPA_QUERY_STREAM' };
  function makeQuery(q, sc) {
    if (q === null || q === undefined) return 0;
    const o = {};
    let fields = 0;
    for (const key of Object.keys(q)) {
      if (q[key] === undefined || q[key] === null) continue;
      if (!(key in QUERY_BITS)) throw new TypeError('fsdpa: a query has no selector ' + JSON.stringify(key));
      fields |= ABI.enums.fsdpa_query_field.values[QUERY_BITS[key]];
      o[key] = q[key];
    }
    o.fields = fields;
    return makeStruct('fsdpa_query', o, sc);
  }

  function readList(lp) {
    try {
      const kind = M._fsdpa_list_type(lp);
      const sname = ABI.list_kinds[String(kind)];
      if (!sname) throw new Error('fsdpa: unknown list kind ' + kind);
      const n = M._fsdpa_list_count(lp);
      const sc = scope();
      try {
        const item = outStruct(sname, sc);
        const out = [];
        for (let i = 0; i < n; i++) {
          const st = M._fsdpa_list_get(lp, i, item);
          if (st) throw new FsdpaError(st, null, null, null);
          out.push(readStruct(sname, item));
        }
        return out;
      } finally { sc.done(); }
    } finally { M._fsdpa_list_free(lp); }
  }

  function errorOf(ep) {
    const e = readStruct('fsdpa_error', ep);
    const st = view().getInt32(ep + S.fsdpa_error.fields.find((f) => f.name === 'status').offset, true);
    const off = e.offset === null ? null : Number(e.offset);
    const input = e.input === null ? null : Number(e.input);
    return new FsdpaError(st, e.message, off, input);
  }

  const registry = typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((h) => { if (h.ctx) M._fsdpa_ctx_free(h.ctx); if (h.stage) M._free(h.stage); })
    : null;

  class Analyzer {
    constructor(options) {
      const o = options || {};
      const sc = scope();
      try {
        const opts = makeStruct('fsdpa_options', {
          name: o.name === undefined ? undefined : o.name,
          max_memory_bytes: o.maxMemoryBytes === undefined ? undefined : o.maxMemoryBytes,
          max_input_bytes: o.maxInputBytes === undefined ? undefined : o.maxInputBytes,
          rank: o.rank === undefined ? undefined : o.rank,
        }, sc);
        const out = sc.alloc(4);
        const st = M._fsdpa_ctx_new(out, opts);
        if (st) throw new FsdpaError(st, null, null, null);
        this._h = { ctx: view().getUint32(out, true), stage: 0 };
      } finally { sc.done(); }
      this.name = o.name === undefined ? null : String(o.name);
      if (registry) registry.register(this, this._h, this._h);
      for (const key of Object.keys(o.params || {})) this.setParam(key, o.params[key]);
    }
    get _ctx() {
      if (!this._h.ctx) throw new FsdpaError(STATUS.FSDPA_ESTATE, 'fsdpa: the analyzer was freed', null, null);
      return this._h.ctx;
    }
    _check(st) {
      if (!st) return;
      const off = M._fsdpa_error_offset(this._ctx);
      throw new FsdpaError(st, cstr(M._fsdpa_errmsg(this._ctx)), off === ABSENT ? null : Number(off), null);
    }
    feed(data) {
      const ctx = this._ctx;
      let b;
      if (typeof data === 'string') b = enc.encode(data);
      else if (data instanceof Uint8Array) b = data;
      else if (data instanceof ArrayBuffer) b = new Uint8Array(data);
      else if (ArrayBuffer.isView(data)) b = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      else throw new TypeError('fsdpa: feed() takes a Uint8Array, an ArrayBuffer(View) or a string');
      if (!this._h.stage) this._h.stage = malloc(STAGE);
      for (let i = 0; i < b.length; i += STAGE) {
        const n = Math.min(STAGE, b.length - i);
        heap().set(b.subarray(i, i + n), this._h.stage);
        this._check(M._fsdpa_feed(ctx, this._h.stage, n));
      }
    }
    finish() {
      this._check(M._fsdpa_finish(this._ctx));
      if (this._h.stage) { M._free(this._h.stage); this._h.stage = 0; }
    }
    setParam(key, value) {
      const sc = scope();
      try { this._check(M._fsdpa_param_set(this._ctx, sc.str(key), sc.str(String(value)))); } finally { sc.done(); }
    }
    getParam(key) {
      const sc = scope();
      try {
        const out = sc.alloc(8);
        this._check(M._fsdpa_param_get(this._ctx, sc.str(key), out));
        return view().getBigInt64(out, true);
      } finally { sc.done(); }
    }
    setTraceInfo(info) {
      const sc = scope();
      try {
        const o = {};
        for (const k of ['rank', 'world_size', 'base_time_ns']) if (info && info[k] !== undefined) o[k] = info[k];
        this._check(M._fsdpa_trace_info_set(this._ctx, makeStruct('fsdpa_trace_info', o, sc)));
      } finally { sc.done(); }
    }
    report(format, options) { return dec.decode(reportBytes([this], format, options)); }
    reportBytes(format, options) { return reportBytes([this], format, options); }
    findings() { return findings([this]); }
    summary(path) {
      const sc = scope();
      try {
        const out = sc.alloc(4), len = sc.alloc(4);
        this._check(M._fsdpa_summary_write(this._ctx, path === undefined ? 0 : sc.str(path), out, len));
        return takeBuffer(out, len);
      } finally { sc.done(); }
    }
    free() {
      if (registry) registry.unregister(this._h);
      if (this._h.ctx) M._fsdpa_ctx_free(this._h.ctx);
      if (this._h.stage) M._free(this._h.stage);
      this._h.ctx = 0;
      this._h.stage = 0;
    }
  }

  function takeBytes(outp, lenp) {
    const p = view().getUint32(outp, true), n = view().getUint32(lenp, true);
    try { return heap().slice(p, p + n); } finally { M._fsdpa_free(p); }
  }
  function takeBuffer(outp, lenp) { return dec.decode(takeBytes(outp, lenp)); }

  /* The methods of the C API's shapes (gen_api.py): queries, lists, getters. */
  for (const m of ABI.methods) {
    const fn = M['_' + m.c];
    Analyzer.prototype[m.js] = function (...args) {
      const ctx = this._ctx;
      const sc = scope();
      try {
        const cargs = [ctx];
        let i = 0;
        if (m.query) cargs.push(makeQuery(args[i++], sc));
        for (const a of m.args) {
          const x = args[i++];
          if (x === undefined) throw new TypeError('fsdpa: ' + m.js + '() needs ' + a.name);
          if (a.kind.startsWith('enum:')) cargs.push(enumValue(a.kind.slice(5), x));
          else if (a.kind === 'i64' || a.kind === 'u64') cargs.push(BigInt(x));
          else cargs.push(Number(x));
        }
        if (m.kind === 'int') return fn(ctx);
        if (m.kind === 'list') {
          const out = sc.alloc(4);
          cargs.push(out);
          this._check(fn(...cargs));
          return readList(view().getUint32(out, true));
        }
        const out = outStruct(m.struct, sc);
        cargs.push(out);
        this._check(fn(...cargs));
        return readStruct(m.struct, out);
      } finally { sc.done(); }
    };
  }

  /* Calls over several analyzers: an array of fsdpa_ctx * and the error channel. */
  function overMany(analyzers, sc) {
    if (!Array.isArray(analyzers) || !analyzers.length || !analyzers.every((a) => a instanceof Analyzer))
      throw new TypeError('fsdpa: expected a non-empty array of Analyzers');
    const arr = sc.alloc(4 * analyzers.length);
    analyzers.forEach((a, i) => view().setUint32(arr + 4 * i, a._ctx, true));
    const err = sc.alloc(S.fsdpa_error.size);
    M._fsdpa_error_init_sized(err, S.fsdpa_error.size);
    return { arr, err };
  }
  const FORMATS = { json: 'FSDPA_FORMAT_JSON', text: 'FSDPA_FORMAT_TEXT', html: 'FSDPA_FORMAT_HTML' };
  function reportBytes(analyzers, format, options) {
    const o = options || {};
    const f = format === undefined ? 'json' : format;
    if (!(f in FORMATS)) throw new TypeError('fsdpa: format is json, text or html, not ' + JSON.stringify(f));
    const sc = scope();
    try {
      const { arr, err } = overMany(analyzers, sc);
      const paths = sc.alloc(4 * analyzers.length);
      analyzers.forEach((a, i) => {
        const pth = o.paths ? o.paths[i] : a.name;
        view().setUint32(paths + 4 * i, pth === null || pth === undefined ? 0 : sc.str(pth), true);
      });
      const ro = makeStruct('fsdpa_report_options', {
        format: ABI.enums.fsdpa_format.values[FORMATS[f]],
        color: o.color ? 1 : 0,
        width: o.width === undefined ? undefined : o.width,
        html_step: o.htmlStep === undefined ? undefined : o.htmlStep,
      }, sc);
      const out = sc.alloc(4), len = sc.alloc(4);
      const st = M._fsdpa_report(arr, paths, analyzers.length, ro, out, len, err);
      if (st) throw errorOf(err);
      return takeBytes(out, len);
    } finally { sc.done(); }
  }
  function report(analyzers, format, options) { return dec.decode(reportBytes(analyzers, format, options)); }
  function findings(analyzers) {
    const sc = scope();
    try {
      const { arr, err } = overMany(analyzers, sc);
      const out = sc.alloc(4);
      const st = M._fsdpa_report_findings(arr, analyzers.length, out, err);
      if (st) throw errorOf(err);
      return readList(view().getUint32(out, true));
    } finally { sc.done(); }
  }
  const api = { Analyzer, FsdpaError, report, reportBytes, findings };
  for (const m of ABI.multi) {
    const fn = M['_' + m.c];
    api[m.js] = function (analyzers) {
      const sc = scope();
      try {
        const { arr, err } = overMany(analyzers, sc);
        if (m.kind === 'list') {
          const out = sc.alloc(4);
          if (fn(arr, analyzers.length, out, err)) throw errorOf(err);
          return readList(view().getUint32(out, true));
        }
        const out = outStruct(m.struct, sc);
        if (fn(arr, analyzers.length, out, err)) throw errorOf(err);
        return readStruct(m.struct, out);
      } finally { sc.done(); }
    };
  }
  api.params = function () {
    const sc = scope();
    try {
      const out = sc.alloc(4);
      const st = M._fsdpa_param_list(out);
      if (st) throw new FsdpaError(st, null, null, null);
      return readList(view().getUint32(out, true));
    } finally { sc.done(); }
  };
  api.version = cstr(M._fsdpa_version_string());
  api.heapBytes = () => M.HEAPU8.length;
  api.Status = Object.assign({}, STATUS);
  return api;
}
