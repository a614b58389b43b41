// The WebAssembly module under node against the native CLI, byte for byte.
//
//   node tests/wasm/node_test.mjs --module build-wasm/bindings/wasm/fsdpa.mjs \
//        --cli build/tools/fsdpa/fsdpa [--source .] [--corpus DIR]
//
// - the sample trace: the text, JSON and HTML reports of fsdpa.mjs are the
//   bytes `fsdpa analyze -f FORMAT` writes, fed in chunks of every size from
//   1 byte up, with queries (findings, timeline, steps) between the feeds;
// - every trace of the corpus (FSDPA_TRACE_CORPUS, else ../shared/traces;
//   skipped with the reason when absent): the JSON and text reports, or, for
//   an input the CLI rejects, the same error (status, message, byte offset);
//   the two ranks of hta/trace_filter as one job (cross-rank);
// - streaming: the wasm heap after the largest trace is smaller than its JSON
//   (the file is never in the heap), and maxMemoryBytes fails with
//   FSDPA_ELIMIT and leaves the analyzer usable;
// - errors: a parse error throws FsdpaError with status, code, the byte
//   offset and the CLI's message; misuse (feed after finish) FSDPA_ESTATE;
// - the API: every query method answers on the sample and the typed results
//   agree with the JSON report (findings, steps).
// Prints TAP; exits 1 on any failure.
import { spawnSync } from 'child_process';
import { readFileSync, readdirSync, statSync, existsSync } from 'fs';
import { dirname, join, resolve, relative } from 'path';
import { gunzipSync } from 'zlib';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const src = resolve(args.source || '.');
const cli = resolve(args.cli);
const F = await import(resolve(args.module));

let n = 0, failed = 0;
function ok(cond, what, detail) {
  n++;
  if (cond) console.log(`ok ${n} - ${what}`);
  else {
    failed++;
    console.log(`not ok ${n} - ${what}`);
    if (detail) for (const l of String(detail).split('\n')) console.log('# ' + l);
  }
}
const say = (m) => console.log('# ' + m);

function native(fmt, paths) {
  const env = { ...process.env };
  delete env.COLUMNS;
  delete env.NO_COLOR;
  const r = spawnSync(cli, ['analyze', '-f', fmt, ...paths], { cwd: src, env, maxBuffer: 1 << 30 });
  return { status: r.status, out: r.stdout, err: r.stderr.toString() };
}

// Feeds `paths` (relative to src) into one analyzer each; `chunk(i)` gives the
// size of the i-th chunk; `between` runs after each feed.
function analyze(paths, { chunk = () => 1 << 20, between = null, options = {} } = {}) {
  const as = [];
  for (const p of paths) {
    const a = new F.Analyzer({ name: p, ...options });
    const buf = readFileSync(join(src, p));
    for (let i = 0, k = 0; i < buf.length; k++) {
      const len = Math.max(1, chunk(k));
      a.feed(buf.subarray(i, i + len));
      i += len;
      if (between) between(a);
    }
    a.finish();
    as.push(a);
  }
  return as;
}

function same(what, wasmBytes, nat) {
  const a = Buffer.from(wasmBytes);
  const equal = nat.status === 0 && a.equals(nat.out);
  let detail = '';
  if (!equal) {
    let i = 0;
    while (i < a.length && i < nat.out.length && a[i] === nat.out[i]) i++;
    detail = `native exit ${nat.status} ${nat.err.trim()}\nfirst difference at byte ${i} of ${a.length} (wasm) / ` +
      `${nat.out.length} (native)\nwasm:   ${JSON.stringify(a.subarray(i, i + 120).toString())}\n` +
      `native: ${JSON.stringify(nat.out.subarray(i, i + 120).toString())}`;
  }
  ok(equal, what, detail);
}

// A small deterministic generator of chunk sizes (no Math.random: a failure
// must replay).
function lcg(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0);
}

say(`fsdpa ${F.version} under node ${process.version}; module ${args.module}`);

// ---- the sample, every format, odd chunkings, queries between feeds ----
const sample = 'tests/data/sample/fsdp2_sample.json.gz';
{
  const rnd = lcg(29);
  let between = 0;
  const [a] = analyze([sample], {
    chunk: () => 1 + (rnd() % 70000),
    between: (x) => {
      if (between++ % 3) return;
      x.findings();
      x.timeline();
      x.steps();
    },
  });
  ok(between > 3, `queries between ${between} feeds of the sample`);
  for (const fmt of ['text', 'json', 'html']) same(`sample: ${fmt} report = fsdpa analyze -f ${fmt}`, a.reportBytes(fmt), native(fmt, [sample]));
  const rep = JSON.parse(a.report('json'));
  const fs = a.findings();
  ok(fs.length === rep.findings.length && fs.every((f, i) => f.id === rep.findings[i].id &&
      f.severity === rep.findings[i].severity && String(f.cost_ns) === String(rep.findings[i].cost_ns)),
     'sample: findings() are the report\'s findings (id, severity, cost_ns)',
     JSON.stringify(fs.map((f) => [f.id, f.severity, String(f.cost_ns)])));
  ok(fs.every((f) => typeof f.cost_ns === 'bigint' && Array.isArray(f.ranges) && typeof f.title === 'string'),
     'sample: a finding has a BigInt cost_ns, its ranges and a title');
  const steps = a.steps();
  ok(steps.length >= 2 && steps.every((s) => typeof s.start_ns === 'bigint' && s.start_ns > 1n << 60n),
     `sample: ${steps.length} steps, absolute ns as exact BigInt`);
  const tl = a.timeline({ step: 1 });
  ok(tl.busy_ns > 0n && tl.busy_ns <= tl.span_ns && tl.density > 0 && tl.density <= 1,
     'sample: timeline({step: 1}) has busy <= span and a density in (0, 1]', JSON.stringify(tl, (k, v) => typeof v === 'bigint' ? String(v) : v));
  const whole = a.timeline(), s1 = a.timeline({ t0_ns: steps[1].start_ns, t1_ns: steps[1].start_ns + steps[1].dur_ns });
  ok(whole.busy_ns >= s1.busy_ns, 'sample: a window of the trace is busy no longer than the whole trace');
  // every generated query method answers
  const calls = { commSplits: [null, 'collective'], backwardUnits: [0], memorySeries: [null, 0, 16], ops: [null, 0] };
  const proto = Object.getOwnPropertyNames(F.Analyzer.prototype).filter((m) =>
    !['constructor', 'feed', 'finish', 'setParam', 'getParam', 'setTraceInfo', 'report', 'reportBytes',
      'findings', 'summary', 'free', '_check', '_ctx'].includes(m));
  const bad = [];
  for (const m of proto) {
    try { a[m](...(calls[m] || [])); } catch (e) { bad.push(`${m}: ${e.message}`); }
  }
  ok(proto.length >= 20 && !bad.length, `sample: the ${proto.length} query methods answer`, bad.join('\n'));
  ok(a.stats().events > 0n && a.traceInfo().rank !== undefined, 'sample: stats() and traceInfo()');
  // the TypeScript declarations name exactly the fields the objects have
  const dts = readFileSync(join(dirname(resolve(args.module)), 'fsdpa.d.ts'), 'utf8');
  const fieldsOf = (iface) => {
    const m = dts.match(new RegExp(`export interface ${iface} \\{([^}]*)\\}`));
    return m ? [...m[1].matchAll(/^\s+(\w+)\??:/gm)].map((x) => x[1]).sort() : null;
  };
  const shapes = { Finding: fs[0], Step: steps[0], Stats: a.stats(), Timeline: tl, Range: fs[0].ranges[0],
                   StreamInfo: a.streams()[0], LaunchGaps: a.launchGaps(), Overlap: a.overlap() };
  const wrong = Object.entries(shapes).filter(([k, o]) =>
    JSON.stringify(fieldsOf(k)) !== JSON.stringify(Object.keys(o).sort())).map(([k, o]) =>
    `${k}: d.ts ${fieldsOf(k)} / object ${Object.keys(o).sort()}`);
  ok(!wrong.length, `fsdpa.d.ts declares the fields of ${Object.keys(shapes).join(', ')}`, wrong.join('\n'));
  ok(F.params().length > 10 && typeof a.getParam(F.params()[0].name) === 'bigint', 'params() and getParam()');
  ok(a.summary().startsWith('{'), 'summary() writes a summary');
  a.free();
  let freed = null;
  try { a.steps(); } catch (e) { freed = e; }
  ok(freed && freed.code === 'FSDPA_ESTATE', 'a freed analyzer refuses calls with FSDPA_ESTATE');
}

// ---- errors ----
{
  const a = new F.Analyzer({ name: 'bad.json' });
  let err = null;
  try { a.feed('{"traceEvents": [{"ph": "X", "ts": }]}'); a.finish(); } catch (e) { err = e; }
  ok(err instanceof F.FsdpaError && err.code === 'FSDPA_EPARSE' && err.status === F.Status.FSDPA_EPARSE &&
     err.offset === 35 && /bad\.json: byte 35/.test(err.message),
     'a parse error throws FsdpaError with status, code, offset and the input named', err && `${err.code} ${err.offset} ${err.message}`);
  let st = null;
  try { a.feed('[]'); } catch (e) { st = e; }
  ok(st && st.code === 'FSDPA_ESTATE', 'feeding after an error: FSDPA_ESTATE');
  a.free();
  let tr = null;
  const b = new F.Analyzer({ name: 't.json' });
  try { b.feed('{"traceEvents": [{"ph": "X"'); b.finish(); } catch (e) { tr = e; }
  ok(tr && tr.code === 'FSDPA_ETRUNCATED', 'a document that ends early: FSDPA_ETRUNCATED at finish()');
  b.free();
  let ty = null;
  try { new F.Analyzer({ params: { 'no.such.param': 1 } }); } catch (e) { ty = e; }
  ok(ty && ty.code === 'FSDPA_EINVAL', 'an unknown parameter: FSDPA_EINVAL');
}

// ---- the corpus ----
const corpus = process.env.FSDPA_TRACE_CORPUS || join(src, '..', 'shared', 'traces');
if (!existsSync(corpus)) {
  console.log(`ok ${++n} - corpus # SKIP no trace corpus at ${corpus} (set FSDPA_TRACE_CORPUS)`);
} else {
  const traces = [];
  (function walk(d) {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.json(\.gz)?$/.test(e)) traces.push(p);
    }
  })(corpus);
  let biggest = null, compared = 0, rejected = 0;
  const t0 = Date.now();
  for (const abs of traces) {
    const p = relative(src, abs);
    const nat = native('json', [p]);
    let as = null, err = null;
    try { as = analyze([p]); } catch (e) { err = e; }
    if (nat.status === 3 || err) {
      // the CLI says "fsdpa: <the library's message>" (and may add a hint)
      const same = err instanceof F.FsdpaError && nat.status === 3 && nat.err.includes(err.message);
      ok(same, `${p}: rejected as the CLI rejects it (${err ? err.code : 'accepted'})`,
         `wasm: ${err ? err.message : 'no error'}\nnative (exit ${nat.status}): ${nat.err.trim()}`);
      rejected++;
      continue;
    }
    same(`${p}: json report = fsdpa analyze -f json`, as[0].reportBytes('json'), nat);
    same(`${p}: text report = fsdpa analyze -f text`, as[0].reportBytes('text'), native('text', [p]));
    const json = Number(as[0].stats().json_bytes);
    if (!biggest || json > biggest.json) biggest = { p, json };
    as[0].free();
    compared++;
  }
  say(`${compared} traces compared, ${rejected} rejected alike, in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  ok(compared >= 10, `the corpus has traces to compare (${compared})`);

  const ranks = ['hta/trace_filter/sampled_rank-0.json.gz', 'hta/trace_filter/sampled_rank-1.json.gz']
    .map((r) => relative(src, join(corpus, r)));
  if (ranks.every((r) => existsSync(join(src, r)))) {
    const as = analyze(ranks);
    same('two ranks as one job: json report = fsdpa analyze -f json rank0 rank1', F.reportBytes(as, 'json'), native('json', ranks));
    same('two ranks as one job: html report', F.reportBytes(as, 'html'), native('html', ranks));
    ok(F.crossrankRanks(as).length === 2, 'crossrankRanks() over the two ranks');
    as.forEach((a) => a.free());
  }

  // streaming: the largest trace goes through a fresh module instance's
  // heap?  The heap never shrinks, so compare with the trace's JSON size: a
  // heap that held the file would be larger than it.
  if (biggest) {
    const heap = F.heapBytes();
    ok(heap < biggest.json, `streaming: the wasm heap (${(heap / 2 ** 20).toFixed(1)} MiB) stays below the ` +
       `largest trace's JSON (${biggest.p}: ${(biggest.json / 2 ** 20).toFixed(1)} MiB)`);
    let lim = null, a = null;
    try { a = new F.Analyzer({ name: biggest.p, maxMemoryBytes: 4 << 20 }); a.feed(readFileSync(join(src, biggest.p))); a.finish(); } catch (e) { lim = e; }
    ok(lim && lim.code === 'FSDPA_ELIMIT' && /memory (limit|cap)/.test(lim.message),
       'maxMemoryBytes 4 MiB on the largest trace: FSDPA_ELIMIT', lim && lim.message);
    ok(a && a.stats().memory_bytes <= 4n << 20n, 'the capped analyzer still answers, within its cap');
    if (a) a.free();
  }
}

console.log(`1..${n}`);
console.log(`${n - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
