/* fsdpa HTML report: draws the charts as inline SVG from the two JSON blocks
 * of the page (#fsdpa-report: the JSON report contract; #fsdpa-viz: the
 * picture data made by libfsdpa/report/html_data.c).  No library, no
 * network.  When everything is drawn, <body data-rendered="ok">; any error
 * sets data-rendered="error" and data-error (the browser test reads both). */
(function () {
  'use strict';
  var body = document.body;
  var failed = false;
  function fail(msg) {
    failed = true;
    body.setAttribute('data-rendered', 'error');
    body.setAttribute('data-error', String(msg));
    var b = document.getElementById('fsdpa-error');
    if (b) { b.textContent = 'This page failed to draw: ' + msg; b.style.display = 'block'; }
  }
  window.onerror = function (msg, src, line, col) { fail(msg + ' (line ' + line + ':' + col + ')'); };

  /* the SVG namespace, taken from the parser so the page holds no URL at all */
  var SVGNS = (function () {
    var d = document.createElement('div');
    d.innerHTML = '<svg></svg>';
    return d.firstChild.namespaceURI;
  })();
  var CLASSES = ['compute', 'AllGather', 'ReduceScatter', 'AllReduce', 'other collective', 'memcpy', 'memset'];
  var CLASS_COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#9c755f', '#bab0ac'];
  var ROLE_COLORS = { compute: '#4e79a7', communication: '#f28e2b', mixed: '#76b7b2', memory: '#9c755f' };
  var REPORT, VIZ;
  var state = [];       /* per rank: {win, view:[s,e], redraw:[...]} */
  var highlight = null; /* {rank, ranges, finding} */

  /* ---------- small helpers ---------- */
  function get(o, path) {
    var p = path.split('.');
    for (var i = 0; i < p.length; i++) {
      if (o === null || o === undefined) return undefined;
      o = o[p[i]];
    }
    return o;
  }
  function num(x) { return typeof x === 'number' && isFinite(x); }
  function arr(x) { return Array.isArray(x) ? x : []; }
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'cls') e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    if (kids) for (var i = 0; i < kids.length; i++) {
      var c = kids[i];
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return e;
  }
  function sv(tag, attrs, parent) {
    var e = document.createElementNS(SVGNS, tag);
    if (attrs) for (var k in attrs) {
      if (k === 'text') e.textContent = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmtNs(ns) {
    if (!num(ns)) return 'n/a';
    var a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e10 ? 1 : 2) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e8 ? 0 : a >= 1e7 ? 1 : 2) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e5 ? 0 : 1) + ' \u00b5s';
    return Math.round(ns) + ' ns';
  }
  function fmtBytes(b) {
    if (!num(b)) return 'n/a';
    var a = Math.abs(b);
    if (a >= 1073741824) return (b / 1073741824).toFixed(2) + ' GiB';
    if (a >= 1048576) return (b / 1048576).toFixed(1) + ' MiB';
    if (a >= 1024) return (b / 1024).toFixed(1) + ' KiB';
    return b + ' B';
  }
  function fmtPct(x, digits) { return num(x) ? x.toFixed(digits === undefined ? 1 : digits) + '%' : 'n/a'; }
  function niceStep(span, n) {
    var raw = span / Math.max(1, n);
    var p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function chartWidth(container) {
    var w = container.clientWidth || 1200;
    return Math.max(480, w - 22);
  }
  var tip = null;
  function showTip(ev, text) {
    if (!tip) return;
    tip.textContent = text;
    tip.style.display = 'block';
    var x = ev.clientX + 14, y = ev.clientY + 14;
    var r = tip.getBoundingClientRect();
    if (x + r.width > window.innerWidth - 8) x = Math.max(8, ev.clientX - r.width - 14);
    if (y + r.height > window.innerHeight - 8) y = Math.max(8, ev.clientY - r.height - 14);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }
  function hideTip() { if (tip) tip.style.display = 'none'; }

  /* time axis along the top or bottom of a plot area; with `base`, ticks
     read as offsets from it (a step at 5.28 s reads +0, +5 ms, ...) */
  function timeAxis(g, x0, x1, y, s, e, scale, up, base) {
    var ax = sv('g', { 'class': 'axis' }, g);
    sv('line', { x1: x0, x2: x1, y1: y, y2: y }, ax);
    var step = niceStep(e - s, Math.max(2, Math.floor((x1 - x0) / 110)));
    var b0 = base === undefined ? 0 : base;
    var first = b0 + Math.ceil((s - b0) / step) * step;
    for (var t = first; t <= e + 1e-9; t += step) {
      var x = scale(t);
      sv('line', { x1: x, x2: x, y1: y, y2: y + (up ? -4 : 4) }, ax);
      var lab = base === undefined ? fmtNs(t) : (t - base >= 0 ? '+' : '\u2212') + fmtNs(Math.abs(t - base));
      sv('text', { x: x, y: up ? y - 6 : y + 14, 'text-anchor': 'middle', text: lab }, ax);
    }
    return step;
  }
  function gridLines(g, x0, x1, y0, y1, s, e, scale, base) {
    var step = niceStep(e - s, Math.max(2, Math.floor((x1 - x0) / 110)));
    var b0 = base === undefined ? 0 : base;
    for (var t = b0 + Math.ceil((s - b0) / step) * step; t <= e + 1e-9; t += step) {
      var x = scale(t);
      sv('line', { 'class': 'grid', x1: x, x2: x, y1: y0, y2: y1 }, g);
    }
  }
  /* finding ranges of this rank drawn over a plot */
  function drawHighlight(g, ri, y0, y1, scale, s, e) {
    if (!highlight || highlight.rank !== ri) return;
    highlight.ranges.forEach(function (r) {
      var a = Math.max(r[0], s), b = Math.min(r[1], e);
      if (b < a) return;
      var xa = scale(a), xb = Math.max(scale(b), xa + 2);
      sv('rect', { 'class': 'hl', x: xa, y: y0, width: xb - xa, height: y1 - y0 }, g);
    });
  }

  /* ---------- header, inputs, findings ---------- */
  function renderHeader(main) {
    var inputs = arr(REPORT.inputs);
    var hdr = el('header', { cls: 'top' }, [
      el('h1', { text: 'fsdpa report' }),
      el('span', { cls: 'sub', text: inputs.length + (inputs.length === 1 ? ' trace' : ' traces (ranks of one job)') +
        ' \u00b7 ' + arr(REPORT.findings).length + ' finding(s) \u00b7 libfsdpa ' + (REPORT.version || '') })
    ]);
    body.insertBefore(hdr, main);
    var t = el('table', { cls: 'plain' });
    t.appendChild(el('tr', null, [el('th', { text: 'rank' }), el('th', { text: 'trace' }),
      el('th', { cls: 'num', text: 'world size' }), el('th', { cls: 'num', text: 'events' })]));
    inputs.forEach(function (x) {
      t.appendChild(el('tr', null, [el('td', { text: String(x.rank) }), el('td', { cls: 'mono', text: x.path }),
        el('td', { cls: 'num', text: num(x.world_size) ? String(x.world_size) : 'n/a' }),
        el('td', { cls: 'num', text: num(x.events) ? x.events.toLocaleString('en-US') : 'n/a' })]));
    });
    main.appendChild(el('div', { cls: 'card' }, [t]));
  }

  function renderFindings(main) {
    main.appendChild(el('h2', { text: 'Findings, worst first' }));
    var list = arr(REPORT.findings);
    if (!list.length) {
      main.appendChild(el('div', { cls: 'card', text: 'No findings: nothing in these traces crossed a threshold.' }));
      return;
    }
    main.appendChild(el('div', { cls: 'hint', text: 'Click a finding to highlight its time ranges on the timelines of its rank.' }));
    var box = el('div', { cls: 'findings' });
    list.forEach(function (f, k) {
      var fv = arr(VIZ.findings)[k] || { rank_index: null, ranges: [] };
      var sev = f.severity || 'info';
      var where = 'rank ' + (num(f.rank) ? f.rank : '?') + (num(f.step) ? ', step ' + f.step : '');
      var ranges = arr(fv.ranges);
      var rtext = ranges.length ? ranges.map(function (r) { return fmtNs(r[1] - r[0]) + ' at ' + fmtNs(r[0]); }).join(', ') : '';
      var card = el('div', { cls: 'finding sev-' + sev, id: 'finding-' + k, 'data-finding': String(k) }, [
        el('div', { cls: 'head' }, [
          el('span', { cls: 'badge sev-' + sev, text: sev }),
          el('code', { text: f.id }),
          el('span', { cls: 'title', text: f.title || '' }),
          el('span', { cls: 'muted small', text: where }),
          el('span', { cls: 'cost', text: num(f.cost_ns) ? 'costs ' + fmtNs(f.cost_ns) : '' })
        ]),
        el('div', { cls: 'detail', text: f.detail || '' }),
        el('div', { cls: 'advice' }, [el('b', { text: 'Advice: ' }), f.advice || '']),
        rtext ? el('div', { cls: 'ranges small muted', text: 'Evidence (worst first; times from the rank\u2019s first GPU op or step): ' + rtext }) : null
      ]);
      card.addEventListener('click', function () { selectFinding(k); });
      box.appendChild(card);
    });
    main.appendChild(box);
  }

  function selectFinding(k) {
    var fv = arr(VIZ.findings)[k];
    var cards = document.querySelectorAll('.finding');
    for (var i = 0; i < cards.length; i++) cards[i].classList.toggle('active', cards[i].getAttribute('data-finding') === String(k));
    if (!fv || fv.rank_index === null || fv.rank_index === undefined) { highlight = null; redrawAll(); return; }
    var ri = fv.rank_index, ranges = arr(fv.ranges);
    highlight = { rank: ri, ranges: ranges, finding: k };
    var st = state[ri];
    if (st && ranges.length) {
      var rv = VIZ.ranks[ri], r = ranges[0], best = -1;
      arr(rv.windows).forEach(function (w, j) {
        if (best < 0 && w.s <= r[0] && r[1] <= w.e) best = j;
      });
      if (best < 0) arr(rv.windows).forEach(function (w, j) {
        if (best < 0 && w.s < r[1] && r[0] < w.e) best = j;
      });
      if (best >= 0) {
        st.win = best;
        st.view = null;
        if (st.select) st.select.value = String(best);
      }
    }
    redrawAll();
    var d = document.getElementById('rank-' + ri);
    if (d) {
      d.open = true;
      var g = document.getElementById('gantt-' + ri) || d;
      if (g.scrollIntoView) g.scrollIntoView({ behavior: 'smooth', block: 'start' });
    }
  }

  function redrawAll() {
    state.forEach(function (st) { st.redraw.forEach(function (f) { f(); }); });
  }

  function renderCrossRank(main) {
    var x = REPORT.cross_rank;
    if (!x || typeof x !== 'object') return;
    main.appendChild(el('h2', { text: 'Across ranks' }));
    var s = x.straggler;
    var lines = [];
    lines.push(el('div', null, [(x.collectives || 0) + ' collectives matched across ' + (x.ranks || arr(REPORT.ranks).length) +
      ' ranks; transfer ' + fmtNs(x.transfer_ns) + ', waiting for other ranks ' + fmtNs(x.wait_ns) +
      (s ? '. Straggler: rank ' + s.rank + ', last in ' + s.late_steps + ' of ' + s.steps + ' steps.' : '.')]));
    var t = el('table', { cls: 'plain' });
    t.appendChild(el('tr', null, ['rank', 'collectives', 'transfer', 'wait', 'arrived last', 'late steps', 'others lost'].map(function (h, i) {
      return el('th', { cls: i ? 'num' : '', text: h });
    })));
    arr(x.per_rank).forEach(function (r) {
      t.appendChild(el('tr', null, [String(r.rank), String(r.collectives), fmtNs(r.transfer_ns), fmtNs(r.wait_ns),
        String(r.last_count), String(r.late_steps), fmtNs(r.lost_ns)].map(function (v, i) {
        return el('td', { cls: i ? 'num' : '', text: v });
      })));
    });
    lines.push(t);
    main.appendChild(el('div', { cls: 'card' }, lines));
  }

  /* ---------- per rank ---------- */
  function kpi(label, value, note, mood, meter) {
    var k = el('div', { cls: 'card kpi' + (mood ? ' ' + mood : '') }, [
      el('div', { cls: 'label', text: label }), el('div', { cls: 'value', text: value }),
      note ? el('div', { cls: 'note', text: note }) : null]);
    if (num(meter)) {
      var m = el('div', { cls: 'meter' }, [el('div', { style: 'width:' + Math.max(0, Math.min(100, meter * 100)).toFixed(1) + '%' })]);
      k.appendChild(m);
    }
    return k;
  }

  function renderKpis(box, r) {
    var steps = arr(r.steps), g = el('div', { cls: 'kpis' });
    var durs = steps.map(function (s) { return s.dur_ns; }).filter(num);
    if (durs.length) {
      var mean = durs.reduce(function (a, b) { return a + b; }, 0) / durs.length;
      g.appendChild(kpi('step time', fmtNs(mean), durs.length + ' ProfilerStep(s), ' + fmtNs(Math.min.apply(null, durs)) +
        ' \u2013 ' + fmtNs(Math.max.apply(null, durs)) + ' (CPU)'));
    } else g.appendChild(kpi('step time', 'n/a', 'no ProfilerStep ranges in the trace'));
    var lg = r.launch_gaps || {};
    var dens = num(lg.density) ? lg.density : null;
    g.appendChild(kpi('GPU density', dens === null ? 'n/a' : fmtPct(dens * 100),
      'busy ' + fmtNs(lg.busy_ns) + ' of ' + fmtNs(num(lg.span_ns) ? lg.span_ns : r.span_ns) + ' span' +
      (num(lg.gpu_host_wait_ns) ? '; idle waiting for the host ' + fmtNs(lg.gpu_host_wait_ns) : ''),
      dens === null ? '' : dens < 0.5 ? 'bad' : dens < 0.8 ? 'warn' : 'good', dens));
    var ov = r.overlap || {};
    var span = num(r.span_ns) ? r.span_ns : null;
    if (num(ov.exposed_comm_ns)) {
      var share = span ? ov.exposed_comm_ns / span : null;
      g.appendChild(kpi('exposed communication', fmtNs(ov.exposed_comm_ns),
        (share !== null ? fmtPct(share * 100) + ' of the GPU span; ' : '') + fmtPct(ov.overlap_pct) + ' of ' +
        fmtNs(ov.comm_ns) + ' communication hidden under compute',
        share === null ? '' : share > 0.1 ? 'bad' : share > 0.03 ? 'warn' : 'good'));
    } else g.appendChild(kpi('exposed communication', 'n/a', 'no collective kernels in the trace'));
    var bw = get(r, 'fsdp.backward') || {};
    var pat = bw.pattern || 'unknown';
    var fv = get(r, 'fsdp.version');
    g.appendChild(kpi('backward pattern', pat.replace('_', ' '),
      (fv ? fv.toUpperCase() + ': ' : '') + (num(bw.units) ? bw.prefetched_units + ' of ' + bw.units + ' units prefetched' : 'no FSDP units found') +
      (num(bw.idle_ns) && bw.idle_ns > 0 ? '; broken links idle ' + fmtNs(bw.idle_ns) : ''),
      pat === 'zigzag' ? 'good' : pat === 'unknown' ? '' : 'bad'));
    var al = r.allocator || {};
    var steadyCalls = (al.steady_state_malloc_calls || 0) + (al.steady_state_free_calls || 0);
    g.appendChild(kpi(num(al.peak_reserved_bytes) ? 'memory (peak reserved)' : 'memory (peak allocated)',
      num(al.peak_reserved_bytes) ? fmtBytes(al.peak_reserved_bytes) :
      num(al.peak_allocated_bytes) ? fmtBytes(al.peak_allocated_bytes) : 'n/a',
      (num(al.peak_allocated_bytes) ? 'peak allocated ' + fmtBytes(al.peak_allocated_bytes) + '; ' : '') +
      (al.malloc_calls || 0) + ' malloc / ' + (al.free_calls || 0) + ' free calls, ' + steadyCalls + ' after warm-up' +
      (num(al.fragmentation) ? '; fragmentation ' + fmtPct(al.fragmentation * 100) : ''),
      steadyCalls > 0 ? 'warn' : ''));
    var sw = arr(r.sync_waits);
    if (sw.length) {
      var top = sw[0], tot = sw.reduce(function (a, x) { return a + (num(x.total_ns) ? x.total_ns : 0); }, 0);
      g.appendChild(kpi('CPU blocked on GPU', fmtNs(tot), top.api + ': ' + top.count + ' call(s), longest ' + fmtNs(top.max_ns)));
    } else g.appendChild(kpi('CPU blocked on GPU', '0', 'no blocking CUDA calls'));
    box.appendChild(g);
  }

  var ROLE_SHORT = { compute: 'compute', communication: 'comm', mixed: 'mixed', memory: 'memcpy' };
  function laneLabel(l) {
    return 'stream ' + l.stream + ' \u00b7 ' + (ROLE_SHORT[l.role] || l.role);
  }

  /* overview of the whole trace: steps, GPU busy per stream */
  function renderOverview(box, ri) {
    var rv = VIZ.ranks[ri], ov = rv.overview;
    if (!ov) { box.appendChild(el('div', { cls: 'card muted', text: 'No GPU activity or steps: nothing to draw.' })); return; }
    var c = el('div', { cls: 'chart' });
    c.appendChild(el('div', { cls: 'toolbar' }, [el('b', { text: 'Whole trace' }),
      el('span', { cls: 'hint', text: 'GPU busy share per stream over time (darker = busier); click a step to show it in the Gantt below.' })]));
    box.appendChild(c);
    var st = state[ri];
    function draw() {
      var old = c.querySelector('svg');
      if (old) c.removeChild(old);
      var W = chartWidth(c), L = 170, R = 10, laneH = 14, top = 24;
      var lanes = rv.lanes;
      var H = top + 18 + (lanes.length + 1) * (laneH + 3) + 22;
      var svg = sv('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H });
      var s0 = rv.t0, s1 = Math.max(rv.t1, rv.t0 + 1);
      var scale = function (t) { return L + (t - s0) / (s1 - s0) * (W - L - R); };
      var bw = (W - L - R) / ov.buckets;
      gridLines(svg, L, W - R, top, H - 22, s0, s1, scale);
      /* steps */
      arr(rv.steps).forEach(function (s, j) {
        var win = -1;
        arr(rv.windows).forEach(function (w, k) { if (w.kind === 'step' && w.step === s.number) win = k; });
        var x = scale(s.s), x2 = Math.max(scale(s.e), x + 1);
        var r = sv('rect', { 'class': 'stepband', x: x, y: top, width: x2 - x, height: 16,
          fill: j % 2 ? '#dfe6f0' : '#ccd7e6' }, svg);
        if (x2 - x > 34) sv('text', { x: x + 3, y: top + 12, text: '#' + s.number, 'pointer-events': 'none' }, svg);
        r.addEventListener('mousemove', function (ev) {
          showTip(ev, 'ProfilerStep#' + s.number + (s.steady ? '' : ' (warm-up)') + '\nCPU ' + fmtNs(s.e - s.s) +
            ', GPU busy ' + fmtNs(s.busy_ns) + (win >= 0 ? '\nclick: show in the Gantt' : ''));
        });
        r.addEventListener('mouseleave', hideTip);
        if (win >= 0) r.addEventListener('click', function () {
          st.win = win; st.view = null; if (st.select) st.select.value = String(win); redrawAll();
        });
      });
      sv('text', { x: 4, y: top + 12, text: 'steps (CPU)', 'class': 'lanelabel' }, svg);
      var y = top + 20;
      for (var l = 0; l <= lanes.length; l++) {
        var lane = l ? lanes[l - 1] : null;
        var color = l ? ROLE_COLORS[lane.role] || '#888' : '#2f3b52';
        sv('text', { x: 4, y: y + laneH - 3, 'class': 'lanelabel',
          text: l ? 'dev ' + lane.device + ' \u00b7 ' + laneLabel(lane) : 'GPU (any stream)' }, svg);
        sv('rect', { x: L, y: y, width: W - L - R, height: laneH, fill: '#f1f3f6' }, svg);
        var vals = ov.lanes[l] || [];
        for (var k = 0; k < vals.length; k++) {
          if (!vals[k]) continue;
          sv('rect', { x: L + k * bw, y: y, width: bw + 0.4, height: laneH, fill: color,
            'fill-opacity': (0.12 + 0.88 * vals[k] / 100).toFixed(2) }, svg);
        }
        y += laneH + 3;
      }
      var w = arr(rv.windows)[st.win];
      if (w) {
        var vs = st.view ? st.view[0] : w.s, ve = st.view ? st.view[1] : w.e;
        sv('rect', { 'class': 'winbox', x: scale(vs), y: top - 2, width: Math.max(2, scale(ve) - scale(vs)), height: y - top + 2 }, svg);
      }
      drawHighlight(svg, ri, top - 2, y, scale, s0, s1);
      timeAxis(svg, L, W - R, y + 2, s0, s1, scale, false);
      c.appendChild(svg);
    }
    st.redraw.push(draw);
  }

  /* Gantt of one window: one lane per stream, kernels colored by class */
  function renderGantt(box, ri) {
    var rv = VIZ.ranks[ri], st = state[ri];
    var wins = arr(rv.windows);
    var c = el('div', { cls: 'chart', id: 'gantt-' + ri });
    if (!wins.length) {
      box.appendChild(el('div', { cls: 'card muted', text: 'No GPU activity: no Gantt view.' }));
      return;
    }
    var sel = el('select', { 'aria-label': 'Gantt window' });
    wins.forEach(function (w, j) {
      var label = w.label + (w.step === rv.chosen_step && w.kind === 'step' ? ' (default: busiest steady step)' : '');
      sel.appendChild(el('option', { value: String(j), text: label }));
    });
    sel.value = String(st.win);
    sel.addEventListener('change', function () { st.win = +sel.value; st.view = null; redrawAll(); });
    st.select = sel;
    var legend = el('div', { cls: 'legend' }, CLASSES.map(function (n, i) {
      return el('span', null, [el('span', { cls: 'sw', style: 'background:' + CLASS_COLORS[i] }), n]);
    }));
    var reset = el('button', { text: 'reset zoom' });
    reset.addEventListener('click', function () { st.view = null; redrawAll(); });
    c.appendChild(el('div', { cls: 'toolbar' }, [el('b', { text: 'GPU streams (Gantt)' }), sel, reset, legend]));
    c.appendChild(el('div', { cls: 'hint', text: 'Drag across the chart to zoom, double-click to reset. ' +
      'Ops narrower than a column are merged (hover for counts).' }));
    box.appendChild(c);
    function draw() {
      var old = c.querySelector('svg');
      if (old) c.removeChild(old);
      var w = wins[st.win] || wins[0];
      var lanes = rv.lanes;
      var W = chartWidth(c), L = 170, R = 10, laneH = 22, gap = 4, top = 46;
      var s0 = st.view ? st.view[0] : w.s, s1 = st.view ? st.view[1] : w.e;
      if (s1 <= s0) s1 = s0 + 1;
      var devs = 0, lastDev = null;
      lanes.forEach(function (l) { if (l.device !== lastDev) { devs++; lastDev = l.device; } });
      var mem = w.memory, memH = mem ? 70 : 0;
      var H = top + lanes.length * (laneH + gap) + devs * 16 + (mem ? memH + 24 : 0) + 28;
      var svg = sv('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H });
      var scale = function (t) { return L + (t - s0) / (s1 - s0) * (W - L - R); };
      var plotB = H - 26 - (mem ? memH + 24 : 0);
      var base = w.cpu_s !== null && w.cpu_s !== undefined ? w.cpu_s : w.s;
      gridLines(svg, L, W - R, top, plotB, s0, s1, scale, base);
      timeAxis(svg, L, W - R, top - 24, s0, s1, scale, true, base);
      sv('text', { x: 4, y: top - 26, 'class': 'lanelabel', text: fmtNs(s1 - s0) + ' from ' + fmtNs(s0) }, svg);
      sv('text', { x: 4, y: top - 6, 'class': 'lanelabel', text: 'steps (CPU)' }, svg);
      /* CPU step ranges */
      arr(w.marks).forEach(function (m) {
        var a = w.s + m[1], b = w.s + m[2];
        if (b < s0 || a > s1) return;
        var xa = scale(Math.max(a, s0)), xb = scale(Math.min(b, s1));
        sv('rect', { x: xa, y: top - 17, width: Math.max(1, xb - xa), height: 13, fill: m[0] === w.step ? '#ccd7e6' : '#e4e9f1' }, svg);
        if (a >= s0) sv('line', { x1: xa, x2: xa, y1: top - 17, y2: plotB, stroke: '#8aa0bf', 'stroke-dasharray': '3,3' }, svg);
        if (b <= s1) sv('line', { x1: xb, x2: xb, y1: top - 17, y2: plotB, stroke: '#8aa0bf', 'stroke-dasharray': '3,3' }, svg);
        if (xb - xa > 90) sv('text', { x: xa + 4, y: top - 7, text: 'ProfilerStep#' + m[0], 'font-size': 10 }, svg);
      });
      var y = top, dev = null, bg = sv('g', null, svg), rects = sv('g', null, svg);
      var lanesY = [];
      lanes.forEach(function (l, li) {
        if (l.device !== dev) {
          dev = l.device;
          sv('text', { x: 4, y: y + 11, 'class': 'devlabel', text: 'device ' + dev }, svg);
          y += 16;
        }
        lanesY.push(y);
        sv('text', { x: 12, y: y + laneH / 2 + 4, 'class': 'lanelabel', text: laneLabel(l) }, bg);
        sv('rect', { x: L, y: y, width: W - L - R, height: laneH, fill: '#f4f6f9' }, bg);
        var d = w.lanes[li] || [];
        for (var k = 0; k + 5 < d.length; k += 6) {
          var a = w.s + d[k], b = w.s + d[k + 1];
          if (b < s0 || a > s1) continue;
          var xa = scale(Math.max(a, s0)), xb = scale(Math.min(b, s1));
          sv('rect', { x: xa.toFixed(2), y: y + 2, width: Math.max(0.8, xb - xa).toFixed(2), height: laneH - 4,
            fill: CLASS_COLORS[d[k + 2]] || '#888', 'data-l': li, 'data-k': k }, rects);
        }
        y += laneH + gap;
      });
      rects.addEventListener('mousemove', function (ev) {
        var t = ev.target, li = t.getAttribute('data-l');
        if (li === null) return hideTip();
        var d = w.lanes[+li], k = +t.getAttribute('data-k');
        var name = w.names[d[k + 3]] || '';
        var n = d[k + 4];
        showTip(ev, (n > 1 ? n + ' ops merged (' + CLASSES[d[k + 2]] + ' dominant); longest: ' : CLASSES[d[k + 2]] + ': ') + name +
          '\nat ' + fmtNs(w.s + d[k]) + ', ' + (n > 1 ? 'span ' + fmtNs(d[k + 1] - d[k]) + ', \u03a3 op time ' + fmtNs(d[k + 5])
            : 'duration ' + fmtNs(d[k + 5])));
      });
      rects.addEventListener('mouseleave', hideTip);
      if (mem) {
        var my = plotB + 22;
        sv('text', { x: 4, y: my + memH / 2 + 4, 'class': 'devlabel', text: 'memory' + (num(mem.device) ? ' (device ' + mem.device + ')' : '') }, svg);
        memChart(svg, mem, L, W - R, my, my + memH, s0, s1, scale, true);
      }
      drawHighlight(svg, ri, top - 4, plotB, scale, s0, s1);
      /* drag to zoom */
      var drag = null, band = null;
      function tx(ev) {
        var r = svg.getBoundingClientRect();
        return (ev.clientX - r.left) * (W / r.width);
      }
      svg.addEventListener('mousedown', function (ev) {
        var x = tx(ev);
        if (x < L) return;
        drag = x;
        band = sv('rect', { x: x, y: top, width: 0, height: plotB - top, fill: 'rgba(47,95,167,.15)' }, svg);
        ev.preventDefault();
      });
      svg.addEventListener('mousemove', function (ev) {
        if (drag === null) return;
        var x = tx(ev);
        band.setAttribute('x', Math.min(x, drag));
        band.setAttribute('width', Math.abs(x - drag));
      });
      svg.addEventListener('mouseup', function (ev) {
        if (drag === null) return;
        var x = tx(ev), a = Math.min(x, drag), b = Math.max(x, drag);
        drag = null;
        if (b - a < 4) { if (band) svg.removeChild(band); return; }
        var inv = function (px) { return s0 + (Math.max(L, Math.min(W - R, px)) - L) / (W - L - R) * (s1 - s0); };
        st.view = [inv(a), inv(b)];
        redrawAll();
      });
      svg.addEventListener('dblclick', function () { st.view = null; redrawAll(); });
      c.appendChild(svg);
    }
    st.redraw.push(draw);
  }

  /* allocated (band: min..max per bucket, line: level at the bucket end)
     and reserved, between y0 and y1 */
  function memChart(svg, m, x0, x1, y0, y1, s0, s1, scale, compact) {
    var am = arr(m.allocated_max), an = arr(m.allocated_min), al = arr(m.allocated_last),
        rm = arr(m.reserved_max), rl = arr(m.reserved_last);
    var top = 0, bottom = Infinity;
    for (var i = 0; i < am.length; i++) {
      if (num(am[i]) && am[i] > top) top = am[i];
      if (num(rm[i]) && rm[i] > top) top = rm[i];
      if (num(an[i]) && an[i] < bottom) bottom = an[i];
    }
    if (!(top > 0)) return;
    bottom = m.relative ? Math.min(0, bottom) : 0;
    var ys = function (v) { return y1 - (v - bottom) / (top - bottom) * (y1 - y0); };
    sv('rect', { x: x0, y: y0, width: x1 - x0, height: y1 - y0, fill: '#fafbfc', stroke: '#e3e7ee' }, svg);
    var bw = m.bucket_ns;
    function xs(k) { return scale(m.start + k * bw); }
    var band = '', line = '', res = '';
    var upper = [], lower = [];
    for (var k = 0; k < am.length; k++) {
      var t0 = m.start + k * bw, t1 = t0 + bw;
      if (t1 < s0 || t0 > s1) continue;
      var xa = Math.max(x0, xs(k)), xb = Math.min(x1, xs(k + 1));
      if (num(am[k]) && num(an[k])) { upper.push([xa, ys(am[k])], [xb, ys(am[k])]); lower.push([xa, ys(an[k])], [xb, ys(an[k])]); }
      if (num(al[k])) line += (line ? 'L' : 'M') + xa.toFixed(1) + ',' + ys(al[k]).toFixed(1) + 'L' + xb.toFixed(1) + ',' + ys(al[k]).toFixed(1);
      if (num(rm[k])) res += (res ? 'L' : 'M') + xa.toFixed(1) + ',' + ys(rm[k]).toFixed(1) + 'L' + xb.toFixed(1) + ',' + ys(rm[k]).toFixed(1);
    }
    if (upper.length) {
      band = 'M' + upper.map(function (p) { return p[0].toFixed(1) + ',' + p[1].toFixed(1); }).join('L') + 'L' +
        lower.reverse().map(function (p) { return p[0].toFixed(1) + ',' + p[1].toFixed(1); }).join('L') + 'Z';
      sv('path', { d: band, fill: 'rgba(78,121,167,.35)', stroke: 'none' }, svg);
    }
    if (line) sv('path', { d: line, fill: 'none', stroke: '#2f5fa7', 'stroke-width': 1.3 }, svg);
    if (res) sv('path', { d: res, fill: 'none', stroke: '#e15759', 'stroke-width': 1.3 }, svg);
    var steps = compact ? [top] : [bottom + (top - bottom) / 2, top];
    steps.forEach(function (v) {
      sv('text', { x: x0 - 4, y: ys(v) + 4, 'text-anchor': 'end', text: fmtBytes(v) }, svg);
    });
    sv('text', { x: x0 - 4, y: y1, 'text-anchor': 'end', text: fmtBytes(bottom) }, svg);
  }

  function renderMemory(box, ri) {
    var rv = VIZ.ranks[ri], st = state[ri], m = rv.memory;
    var c = el('div', { cls: 'chart' });
    if (!m) {
      box.appendChild(el('div', { cls: 'card muted', text: 'No device [memory] events in this trace (profile_memory=True records them): no memory timeline.' }));
      return;
    }
    c.appendChild(el('div', { cls: 'toolbar' }, [
      el('b', { text: 'Device memory over the whole trace' + (num(m.device) ? ' (device ' + m.device + ')' : '') }),
      el('span', { cls: 'legend' }, [
        el('span', null, [el('span', { cls: 'sw', style: 'background:rgba(78,121,167,.45)' }), 'allocated (min\u2013max per bucket)']),
        el('span', null, [el('span', { cls: 'sw', style: 'background:#2f5fa7' }), 'allocated']),
        el('span', null, [el('span', { cls: 'sw', style: 'background:#e15759' }), 'reserved (max per bucket)'])]),
      m.relative ? el('span', { cls: 'hint', text: 'levels are growth since the first event (the trace has no Total Allocated)' }) : null]));
    box.appendChild(c);
    function draw() {
      var old = c.querySelector('svg');
      if (old) c.removeChild(old);
      var W = chartWidth(c), L = 170, R = 10, H = 170, y0 = 8, y1 = H - 26;
      var svg = sv('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H });
      var s0 = rv.t0, s1 = Math.max(rv.t1, m.end, rv.t0 + 1);
      var scale = function (t) { return L + (t - s0) / (s1 - s0) * (W - L - R); };
      gridLines(svg, L, W - R, y0, y1, s0, s1, scale);
      memChart(svg, m, L, W - R, y0, y1, s0, s1, scale, false);
      var w = arr(rv.windows)[st.win];
      if (w) {
        var vs = st.view ? st.view[0] : w.s, ve = st.view ? st.view[1] : w.e;
        sv('rect', { 'class': 'winbox', x: scale(vs), y: y0, width: Math.max(2, scale(ve) - scale(vs)), height: y1 - y0 }, svg);
      }
      drawHighlight(svg, ri, y0, y1, scale, s0, s1);
      timeAxis(svg, L, W - R, y1 + 2, s0, s1, scale, false);
      c.appendChild(svg);
    }
    st.redraw.push(draw);
  }

  /* launch-gap histogram of each stream: fixed 1-2-5 bins, log-scaled bars */
  function renderHists(box, r, ri) {
    var streams = arr(get(r, 'launch_gaps.streams'));
    if (!streams.length) return;
    box.appendChild(el('h3', { text: 'Gaps between consecutive ops, per stream' }));
    box.appendChild(el('div', { cls: 'hint' }, ['Number of idle gaps between consecutive ops of a stream, by gap length (bar height log-scaled): ',
      el('span', { cls: 'legend', style: 'display:inline-flex' }, [
        el('span', null, [el('span', { cls: 'sw', style: 'background:#e15759' }), 'up to 10 \u00b5s: launch overhead']),
        el('span', null, [el('span', { cls: 'sw', style: 'background:#f28e2b' }), 'up to 1 ms']),
        el('span', null, [el('span', { cls: 'sw', style: 'background:#4e79a7' }), 'longer: waits on the host, other streams or ranks'])])]));
    var g = el('div', { cls: 'hists' });
    streams.forEach(function (s) {
      var c = el('div', { cls: 'chart' });
      var counts = arr(get(s, 'histogram.counts')), edges = arr(get(s, 'histogram.edges_ns'));
      var idle = arr(get(s, 'histogram.idle_ns'));
      var lane = null;
      arr(VIZ.ranks[ri].lanes).forEach(function (l) { if (l.device === s.device && l.stream === s.stream) lane = l; });
      c.appendChild(el('div', { cls: 'small' }, [el('b', { text: 'device ' + s.device + ' \u00b7 stream ' + s.stream }),
        ' ' + (lane ? lane.role : '') + ' \u00b7 ' + (s.gaps || 0) + ' gaps, p50 ' + fmtNs(s.p50_ns) + ', p90 ' + fmtNs(s.p90_ns) +
        ', max ' + fmtNs(s.max_ns)]));
      var W = 320, H = 120, L = 8, R = 8, top = 14, bot = H - 30;
      var svg = sv('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, preserveAspectRatio: 'xMinYMin meet' });
      var max = 0;
      counts.forEach(function (v) { if (v > max) max = v; });
      var n = counts.length || 1, bw = (W - L - R) / n;
      var lg = function (v) { return Math.log(1 + v) / Math.log(1 + Math.max(1, max)); };
      sv('line', { x1: L, x2: W - R, y1: bot, y2: bot, stroke: '#c9d0da' }, svg);
      counts.forEach(function (v, i) {
        if (!v) return;
        var h = Math.max(1.5, lg(v) * (bot - top));
        var lo = i ? edges[i - 1] : 0, hi = i < edges.length ? edges[i] : null;
        var color = hi !== null && hi <= 10000 ? '#e15759' : hi !== null && hi <= 1000000 ? '#f28e2b' : '#4e79a7';
        var b = sv('rect', { x: L + i * bw + 1, y: bot - h, width: bw - 2, height: h, fill: color }, svg);
        b.addEventListener('mousemove', function (ev) {
          showTip(ev, v + ' gap(s) ' + (hi === null ? '\u2265 ' + fmtNs(lo) : i ? fmtNs(lo) + ' \u2013 ' + fmtNs(hi) : '< ' + fmtNs(hi)) +
            (num(idle[i]) ? '\nidle ' + fmtNs(idle[i]) : ''));
        });
        b.addEventListener('mouseleave', hideTip);
      });
      [[0, '1\u00b5s'], [3, '10\u00b5s'], [6, '100\u00b5s'], [9, '1ms'], [12, '10ms'], [15, '100ms'], [18, '1s']].forEach(function (p) {
        var x = L + (p[0] + 1) * bw;
        if (p[0] + 1 > n) return;
        sv('line', { x1: x, x2: x, y1: bot, y2: bot + 4, stroke: '#9aa3b2' }, svg);
        sv('text', { x: x, y: bot + 16, 'text-anchor': 'middle', text: p[1] }, svg);
      });
      sv('text', { x: W - R, y: top - 2, 'text-anchor': 'end', text: 'max ' + max + ' per bin' }, svg);
      c.appendChild(svg);
      g.appendChild(c);
    });
    box.appendChild(g);
  }

  /* exposed communication per FSDP unit (or per collective type) */
  function renderUnits(box, r) {
    var units = arr(get(r, 'fsdp.units'));
    var rows = [], title, note;
    if (units.length) {
      title = 'Communication per FSDP unit: hidden under compute vs exposed';
      note = 'Bar = the unit\u2019s communication (union of its collectives, all steps). Red = the part that ran with no compute kernel beside it; ' +
        'the mark is T_exposed = max(0, T_comm \u2212 T_compute).';
      units.forEach(function (u) {
        var ex = num(u.exposed_measured_ns) ? u.exposed_measured_ns : u.exposed_ns;
        rows.push({ label: u.name + ' \u00b7 ' + (u.phase === 'backward' ? 'bwd' : 'fwd'), comm: u.comm_ns || 0,
          exposed: num(ex) ? ex : 0, formula: u.exposed_ns, compute: u.compute_ns });
      });
    } else {
      var bc = arr(get(r, 'overlap.by_collective'));
      if (!bc.length) return;
      title = 'Communication per collective type: hidden under compute vs exposed';
      note = 'No FSDP units found in the annotations; communication split by collective type instead.';
      bc.forEach(function (b) {
        rows.push({ label: b.collective + ' (' + b.count + ')', comm: b.comm_ns || 0, exposed: num(b.exposed_ns) ? b.exposed_ns : 0 });
      });
    }
    box.appendChild(el('h3', { text: title }));
    box.appendChild(el('div', { cls: 'hint', text: note }));
    var c = el('div', { cls: 'chart' });
    box.appendChild(c);
    var W = 960, L = 230, R = 200, rowH = 17, top = 6;
    var H = top + rows.length * rowH + 8;
    var svg = sv('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, style: 'max-width:' + W + 'px' });
    var max = 1;
    rows.forEach(function (x) { if (x.comm > max) max = x.comm; });
    var sc = function (v) { return v / max * (W - L - R); };
    rows.forEach(function (x, i) {
      var y = top + i * rowH;
      var lab = x.label.length > 36 ? x.label.slice(0, 35) + '\u2026' : x.label;
      sv('text', { x: L - 6, y: y + 12, 'text-anchor': 'end', 'class': 'lanelabel', text: lab }, svg);
      var hidden = Math.max(0, x.comm - x.exposed);
      sv('rect', { x: L, y: y + 2, width: sc(hidden), height: rowH - 5, fill: '#9fb8d6' }, svg);
      sv('rect', { x: L + sc(hidden), y: y + 2, width: sc(x.exposed), height: rowH - 5, fill: '#e15759' }, svg);
      if (num(x.formula) && x.formula > 0)
        sv('line', { x1: L + sc(x.formula), x2: L + sc(x.formula), y1: y + 1, y2: y + rowH - 2, stroke: '#1d2330', 'stroke-width': 2 }, svg);
      sv('text', { x: L + sc(x.comm) + 6, y: y + 12, text: fmtNs(x.exposed) + ' exposed of ' + fmtNs(x.comm) }, svg);
    });
    c.appendChild(svg);
  }

  function renderRank(main, ri) {
    var rv = VIZ.ranks[ri], r = arr(REPORT.ranks)[ri] || {};
    state[ri] = { win: 0, view: null, redraw: [], select: null };
    arr(rv.windows).forEach(function (w, j) { if (w.kind === 'step' && w.step === rv.chosen_step) state[ri].win = j; });
    var d = el('details', { cls: 'rank', id: 'rank-' + ri });
    if (ri < 2) d.open = true;
    d.appendChild(el('summary', { text: 'Rank ' + rv.rank + ' \u2014 ' + rv.path }));
    renderKpis(d, r);
    renderOverview(d, ri);
    renderGantt(d, ri);
    renderMemory(d, ri);
    renderUnits(d, r);
    renderHists(d, r, ri);
    main.appendChild(d);
  }

  function render() {
    REPORT = JSON.parse(document.getElementById('fsdpa-report').textContent);
    VIZ = JSON.parse(document.getElementById('fsdpa-viz').textContent);
    var main = document.getElementById('app');
    tip = el('div', { cls: 'tip' });
    body.appendChild(tip);
    renderHeader(main);
    renderFindings(main);
    renderCrossRank(main);
    arr(VIZ.ranks).forEach(function (rv, ri) { renderRank(main, ri); });
    redrawAll();
    var t = null;
    window.addEventListener('resize', function () { clearTimeout(t); t = setTimeout(redrawAll, 120); });
    document.addEventListener('keydown', function (ev) { if (ev.key === 'Escape') { highlight = null; redrawAll(); } });
    var m = /^#finding-(\d+)$/.exec(location.hash || '');
    if (m && +m[1] < arr(REPORT.findings).length) selectFinding(+m[1]);
  }

  try {
    render();
    if (!failed) body.setAttribute('data-rendered', 'ok');
  } catch (e) {
    fail((e && e.message ? e.message : String(e)) + (e && e.stack ? ' @ ' + String(e.stack).split('\n')[1] : ''));
  }
})();
