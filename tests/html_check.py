#!/usr/bin/env python3
"""Browser test of fsdpa HTML reports (stdlib only), run by tests/test_html.c.

    html_check.py [--chromium PATH] [--screenshot FILE.html[:COLOR,COLOR...]]...
                  [--interact FILE.html]... FILE.html...

For every FILE:
  * static: one self-contained page (no <link>, no src=/href= to anything but
    a fragment, no url(...), no http(s):// at all, a Content-Security-Policy
    that forbids network access), both JSON blocks parse;
  * in headless Chromium (one browser run for all files, each page in an
    iframe of a harness page): the page's script ran to the end
    (<body data-rendered="ok">, no data-error), it drew SVG charts (the Gantt
    rectangles when the picture data has GPU lanes), one card per finding;
    and Chromium's log shows no console error and no blocked request;
    the overview and the Gantt colour each class as their legends say;
    the findings are a listbox of focusable options that Enter and Space
    select; a CPU-side finding highlights the CPU lane of the thread that
    made its calls and no GPU lane, a GPU-side one the GPU lanes only;
  * the same pages in 1024x768 iframes: no label (SVG text, HTML text) is
    cut by its chart, card or clipping box, none runs into a plot, the page
    does not scroll sideways.
For every --interact FILE (a long trace), also: every step is reachable from
the Gantt's select (and says what it is: full detail, coarse, or not in the
page with the command that draws it), next/previous and clicks on the
overview's steps; the overview zooms by its buttons, Ctrl+wheel, a drag and
its keys, down to the ops of the steps; the Gantt zooms and resets.
For every --screenshot FILE: a 1400x2000 screenshot is taken and decoded
(zlib), and must not be blank: enough non-background pixels, and at least
300 pixels of each listed hex color (the Gantt classes the trace must show).

Exit status: 0 pass, 77 skip (no Chromium), 1 fail.  Messages go to stdout,
prefixed with '# ' (TAP diagnostics).
"""
import argparse
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


def say(msg):
    for line in str(msg).splitlines() or [""]:
        print("# " + line)
    sys.stdout.flush()


def find_chromium(given):
    for c in [given, os.environ.get("FSDPA_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
              shutil.which("chromium-browser"), shutil.which("google-chrome")]:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def json_block(text, ident):
    m = re.search(r'<script type="application/json" id="%s">(.*?)</script>' % ident, text, re.S)
    if not m:
        raise ValueError("no JSON block #%s" % ident)
    return json.loads(m.group(1))


def static_check(path):
    errs = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not text.startswith("<!DOCTYPE html>"):
        errs.append("does not start with <!DOCTYPE html>")
    if "Content-Security-Policy" not in text or "default-src 'none'" not in text:
        errs.append("no Content-Security-Policy forbidding network access")
    if re.search(r"https?://", text):
        errs.append("contains a URL: " + re.search(r".{0,40}https?://.{0,40}", text).group(0))
    if re.search(r"<link\b", text, re.I):
        errs.append("has a <link> element")
    for m in re.finditer(r"\b(src|href)\s*=\s*[\"']?([^\"'\s>]*)", text, re.I):
        if not m.group(2).startswith("#"):
            errs.append("loads something: " + m.group(0))
    if re.search(r"url\(\s*['\"]?(?!#|data:)", text):
        errs.append("CSS url() to a resource")
    if re.search(r"@import", text):
        errs.append("CSS @import")
    report = viz = None
    try:
        report = json_block(text, "fsdpa-report")
        viz = json_block(text, "fsdpa-viz")
    except ValueError as e:
        errs.append("embedded JSON: %s" % e)
    return errs, report, viz, len(text)


HARNESS_JS = r"""
/* Runs in the harness page once every report has loaded in its iframe.
   Plain checks for every page; with data-narrow (a 1024x768 iframe) the
   label clipping check; with data-interact the scripted use of the page
   (steps, zoom, colours).  Everything goes into the results element. */
function fsdpaChecks() {
  var out = [];
  var frames = document.querySelectorAll('iframe');
  for (var i = 0; i < frames.length; i++) {
    var fr = frames[i];
    var r = {file: fr.getAttribute('data-file'), narrow: fr.hasAttribute('data-narrow'),
             interact: fr.hasAttribute('data-interact'), problems: [], notes: {}};
    try {
      var d = fr.contentDocument, w = fr.contentWindow;
      var b = d.body;
      r.rendered = b.getAttribute('data-rendered');
      r.error = b.getAttribute('data-error');
      r.svgs = d.querySelectorAll('svg').length;
      r.rects = d.querySelectorAll('svg rect').length;
      r.gantt_rects = d.querySelectorAll('[id^="gantt-"] svg rect[data-l]').length;
      r.findings = d.querySelectorAll('.finding').length;
      r.ranks = d.querySelectorAll('details.rank').length;
      if (r.rendered === 'ok') {
        var viz = JSON.parse(d.getElementById('fsdpa-viz').textContent);
        var rep = JSON.parse(d.getElementById('fsdpa-report').textContent);
        /* a page made from the JSON report alone has no picture data */
        var ev = viz !== null;
        var ck = [['clipping', r.narrow ? clipCheck : null], ['colours', r.narrow || !ev ? null : colourCheck],
                  ['findings keyboard', r.narrow ? null : a11yCheck], ['highlights', r.narrow || !ev ? null : highlightCheck],
                  ['job', r.narrow ? null : jobCheck],
                  ['steps', r.interact ? stepsCheck : null], ['zoom', r.interact ? zoomCheck : null]];
        for (var c = 0; c < ck.length; c++) {
          if (!ck[c][1]) continue;
          try { ck[c][1](d, w, ck[c][0] === 'job' ? rep : viz, r); } catch (e) { r.problems.push(ck[c][0] + ': exception ' + e + (e.stack ? ' ' + String(e.stack).split('\n')[1] : '')); }
        }
      }
    } catch (e) { r.error = 'harness: ' + e; }
    if (r.problems.length > 40) r.problems = r.problems.slice(0, 40).concat(['... and more']);
    out.push(r);
  }
  var pre = document.createElement('pre');
  pre.id = 'results';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}
window.addEventListener('load', fsdpaChecks);

function key(w, node, k, opts) {
  var o = {key: k, bubbles: true, cancelable: true};
  for (var x in opts || {}) o[x] = opts[x];
  node.dispatchEvent(new w.KeyboardEvent('keydown', o));
}
function mouse(w, node, type, x, y, opts) {
  var o = {bubbles: true, cancelable: true, clientX: x, clientY: y, button: 0, view: w};
  for (var k in opts || {}) o[k] = opts[k];
  node.dispatchEvent(new w.MouseEvent(type, o));
}
function attrNum(node, a) { return node ? parseFloat(node.getAttribute(a)) : NaN; }
function rgb(w, color) {
  var p = w.document.createElement('span');
  p.style.color = color;
  w.document.body.appendChild(p);
  var c = w.getComputedStyle(p).color;
  p.parentNode.removeChild(p);
  return c;
}

/* 4: no label is cut by its container at this width */
function clipCheck(d, w, viz, r) {
  var vw = d.documentElement.clientWidth, n = 0;
  if (d.documentElement.scrollWidth > vw + 1)
    r.problems.push('the page is ' + d.documentElement.scrollWidth + ' px wide in a ' + vw + ' px window');
  var texts = d.querySelectorAll('svg text');
  for (var i = 0; i < texts.length; i++) {
    var t = texts[i], b = t.getBoundingClientRect();
    if (!b.width || !b.height) continue;
    n++;
    var s = t.closest('svg').getBoundingClientRect();
    if (b.left < s.left - 1 || b.right > s.right + 1 || b.top < s.top - 1 || b.bottom > s.bottom + 1)
      r.problems.push('SVG label "' + t.textContent + '" (' + Math.round(b.left) + '..' + Math.round(b.right) +
                      ') cut by its chart (' + Math.round(s.left) + '..' + Math.round(s.right) + ')');
    /* lane labels left of the plot must end before it */
    var lane = t.closest('svg').querySelector('rect.lanebg');
    if (lane && (t.classList.contains('lanelabel') || t.classList.contains('devlabel'))) {
      var lb = lane.getBoundingClientRect();
      if (b.left < lb.left && b.right > lb.left + 1)
        r.problems.push('lane label "' + t.textContent + '" runs into the plot (' + Math.round(b.right) + ' > ' + Math.round(lb.left) + ')');
    }
  }
  var BOX = '.card, .chart, .finding, .kpi, header.top, .banner, .advice, table';
  var walker = d.createTreeWalker(d.body, w.NodeFilter.SHOW_TEXT, null);
  var range = d.createRange();
  for (var node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!/\S/.test(node.nodeValue)) continue;
    var p = node.parentElement;
    if (!p || p.closest('svg, script, style, noscript, select, .tip, pre#results')) continue;
    range.selectNodeContents(node);
    var rects = range.getClientRects();
    if (!rects.length) continue;
    /* the containers that cut: an element that clips (overflow), the
       boxes the page draws (cards, charts), the window */
    var conts = [], q = p;
    for (; q && q !== d.body; q = q.parentElement) {
      var cs = w.getComputedStyle(q);
      if ((q !== p && q.matches(BOX)) || cs.overflowX !== 'visible' || cs.overflowY !== 'visible') conts.push(q);
    }
    for (var k = 0; k < rects.length; k++) {
      var x = rects[k];
      if (!x.width) continue;
      n++;
      if (x.right > vw + 1 || x.left < -1) r.problems.push('text "' + node.nodeValue.slice(0, 60) + '" runs out of the window');
      for (var m = 0; m < conts.length; m++) {
        var cb = conts[m].getBoundingClientRect();
        if (x.left < cb.left - 1 || x.right > cb.right + 1)
          r.problems.push('text "' + node.nodeValue.slice(0, 60) + '" (' + Math.round(x.left) + '..' + Math.round(x.right) +
                          ') cut by <' + conts[m].tagName.toLowerCase() + ' class="' + conts[m].className + '"> (' +
                          Math.round(cb.left) + '..' + Math.round(cb.right) + ')');
      }
    }
  }
  r.notes.labels_checked = n;
  r.notes.width = vw;
}

/* 1: one class -> colour mapping in the overview and the Gantt, as their
   legends say */
function colourCheck(d, w, viz, r) {
  var names = (viz.classes || []).map(function (c) { return c.name; });
  var charts = 0, used = {};
  for (var ri = 0; ri < Math.min(2, viz.ranks.length); ri++) {
    var rv = viz.ranks[ri];
    ['overview-' + ri, 'gantt-' + ri].forEach(function (id) {
      var c = d.getElementById(id);
      if (!c) {
        if (id[0] === 'o' ? rv.overview : (rv.windows || []).length) r.problems.push(id + ': no such chart');
        return;
      }
      charts++;
      var legend = {}, items = c.querySelectorAll('.legend [data-cls]');
      if (!items.length) { r.problems.push(id + ': no legend of the classes'); return; }
      for (var i = 0; i < items.length; i++) {
        var k = items[i].getAttribute('data-cls'), sw = items[i].querySelector('.sw');
        legend[k] = w.getComputedStyle(sw).backgroundColor;
        if (names.length && items[i].textContent.trim() !== names[+k])
          r.problems.push(id + ': legend item ' + k + ' reads "' + items[i].textContent.trim() + '", the data calls it ' + names[+k]);
      }
      var rects = c.querySelectorAll('svg rect[data-cls]');
      for (var j = 0; j < rects.length; j++) {
        var k2 = rects[j].getAttribute('data-cls'), col = rgb(w, rects[j].getAttribute('fill'));
        if (!(k2 in legend)) { r.problems.push(id + ': class ' + k2 + ' drawn but not in the legend'); break; }
        if (col !== legend[k2]) { r.problems.push(id + ': class ' + k2 + ' drawn ' + col + ', the legend says ' + legend[k2]); break; }
        used[id.replace(/-\d+$/, '') + ':' + k2] = true;
        if (used['colour:' + k2] && used['colour:' + k2] !== col) r.problems.push('class ' + k2 + ' has two colours: ' + used['colour:' + k2] + ', ' + col);
        used['colour:' + k2] = col;
      }
      /* the legends of both charts agree */
      if (r.legend && JSON.stringify(r.legend) !== JSON.stringify(legend) && Object.keys(legend).length === Object.keys(r.legend).length)
        r.problems.push(id + ': legend colours differ from the other chart\'s');
      r.legend = r.legend || legend;
    });
  }
  r.notes.colour_classes = Object.keys(used).filter(function (k) { return !/^colour:/.test(k); }).sort();
  delete r.legend;
}

/* 5: findings are a listbox of focusable options; Enter / Space select */
/* the job's view: a row per rank first, the findings grouped by id with
   the worst rank's finding shown and the others one click below, a
   symptom indented after its cause, the rules that could not judge; a page
   made without the events says so where the timelines would be */
function jobCheck(d, w, rep, r) {
  var ranks = (rep.ranks || []).length, groups = (rep.job || {}).findings || [];
  var rows = d.querySelectorAll('table.jobtable tr');
  if (ranks > 1 && rows.length !== ranks + 1) r.problems.push('job: ' + rows.length + ' table rows for ' + ranks + ' ranks');
  if (ranks === 1 && rows.length) r.problems.push('job: a one-rank page has a job table');
  var gs = d.querySelectorAll('.findings > .group');
  if (gs.length !== groups.length) r.problems.push('job: ' + gs.length + ' finding groups, the report has ' + groups.length);
  for (var i = 0; i < gs.length && i < groups.length; i++) {
    var g = groups[i], card = gs[i].querySelector(':scope > .finding');
    if (!card || card.getAttribute('data-finding') !== String(g.findings[0]))
      r.problems.push('job: group ' + g.id + ' does not show its worst rank\'s finding first');
    var members = gs[i].querySelectorAll('details.members .finding');
    if (members.length !== g.findings.length - 1) r.problems.push('job: group ' + g.id + ' nests ' + members.length + ' of ' + (g.findings.length - 1));
    var det = gs[i].querySelector('details.members');
    if (det) {
      var was = det.open;
      det.open = false;
      var sum = det.querySelector('summary'), h0 = det.getBoundingClientRect().height;
      det.open = true;
      if (det.getBoundingClientRect().height <= h0 + 10) r.problems.push('job: opening ' + g.id + '\'s other findings shows nothing');
      members[0].focus();
      if (d.activeElement !== members[0]) r.problems.push('job: ' + g.id + '\'s other findings cannot take the focus when shown');
      det.open = was;
      if (!sum || !/rank/.test(sum.textContent)) r.problems.push('job: ' + g.id + '\'s other findings are not named');
    }
    if (!!g.explained_by !== gs[i].classList.contains('symptom')) r.problems.push('job: group ' + g.id + ' symptom class wrong');
    if (g.explained_by) {
      var cause = -1;
      for (var k = 0; k < i; k++) if (groups[k].id === g.explained_by) cause = k;
      if (cause < 0) r.problems.push('job: symptom ' + g.id + ' not after its cause ' + g.explained_by);
      if (gs[i].getBoundingClientRect().left <= gs[cause < 0 ? 0 : cause].getBoundingClientRect().left)
        r.problems.push('job: symptom ' + g.id + ' is not indented under its cause');
    }
    if (g.ranks_affected > 1 && card && card.textContent.indexOf('on ' + g.ranks_affected + ' of ' + ranks + ' ranks') < 0)
      r.problems.push('job: group ' + g.id + ' does not say how many ranks it is on');
  }
  var nj = (rep.not_judged || []).length, njs = d.querySelectorAll('#not-judged .nj').length;
  if (nj !== njs) r.problems.push('job: ' + njs + ' not-judged entries shown, the report has ' + nj);
  var viz = JSON.parse(d.getElementById('fsdpa-viz').textContent);
  if (viz === null) {
    if (!d.getElementById('no-events')) r.problems.push('no-events page: no note saying the timelines need the events');
    if (d.querySelectorAll('.card.noevents').length !== ranks) r.problems.push('no-events page: not every rank says why it has no timelines');
    if (d.querySelector('[id^="gantt-"], [id^="overview-"]')) r.problems.push('no-events page: a timeline without data');
  }
  r.notes.job_groups = gs.length;
}

function a11yCheck(d, w, viz, r) {
  /* the findings one click below (a closed details) are not in the tab
     order until it opens: the visible cards are */
  var all = d.querySelectorAll('.finding'), cards = [];
  for (var v = 0; v < all.length; v++) if (!all[v].closest('details:not([open])')) cards.push(all[v]);
  if (!cards.length) return;
  var box = d.querySelector('.findings');
  if (!box || box.getAttribute('role') !== 'listbox') r.problems.push('findings: the list has no role=listbox');
  for (var i = 0; i < cards.length; i++) {
    var c = cards[i], lab = d.getElementById(c.getAttribute('aria-labelledby') || '');
    if (c.getAttribute('role') !== 'option') r.problems.push('finding ' + i + ': role ' + c.getAttribute('role'));
    if (c.getAttribute('tabindex') !== '0') r.problems.push('finding ' + i + ': tabindex ' + c.getAttribute('tabindex'));
    if (c.getAttribute('aria-selected') !== 'false') r.problems.push('finding ' + i + ': aria-selected ' + c.getAttribute('aria-selected') + ' before any selection');
    if (!lab || !lab.textContent.trim()) r.problems.push('finding ' + i + ': no accessible name');
    c.focus();
    if (d.activeElement !== c) r.problems.push('finding ' + i + ' cannot take the focus');
  }
  function sel() {
    var s = [];
    for (var i = 0; i < cards.length; i++) if (cards[i].getAttribute('aria-selected') === 'true') s.push(i);
    return s.join(',');
  }
  cards[0].focus();
  key(w, cards[0], 'Enter');
  if (sel() !== '0' || !cards[0].classList.contains('active')) r.problems.push('findings: Enter on the first selected ' + JSON.stringify(sel()));
  if (cards.length > 1) {
    key(w, cards[0], 'ArrowDown');
    if (d.activeElement !== cards[1]) r.problems.push('findings: ArrowDown does not move to the next finding');
    key(w, cards[1], ' ');
    if (sel() !== '1') r.problems.push('findings: Space on the second selected ' + JSON.stringify(sel()));
    key(w, cards[1], 'ArrowUp');
    if (d.activeElement !== cards[0]) r.problems.push('findings: ArrowUp does not move back');
  }
  cards[0].click();
  if (sel() !== '0') r.problems.push('findings: a click selected ' + JSON.stringify(sel()));
  key(w, d.body, 'Escape');
  if (sel() !== '') r.problems.push('findings: Escape left ' + JSON.stringify(sel()) + ' selected');
  r.notes.findings_keyboard = cards.length;
}

function yr(n) { var b = n.getBoundingClientRect(); return [b.top, b.bottom]; }
function overlaps(a, b) { return a[0] < b[1] - 1 && b[0] < a[1] - 1; }
/* 2: CPU-side findings highlight the CPU lane of their thread, GPU-side
   findings the GPU lanes */
function highlightCheck(d, w, viz, r) {
  var cpu = 0, gpu = 0;
  var cards = d.querySelectorAll('.finding');
  for (var i = 0; i < cards.length; i++) {
    var k = +cards[i].getAttribute('data-finding'), fv = viz.findings[k];
    if (!fv || fv.rank_index === null || fv.rank_index > 1 || !fv.ranges.length) continue;
    var side = fv.side, rv = viz.ranks[fv.rank_index];
    if (side !== 'cpu' && side !== 'gpu') { r.problems.push('finding ' + k + ' has ranges but side ' + side); continue; }
    cards[i].click();
    ['gantt-', 'overview-'].forEach(function (p) {
      var c = d.getElementById(p + fv.rank_index);
      if (!c) { r.problems.push(p + fv.rank_index + ': no such chart'); return; }
      var svg = c.querySelector('svg'), hls = c.querySelectorAll('.overlay rect.hl');
      var vs = attrNum(svg, 'data-view-s'), ve = attrNum(svg, 'data-view-e'), inview = false;
      if (!(vs <= ve)) { r.problems.push(p + fv.rank_index + ': the chart does not say which range it shows'); return; }
      fv.ranges.forEach(function (x) { if (x[1] >= vs && x[0] <= ve) inview = true; });
      if (inview && !hls.length) r.problems.push(p + fv.rank_index + ': finding ' + k + ' (' + side + ') highlights nothing');
      var cpuL = c.querySelectorAll('rect.lanebg[data-lane^="cpu:"]'), gpuL = c.querySelectorAll('rect.lanebg[data-lane^="gpu:"]');
      for (var h = 0; h < hls.length; h++) {
        var lane = hls[h].getAttribute('data-hl-lane'), y = yr(hls[h]), ri = +hls[h].getAttribute('data-range');
        if (side === 'cpu') {
          var m = /^cpu:(\d+)$/.exec(lane || '');
          if (!m) { r.problems.push(p + ': CPU-side finding ' + fv.rank_index + '/' + k + ' highlighted on ' + lane); continue; }
          var bg = c.querySelector('rect.lanebg[data-lane="' + lane + '"]'), cl = rv.cpu_lanes[+m[1]], th = (fv.threads || [])[ri];
          if (!bg || y[0] < yr(bg)[0] - 1.5 || y[1] > yr(bg)[1] + 1.5) r.problems.push(p + ': finding ' + k + ' band outside its CPU lane');
          if (!th || !cl || cl.tid !== th[1] || cl.pid !== th[0]) r.problems.push(p + ': finding ' + k + ' range ' + ri + ' on thread ' + (cl && cl.tid) + ', its calls ran on ' + th);
          if (p === 'gantt-' && bg && +bg.getAttribute('data-tid') !== th[1]) r.problems.push('gantt: lane ' + lane + ' is thread ' + bg.getAttribute('data-tid'));
          for (var g = 0; g < gpuL.length; g++) if (overlaps(y, yr(gpuL[g]))) { r.problems.push(p + ': CPU-side finding ' + k + ' covers GPU lane ' + gpuL[g].getAttribute('data-lane')); break; }
          cpu++;
        } else {
          if (lane !== 'gpu') { r.problems.push(p + ': GPU-side finding ' + k + ' highlighted on ' + lane); continue; }
          var any = false;
          for (var g2 = 0; g2 < gpuL.length; g2++) if (overlaps(y, yr(gpuL[g2]))) any = true;
          if (!any) r.problems.push(p + ': GPU-side finding ' + k + ' covers no GPU lane');
          for (var c2 = 0; c2 < cpuL.length; c2++) if (overlaps(y, yr(cpuL[c2]))) { r.problems.push(p + ': GPU-side finding ' + k + ' covers a CPU lane'); break; }
          gpu++;
        }
      }
    });
  }
  key(w, d.body, 'Escape');
  if (d.querySelectorAll('.overlay rect.hl').length) r.problems.push('Escape left highlights drawn');
  r.notes.cpu_highlights = cpu;
  r.notes.gpu_highlights = gpu;
}

/* 3: every step reachable from the Gantt's select, its buttons and the
   overview; a step the page does not hold says so and how to draw it */
function stepsCheck(d, w, viz, r) {
  var rv = viz.ranks[0], steps = rv.steps, sel = d.getElementById('gantt-select-0');
  if (!steps.length) { r.problems.push('steps: the trace has no steps'); return; }
  if (!sel) { r.problems.push('steps: no view select'); return; }
  function gantt() { return d.querySelector('#gantt-0 svg'); }
  function info() { var x = d.querySelector('#gantt-0 .gantt-info'); return x ? x.textContent : ''; }
  var kinds = {}, reached = 0, opts = {}, all = sel.querySelectorAll('option');
  for (var o0 = 0; o0 < all.length; o0++) opts[all[o0].getAttribute('data-step-index')] = all[o0];
  /* every step; past 600 steps, 300 pairs of neighbours spread over the
     trace (both kinds of a strided page), as each selection redraws */
  var ks = [];
  if (steps.length <= 600) for (var k0 = 0; k0 < steps.length; k0++) ks.push(k0);
  else for (var p0 = 0; p0 < 300; p0++) { var a0 = Math.floor(p0 * (steps.length - 2) / 299); ks.push(a0, a0 + 1); }
  for (var q = 0; q < ks.length; q++) {
    var k = ks[q], opt = opts[String(k)];
    if (!opt) { r.problems.push('steps: step ' + k + ' is not in the select'); continue; }
    sel.value = opt.value;
    sel.dispatchEvent(new w.Event('change', {bubbles: true}));
    var g = gantt(), kind = g && g.getAttribute('data-view-kind');
    kinds[kind] = (kinds[kind] || 0) + 1;
    if (!g || g.getAttribute('data-step-index') !== String(k)) { r.problems.push('steps: selecting step ' + k + ' shows ' + (g && g.getAttribute('data-step-index'))); continue; }
    /* a step is named by its label: ProfilerStep#N, or "iteration N" where
       the iterations were inferred */
    var name = steps[k].label || 'ProfilerStep#' + steps[k].number;
    if (info().indexOf(name) < 0) r.problems.push('steps: the Gantt does not name ' + name + ': ' + info());
    if (kind === 'missing') {
      if (info().indexOf('--html-step ' + k) < 0) r.problems.push('steps: step ' + k + ' is not in the page and the page does not say how to draw it');
      var o = d.querySelector('#overview-0 svg'), os = attrNum(o, 'data-view-s'), oe = attrNum(o, 'data-view-e');
      if (!(os <= steps[k].s && oe >= steps[k].e && oe - os < (rv.t1 - rv.t0) / 4)) r.problems.push('steps: the overview is not zoomed to missing step ' + k);
    } else {
      if (attrNum(g, 'data-s') !== steps[k].s || attrNum(g, 'data-e') < steps[k].e) r.problems.push('steps: step ' + k + ' drawn over ' + g.getAttribute('data-s') + '..' + g.getAttribute('data-e'));
      var sv = rv.step_views.views[k];
      var has = sv ? sv.g.concat(sv.u).some(function (l) { return l.length > 0; }) : true;
      if (has && !g.querySelectorAll('rect[data-cls]').length) r.problems.push('steps: step ' + k + ' (' + kind + ') drew no op');
      if (kind === 'coarse' && info().indexOf('coarse') < 0) r.problems.push('steps: coarse step ' + k + ' not called coarse');
    }
    reached++;
  }
  r.notes.steps = steps.length;
  r.notes.steps_tried = ks.length;
  r.notes.steps_reached = reached;
  r.notes.view_kinds = kinds;
  /* next / previous */
  var first = sel.querySelector('option[data-step-index="0"]');
  sel.value = first.value;
  sel.dispatchEvent(new w.Event('change', {bubbles: true}));
  d.querySelector('#gantt-0 [data-nav="next"]').click();
  if (steps.length > 1 && gantt().getAttribute('data-step-index') !== '1') r.problems.push('steps: "next" from step 0 shows ' + gantt().getAttribute('data-step-index'));
  d.querySelector('#gantt-0 [data-nav="prev"]').click();
  if (gantt().getAttribute('data-step-index') !== '0') r.problems.push('steps: "previous" does not go back to step 0');
  /* clicks on the overview's step bands, zoomed out and zoomed in */
  var clicked = 0, stride = Math.max(1, Math.floor(steps.length / 40));
  /* from the whole trace, as a user would: Ctrl+wheel over the step until
     its band is wide enough to hit, then click it */
  function clickStep(k) {
    d.querySelector('#overview-0 [data-zoom="reset"]').click();
    var band, b, o;
    for (var z = 0; z < 16; z++) {
      band = d.querySelector('#overview-0 svg rect.stepband[data-step="' + k + '"]');
      if (!band) return false;
      b = band.getBoundingClientRect();
      o = d.querySelector('#overview-0 svg');
      if (b.width >= 3) break;
      o.dispatchEvent(new w.WheelEvent('wheel', {bubbles: true, cancelable: true, ctrlKey: true, deltaY: -100,
        clientX: b.left + b.width / 2, clientY: b.top + b.height / 2}));
    }
    mouse(w, o, 'mousedown', b.left + b.width / 2, b.top + b.height / 2);
    mouse(w, o, 'mouseup', b.left + b.width / 2, b.top + b.height / 2);
    clicked++;
    var got = gantt().getAttribute('data-step-index');
    if (got !== String(k)) r.problems.push('steps: a click on step ' + k + ' in the overview shows ' + got);
    return true;
  }
  for (var j = 0; j < steps.length; j += stride) if (!clickStep(j)) r.problems.push('steps: no band of step ' + j + ' in the overview');
  clickStep(steps.length - 1);
  r.notes.overview_clicks = clicked;
}

/* 3: the overview zooms (buttons, Ctrl+wheel, drag, keys) down to the
   ops of the steps; the Gantt zooms too */
function zoomCheck(d, w, viz, r) {
  var rv = viz.ranks[0], full = rv.t1 - rv.t0;
  function o() { return d.querySelector('#overview-0 svg'); }
  function span() { return attrNum(o(), 'data-view-e') - attrNum(o(), 'data-view-s'); }
  function near(a, b) { return Math.abs(a - b) <= 0.02 * Math.max(a, b); }
  var reset = d.querySelector('#overview-0 [data-zoom="reset"]');
  reset.click();
  if (!near(span(), full)) r.problems.push('zoom: whole range spans ' + span() + ' of ' + full);
  d.querySelector('#overview-0 [data-zoom="in"]').click();
  if (!near(span(), full / 2)) r.problems.push('zoom: "+" gives ' + span() + ', want ' + full / 2);
  var b = o().getBoundingClientRect();
  o().dispatchEvent(new w.WheelEvent('wheel', {bubbles: true, cancelable: true, ctrlKey: true, deltaY: -100,
    clientX: b.left + b.width * 0.6, clientY: b.top + 30}));
  if (!near(span(), full / 4)) r.problems.push('zoom: Ctrl+wheel gives ' + span() + ', want ' + full / 4);
  var s0 = attrNum(o(), 'data-view-s');
  d.querySelector('#overview-0 [data-zoom="right"]').click();
  if (!(attrNum(o(), 'data-view-s') > s0)) r.problems.push('zoom: pan right did not move');
  o().focus();
  key(w, o(), '-');
  if (!near(span(), full / 2)) r.problems.push('zoom: the "-" key gives ' + span() + ', want ' + full / 2);
  reset.click();
  /* drag over ~1/60 of the plot */
  b = o().getBoundingClientRect();
  var lane = o().querySelector('rect.lanebg').getBoundingClientRect();
  var x0 = lane.left + lane.width * 0.4, x1 = lane.left + lane.width * (0.4 + 1 / 60), y = lane.top + 3;
  mouse(w, o(), 'mousedown', x0, y);
  mouse(w, o(), 'mousemove', x1, y);
  mouse(w, o(), 'mouseup', x1, y);
  if (!near(span(), full / 60)) r.problems.push('zoom: a drag over 1/60 of the plot gives ' + span() + ', want ' + full / 60);
  r.notes.zoomed_detail = o().getAttribute('data-detail');
  if (rv.steps.length >= 100 && o().getAttribute('data-detail') !== '1') r.problems.push('zoom: zoomed to ~' + Math.round(rv.steps.length / 60) + ' steps, the overview still draws buckets');
  var ops = o().querySelectorAll('g.lanes rect[data-cls]').length;
  if (!ops) r.problems.push('zoom: nothing drawn when zoomed in');
  r.notes.zoomed_rects = ops;
  /* a click on a step of the zoomed overview */
  var band = o().querySelector('rect.stepband[data-step]');
  if (band) {
    var k = band.getAttribute('data-step'), bb = band.getBoundingClientRect();
    mouse(w, o(), 'mousedown', bb.left + bb.width / 2, bb.top + 4);
    mouse(w, o(), 'mouseup', bb.left + bb.width / 2, bb.top + 4);
    var g = d.querySelector('#gantt-0 svg');
    if (g.getAttribute('data-step-index') !== k) r.problems.push('zoom: click on step ' + k + ' of the zoomed overview shows ' + g.getAttribute('data-step-index'));
  }
  reset.click();
  /* the Gantt */
  var g1 = d.querySelector('#gantt-0 svg');
  if (g1.getAttribute('data-view-kind') !== 'missing') {
    var gs = attrNum(g1, 'data-view-e') - attrNum(g1, 'data-view-s');
    d.querySelector('#gantt-0 [data-zoom="in"]').click();
    var g2 = d.querySelector('#gantt-0 svg'), gs2 = attrNum(g2, 'data-view-e') - attrNum(g2, 'data-view-s');
    if (!near(gs2, gs / 2)) r.problems.push('zoom: Gantt "+" gives ' + gs2 + ', want ' + gs / 2);
    g2.dispatchEvent(new w.MouseEvent('dblclick', {bubbles: true}));
    var g3 = d.querySelector('#gantt-0 svg');
    if (!near(attrNum(g3, 'data-view-e') - attrNum(g3, 'data-view-s'), gs)) r.problems.push('zoom: Gantt double-click does not reset');
  }
}
"""


def run_chromium(chromium, args, timeout):
    prof = tempfile.mkdtemp(prefix="fsdpa-chromium-")
    try:
        cmd = [chromium] + FLAGS + ["--user-data-dir=" + prof] + args
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    finally:
        shutil.rmtree(prof, ignore_errors=True)


def console_problems(log):
    bad = []
    for line in log.splitlines():
        if "CONSOLE" in line and ("Uncaught" in line or "Error" in line or "Refused" in line):
            bad.append(line.strip()[:300])
        elif "Refused to" in line or "net::ERR_" in line:
            bad.append(line.strip()[:300])
    return bad


def browser_check(chromium, files, infos, workdir, interact):
    """One Chromium run: a harness page with every report in an iframe at
    1400x900, and again at 1024x768 for the label clipping check."""
    links = []
    for k, f in enumerate(files):
        name = "page%03d.html" % k
        os.symlink(os.path.abspath(f), os.path.join(workdir, name))
        esc = html.escape(f, quote=True)
        links.append('<iframe data-file="%s"%s src="%s" width="1400" height="900"></iframe>' %
                     (esc, " data-interact" if f in interact else "", name))
        links.append('<iframe data-file="%s" data-narrow src="%s" width="1024" height="768"></iframe>' % (esc, name))
    harness = os.path.join(workdir, "harness.html")
    with open(harness, "w", encoding="utf-8") as h:
        h.write("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>%s<script>%s</script>"
                "</body></html>" % ("\n".join(links), HARNESS_JS))
    timeout = 180 + 12 * len(files)
    rc, out, err = run_chromium(chromium, ["--allow-file-access-from-files", "--enable-logging=stderr",
                                           "--v=0", "--virtual-time-budget=30000",
                                           "--window-size=1400,1000", "--dump-dom",
                                           "file://" + harness], timeout)
    m = re.search(r'<pre id="results">(.*?)</pre>', out, re.S)
    if not m:
        return ["harness page did not report (chromium exit %d): %s" % (rc, err[-2000:])], 0
    results = json.loads(html.unescape(m.group(1)))
    errs = ["console: " + x for x in console_problems(err)]
    if len(results) != 2 * len(files):
        errs.append("harness saw %d pages of %d" % (len(results), 2 * len(files)))
    labels = 0
    for r in results:
        f = r.get("file")
        report, viz = infos[f]
        where = os.path.basename(f) + (" at 1024x768" if r.get("narrow") else "")
        if r.get("rendered") != "ok" or r.get("error"):
            errs.append("%s: not rendered: data-rendered=%r data-error=%r" % (where, r.get("rendered"), r.get("error")))
            continue
        errs += ["%s: %s" % (where, p) for p in r.get("problems", [])]
        notes = r.get("notes", {})
        labels += notes.get("labels_checked", 0)
        if r.get("narrow"):
            continue
        nf = len(report.get("findings", []))
        if r.get("findings") != nf:
            errs.append("%s: %s finding cards, the report has %d" % (where, r.get("findings"), nf))
        if r.get("ranks") != len(report.get("ranks", [])):
            errs.append("%s: %s rank sections for %d ranks" % (where, r.get("ranks"), len(report.get("ranks", []))))
        viz = viz or {}
        lanes = sum(len(rv.get("lanes", [])) for rv in viz.get("ranks", [])[:2])
        ops = sum(len(l) for rv in viz.get("ranks", [])[:2] for w in rv.get("windows", [])[:1] for l in w.get("lanes", []))
        if lanes and ops and not r.get("gantt_rects"):
            errs.append("%s: the Gantt drew no kernel rectangles (%d lanes)" % (where, lanes))
        if lanes and r.get("svgs", 0) < 3:
            errs.append("%s: only %s SVG charts" % (where, r.get("svgs")))
        if f in interact:
            say("%s: %s" % (where, json.dumps(notes, sort_keys=True)))
            # the long traces this runs on have both kinds of finding and,
            # under FSDP, all three GPU classes of FSDP in both charts
            sides = set(fv.get("side") for fv in viz.get("findings", []) if fv.get("ranges"))
            if "cpu" in sides and not notes.get("cpu_highlights"):
                errs.append("%s: no CPU-side highlight was checked" % where)
            if "gpu" in sides and not notes.get("gpu_highlights"):
                errs.append("%s: no GPU-side highlight was checked" % where)
            fsdp = any(l.startswith("FSDP") for rk in report.get("ranks", [])
                       for l in (rk.get("workload") or {}).get("parallelism", []))
            for chart in ("overview", "gantt"):
                for cls in (("0", "1", "2") if fsdp else ("0",)):
                    if "%s:%s" % (chart, cls) not in notes.get("colour_classes", []):
                        errs.append("%s: the %s drew no op of class %s" % (where, chart, cls))
            if notes.get("steps_reached") != notes.get("steps_tried") or \
                    notes.get("steps_tried") != min(notes.get("steps") or 0, 600):
                errs.append("%s: %s of %s steps tried, %s reached" % (where, notes.get("steps_tried"),
                                                                       notes.get("steps"), notes.get("steps_reached")))
    say("label clipping: %d labels checked at 1024x768" % labels)
    return errs, len(results)


def read_png(path):
    with open(path, "rb") as f:
        d = f.read()
    if d[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    i, idat = 8, b""
    w = h = ct = None
    while i < len(d):
        n, = struct.unpack(">I", d[i:i + 4])
        t, c = d[i + 4:i + 8], d[i + 8:i + 8 + n]
        i += 12 + n
        if t == b"IHDR":
            w, h, bd, ct = struct.unpack(">IIBB", c[:10])
            if bd != 8 or ct not in (2, 6):
                raise ValueError("unexpected PNG format (bit depth %d, color type %d)" % (bd, ct))
        elif t == b"IDAT":
            idat += c
    raw = zlib.decompress(idat)
    bpp = 3 if ct == 2 else 4
    stride = w * bpp
    rows, prev, o = [], bytearray(stride), 0
    for _ in range(h):
        ftype = raw[o]
        line = bytearray(raw[o + 1:o + 1 + stride])
        o += 1 + stride
        if ftype == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif ftype == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif ftype == 3:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((a + prev[x]) >> 1)) & 255
        elif ftype == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def screenshot_check(chromium, page, colors, workdir, keep_dir):
    png = os.path.join(workdir, os.path.basename(page) + ".png")
    rc, out, err = run_chromium(chromium, ["--screenshot=" + png, "--window-size=1400,2000",
                                           "--virtual-time-budget=10000",
                                           "file://" + os.path.abspath(page)], 180)
    if not os.path.exists(png):
        return ["%s: no screenshot (chromium exit %d): %s" % (page, rc, err[-1500:])]
    if keep_dir:
        shutil.copy(png, os.path.join(keep_dir, os.path.basename(png)))
    w, h, bpp, rows = read_png(png)
    errs = []
    if (w, h) != (1400, 2000):
        errs.append("%s: screenshot is %dx%d" % (page, w, h))
    bg = rows[h - 1][0:3]
    want = {c: (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)) for c in colors}
    hits = dict.fromkeys(colors, 0)
    nonbg = 0
    for row in rows:
        for x in range(0, w * bpp, bpp):
            px = (row[x], row[x + 1], row[x + 2])
            if max(abs(px[0] - bg[0]), abs(px[1] - bg[1]), abs(px[2] - bg[2])) > 24:
                nonbg += 1
            for c, rgb in want.items():
                if abs(px[0] - rgb[0]) <= 6 and abs(px[1] - rgb[1]) <= 6 and abs(px[2] - rgb[2]) <= 6:
                    hits[c] += 1
    share = nonbg / float(w * h)
    say("%s: screenshot %dx%d, %.1f%% non-background pixels, %s" % (
        os.path.basename(page), w, h, 100 * share, ", ".join("#%s %d px" % (c, n) for c, n in hits.items())))
    if share < 0.05:
        errs.append("%s: screenshot nearly blank (%.2f%% non-background)" % (page, 100 * share))
    for c, n in hits.items():
        if n < 300:
            errs.append("%s: color #%s (a Gantt class) covers only %d pixels" % (page, c, n))
    return errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chromium")
    ap.add_argument("--screenshot", action="append", default=[])
    ap.add_argument("--keep", help="copy screenshots here")
    ap.add_argument("--interact", action="append", default=[],
                    help="also use this page: every step, zoom, colours (a long trace)")
    ap.add_argument("files", nargs="*")
    a = ap.parse_intermixed_args()
    errs, infos = [], {}
    shots = []
    for s in a.screenshot:
        f, _, cols = s.partition(":")
        shots.append((f, [c.strip().lstrip("#").lower() for c in cols.split(",") if c.strip()]))
    files = []
    for f in list(a.files) + [f for f, _ in shots] + a.interact:
        if f not in files:
            files.append(f)
    biggest = 0
    for f in files:
        e, report, viz, size = static_check(f)
        biggest = max(biggest, size)
        errs += ["%s: %s" % (f, x) for x in e]
        infos[f] = (report or {}, viz or {})
    say("static checks: %d pages, largest %d bytes" % (len(files), biggest))
    chromium = find_chromium(a.chromium)
    if not chromium:
        say("SKIP browser test: no Chromium (apt-get install chromium, or set FSDPA_CHROMIUM)")
        for e in errs:
            say("FAIL " + e)
        return 1 if errs else 77
    work = tempfile.mkdtemp(prefix="fsdpa-html-")
    try:
        if not errs:
            be, n = browser_check(chromium, files, infos, work, set(a.interact))
            say("browser: %d pages loaded in %s" % (n, chromium))
            errs += be
            for f, cols in shots:
                errs += screenshot_check(chromium, f, cols, work, a.keep)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for e in errs:
        say("FAIL " + e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
