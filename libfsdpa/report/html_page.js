/* fsdpa HTML report: draws the charts as inline SVG from the two JSON blocks
 * of the page (#fsdpa-report: the JSON report contract; #fsdpa-viz: the
 * picture data made by libfsdpa/report/html_data.c).  No library, no
 * network.  When everything is drawn, <body data-rendered="ok">; any error
 * sets data-rendered="error" and data-error (the browser test reads both).
 *
 * The overview and the Gantt colour ops by one table (CLASS_COLORS, indexed
 * by the class numbers of the picture data) and show it in their legends.
 * Every step of the trace is a view of the Gantt: a detailed window when
 * the page has one for it, else its coarse view, else (pages too small for
 * all of them) a message saying how to draw it. */
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
  /* class number -> name and colour; GPU classes first, then the runtime
     calls of CPU threads (html_data.c's HC_* order) */
  var CLASSES = ['compute', 'AllGather', 'ReduceScatter', 'AllReduce', 'other collective', 'memcpy', 'memset',
    'launch (CPU)', 'blocking sync (CPU)', 'malloc / free (CPU)', 'other runtime call (CPU)',
    'blocking by behaviour (CPU)', 'DataLoader __next__ (CPU)'];
  var CLASS_COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#9c755f', '#bab0ac',
    '#86bcb6', '#d37295', '#b6992d', '#9aa5b5', '#6a3d9a', '#ff9da7'];
  var FIRST_CPU_CLASS = 7;
  var REPORT, VIZ, NOVIZ = false;
  var state = [];       /* per rank: views, current view, zooms, charts */
  var highlight = null; /* {rank, ranges, side, threads, finding} */

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
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function fmtNs(ns) {
    if (!num(ns)) return 'n/a';
    var a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e10 ? 1 : 2) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e8 ? 0 : a >= 1e7 ? 1 : 2) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e5 ? 0 : 1) + ' \u00b5s';
    return Math.round(ns) + ' ns';
  }
  /* a tick label with the digits its spacing needs (150.12 ms, 150.14 ms
     rather than 150 ms twice) */
  function fmtTick(ns, step) {
    var a = Math.abs(ns), u = a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
    var name = u === 1e9 ? ' s' : u === 1e6 ? ' ms' : u === 1e3 ? ' \u00b5s' : ' ns';
    var d = Math.max(0, Math.min(6, Math.ceil(Math.log(u / step) / Math.LN10 - 1e-9)));
    if (ns === 0) return '0' + name;
    return (ns / u).toFixed(d) + name;
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
  /* the width inside the chart's padding, so the SVG is drawn 1:1 */
  function chartWidth(container) {
    var w = container.clientWidth, cs = window.getComputedStyle ? window.getComputedStyle(container) : null;
    if (!w) return 1200;
    if (cs) w -= (parseFloat(cs.paddingLeft) || 0) + (parseFloat(cs.paddingRight) || 0);
    return Math.max(480, Math.floor(w));
  }
  function classColor(c) { return CLASS_COLORS[c] || '#888'; }
  function className(c) { return CLASSES[c] || 'class ' + c; }
  /* Width of an SVG label, measured on a canvas in the page's font: asking
     the SVG element would lay the page out again for every label. */
  var measure = null, fontFamily = '';
  function textWidth(t) {
    if (measure === null) {
      var cv = document.createElement('canvas');
      measure = (cv.getContext && cv.getContext('2d')) || false;
      fontFamily = window.getComputedStyle ? window.getComputedStyle(body).fontFamily : 'sans-serif';
    }
    var c = t.getAttribute('class') || '', fs = t.getAttribute('font-size');
    var px = fs ? +fs : /lanelabel/.test(c) ? 11.5 : 11, weight = /devlabel/.test(c) ? 700 : 400;
    if (!measure) return t.textContent.length * px * 0.6;
    measure.font = weight + ' ' + px + 'px ' + fontFamily;
    return measure.measureText(t.textContent).width;
  }
  /* A label cut with an ellipsis to fit maxw px (the whole text in a
     tooltip): lane names and the like never run into the plot. */
  function fitText(t, maxw) {
    var full = t.textContent;
    if (!(maxw > 0) || !(textWidth(t) > maxw)) return t;
    var lo = 0, hi = full.length;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      t.textContent = full.slice(0, mid) + '\u2026';
      if (textWidth(t) <= maxw) lo = mid; else hi = mid - 1;
    }
    t.textContent = lo ? full.slice(0, lo) + '\u2026' : '';
    sv('title', { text: full }, t);
    return t;
  }
  /* a legend of the colour table: GPU classes, then the CPU ones when the
     rank has CPU lanes */
  function classLegend(withCpu) {
    var items = [];
    for (var c = 0; c < CLASSES.length; c++) {
      if (c >= FIRST_CPU_CLASS && !withCpu) break;
      items.push(el('span', { 'data-cls': String(c), role: 'listitem' }, [
        el('span', { cls: 'sw', style: 'background:' + classColor(c) }), className(c)]));
    }
    return el('div', { cls: 'legend', role: 'list', 'aria-label': 'colours of the op classes' }, items);
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
     read as offsets from it (a step at 5.28 s reads +0, +5 ms, ...); a
     label that would run past the chart's edge is kept inside it */
  function timeAxis(g, x0, x1, y, s, e, scale, up, base, xmax) {
    var ax = sv('g', { 'class': 'axis' }, g);
    sv('line', { x1: x0, x2: x1, y1: y, y2: y }, ax);
    var step = niceStep(e - s, Math.max(2, Math.floor((x1 - x0) / 110)));
    var b0 = base === undefined ? 0 : base;
    var first = b0 + Math.ceil((s - b0) / step) * step;
    for (var t = first; t <= e + 1e-9; t += step) {
      var x = scale(t);
      sv('line', { x1: x, x2: x, y1: y, y2: y + (up ? -4 : 4) }, ax);
      var lab = base === undefined ? fmtTick(t, step) : (t - base >= 0 ? '+' : '\u2212') + fmtTick(Math.abs(t - base), step);
      var tx = sv('text', { x: x, y: up ? y - 6 : y + 14, 'text-anchor': 'middle', text: lab }, ax);
      var w = textWidth(tx);
      var right = num(xmax) ? xmax : x1 + 8;
      if (w && x + w / 2 > right - 1) { tx.setAttribute('text-anchor', 'end'); tx.setAttribute('x', right - 1); }
      else if (w && x - w / 2 < x0 - 4) { tx.setAttribute('text-anchor', 'start'); tx.setAttribute('x', x0 - 4); }
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
  /* the current finding's ranges on this rank, each with the band it goes
     on: {r: [s, e], lane: 'gpu' | 'cpu:<index>' | 'cpu'} */
  function highlightBands(ri) {
    if (!highlight || highlight.rank !== ri) return [];
    var rv = VIZ.ranks[ri], cl = arr(rv.cpu_lanes);
    return highlight.ranges.map(function (r, k) {
      if (highlight.side !== 'cpu') return { r: r, lane: 'gpu' };
      var th = arr(highlight.threads)[k], li = -1;
      /* a thread may have two lanes, its runtime calls and its DataLoader
         __next__ calls: a range names which it is on */
      var want = th && th[2] === 'dataloader' ? 'dataloader' : null;
      if (th) cl.forEach(function (l, j) {
        if (li < 0 && l.pid === th[0] && l.tid === th[1] && (l.reason === 'dataloader') === (want === 'dataloader')) li = j;
      });
      return { r: r, lane: li >= 0 ? 'cpu:' + li : 'cpu' };
    });
  }
  /* bands of the current finding over a plot: rows maps a band's lane to
     its [y0, y1] (null: that lane is not in this plot) */
  function drawHighlight(g, ri, rows, scale, s, e) {
    highlightBands(ri).forEach(function (b, k) {
      var y = rows(b.lane);
      if (!y) return;
      var a = Math.max(b.r[0], s), z = Math.min(b.r[1], e);
      if (z < a) return;
      var xa = scale(a), xb = Math.max(scale(z), xa + 2);
      sv('rect', { 'class': 'hl', x: xa, y: y[0], width: xb - xa, height: y[1] - y[0], 'data-hl-lane': b.lane,
        'data-range': String(k) }, g);
    });
  }

  /* zoom of a chart's visible range: factor < 1 zooms in around `at`;
     null when the result covers the whole range */
  function zoomed(view, full, factor, at) {
    var v = view || full, span = v[1] - v[0], fs = full[1] - full[0];
    var ns = Math.max(Math.min(span * factor, fs), Math.min(fs, 1000));
    if (ns >= fs) return null;
    var c = num(at) ? at : (v[0] + v[1]) / 2, frac = span > 0 ? (c - v[0]) / span : 0.5;
    var a = c - frac * ns;
    a = Math.max(full[0], Math.min(a, full[1] - ns));
    return [a, a + ns];
  }
  function panned(view, full, by) {
    if (!view) return null;
    var span = view[1] - view[0], a = view[0] + by * span;
    a = Math.max(full[0], Math.min(a, full[1] - span));
    return [a, a + span];
  }
  /* drag-to-zoom, click, Ctrl+wheel zoom and Shift+wheel pan on a chart:
     o = {svg, L, W, R (plot columns), y0, y1 (drag band), view() (the zoom
     or null), full() and range() (the whole and the drawn [s, e]),
     set(view), click(t)} */
  function zoomable(o) {
    var svg = o.svg, drag = null, band = null;
    /* client x to the chart's own x, exactly as the browser maps it */
    function px(ev) {
      var m = svg.getScreenCTM && svg.getScreenCTM();
      if (m && svg.createSVGPoint) {
        var p = svg.createSVGPoint();
        p.x = ev.clientX;
        p.y = ev.clientY;
        return p.matrixTransform(m.inverse()).x;
      }
      var r = svg.getBoundingClientRect();
      return (ev.clientX - r.left) * (o.W / (r.width || o.W));
    }
    function tAt(x) {
      var v = o.range();
      return v[0] + (Math.max(o.L, Math.min(o.W - o.R, x)) - o.L) / (o.W - o.L - o.R) * (v[1] - v[0]);
    }
    svg.addEventListener('mousedown', function (ev) {
      if (ev.button) return;
      var x = px(ev);
      if (x < o.L) return;
      drag = x;
      band = sv('rect', { x: x, y: o.y0, width: 0, height: o.y1 - o.y0, fill: 'rgba(47,95,167,.15)' }, svg);
      ev.preventDefault();
    });
    svg.addEventListener('mousemove', function (ev) {
      if (drag === null) return;
      var x = px(ev);
      band.setAttribute('x', Math.min(x, drag));
      band.setAttribute('width', Math.abs(x - drag));
    });
    function end(ev) {
      if (drag === null) return;
      var x = px(ev), a = Math.min(x, drag), b = Math.max(x, drag);
      drag = null;
      if (band && band.parentNode) band.parentNode.removeChild(band);
      if (b - a < 4) { if (o.click) o.click(tAt(x)); return; }
      o.set([tAt(a), tAt(b)]);
    }
    svg.addEventListener('mouseup', end);
    svg.addEventListener('mouseleave', function () {
      if (drag === null) return;
      drag = null;
      if (band && band.parentNode) band.parentNode.removeChild(band);
    });
    svg.addEventListener('wheel', function (ev) {
      var x = px(ev);
      if (x < o.L) return;
      if (ev.ctrlKey || ev.metaKey) {
        ev.preventDefault();
        o.set(zoomed(o.view(), o.full(), ev.deltaY < 0 ? 0.5 : 2, tAt(x)));
      } else if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        if (!o.view()) return;
        ev.preventDefault();
        var d = ev.deltaX || ev.deltaY;
        o.set(panned(o.view(), o.full(), d > 0 ? 0.25 : -0.25));
      }
    }, { passive: false });
  }
  /* zoom buttons for a chart's toolbar (and the keys they stand for) */
  function zoomButtons(label, act) {
    function b(text, what, aria) {
      var x = el('button', { type: 'button', text: text, 'data-zoom': what, 'aria-label': aria + ' (' + label + ')' });
      x.addEventListener('click', function () { act(what); });
      return x;
    }
    return el('span', { cls: 'zoombtns', role: 'group', 'aria-label': 'zoom ' + label }, [
      b('\u2212', 'out', 'zoom out'), b('+', 'in', 'zoom in'), b('\u25c0', 'left', 'pan left'),
      b('\u25b6', 'right', 'pan right'), b('whole range', 'reset', 'show the whole range')]);
  }
  function zoomKeys(node, act) {
    node.addEventListener('keydown', function (ev) {
      var k = ev.key, what = k === '+' || k === '=' ? 'in' : k === '-' ? 'out' : k === 'ArrowLeft' ? 'left' :
        k === 'ArrowRight' ? 'right' : k === '0' || k === 'Home' ? 'reset' : null;
      if (!what) return;
      ev.preventDefault();
      act(what);
    });
  }
  function applyZoom(view, full, what) {
    if (what === 'in') return zoomed(view, full, 0.5);
    if (what === 'out') return zoomed(view, full, 2);
    if (what === 'left') return panned(view, full, -0.5);
    if (what === 'right') return panned(view, full, 0.5);
    return null;
  }
  /* ---------- header, inputs, findings ---------- */
  function renderHeader(main) {
    var inputs = arr(REPORT.inputs);
    var hdr = el('header', { cls: 'top' }, [
      el('h1', { text: 'fsdpa report' }),
      el('span', { cls: 'sub', text: inputs.length + (inputs.length === 1 ? ' trace' : ' traces (ranks of one job)') +
        ' \u00b7 ' + (inputs.length > 1 ? arr(get(REPORT, 'job.findings')).length + ' finding(s) over the job, ' +
        arr(REPORT.findings).length + ' over its ranks' : arr(REPORT.findings).length + ' finding(s)') +
        ' \u00b7 libfsdpa ' + (REPORT.version || '') })
    ]);
    body.insertBefore(hdr, main);
    /* a job's traces are in its table (renderJob) */
    if (inputs.length > 1) return;
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


  var SEV_ORDER = { critical: 2, warning: 1, info: 0 };
  function findingWhere(fv) {
    if (!fv || fv.rank_index === null || fv.rank_index === undefined) return '';
    var rv = VIZ.ranks[fv.rank_index];
    if (!rv || !arr(fv.ranges).length) return '';
    if (fv.side !== 'cpu') return 'shown on the GPU streams of rank ' + rv.rank;
    var names = [];
    arr(fv.threads).forEach(function (th) {
      if (!th) return;
      arr(rv.cpu_lanes).forEach(function (l) {
        var n = cpuLaneName(l);
        if (l.pid === th[0] && l.tid === th[1] && names.indexOf(n) < 0) names.push(n);
      });
    });
    return 'shown on the CPU thread' + (names.length > 1 ? 's ' : ' ') + (names.length ? names.join(', ') : 'lanes') +
      ' of rank ' + rv.rank + ' (the thread that made the calls)';
  }

  /* the evidence ranges of a finding, from the JSON report alone: relative
     to its rank's origin (ranks[].origin_ns), the times the charts use */
  function rangesText(f) {
    var r = null;
    arr(REPORT.ranks).forEach(function (x) { if (x.rank === f.rank) r = x; });
    var o = r && num(r.origin_ns) ? r.origin_ns : null, rs = arr(get(f, 'evidence.ranges'));
    if (!rs.length) return '';
    var t = rs.map(function (x) {
      return fmtNs(x.end_ns - x.start_ns) + ' at ' + (o !== null ? fmtNs(x.start_ns - o) : x.start_ns + ' ns');
    }).join(', ');
    var tot = get(f, 'evidence.ranges_total');
    return t + (num(tot) && tot > rs.length ? ' (the worst ' + rs.length + ' of ' + tot + ')' : '');
  }
  function costText(f) {
    return num(f.cost_bytes) && !f.cost_ns ? 'costs ' + fmtBytes(f.cost_bytes) + ' of reserved memory' :
      num(f.cost_ns) ? 'costs ' + fmtNs(f.cost_ns) : '';
  }

  /* one finding as an option of the listbox (Tab or the arrow keys reach
     it, Enter or Space selects it like a click); `group`: its job-level
     group when it stands for it (the worst rank's finding) */
  function findingCard(k, group, nranks) {
    var list = arr(REPORT.findings), f = list[k];
    var fv = arr(VIZ.findings)[k] || { rank_index: null, ranges: [] };
    var sev = (group ? group.severity : f.severity) || 'info';
    var where = 'rank ' + (num(f.rank) ? f.rank : '?') + (num(f.step) ? ', step ' + f.step : '');
    var cost = costText(f);
    if (group && group.ranks_affected > 1) {
      var byB = group.cost_bytes && !get(group, 'cost_ns.max');
      var c = byB ? group.cost_bytes : group.cost_ns, fm = byB ? fmtBytes : fmtNs;
      where = 'on ' + group.ranks_affected + ' of ' + nranks + ' ranks; worst rank ' + group.worst_rank;
      cost = 'costs ' + fm(c.median) + ' per rank (' + fm(c.min) + ' \u2013 ' + fm(c.max) + ')';
    }
    var rtext = rangesText(f), shown = NOVIZ ? '' : findingWhere(fv);
    var card = el('div', { cls: 'finding sev-' + sev, id: 'finding-' + k, 'data-finding': String(k), role: 'option',
      tabindex: '0', 'aria-selected': 'false', 'aria-labelledby': 'finding-' + k + '-head',
      'aria-describedby': 'finding-' + k + '-detail', 'data-side': fv.side || 'none' }, [
      el('div', { cls: 'head', id: 'finding-' + k + '-head' }, [
        el('span', { cls: 'badge sev-' + sev, text: sev }),
        el('code', { text: f.id }),
        el('span', { cls: 'title', text: f.title || '' }),
        el('span', { cls: 'muted small', text: where }),
        el('span', { cls: 'cost', text: cost })
      ]),
      el('div', { cls: 'detail', id: 'finding-' + k + '-detail', text: f.detail || '' }),
      el('div', { cls: 'advice' }, [el('b', { text: 'Advice: ' }), f.advice || '']),
      rtext ? el('div', { cls: 'ranges small muted', text: 'Evidence (worst first; times from the rank\u2019s first GPU op or step): ' +
        rtext + (shown ? '; ' + shown : '') }) : null
    ]);
    card.addEventListener('click', function (ev) { ev.stopPropagation(); selectFinding(k); });
    card.addEventListener('keydown', function (ev) {
      var all = document.querySelectorAll('.findings .finding'), cards = [];
      for (var i = 0; i < all.length; i++) if (!all[i].closest('details:not([open])')) cards.push(all[i]);
      var at = cards.indexOf(card), to = -1;
      if (ev.key === 'Enter' || ev.key === ' ' || ev.key === 'Spacebar') { ev.preventDefault(); selectFinding(k); return; }
      if (ev.key === 'ArrowDown') to = Math.min(cards.length - 1, at + 1);
      else if (ev.key === 'ArrowUp') to = Math.max(0, at - 1);
      else if (ev.key === 'Home') to = 0;
      else if (ev.key === 'End') to = cards.length - 1;
      if (to < 0) return;
      ev.preventDefault();
      cards[to].focus();
    });
    return card;
  }

  /* a job-level finding: the worst rank's finding, and the others one
     click below (a details element); a symptom's group is indented under
     its cause's */
  function groupBlock(g, nranks) {
    var members = arr(g.findings), list = arr(REPORT.findings);
    var box = el('div', { cls: 'group' + (g.explained_by ? ' symptom' : ''), role: 'group',
      'aria-label': g.id + (g.ranks_affected > 1 ? ' on ' + g.ranks_affected + ' ranks' : '') });
    if (g.explained_by)
      box.appendChild(el('div', { cls: 'small muted symptom-of', text: 'A symptom of ' + g.explained_by +
        ' above: its cost is part of that cost, not added to it.' }));
    box.appendChild(findingCard(members[0], g, nranks));
    if (members.length > 1) {
      var others = members.slice(1);
      var same = others.every(function (k) { return list[k] && list[k].rank === list[members[0]].rank; });
      var d = el('details', { cls: 'members' }, [el('summary', { text: (same ? others.length + ' more finding' +
        (others.length === 1 ? '' : 's') + ' of rank ' + list[members[0]].rank : 'The other ' + others.length + ' rank' +
        (others.length === 1 ? '' : 's') + ': ') + (same ? '' : others.map(function (k) {
          var f = list[k];
          return 'rank ' + f.rank + ' ' + (num(f.cost_bytes) && !f.cost_ns ? fmtBytes(f.cost_bytes) : fmtNs(f.cost_ns));
        }).join(', ')) })]);
      others.forEach(function (k) { d.appendChild(findingCard(k, null, nranks)); });
      box.appendChild(d);
    }
    return box;
  }

  function renderFindings(main) {
    main.appendChild(el('h2', { text: 'Findings, worst first', id: 'findings-title' }));
    var list = arr(REPORT.findings), groups = arr(get(REPORT, 'job.findings'));
    var nranks = arr(REPORT.ranks).length, nj = arr(REPORT.not_judged).length;
    if (!list.length) {
      main.appendChild(el('div', { cls: 'card', text: nj ? 'No findings among the rules that could judge: nothing they ' +
        'measured crossed a threshold; ' + nj + ' could not judge (Not judged, at the end of the page).' : 'No findings: nothing in these traces crossed a threshold.' }));
      return;
    }
    main.appendChild(el('div', { cls: 'hint', text: 'A cause comes first and the symptoms it explains are indented under it; ' +
      (nranks > 1 ? 'a finding of several ranks shows its worst rank, the others one click below; ' : '') +
      'click a finding (or focus it and press Enter) to read it whole and highlight its time ranges: ' +
      'findings about runtime calls on the CPU thread that made them, the others on the GPU streams. Esc clears.' }));
    /* never let costs that overlap read as if they added up */
    var over = arr(get(REPORT, 'job.per_rank')).filter(function (r) { return num(r.span_ns) && r.findings_cost_ns > r.span_ns; });
    var symptoms = groups.some(function (g) { return !!g.explained_by; });
    if (symptoms || over.length)
      main.appendChild(el('div', { cls: 'hint overlap', text: 'Costs overlap: ' + (symptoms ? 'a symptom\u2019s cost is part of its cause\u2019s cost' : '') +
        (symptoms && over.length ? '; ' : '') + (over.length ? 'on rank' + (over.length === 1 ? ' ' : 's ') +
        over.map(function (r) { return r.rank; }).join(', ') + ' the findings\u2019 costs add up to more than the GPU span, ' +
        'because they count the same time more than once' : '') + '. Do not add them up.' }));
    var box = el('div', { cls: 'findings', role: 'listbox', 'aria-labelledby': 'findings-title', 'aria-orientation': 'vertical' });
    groups.forEach(function (g) { box.appendChild(groupBlock(g, nranks)); });
    main.appendChild(box);
    if (nj) main.appendChild(el('div', { cls: 'hint' }, [nj + (nj === 1 ? ' rule' : ' rules') + ' could not judge these traces, so ' +
      (nj === 1 ? 'its' : 'their') + ' silence says nothing: see ', el('a', { href: '#not-judged', text: 'Not judged' }), ' at the end of the page.']));
  }

  /* the rules that could not judge: silence that is not a clean bill */
  function renderNotJudged(main) {
    var nj = arr(REPORT.not_judged);
    if (!nj.length) return;
    var nranks = arr(REPORT.ranks).length;
    var c = el('div', { cls: 'card notjudged', id: 'not-judged' }, [el('div', { cls: 'small muted',
      text: 'These rules could not look at the traces, so their silence says nothing:' })]);
    nj.forEach(function (x) {
      var rk = x.ranks === null ? 'the job' : nranks > 1 ? (x.ranks.length === nranks ? 'all ranks' : 'rank' +
        (x.ranks.length === 1 ? ' ' : 's ') + x.ranks.join(', ')) : '';
      c.appendChild(el('div', { cls: 'nj' }, [el('code', { text: x.rule }), rk ? el('span', { cls: 'muted small', text: ' ' + rk }) : null,
        el('div', { text: x.reason }), el('div', { cls: 'small' }, [el('b', { text: 'Would judge with: ' }), x.would_judge])]));
    });
    main.appendChild(el('h2', { text: 'Not judged' }));
    main.appendChild(c);
  }

  /* the job at a glance: a row per rank */
  function renderJob(main) {
    var pr = arr(get(REPORT, 'job.per_rank'));
    if (pr.length < 2) return;
    main.appendChild(el('h2', { text: 'Job: ' + pr.length + ' ranks', id: 'job-title' }));
    var t = el('table', { cls: 'plain jobtable', 'aria-labelledby': 'job-title' });
    t.appendChild(el('tr', null, ['rank', 'trace', 'step time', 'GPU busy', 'GPU idle by cause', 'exposed comm', 'top finding'].map(function (h, i) {
      return el('th', { cls: i > 1 && i < 6 && i !== 4 ? 'num' : '', text: h });
    })));
    var inputs = arr(REPORT.inputs);
    pr.forEach(function (r, ri) {
      var ic = r.idle_causes || {}, parts = [];
      IDLE_CAUSES.forEach(function (c, i) { if (num(ic[c[0]]) && ic[c[0]] > 0) parts.push({ i: i, ns: ic[c[0]] }); });
      parts.sort(function (a, b) { return b.ns - a.ns || a.i - b.i; });
      var idle = num(r.idle_ns) && r.idle_ns > 0 ? r.idle_ns : 0;
      var bar = idle ? el('div', { cls: 'meter stack', role: 'img', 'aria-label': 'GPU idle by cause' }, parts.map(function (p) {
        var c = IDLE_CAUSES[p.i];
        return el('div', { style: 'width:' + (100 * p.ns / idle).toFixed(2) + '%;background:' + c[2], title: c[1] + ' ' + fmtNs(p.ns) });
      })) : null;
      var top = r.top_finding, topCell = el('td', null, top ? [el('a', { href: '#finding-' + top.index, text: top.id }),
        ' ' + fmtNs(top.cost_ns)] : ['none']);
      if (top) topCell.firstChild.addEventListener('click', function (ev) {
        ev.preventDefault(); selectFinding(top.index);
        var card = document.getElementById('finding-' + top.index);
        if (card) { var d = card.closest('details'); if (d) d.open = true; card.scrollIntoView({ block: 'nearest' }); card.focus(); }
      });
      var inp = inputs[ri] || {};
      t.appendChild(el('tr', null, [el('td', { text: String(r.rank) }),
        el('td', { cls: 'mono', text: (inp.path || '') + (num(inp.world_size) ? '' : '') }),
        el('td', { cls: 'num', text: fmtNs(r.step_time_ns) }),
        el('td', { cls: 'num', text: num(r.busy_share) ? fmtPct(r.busy_share * 100) : 'n/a' }),
        el('td', { cls: 'idlecell' }, [el('div', { text: idle ? fmtNs(idle) + (parts.length ? ': ' + IDLE_CAUSES[parts[0].i][1] + ' ' +
          fmtPct(100 * parts[0].ns / idle, 0) : '') : 'n/a' }), bar]),
        el('td', { cls: 'num', text: num(r.exposed_comm_ns) ? fmtNs(r.exposed_comm_ns) : 'n/a' }),
        topCell]));
    });
    main.appendChild(el('div', { cls: 'card' }, [t]));
  }

  function selectFinding(k) {
    var fv = arr(VIZ.findings)[k];
    var mine = document.getElementById('finding-' + k), dd = mine && mine.closest('details.members');
    if (dd && !dd.open) dd.open = true;
    var cards = document.querySelectorAll('.finding');
    for (var i = 0; i < cards.length; i++) {
      var on = cards[i].getAttribute('data-finding') === String(k);
      cards[i].classList.toggle('active', on);
      cards[i].setAttribute('aria-selected', on ? 'true' : 'false');
    }
    if (!fv || fv.rank_index === null || fv.rank_index === undefined || !VIZ.ranks[fv.rank_index]) {
      highlight = null;
      overlaysAll();
      return;
    }
    var ri = fv.rank_index, ranges = arr(fv.ranges);
    highlight = { rank: ri, ranges: ranges, side: fv.side || 'gpu', threads: arr(fv.threads), finding: k };
    var st = state[ri], rv = VIZ.ranks[ri];
    if (st && ranges.length) {
      var r = ranges[0], best = -1, over = -1;
      st.views.forEach(function (v, j) {
        if (v.type === 'missing') return;
        if (v.s <= r[0] && r[1] <= v.e && (best < 0 || (v.type === 'win' && st.views[best].type !== 'win'))) best = j;
        if (over < 0 && v.s < r[1] && r[0] < v.e) over = j;
      });
      if (best < 0) best = over;
      /* keep the range in sight on the overview */
      if (st.oview && (r[0] < st.oview[0] || r[1] > st.oview[1])) {
        var span = st.oview[1] - st.oview[0];
        st.oview = zoomed([r[0] - span / 2, r[0] + span / 2], [rv.t0, Math.max(rv.t1, rv.t0 + 1)], 1, (r[0] + r[1]) / 2);
      }
      if (best >= 0 && best !== st.cur) setView(ri, best, true);
      redrawRank(ri, ['gantt', 'overview']);
    }
    overlaysAll();
    var d = document.getElementById('rank-' + ri);
    if (d) {
      if (!d.open) d.open = true;
      var g = document.getElementById('gantt-' + ri) || d;
      if (g.scrollIntoView) g.scrollIntoView({ behavior: 'smooth', block: 'start' });
    }
  }

  function redrawAll() {
    state.forEach(function (st) { st.charts.forEach(function (c) { c.draw(); }); });
  }
  function overlaysAll() {
    state.forEach(function (st) { st.charts.forEach(function (c) { c.overlay(); }); });
  }
  function redrawRank(ri, what) {
    state[ri].charts.forEach(function (c) { if (!what || what.indexOf(c.name) >= 0) c.draw(); else c.overlay(); });
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

  /* ranks[].workload: "DDP + tensor_parallel" and the mode */
  function workloadText(r) {
    var wl = r.workload || {};
    var labels = arr(wl.parallelism).filter(function (x) { return x !== 'unknown'; });
    return { labels: labels.length ? labels.join(' + ') : 'unknown', mode: wl.mode || 'unknown' };
  }
  var ITER_FROM = { ProfilerStep: 'ProfilerStep#N ranges', engine_step: 'engine step annotations',
    optimizer_step: 'Optimizer.step# annotations', benchmark_annotation: 'benchmark run annotations',
    dataloader: 'DataLoader __next__ calls' };
  /* launch_gaps.idle_causes, in the contract's order, with the colours of
     the idle-cause bar */
  var IDLE_CAUSES = [['host_not_launched_ns', 'host not launched', '#e15759'],
    ['host_blocked_ns', 'host blocked', '#6a3d9a'], ['stream_wait_ns', 'stream wait', '#f28e2b'],
    ['rank_wait_ns', 'rank wait', '#4e79a7'], ['unknown_ns', 'unknown', '#9aa5b5']];

  function renderWorkloadKpis(g, r) {
    var w = workloadText(r), wl = r.workload || {};
    // the evidence's counts; its rules in words are the card's tooltip
    var ev = arr(wl.evidence).map(function (e) { return e.label + (num(e.count) ? ' \u00d7' + e.count : ''); });
    var wk = kpi('workload', w.labels.replace(/ \+ /g, ' + \u200b'), 'mode ' + w.mode + (ev.length ? '; evidence ' + ev.join(', ') : ''));
    wk.classList.add('words');
    wk.setAttribute('title', arr(wl.evidence).map(function (e) { return e.label + ': ' + e.rule; }).join('\n'));
    g.appendChild(wk);
    var it = r.iterations || {}, wu = get(r, 'launch_gaps.warmup') || {};
    var n = num(it.count) ? it.count : 0, from = ITER_FROM[it.source] || it.source || 'none';
    var note;
    if (!n) note = 'none found: no ProfilerStep or per-iteration annotation; the whole trace is judged';
    else {
      note = 'from ' + from;
      if (num(wu.warmup_iterations) && wu.warmup_iterations > 0)
        note += '; the first is warm-up, not judged: GPU idle ' + fmtNs(wu.warmup_gpu_idle_ns) +
          (num(wu.warmup_gpu_host_wait_ns) ? ' (host wait ' + fmtNs(wu.warmup_gpu_host_wait_ns) + ')' : '');
      else if (n >= 2) note += '; the first is warm-up, not judged';
      else note += '; one iteration: no warm-up cut';
    }
    g.appendChild(kpi('iterations', n ? String(n) : 'none', note));
  }

  /* the GPU idle split by cause: a stacked bar, then each cause with its
     time and share (largest first), the bar's legend */
  function idleCausesKpi(r) {
    var k = get(r, 'launch_gaps.idle_causes');
    if (!k || !num(k.idle_ns)) return null;
    if (k.idle_ns <= 0) return kpi('GPU idle by cause', '0', 'the GPU is never idle');
    var parts = IDLE_CAUSES.map(function (c, i) { return { i: i, ns: num(k[c[0]]) ? k[c[0]] : 0 }; })
      .filter(function (p) { return p.ns > 0; });
    parts.sort(function (a, b) { return b.ns - a.ns || a.i - b.i; });
    var bar = el('div', { cls: 'meter stack', role: 'img', 'aria-label': 'GPU idle by cause' }, parts.map(function (p) {
      var c = IDLE_CAUSES[p.i];
      return el('div', { style: 'width:' + (100 * p.ns / k.idle_ns).toFixed(2) + '%;background:' + c[2],
        title: c[1] + ' ' + fmtNs(p.ns) });
    }));
    var legend = el('div', { cls: 'note causes' }, parts.map(function (p) {
      var c = IDLE_CAUSES[p.i];
      return el('span', { cls: 'cause' }, [el('span', { cls: 'sw', style: 'background:' + c[2] }),
        c[1] + ' ' + fmtNs(p.ns) + ' (' + fmtPct(100 * p.ns / k.idle_ns) + ')']);
    }));
    var box = el('div', { cls: 'card kpi' }, [el('div', { cls: 'label', text: 'GPU idle by cause' }),
      el('div', { cls: 'value', text: fmtNs(k.idle_ns) }), bar, legend]);
    return box;
  }

  function renderKpis(box, r) {
    var steps = arr(r.steps), g = el('div', { cls: 'kpis' });
    renderWorkloadKpis(g, r);
    /* ProfilerStep ranges, else the iterations found otherwise: drawn like steps */
    var inferred = !steps.length;
    if (inferred) steps = arr(get(r, 'iterations.ranges'));
    var durs = steps.map(function (s) { return s.dur_ns; }).filter(num);
    if (durs.length) {
      var mean = durs.reduce(function (a, b) { return a + b; }, 0) / durs.length;
      g.appendChild(kpi('step time', fmtNs(mean), durs.length + (inferred ? ' iteration(s) from ' +
        (ITER_FROM[get(r, 'iterations.source')] || get(r, 'iterations.source')) : ' ProfilerStep(s)') + ', ' +
        fmtNs(Math.min.apply(null, durs)) + ' \u2013 ' + fmtNs(Math.max.apply(null, durs)) + ' (CPU)'));
    } else g.appendChild(kpi('step time', 'n/a', 'no ProfilerStep ranges or iterations in the trace'));
    var lg = r.launch_gaps || {};
    var dens = num(lg.density) ? lg.density : null;
    g.appendChild(kpi('GPU density', dens === null ? 'n/a' : fmtPct(dens * 100),
      'busy ' + fmtNs(lg.busy_ns) + ' of ' + fmtNs(num(lg.span_ns) ? lg.span_ns : r.span_ns) + ' span' +
      (num(lg.gpu_host_wait_ns) ? '; idle waiting for the host ' + fmtNs(lg.gpu_host_wait_ns) : ''),
      dens === null ? '' : dens < 0.5 ? 'bad' : dens < 0.8 ? 'warn' : 'good', dens));
    var ic = idleCausesKpi(r);
    if (ic) g.appendChild(ic);
    var ov = r.overlap || {};
    var span = num(r.span_ns) ? r.span_ns : null;
    // which communication, by which rule, when it is more than NCCL and its forks by name
    var fams = r.comm_families || [], found = '';
    if (fams.some(function (f) { return !(f.rule === 'name' && /^(nccl|rccl|msccl)$/.test(f.family)); }))
      found = '; found: ' + fams.map(function (f) { return f.family + ' by ' + f.rule + ' (' + f.kernels + ')'; }).join(', ');
    if (num(ov.exposed_comm_ns)) {
      var share = span ? ov.exposed_comm_ns / span : null;
      g.appendChild(kpi('exposed communication', fmtNs(ov.exposed_comm_ns),
        (share !== null ? fmtPct(share * 100) + ' of the GPU span; ' : '') + fmtPct(ov.overlap_pct) + ' of ' +
        fmtNs(ov.comm_ns) + ' communication hidden under compute' + found,
        share === null ? '' : share > 0.1 ? 'bad' : share > 0.03 ? 'warn' : 'good'));
    } else g.appendChild(kpi('exposed communication', 'n/a', 'no communication kernels in the trace'));
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


  /* ---------- the Gantt's views: detailed windows, coarse steps ---------- */
  /* "pt_main_thread (1881266)" from "thread 1881266 (pt_main_thread)";
     short: the name alone */
  function cpuLaneName(l, short) {
    var m = /\(([^)]*)\)\s*$/.exec(l.name || ''), dl = l.reason === 'dataloader' ? ' \u00b7 DataLoader' : '';
    if (m && m[1]) return m[1] + (short ? '' : ' (' + l.tid + ')') + dl;
    return (l.name ? l.name : 'thread ' + l.tid) + dl;
  }
  /* ProfilerStep#N, or "iteration N" where the iterations were inferred */
  function stepLabel(rv, k) { return rv.steps[k].label || 'ProfilerStep#' + rv.steps[k].number; }
  function stepShort(rv, number) {
    return rv.steps_from && rv.steps_from !== 'ProfilerStep' ? 'it ' + (number + 1) : '#' + number;
  }
  function markLabel(rv, number) {
    return rv.steps_from && rv.steps_from !== 'ProfilerStep' ? 'iteration ' + (number + 1) : 'ProfilerStep#' + number;
  }

  /* every step (its detailed window, else its coarse view, else a
     placeholder) and the windows that are not steps, in time order */
  function buildViews(rv) {
    var wins = arr(rv.windows), steps = arr(rv.steps), sv = rv.step_views || {};
    var coarse = arr(sv.views), views = [], hasWin = {};
    wins.forEach(function (w, j) {
      var si = w.kind === 'step' && num(w.step_index) ? w.step_index : null;
      if (si !== null) hasWin[si] = true;
      views.push({ type: 'win', w: j, step: si, s: w.s, e: w.e, label: w.label });
    });
    steps.forEach(function (s, k) {
      if (hasWin[k]) return;
      views.push({ type: coarse[k] ? 'coarse' : 'missing', step: k, s: s.s, e: Math.max(s.e, num(s.gpu_e) ? s.gpu_e : s.e),
        label: stepLabel(rv, k) });
    });
    views.sort(function (a, b) { return a.s - b.s || (a.step === null ? 1 : 0) - (b.step === null ? 1 : 0); });
    return views;
  }
  function viewOfStep(st, k) {
    if (!st.byStep) {
      st.byStep = {};
      st.views.forEach(function (v, j) { if (v.step !== null) st.byStep[v.step] = j; });
    }
    return k in st.byStep ? st.byStep[k] : -1;
  }
  /* steps index at time t: the last one starting at or before t (else 0) */
  function stepAt(rv, t) {
    var steps = arr(rv.steps), lo = 0, hi = steps.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (steps[m].s <= t) lo = m + 1; else hi = m; }
    return steps.length ? Math.max(0, lo - 1) : -1;
  }
  /* the window of a view, as the detailed windows are: coarse steps are
     decoded from their columns (rectangles of 6 numbers, Σ op time null) */
  function viewWindow(rv, v) {
    if (v.type === 'win') return rv.windows[v.w];
    if (v.cache) return v.cache;
    var k = v.step, s = rv.steps[k], base = s.s, end = v.e, marks = [];
    arr(rv.steps).forEach(function (o) { if (o.e >= base && o.s <= end) marks.push([o.number, o.s - base, o.e - base]); });
    var w = { label: v.label, kind: 'step', step: s.number, step_index: k, s: base, e: end, cpu_s: s.s, cpu_e: s.e, marks: marks,
      lanes: [], cpu: [], names: arr(get(rv, 'step_views.names')), memory: null, coarse: true, missing: v.type === 'missing' };
    if (v.type === 'coarse') {
      var c = rv.step_views.views[k], res = c.c;
      var dec = function (lane) {
        var out = [], col = 0;
        for (var i = 0; i + 4 < lane.length; i += 5) {
          var c0 = col + lane[i], c1 = c0 + lane[i + 1];
          out.push(c0 * res, Math.min(c1 * res, end - base), lane[i + 2], lane[i + 3], lane[i + 4], null);
          col = c1;
        }
        return out;
      };
      w.column_ns = res;
      w.lanes = arr(c.g).map(dec);
      w.cpu = arr(c.u).map(dec);
    }
    v.cache = w;
    return w;
  }
  function ordinal(n) {
    var t = n % 100, u = n % 10;
    return n + (t >= 11 && t <= 13 ? 'th' : u === 1 ? 'st' : u === 2 ? 'nd' : u === 3 ? 'rd' : 'th');
  }
  /* which steps the page holds, in words */
  function stepsSummary(rv, st) {
    var n = arr(rv.steps).length;
    if (!n) return '';
    var det = [], coarse = 0, missing = 0;
    st.views.forEach(function (v) {
      if (v.step === null) return;
      if (v.type === 'win') det.push(stepShort(rv, rv.steps[v.step].number));
      else if (v.type === 'coarse') coarse++;
      else missing++;
    });
    var sv = rv.step_views || {};
    var dtext = det.length === n ? (n === 1 ? 'its one step, in full detail (' : 'all ' + n + ' steps, in full detail (') + det.join(', ') + ')' :
      (missing ? (n - missing) + ' of its ' + n + ' steps: ' : 'all ' + n + ' steps: ') + det.length + ' in full detail (' + det.join(', ') + ')';
    return 'This page holds ' + dtext +
      (coarse ? ', ' + coarse + ' as coarse views (' + sv.columns + ' columns per step)' : '') +
      (missing ? '; to stay small it leaves out the other ' + missing + ' (it keeps every ' + ordinal(sv.stride) + ' step)' : '') + '.';
  }
  function setView(ri, j, quiet) {
    var st = state[ri], rv = VIZ.ranks[ri];
    if (j < 0 || j >= st.views.length) return;
    st.cur = j;
    st.gview = null;
    if (st.select) st.select.value = String(j);
    var v = st.views[j], old = st.oview;
    /* the overview follows: a view outside its zoom is brought into sight,
       a step the page does not hold is zoomed to */
    var full = [rv.t0, Math.max(rv.t1, rv.t0 + 1)];
    if (v.type === 'missing') {
      var pad = (v.e - v.s) * 2;
      st.oview = [Math.max(full[0], v.s - pad), Math.min(full[1], v.e + pad)];
    } else if (st.oview && (v.s < st.oview[0] || v.e > st.oview[1])) {
      var span = Math.max(st.oview[1] - st.oview[0], v.e - v.s);
      var mid = (v.s + v.e) / 2;
      st.oview = zoomed([mid - span / 2, mid + span / 2], full, 1, mid);
    }
    if (!quiet) redrawRank(ri, old === st.oview ? ['gantt'] : ['gantt', 'overview']);
  }

  var ROLE_SHORT = { compute: 'compute', communication: 'comm', mixed: 'mixed', memory: 'memcpy' };
  function laneLabel(l) {
    return 'stream ' + l.stream + ' \u00b7 ' + (ROLE_SHORT[l.role] || l.role);
  }

  /* The parts of the time axis the Gantt's views cover, without overlap:
     step k from its start to the next step's (or its view's end), the
     other windows where no step is.  The overview draws ops from them
     when zoomed in far enough. */
  function buildSegments(rv, st) {
    var steps = arr(rv.steps), segs = [];
    steps.forEach(function (s, k) {
      var j = viewOfStep(st, k);
      if (j < 0) return;
      var v = st.views[j], e = k + 1 < steps.length ? Math.min(steps[k + 1].s, v.e) : v.e;
      if (e > s.s) segs.push({ s: s.s, e: e, view: j });
    });
    if (!steps.length) st.views.forEach(function (v, j) { if (v.type === 'win') segs.push({ s: v.s, e: v.e, view: j }); });
    return segs;
  }

  /* "no GPU activity" is wrong when the work ran on a device backend the
     analysis does not read: say which devices are there instead */
  function noGpuText(ri, plain) {
    var od = arr(get(arr(REPORT.ranks)[ri], 'other_devices'));
    if (!od.length) return plain;
    return plain.replace('No GPU activity', 'No CUDA/ROCm GPU activity') + ' Present, not analyzed: ' + od.map(function (d) {
      return d.device_type + ' (' + d.events + ' device events on ' + d.streams + ' streams, ' +
        d.runtime_events + ' runtime events)';
    }).join(', ') + '.';
  }

  /* overview of the whole trace: steps, CPU threads, GPU busy per stream;
     zooms (drag, Ctrl+wheel, buttons, keys) down to the ops of the steps */
  function renderOverview(box, ri) {
    var rv = VIZ.ranks[ri], ov = rv.overview, st = state[ri];
    if (!ov) { box.appendChild(el('div', { cls: 'card muted', text: noGpuText(ri, 'No GPU activity or steps: nothing to draw.') })); return; }
    var c = el('div', { cls: 'chart', id: 'overview-' + ri });
    var full = [rv.t0, Math.max(rv.t1, rv.t0 + 1)];
    function act(what) {
      if (what === 'reset') st.oview = null;
      else st.oview = applyZoom(st.oview, full, what);
      chart.draw();
    }
    c.appendChild(el('div', { cls: 'toolbar' }, [el('b', { text: 'Whole trace' }), zoomButtons('whole trace', act)]));
    c.appendChild(classLegend(arr(rv.cpu_lanes).length > 0));
    c.appendChild(el('div', { cls: 'hint', text: 'Bar height = busy share of the lane, colour = the class that took most of the time. ' +
      'Drag across the chart or Ctrl+wheel to zoom (zoomed in, the ops of each step are drawn), Shift+wheel to pan; ' +
      'click a step to show it in the Gantt below.' }));
    var holder = el('div', { cls: 'svgbox' });
    c.appendChild(holder);
    box.appendChild(c);
    var segs = buildSegments(rv, st);
    var geo = null, svg = null, overlayG = null;
    function rows(lane) {
      if (!geo) return null;
      if (lane === 'gpu') return geo.gpu;
      if (lane === 'cpu') return geo.cpuAll;
      var m = /^cpu:(\d+)$/.exec(lane);
      return m ? geo.cpu[+m[1]] || null : null;
    }
    function draw() {
      clear(holder);
      var W = chartWidth(c), L = 180, R = 12, laneH = 14, gap = 3, top = 6;
      var steps = arr(rv.steps), cpus = arr(rv.cpu_lanes), lanes = arr(rv.lanes);
      var v = st.oview || full, s0 = v[0], s1 = Math.max(v[1], v[0] + 1);
      var nrows = cpus.length + lanes.length + 1;
      var yS = top, y = top + (steps.length ? 20 : 0);
      var H = y + nrows * (laneH + gap) + (cpus.length ? 6 : 0) + 24;
      svg = sv('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, tabindex: '0', role: 'group',
        'aria-label': 'Whole-trace overview of rank ' + rv.rank + ': + and \u2212 zoom, the arrow keys pan, 0 shows the whole trace, ' +
          'Enter shows the step in the middle in the Gantt',
        'data-view-s': String(s0), 'data-view-e': String(s1), 'data-full-s': String(full[0]), 'data-full-e': String(full[1]) });
      holder.appendChild(svg);
      var scale = function (t) { return L + (t - s0) / (s1 - s0) * (W - L - R); };
      gridLines(svg, L, W - R, top, H - 24, s0, s1, scale);
      /* steps (CPU ranges) */
      if (steps.length) {
        sv('text', { x: 4, y: yS + 12, text: 'steps (CPU)', 'class': 'lanelabel' }, svg);
        var k0 = Math.max(0, stepAt(rv, s0)), g = sv('g', { 'class': 'steps' }, svg);
        for (var k = k0; k < steps.length && steps[k].s <= s1; k++) {
          var s = steps[k];
          if (s.e < s0) continue;
          var x = scale(Math.max(s.s, s0)), x2 = Math.max(scale(Math.min(s.e, s1)), x + 1);
          sv('rect', { 'class': 'stepband', x: x, y: yS, width: x2 - x, height: 16, fill: k % 2 ? '#dfe6f0' : '#ccd7e6', 'data-step': String(k) }, g);
          if (x2 - x > 30) {
            var t = sv('text', { x: x + 3, y: yS + 12, text: stepShort(rv, s.number), 'pointer-events': 'none' }, g);
            if (textWidth(t) > x2 - x - 5) g.removeChild(t);
          }
        }
      }
      /* lanes: CPU threads, every GPU stream together, each GPU stream */
      var rowsList = [];
      geo = { cpu: [], cpuAll: null, gpu: null };
      cpus.forEach(function (l, i) {
        rowsList.push({ y: y, label: 'CPU \u00b7 ' + cpuLaneName(l, true), vals: arr(ov.cpu)[i], cls: arr(ov.cpu_cls)[i], lane: 'cpu:' + i,
          cpu: i, title: (l.name || 'thread ' + l.tid) + ', ' + l.calls + ' runtime calls' });
        geo.cpu.push([y - 1, y + laneH + 1]);
        y += laneH + gap;
      });
      if (cpus.length) { geo.cpuAll = [geo.cpu[0][0], y - gap + 1]; y += 6; }
      var gy0 = y;
      for (var l = 0; l <= lanes.length; l++) {
        var lane = l ? lanes[l - 1] : null;
        rowsList.push({ y: y, label: l ? 'dev ' + lane.device + ' \u00b7 ' + laneLabel(lane) : 'GPU (any stream)',
          vals: arr(ov.lanes)[l], cls: arr(ov.cls)[l], lane: l ? 'gpu:' + (l - 1) : 'gpu:any', gpu: l ? l - 1 : -1 });
        y += laneH + gap;
      }
      geo.gpu = [gy0 - 1, y - gap + 1];
      var bns = ov.bucket_ns, kb0 = Math.max(0, Math.floor((s0 - rv.t0) / bns)), kb1 = Math.min(ov.buckets - 1, Math.ceil((s1 - rv.t0) / bns));
      /* zoomed in: draw the ops of the views under the visible range */
      var vis = segs.filter(function (g) { return g.e > s0 && g.s < s1; });
      var detail = (s1 - s0) / bns < 200 && vis.length > 0 && vis.length <= 200;
      svg.setAttribute('data-detail', detail ? '1' : '0');
      var covered = [];
      var g2 = sv('g', { 'class': 'lanes' }, svg);
      rowsList.forEach(function (row) {
        sv('rect', { x: L, y: row.y, width: W - L - R, height: laneH, fill: '#f1f3f6', 'class': 'lanebg', 'data-lane': row.lane }, g2);
        var t = sv('text', { x: 4, y: row.y + laneH - 3, 'class': 'lanelabel', text: row.label }, g2);
        fitText(t, L - 10);
        if (row.title) sv('title', { text: row.title }, t);
      });
      if (detail) {
        vis.forEach(function (g) {
          var vw = st.views[g.view], a = Math.max(g.s, s0), b = Math.min(g.e, s1);
          covered.push([a, b]);
          if (vw.type === 'missing') {
            /* a step the page does not hold: marked, not guessed from buckets */
            rowsList.forEach(function (row) {
              sv('rect', { x: scale(a), y: row.y + 1, width: Math.max(0.6, scale(b) - scale(a)), height: laneH - 2,
                'class': 'notheld' }, g2);
            });
            return;
          }
          var w = viewWindow(rv, vw);
          rowsList.forEach(function (row) {
            var lists = row.cpu !== undefined ? [arr(w.cpu)[row.cpu]] : row.gpu >= 0 ? [arr(w.lanes)[row.gpu]] : arr(w.lanes);
            lists.forEach(function (d) {
              d = arr(d);
              for (var k = 0; k + 5 < d.length; k += 6) {
                var ra = Math.max(w.s + d[k], a), rb = Math.min(w.s + d[k + 1], b);
                if (rb < ra || (rb === ra && d[k + 1] > d[k])) continue;
                var xa = scale(ra), xb = scale(rb);
                sv('rect', { x: xa.toFixed(2), y: row.y + 1, width: Math.max(0.6, xb - xa).toFixed(2), height: laneH - 2,
                  fill: classColor(d[k + 2]), 'data-cls': String(d[k + 2]) }, g2);
              }
            });
          });
        });
      }
      /* busy-share bars, zoomed in only where no step's view is (the
         segments touch: the gaps of their union), cut to those gaps */
      covered.sort(function (a, b) { return a[0] - b[0]; });
      var gaps = [], at = s0;
      covered.forEach(function (x) {
        if (x[0] > at) gaps.push([at, x[0]]);
        at = Math.max(at, x[1]);
      });
      if (at < s1) gaps.push([at, s1]);
      rowsList.forEach(function (row) {
        var vals = arr(row.vals), cls = arr(row.cls);
        gaps.forEach(function (gp) {
          var k = Math.max(kb0, Math.floor((gp[0] - rv.t0) / bns)), kend = Math.min(kb1, Math.ceil((gp[1] - rv.t0) / bns));
          while (k <= kend) {
            var p = vals[k], cl = cls[k] || 0, j = k + 1;
            while (j <= kend && vals[j] === p && (cls[j] || 0) === cl) j++;
            if (p) {
              var ta = Math.max(rv.t0 + k * bns, gp[0]), tb = Math.min(rv.t0 + j * bns, gp[1]);
              if (tb > ta) {
                var h = Math.max(1, p / 100 * laneH), xa = scale(ta), xb = scale(tb);
                sv('rect', { x: xa.toFixed(2), y: (row.y + laneH - h).toFixed(2), width: Math.max(0.5, xb - xa + 0.3).toFixed(2),
                  height: h.toFixed(2), fill: classColor(cl), 'data-cls': String(cl) }, g2);
              }
            }
            k = j;
          }
        });
      });
      overlayG = sv('g', { 'class': 'overlay' }, svg);
      geo.scale = scale; geo.s0 = s0; geo.s1 = s1; geo.top = top; geo.y = y;
      timeAxis(svg, L, W - R, y + 2, s0, s1, scale, false, undefined, W);
      zoomable({ svg: svg, L: L, W: W, R: R, y0: top, y1: y, view: function () { return st.oview; },
        full: function () { return full; }, range: function () { return [s0, s1]; },
        set: function (nv) { st.oview = nv; draw(); },
        click: function (t) { pick(t); } });
      overlay();
    }
    function pick(t) {
      var k = stepAt(rv, t);
      if (k >= 0) {
        /* between two steps: the nearer one */
        var steps = rv.steps;
        if (t > steps[k].e && k + 1 < steps.length && steps[k + 1].s - t < t - steps[k].e) k++;
        var j = viewOfStep(st, k);
        if (j >= 0) setView(ri, j);
        return;
      }
      for (var i = 0; i < st.views.length; i++) if (st.views[i].s <= t && t <= st.views[i].e) { setView(ri, i); return; }
    }
    function overlay() {
      if (!overlayG) return;
      clear(overlayG);
      var v = st.views[st.cur];
      if (v) {
        var vs = st.gview ? st.gview[0] : v.s, ve = st.gview ? st.gview[1] : v.e;
        if (ve >= geo.s0 && vs <= geo.s1) {
          var xa = geo.scale(Math.max(vs, geo.s0)), xb = geo.scale(Math.min(ve, geo.s1));
          sv('rect', { 'class': 'winbox', x: xa, y: geo.top - 2, width: Math.max(2, xb - xa), height: geo.y - geo.top + 2 }, overlayG);
        }
      }
      drawHighlight(overlayG, ri, rows, geo.scale, geo.s0, geo.s1);
    }
    var chart = { name: 'overview', draw: draw, overlay: overlay };
    st.charts.push(chart);
    zoomKeys(holder, function (what) { act(what); var s2 = holder.querySelector('svg'); if (s2) s2.focus(); });
    holder.addEventListener('keydown', function (ev) {
      if (ev.key !== 'Enter') return;
      var v = st.oview || full;
      pick((v[0] + v[1]) / 2);
    });
  }

  /* Gantt of one view: CPU thread lanes, then one lane per GPU stream;
     ops coloured by class */
  function renderGantt(box, ri) {
    var rv = VIZ.ranks[ri], st = state[ri];
    var c = el('div', { cls: 'chart', id: 'gantt-' + ri });
    if (!st.views.length) {
      box.appendChild(el('div', { cls: 'card muted', text: noGpuText(ri, 'No GPU activity: no Gantt view.') }));
      return;
    }
    var nsteps = arr(rv.steps).length;
    var sel = el('select', { 'aria-label': 'Gantt view of rank ' + rv.rank, id: 'gantt-select-' + ri });
    st.views.forEach(function (v, j) {
      var w = v.type === 'win' ? rv.windows[v.w] : null;
      var dflt = w && w.kind === 'step' && w.step === rv.chosen_step;
      var label = v.label + (v.type === 'win' ? ' \u2014 full detail' + (dflt ? ' (default)' : '') :
        v.type === 'coarse' ? ' \u2014 coarse' : ' \u2014 not in this page');
      sel.appendChild(el('option', { value: String(j), text: label, 'data-kind': v.type,
        'data-step-index': v.step === null ? '' : String(v.step) }));
    });
    sel.value = String(st.cur);
    sel.addEventListener('change', function () { setView(ri, +sel.value); });
    st.select = sel;
    function step(d) { setView(ri, Math.max(0, Math.min(st.views.length - 1, st.cur + d))); }
    var prev = el('button', { type: 'button', text: '\u25c0 previous', 'data-nav': 'prev', 'aria-label': 'previous view' });
    var next = el('button', { type: 'button', text: 'next \u25b6', 'data-nav': 'next', 'aria-label': 'next view' });
    prev.addEventListener('click', function () { step(-1); });
    next.addEventListener('click', function () { step(1); });
    function act(what) {
      var w = viewWindow(rv, st.views[st.cur]);
      if (what === 'reset') st.gview = null;
      else st.gview = applyZoom(st.gview, [w.s, Math.max(w.e, w.s + 1)], what);
      draw();
      overviewOverlay();
    }
    c.appendChild(el('div', { cls: 'toolbar' }, [el('b', { text: 'Gantt' }), sel, el('span', { cls: 'navbtns' }, [prev, next]),
      zoomButtons('Gantt', act)]));
    c.appendChild(classLegend(arr(rv.cpu_lanes).length > 0));
    var summary = stepsSummary(rv, st);
    if (summary) c.appendChild(el('div', { cls: 'hint steps-summary', text: summary }));
    var info = el('div', { cls: 'gantt-info', 'aria-live': 'polite' });
    c.appendChild(info);
    c.appendChild(el('div', { cls: 'hint', text: 'Drag across the chart or Ctrl+wheel to zoom, double-click to reset. ' +
      'Ops narrower than a column are merged (hover for counts).' }));
    var holder = el('div', { cls: 'svgbox' });
    c.appendChild(holder);
    box.appendChild(c);
    var geo = null, overlayG = null;
    function overviewOverlay() { st.charts.forEach(function (ch) { if (ch.name !== 'gantt') ch.overlay(); }); }
    function describe(v, w) {
      var pos = v.step !== null ? ' (step ' + (v.step + 1) + ' of ' + nsteps + ')' : '';
      var det = [];
      st.views.forEach(function (x) { if (x.type === 'win' && x.step !== null) det.push(stepShort(rv, rv.steps[x.step].number)); });
      var how = 'fsdpa analyze -f html --html-step ' + v.step + ' ' + (rv.path || 'TRACE');
      if (v.type === 'missing')
        return v.label + pos + ' is not in this page: it holds coarse views of every ' + ordinal(get(rv, 'step_views.stride')) +
          ' step only. The overview above is zoomed to it. To draw it: ' + how;
      if (v.type === 'coarse')
        return v.label + pos + ': coarse view at ' + fmtNs(w.column_ns) + ' columns (ops in one column are merged; hover for counts). ' +
          'Full detail is embedded for ' + (det.length ? det.join(', ') : 'no step') + '; for this one: ' + how;
      return w.label + pos + ': full detail' + (num(w.column_ns) ? ' (ops shorter than ' + fmtNs(w.column_ns) + ' merged)' : '') +
        (w.kind === 'range' ? ', a window around a finding outside every step' : '') + '.';
    }
    function rows(lane) {
      if (!geo) return null;
      if (lane === 'gpu') return geo.gpu;
      if (lane === 'cpu') return geo.cpuAll;
      var m = /^cpu:(\d+)$/.exec(lane);
      return m ? geo.cpu[+m[1]] || null : null;
    }
    function draw() {
      clear(holder);
      geo = null;
      overlayG = null;
      var v = st.views[st.cur] || st.views[0], w = viewWindow(rv, v);
      info.textContent = describe(v, w);
      var kind = v.type === 'win' ? 'detailed' : v.type;
      var W = chartWidth(c), L = 180, R = 12, laneH = 22, gap = 4, top = 46;
      var common = { 'data-view-kind': kind, 'data-step-index': v.step === null ? '' : String(v.step),
        'data-s': String(w.s), 'data-e': String(w.e) };
      if (v.type === 'missing') {
        var ms = sv('svg', { width: W, height: 60, viewBox: '0 0 ' + W + ' 60' });
        for (var a in common) ms.setAttribute(a, common[a]);
        holder.appendChild(ms);
        sv('rect', { x: 0.5, y: 0.5, width: W - 1, height: 59, fill: '#fafbfc', stroke: '#e3e7ee' }, ms);
        fitText(sv('text', { x: 12, y: 34, 'class': 'lanelabel', text: v.label + ' is not embedded in this page (see above)' }, ms), W - 24);
        return;
      }
      var lanes = arr(rv.lanes), cpus = arr(rv.cpu_lanes);
      var s0 = st.gview ? st.gview[0] : w.s, s1 = st.gview ? st.gview[1] : w.e;
      if (s1 <= s0) s1 = s0 + 1;
      var devs = 0, lastDev = null;
      lanes.forEach(function (l) { if (l.device !== lastDev) { devs++; lastDev = l.device; } });
      var mem = w.memory, memH = mem ? 70 : 0;
      var H = top + (lanes.length + cpus.length) * (laneH + gap) + devs * 16 + (cpus.length ? 16 : 0) + (mem ? memH + 24 : 0) + 28;
      var svg = sv('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, 'data-view-s': String(s0), 'data-view-e': String(s1) });
      for (var b in common) svg.setAttribute(b, common[b]);
      holder.appendChild(svg);
      var scale = function (t) { return L + (t - s0) / (s1 - s0) * (W - L - R); };
      var plotB = H - 26 - (mem ? memH + 24 : 0);
      var base = w.cpu_s !== null && w.cpu_s !== undefined ? w.cpu_s : w.s;
      gridLines(svg, L, W - R, top, plotB, s0, s1, scale, base);
      timeAxis(svg, L, W - R, top - 24, s0, s1, scale, true, base, W);
      fitText(sv('text', { x: 4, y: top - 30, 'class': 'lanelabel', text: fmtNs(s1 - s0) + ' from ' + fmtNs(s0) }, svg), L - 10);
      sv('text', { x: 4, y: top - 8, 'class': 'lanelabel', text: 'steps (CPU)' }, svg);
      /* CPU step ranges */
      arr(w.marks).forEach(function (m) {
        var a = w.s + m[1], b = w.s + m[2];
        if (b < s0 || a > s1) return;
        var xa = scale(Math.max(a, s0)), xb = scale(Math.min(b, s1));
        sv('rect', { x: xa, y: top - 17, width: Math.max(1, xb - xa), height: 13, fill: m[0] === w.step ? '#ccd7e6' : '#e4e9f1' }, svg);
        if (a >= s0) sv('line', { x1: xa, x2: xa, y1: top - 17, y2: plotB, stroke: '#8aa0bf', 'stroke-dasharray': '3,3' }, svg);
        if (b <= s1) sv('line', { x1: xb, x2: xb, y1: top - 17, y2: plotB, stroke: '#8aa0bf', 'stroke-dasharray': '3,3' }, svg);
        var t = sv('text', { x: xa + 4, y: top - 7, text: markLabel(rv, m[0]), 'font-size': 10 }, svg);
        if (textWidth(t) > xb - xa - 8) svg.removeChild(t);
      });
      var y = top, bg = sv('g', null, svg), rects = sv('g', null, svg);
      geo = { cpu: [], cpuAll: null, gpu: null };
      function lane(d, attrs, y) {
        d = arr(d);
        for (var k = 0; k + 5 < d.length; k += 6) {
          var a = w.s + d[k], b = w.s + d[k + 1];
          if (b < s0 || a > s1) continue;
          var xa = scale(Math.max(a, s0)), xb = scale(Math.min(b, s1));
          var r = sv('rect', { x: xa.toFixed(2), y: y + 2, width: Math.max(0.8, xb - xa).toFixed(2), height: laneH - 4,
            fill: classColor(d[k + 2]), 'data-k': k, 'data-cls': String(d[k + 2]) }, rects);
          for (var n in attrs) r.setAttribute(n, attrs[n]);
        }
      }
      if (cpus.length) {
        sv('text', { x: 4, y: y + 11, 'class': 'devlabel', text: 'CPU threads' }, svg);
        y += 16;
        cpus.forEach(function (l, ci) {
          geo.cpu.push([y, y + laneH]);
          var t = sv('text', { x: 12, y: y + laneH / 2 + 4, 'class': 'lanelabel', text: cpuLaneName(l) }, bg);
          fitText(t, L - 18);
          sv('title', { text: (l.name || 'thread ' + l.tid) + (l.reason === 'finding' ? ': made the calls a finding points at' :
            ': launched the most GPU work') + '; ' + l.calls + ' runtime calls' }, t);
          sv('rect', { x: L, y: y, width: W - L - R, height: laneH, fill: '#f4f6f9', 'class': 'lanebg', 'data-lane': 'cpu:' + ci,
            'data-pid': String(l.pid), 'data-tid': String(l.tid) }, bg);
          lane(arr(w.cpu)[ci], { 'data-cl': ci }, y);
          y += laneH + gap;
        });
        geo.cpuAll = [geo.cpu[0][0], y - gap];
      }
      var dev = null, gy0 = null;
      lanes.forEach(function (l, li) {
        if (l.device !== dev) {
          dev = l.device;
          sv('text', { x: 4, y: y + 11, 'class': 'devlabel', text: 'device ' + dev }, svg);
          y += 16;
        }
        if (gy0 === null) gy0 = y;
        fitText(sv('text', { x: 12, y: y + laneH / 2 + 4, 'class': 'lanelabel', text: laneLabel(l) }, bg), L - 18);
        sv('rect', { x: L, y: y, width: W - L - R, height: laneH, fill: '#f4f6f9', 'class': 'lanebg', 'data-lane': 'gpu:' + li }, bg);
        lane(arr(w.lanes)[li], { 'data-l': li }, y);
        y += laneH + gap;
      });
      if (gy0 !== null) geo.gpu = [gy0, y - gap];
      rects.addEventListener('mousemove', function (ev) {
        var t = ev.target, li = t.getAttribute('data-l'), ci = t.getAttribute('data-cl');
        if (li === null && ci === null) return hideTip();
        var d = li !== null ? arr(w.lanes)[+li] : arr(w.cpu)[+ci], k = +t.getAttribute('data-k');
        var name = arr(w.names)[d[k + 3]] || '';
        var n = d[k + 4], cls = className(d[k + 2]), busy = d[k + 5];
        showTip(ev, (n > 1 ? n + ' ops merged (' + cls + ' dominant); longest: ' : cls + ': ') + name +
          '\nat ' + fmtNs(w.s + d[k]) + ', ' + (n > 1 || busy === null ? 'span ' + (busy === null ? '\u2248 ' : '') + fmtNs(d[k + 1] - d[k]) +
            (busy === null ? '' : ', \u03a3 op time ' + fmtNs(busy)) : 'duration ' + fmtNs(busy)));
      });
      rects.addEventListener('mouseleave', hideTip);
      if (mem) {
        var my = plotB + 22;
        sv('text', { x: 4, y: my + memH / 2 + 4, 'class': 'devlabel', text: 'memory' + (num(mem.device) ? ' (device ' + mem.device + ')' : '') }, svg);
        memChart(svg, mem, L, W - R, my, my + memH, s0, s1, scale, true);
      }
      overlayG = sv('g', { 'class': 'overlay' }, svg);
      geo.scale = scale; geo.s0 = s0; geo.s1 = s1;
      zoomable({ svg: svg, L: L, W: W, R: R, y0: top, y1: plotB, view: function () { return st.gview; },
        full: function () { return [w.s, Math.max(w.e, w.s + 1)]; }, range: function () { return [s0, s1]; },
        set: function (nv) { st.gview = nv; draw(); overviewOverlay(); } });
      svg.addEventListener('dblclick', function () { st.gview = null; draw(); overviewOverlay(); });
      overlay();
    }
    function overlay() {
      if (!overlayG) return;
      clear(overlayG);
      drawHighlight(overlayG, ri, rows, geo.scale, geo.s0, geo.s1);
    }
    st.charts.push({ name: 'gantt', draw: draw, overlay: overlay });
  }

  function renderMemory(box, ri) {
    var rv = VIZ.ranks[ri], st = state[ri], m = rv.memory;
    var c = el('div', { cls: 'chart', id: 'memory-' + ri });
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
    var holder = el('div', { cls: 'svgbox' });
    c.appendChild(holder);
    box.appendChild(c);
    var geo = null, overlayG = null;
    function draw() {
      clear(holder);
      var W = chartWidth(c), L = 180, R = 12, H = 170, y0 = 8, y1 = H - 26;
      var svg = sv('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H });
      holder.appendChild(svg);
      var s0 = rv.t0, s1 = Math.max(rv.t1, m.end, rv.t0 + 1);
      var scale = function (t) { return L + (t - s0) / (s1 - s0) * (W - L - R); };
      gridLines(svg, L, W - R, y0, y1, s0, s1, scale);
      memChart(svg, m, L, W - R, y0, y1, s0, s1, scale, false);
      timeAxis(svg, L, W - R, y1 + 2, s0, s1, scale, false, undefined, W);
      overlayG = sv('g', { 'class': 'overlay' }, svg);
      geo = { scale: scale, s0: s0, s1: s1, y0: y0, y1: y1 };
      overlay();
    }
    function overlay() {
      if (!overlayG) return;
      clear(overlayG);
      var v = st.views[st.cur];
      if (v) {
        var vs = st.gview ? st.gview[0] : v.s, ve = st.gview ? st.gview[1] : v.e;
        sv('rect', { 'class': 'winbox', x: geo.scale(vs), y: geo.y0, width: Math.max(2, geo.scale(ve) - geo.scale(vs)), height: geo.y1 - geo.y0 }, overlayG);
      }
      /* memory belongs to the device, not to a lane: every finding's ranges */
      drawHighlight(overlayG, ri, function () { return [geo.y0, geo.y1]; }, geo.scale, geo.s0, geo.s1);
    }
    st.charts.push({ name: 'memory', draw: draw, overlay: overlay });
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
      arr(get(VIZ.ranks[ri] || {}, 'lanes')).forEach(function (l) { if (l.device === s.device && l.stream === s.stream) lane = l; });
      arr(r.streams).forEach(function (x) { if (!lane && x.device === s.device && x.stream === s.stream) lane = x; });
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

  /* a table whose column heads sort it (click again: the other way);
     cols: {head, key, num, fmt, title} */
  function sortableTable(rows, cols, cls) {
    var t = el('table', { cls: 'plain sortable' + (cls ? ' ' + cls : '') });
    var head = el('tr'), tb = el('tbody');
    var by = null, desc = true;
    function fill() {
      clear(tb);
      var r = rows.slice();
      if (by !== null) {
        var k = cols[by].key, isnum = cols[by].num;
        r.sort(function (a, b) {
          var x = a[k], y = b[k];
          if (x === null || x === undefined) return 1;
          if (y === null || y === undefined) return -1;
          var d = isnum ? x - y : String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
          return desc ? -d : d;
        });
      }
      r.forEach(function (row) {
        var tr = el('tr');
        cols.forEach(function (c) {
          var v = row[c.key];
          var td = el('td', { cls: c.num ? 'num' : (c.mono ? 'mono' : ''), text: c.fmt ? c.fmt(v, row) : (v === null || v === undefined ? '' : String(v)) });
          if (c.title) td.setAttribute('title', c.title(row));
          tr.appendChild(td);
        });
        tb.appendChild(tr);
      });
    }
    cols.forEach(function (c, i) {
      var th = el('th', { cls: c.num ? 'num' : '', text: c.head, role: 'button', tabindex: '0', 'aria-sort': 'none' });
      function go() {
        desc = by === i ? !desc : !!c.num;
        by = i;
        var ths = head.querySelectorAll('th');
        for (var j = 0; j < ths.length; j++) ths[j].setAttribute('aria-sort', j === i ? (desc ? 'descending' : 'ascending') : 'none');
        fill();
      }
      th.addEventListener('click', go);
      th.addEventListener('keydown', function (ev) { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); go(); } });
      head.appendChild(th);
    });
    t.appendChild(el('thead', null, [head]));
    t.appendChild(tb);
    fill();
    return t;
  }

  /* what the busy time went to: MFU, the kernel table (sortable, with a bar
     chart of the largest totals) and the op table (ranks[].kernels, .ops,
     .efficiency) */
  function renderBusy(box, r) {
    var ks = arr(r.kernels), ops = arr(r.ops), e = r.efficiency || {};
    if (!ks.length) return;
    box.appendChild(el('h3', { text: 'What the busy time went to' }));
    var dev = e.device || {};
    var note = (dev.model ? dev.model + ': ' : dev.name ? dev.name + ' (not in the peak table): ' : '') +
      (num(e.mfu) ? 'MFU ' + fmtPct(100 * e.mfu, 1) + ' (a lower bound: ops with a FLOPs model only), ' : '') +
      (num(e.modelled_share) ? fmtPct(100 * e.modelled_share, 0) + ' of the kernel time in GEMM / attention / convolution with a model' : '') +
      '. Click a column head to sort.';
    box.appendChild(el('div', { cls: 'hint', text: note }));
    /* the bar chart: the 15 largest totals, full names on hover */
    var top = ks.filter(function (k) { return k.name !== null; }).slice(0, 15);
    var c = el('div', { cls: 'chart kernel-bars' });
    box.appendChild(c);
    var W = 960, L = 330, R = 150, rowH = 17, t0 = 4;
    var H = t0 + top.length * rowH + 6;
    var svg = sv('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, style: 'max-width:' + W + 'px' });
    var max = 1;
    top.forEach(function (k) { if (k.total_ns > max) max = k.total_ns; });
    top.forEach(function (k, i) {
      var y = t0 + i * rowH;
      var tx = fitText(sv('text', { x: L - 6, y: y + 12, 'text-anchor': 'end', 'class': 'lanelabel', text: k.short_name }, svg),
        L - 12);
      var bar = sv('rect', { x: L, y: y + 2, width: Math.max(1, k.total_ns / max * (W - L - R)), height: rowH - 5,
        fill: k['class'] === 'communication' ? '#f28e2b' : k['class'] === 'compute' ? '#4e79a7' : '#9c755f' }, svg);
      var tipText = k.name + '\n' + k.count + ' \u00d7, total ' + fmtNs(k.total_ns) + ', mean ' + fmtNs(k.mean_ns) +
        ', median ' + fmtNs(k.p50_ns) + (num(k.share) ? ', ' + fmtPct(100 * k.share) + ' of the busy time' : '');
      [tx, bar].forEach(function (n) {
        n.addEventListener('mousemove', function (ev) { showTip(ev, tipText); });
        n.addEventListener('mouseleave', hideTip);
      });
      sv('text', { x: L + k.total_ns / max * (W - L - R) + 6, y: y + 12,
        text: fmtNs(k.total_ns) + (num(k.share) ? ' \u00b7 ' + fmtPct(100 * k.share) : '') }, svg);
    });
    c.appendChild(svg);
    var pct = function (v) { return num(v) ? fmtPct(100 * v) : ''; };
    var kt = sortableTable(ks, [
      { head: 'kernel', key: 'short_name', mono: true, title: function (k) { return k.name === null ? k.names + ' names folded' : k.name; } },
      { head: 'class', key: 'class', fmt: function (v, k) { return v === null ? '' : v + (k.family ? ' (' + k.family + ')' : ''); } },
      { head: 'count', key: 'count', num: true },
      { head: 'total', key: 'total_ns', num: true, fmt: fmtNs },
      { head: 'mean', key: 'mean_ns', num: true, fmt: fmtNs },
      { head: 'median', key: 'p50_ns', num: true, fmt: function (v) { return num(v) ? fmtNs(v) : ''; } },
      { head: 'max', key: 'max_ns', num: true, fmt: fmtNs },
      { head: 'share of busy', key: 'share', num: true, fmt: pct }
    ], 'kernels');
    box.appendChild(kt);
    if (!ops.length) return;
    box.appendChild(el('h3', { text: 'Ops that launched GPU work' }));
    var tf = function (v) { return num(v) ? v.toFixed(v < 10 ? 2 : 1) : ''; };
    var ot = sortableTable(ops, [
      { head: 'op', key: 'name', mono: true, fmt: function (v, o) { return v !== null ? v : o.gpu_op !== null ? '(no op) ' + o.gpu_op : o.names + ' more rows'; },
        title: function (o) { return (o.input_dims ? 'Input Dims ' + JSON.stringify(o.input_dims) : '') + (o.input_types ? '\nInput type ' + JSON.stringify(o.input_types) : ''); } },
      { head: 'category', key: 'category' },
      { head: 'shapes', key: 'input_dims', mono: true, fmt: function (v) { return v ? JSON.stringify(v).slice(0, 60) : ''; } },
      { head: 'dtype', key: 'dtype' },
      { head: 'calls', key: 'count', num: true },
      { head: 'kernel time', key: 'kernel_ns', num: true, fmt: fmtNs },
      { head: 'GFLOP / call', key: 'flops', num: true, fmt: function (v) { return num(v) ? (v / 1e9).toPrecision(4) : ''; } },
      { head: 'TFLOP/s', key: 'tflops_per_s', num: true, fmt: tf },
      { head: 'TB/s', key: 'tb_per_s', num: true, fmt: function (v) { return num(v) ? v.toFixed(3) : ''; } },
      { head: 'of peak', key: 'peak_share', num: true, fmt: pct }
    ], 'ops');
    box.appendChild(ot);
  }

  /* a rank from the JSON report alone: everything but the timelines, which
     need the events */
  function renderRankNoEvents(main, ri) {
    var r = arr(REPORT.ranks)[ri] || {}, input = arr(REPORT.inputs)[ri] || {};
    state[ri] = { views: [], cur: 0, charts: [] };
    var d = el('details', { cls: 'rank', id: 'rank-' + ri });
    if (ri < 2) d.open = true;
    var w = workloadText(r), itn = get(r, 'iterations.count');
    d.appendChild(el('summary', { text: 'Rank ' + r.rank + ' \u2014 ' + (input.path || '') + ' \u00b7 ' + w.labels + ', ' + w.mode +
      (num(itn) && itn > 0 ? ', ' + itn + ' iteration' + (itn === 1 ? '' : 's') : '') }));
    renderKpis(d, r);
    d.appendChild(el('div', { cls: 'card noevents', text: 'The whole-trace overview, the Gantt view of a step and the memory ' +
      'timeline need the trace\u2019s events, which this page was made without (it was made from the JSON report: fsdpa render, ' +
      'fsdpa merge or fsdpa analyze --low-memory). fsdpa analyze -f html on the traces draws them.' }));
    renderUnits(d, r);
    renderHists(d, r, ri);
    main.appendChild(d);
  }

  function renderRank(main, ri) {
    if (NOVIZ) return renderRankNoEvents(main, ri);
    var rv = VIZ.ranks[ri], r = arr(REPORT.ranks)[ri] || {};
    var st = state[ri] = { views: buildViews(rv), cur: 0, gview: null, oview: null, charts: [], select: null };
    st.views.forEach(function (v, j) {
      var w = v.type === 'win' ? rv.windows[v.w] : null;
      if (w && w.kind === 'step' && w.step === rv.chosen_step) st.cur = j;
    });
    var d = el('details', { cls: 'rank', id: 'rank-' + ri });
    if (ri < 2) d.open = true;
    var w = workloadText(r), itn = get(r, 'iterations.count');
    d.appendChild(el('summary', { text: 'Rank ' + rv.rank + ' \u2014 ' + rv.path + ' \u00b7 ' + w.labels + ', ' + w.mode +
      (num(itn) && itn > 0 ? ', ' + itn + ' iteration' + (itn === 1 ? '' : 's') : '') }));
    renderKpis(d, r);
    renderOverview(d, ri);
    renderGantt(d, ri);
    renderMemory(d, ri);
    renderUnits(d, r);
    renderBusy(d, r);
    renderHists(d, r, ri);
    main.appendChild(d);
    /* charts of a closed rank are drawn at a guessed width: draw again at
       the real one when it opens */
    d.addEventListener('toggle', function () { if (d.open) redrawRank(ri, null); });
  }

  function render() {
    REPORT = JSON.parse(document.getElementById('fsdpa-report').textContent);
    VIZ = JSON.parse(document.getElementById('fsdpa-viz').textContent);
    /* a page made from the JSON report alone (fsdpa render): no picture data */
    NOVIZ = VIZ === null;
    if (NOVIZ) VIZ = { classes: [], ranks: [], findings: [] };
    arr(VIZ.classes).forEach(function (c, i) { if (c && c.name) CLASSES[i] = c.name; });
    var main = document.getElementById('app');
    tip = el('div', { cls: 'tip', role: 'tooltip' });
    body.appendChild(tip);
    renderHeader(main);
    if (NOVIZ) main.appendChild(el('div', { cls: 'banner info', id: 'no-events', text: 'Made from the JSON report alone: ' +
      'the views that need the trace\u2019s events (whole-trace overview, Gantt, memory timeline) are not in this page.' }));
    renderJob(main);
    renderFindings(main);
    renderCrossRank(main);
    arr(REPORT.ranks).forEach(function (r, ri) { renderRank(main, ri); });
    /* last: the first screen is for what was found; the findings say it is there */
    renderNotJudged(main);
    redrawAll();
    var t = null, lastW = window.innerWidth;
    window.addEventListener('resize', function () {
      if (window.innerWidth === lastW) return;
      lastW = window.innerWidth;
      clearTimeout(t);
      t = setTimeout(redrawAll, 120);
    });
    document.addEventListener('keydown', function (ev) {
      if (ev.key !== 'Escape' || (!highlight && !document.querySelector('.finding.active'))) return;
      highlight = null;
      var cards = document.querySelectorAll('.finding');
      for (var i = 0; i < cards.length; i++) { cards[i].classList.remove('active'); cards[i].setAttribute('aria-selected', 'false'); }
      overlaysAll();
    });
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
