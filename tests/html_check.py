#!/usr/bin/env python3
"""Browser test of fsdpa HTML reports (stdlib only), run by tests/test_html.c.

    html_check.py [--chromium PATH] [--screenshot FILE.html[:COLOR,COLOR...]]... FILE.html...

For every FILE:
  * static: one self-contained page (no <link>, no src=/href= to anything but
    a fragment, no url(...), no http(s):// at all, a Content-Security-Policy
    that forbids network access), both JSON blocks parse;
  * in headless Chromium (one browser run for all files, each page in an
    iframe of a harness page): the page's script ran to the end
    (<body data-rendered="ok">, no data-error), it drew SVG charts (the Gantt
    rectangles when the picture data has GPU lanes), one card per finding;
    and Chromium's log shows no console error and no blocked request.
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
window.addEventListener('load', function () {
  var out = [];
  var frames = document.querySelectorAll('iframe');
  for (var i = 0; i < frames.length; i++) {
    var r = {file: frames[i].getAttribute('data-file')};
    try {
      var d = frames[i].contentDocument;
      var b = d.body;
      r.rendered = b.getAttribute('data-rendered');
      r.error = b.getAttribute('data-error');
      r.svgs = d.querySelectorAll('svg').length;
      r.rects = d.querySelectorAll('svg rect').length;
      r.gantt_rects = d.querySelectorAll('[id^="gantt-"] svg rect[data-l]').length;
      r.findings = d.querySelectorAll('.finding').length;
      r.ranks = d.querySelectorAll('details.rank').length;
    } catch (e) { r.error = 'harness: ' + e; }
    out.push(r);
  }
  var pre = document.createElement('pre');
  pre.id = 'results';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
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


def browser_check(chromium, files, infos, workdir):
    """One Chromium run: a harness page with every report in an iframe."""
    links = []
    for k, f in enumerate(files):
        name = "page%03d.html" % k
        os.symlink(os.path.abspath(f), os.path.join(workdir, name))
        links.append('<iframe data-file="%s" src="%s" width="1400" height="900"></iframe>' %
                     (html.escape(f, quote=True), name))
    harness = os.path.join(workdir, "harness.html")
    with open(harness, "w", encoding="utf-8") as h:
        h.write("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>%s<script>%s</script>"
                "</body></html>" % ("\n".join(links), HARNESS_JS))
    timeout = 120 + 10 * len(files)
    rc, out, err = run_chromium(chromium, ["--allow-file-access-from-files", "--enable-logging=stderr",
                                           "--v=0", "--virtual-time-budget=30000",
                                           "--window-size=1400,1000", "--dump-dom",
                                           "file://" + harness], timeout)
    m = re.search(r'<pre id="results">(.*?)</pre>', out, re.S)
    if not m:
        return ["harness page did not report (chromium exit %d): %s" % (rc, err[-2000:])], 0
    results = json.loads(html.unescape(m.group(1)))
    errs = ["console: " + x for x in console_problems(err)]
    if len(results) != len(files):
        errs.append("harness saw %d pages of %d" % (len(results), len(files)))
    for r in results:
        f = r.get("file")
        report, viz = infos[f]
        where = os.path.basename(f)
        if r.get("rendered") != "ok" or r.get("error"):
            errs.append("%s: not rendered: data-rendered=%r data-error=%r" % (where, r.get("rendered"), r.get("error")))
            continue
        nf = len(report.get("findings", []))
        if r.get("findings") != nf:
            errs.append("%s: %s finding cards, the report has %d" % (where, r.get("findings"), nf))
        if r.get("ranks") != len(viz.get("ranks", [])):
            errs.append("%s: %s rank sections for %d ranks" % (where, r.get("ranks"), len(viz.get("ranks", []))))
        lanes = sum(len(rv.get("lanes", [])) for rv in viz.get("ranks", [])[:2])
        ops = sum(len(l) for rv in viz.get("ranks", [])[:2] for w in rv.get("windows", [])[:1] for l in w.get("lanes", []))
        if lanes and ops and not r.get("gantt_rects"):
            errs.append("%s: the Gantt drew no kernel rectangles (%d lanes)" % (where, lanes))
        if lanes and r.get("svgs", 0) < 3:
            errs.append("%s: only %s SVG charts" % (where, r.get("svgs")))
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
    ap.add_argument("files", nargs="*")
    a = ap.parse_intermixed_args()
    errs, infos = [], {}
    shots = []
    for s in a.screenshot:
        f, _, cols = s.partition(":")
        shots.append((f, [c.strip().lstrip("#").lower() for c in cols.split(",") if c.strip()]))
    files = list(a.files) + [f for f, _ in shots if f not in a.files]
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
            be, n = browser_check(chromium, files, infos, work)
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
