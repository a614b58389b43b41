/* The viewer's Web Worker: the traces dropped on the page go through the
 * wasm analyzer here, never through the page's thread and never over the
 * network.  It runs after fsdpa-worker.js (the module with the wasm inlined
 * and api.js, which defines self.fsdpaReady), in one Blob URL.
 *
 * page -> worker  {type: 'analyze', files: [File, ...], interims}   (several = ranks of one job;
 *                 interims: also take findings and charts at each 1/(interims+1) of a file's bytes,
 *                 whatever the time, so a slow or a fast machine shows the same number of updates)
 * worker -> page  {type: 'ready', version, simd}
 *                 {type: 'progress', file, name, bytes, size, done}
 *                 {type: 'interim', file, name, stats, findings, steps}  (queries between feeds)
 *                 {type: 'done', findings, ranks, html, seconds}
 *                 {type: 'error', file, name, code, message, offset}
 */
'use strict';
/* global fsdpaReady */

// Findings and charts between feeds cost a pass over the events so far: they
// are made at most this often, and never taking more than a fifth of the time.
var INTERIM_MS = 700;
var FEED_PIECE = 256 * 1024;

function plain(v) {  // BigInt fields -> numbers (ns fit a double's 53 bits for display)
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') {
    var o = {};
    for (var k in v) o[k] = plain(v[k]);
    return o;
  }
  return v;
}

function findingRows(list) {
  return list.map(function (f) {
    return { id: f.id, severity: f.severity, rank: plain(f.rank), step: plain(f.step), cost_ns: plain(f.cost_ns),
             title: f.title, detail: f.detail, advice: f.advice };
  });
}

// What the page charts: each step's GPU busy time and span (timeline query
// per step index), so a step's density is busy / span.
function stepRows(F, a) {
  return a.steps().map(function (s, i) {
    var t = a.timeline({ step: i });
    return { number: plain(s.number), dur_ns: plain(s.dur_ns), busy_ns: plain(t.busy_ns), span_ns: plain(t.span_ns),
             density: t.density };
  });
}

function snapshot(F, a, i, name) {
  return { type: 'interim', file: i, name: name, stats: plain(a.stats()), findings: findingRows(a.findings()),
           steps: stepRows(F, a) };
}

async function analyze(F, files, interims) {
  var t0 = Date.now();
  var analyzers = [];
  try {
    for (var i = 0; i < files.length; i++) {
      var file = files[i];
      var a = new F.Analyzer({ name: file.name });
      analyzers.push(a);
      var reader = file.stream().getReader();
      var bytes = 0, last = Date.now(), cost = 0, mark = 1;
      var every = interims > 0 && file.size > 0 ? file.size / (interims + 1) : Infinity;
      for (;;) {
        var r = await reader.read();
        if (r.done) break;
        // A stream's chunk can be megabytes (tens of MB of JSON once inflated):
        // fed in pieces, progress and updates keep their grain on any browser.
        for (var off = 0; off < r.value.length; off += FEED_PIECE) {
          var piece = r.value.subarray(off, Math.min(off + FEED_PIECE, r.value.length));
          try {
            a.feed(piece);
          } catch (e) {
            reader.cancel();
            throw Object.assign(e, { fileIndex: i, fileName: file.name });
          }
          bytes += piece.length;
          var now = Date.now();
          var milestone = bytes >= mark * every && mark <= interims;
          while (mark <= interims && bytes >= mark * every) mark++;
          if (milestone || now - last >= Math.max(INTERIM_MS, 5 * cost)) {
            postMessage({ type: 'progress', file: i, name: file.name, bytes: bytes, size: file.size, done: false });
            var q0 = Date.now();
            postMessage(snapshot(F, a, i, file.name));
            cost = Date.now() - q0;
            last = Date.now();
          }
        }
      }
      try {
        a.finish();
      } catch (e) {
        throw Object.assign(e, { fileIndex: i, fileName: file.name });
      }
      postMessage({ type: 'progress', file: i, name: file.name, bytes: bytes, size: file.size, done: true });
      postMessage(snapshot(F, a, i, file.name));
    }
    var names = files.map(function (f) { return f.name; });
    var html = F.report(analyzers, 'html', { paths: names });
    postMessage({
      type: 'done', findings: findingRows(F.findings(analyzers)), html: html, seconds: (Date.now() - t0) / 1000,
      ranks: analyzers.map(function (a, k) { return { name: names[k], steps: stepRows(F, a), stats: plain(a.stats()) }; }),
    });
  } finally {
    analyzers.forEach(function (a) { a.free(); });
  }
}

var ready = fsdpaReady.then(function (F) {
  postMessage({ type: 'ready', version: F.version, heap: F.heapBytes() });
  return F;
}, function (e) {
  postMessage({ type: 'error', code: 'load', message: 'the analyzer did not load: ' + e });
  throw e;
});

onmessage = function (ev) {
  if (!ev.data || ev.data.type !== 'analyze') return;
  ready.then(function (F) { return analyze(F, ev.data.files, ev.data.interims | 0); }).catch(function (e) {
    postMessage({ type: 'error', file: e.fileIndex === undefined ? null : e.fileIndex, name: e.fileName || null,
                  code: e.code || e.name || 'error', message: String(e.message || e),
                  offset: e.offset === undefined ? null : e.offset });
  });
};
