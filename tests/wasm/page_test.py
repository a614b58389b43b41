#!/usr/bin/env python3
"""The viewer page in headless Chromium (DevTools protocol over a pipe,
stdlib only: tests/wasm/cdp.py).

    page_test.py --page build-wasm/tools/viewer/fsdpa-viewer.html --cli build/tools/fsdpa/fsdpa
                 [--source .] [--chromium PATH]

From file:// and from a static server on 127.0.0.1, it drops traces on the
page (Input.dispatchDragEvent with the files, as a drag from the desktop):
  * the sample trace: the page loads its analyzer (worker from a Blob URL,
    wasm inlined), shows progress, findings and the per-step chart, and its
    final report is the bytes `fsdpa analyze -f html` writes; one finding
    card per finding of the report;
  * two ranks of one job (the corpus' hta/trace_filter, if present): the
    job's report, cross-rank included, equals the CLI's over both files;
  * a file that is not a trace: the page says why (the library's message)
    and stays usable;
  * a large trace (the corpus' largest): findings appear between feeds
    (queries while the file is still streaming);
and nowhere a console error, an uncaught exception (page or worker), a
blocked or failed request.  Statically: one file, nothing it loads, a
Content-Security-Policy that allows no network.  Exit 0 pass, 77 skip (no
Chromium), 1 fail; TAP on stdout.
"""
import argparse
import functools
import http.server
import json
import struct
import os
import re
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

n = 0
failed = 0


def ok(cond, what, detail=""):
    global n, failed
    n += 1
    if cond:
        print(f"ok {n} - {what}")
    else:
        failed += 1
        print(f"not ok {n} - {what}")
        for line in str(detail).splitlines():
            print("# " + line)
    sys.stdout.flush()


def say(msg):
    print("# " + msg)
    sys.stdout.flush()


def cli_report(cli, paths, fmt="html"):
    """The CLI's report with each trace named by its file name, as the page names it."""
    d = os.path.dirname(os.path.abspath(paths[0]))
    assert all(os.path.dirname(os.path.abspath(p)) == d for p in paths)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")}
    r = subprocess.run([cli, "analyze", "-f", fmt] + [os.path.basename(p) for p in paths], cwd=d, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout.decode("utf-8"), r.stderr.decode("utf-8")


def json_size(path):
    """Bytes of JSON in a trace (a gzip member's trailer holds them, mod 4 GiB)."""
    if not path.endswith(".gz"):
        return os.path.getsize(path)
    with open(path, "rb") as f:
        f.seek(-4, 2)
        return struct.unpack("<I", f.read(4))[0]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def static_checks(page):
    html = open(page, encoding="utf-8").read()
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    ok(csp and "default-src 'none'" in csp.group(1) and "connect-src data: blob:" in csp.group(1),
       "static: a Content-Security-Policy that allows no network request", csp and csp.group(1))
    tags = re.findall(r"<(?:script|link|img|iframe)\b[^>]*>", html[:html.index('id="fsdpa-worker-src"')])
    loads = [t for t in tags if re.search(r"\b(src|href)=", t)]
    ok(not loads, "static: the page loads no other file", "\n".join(loads))
    ok("data:application/octet-stream;base64," in html, "static: the wasm is inlined")
    say(f"page: {len(html.encode()) / 1e6:.2f} MB")


def run_case(b, url, files, cli, label, expect_error=None, interim=False, timeout=600):
    b.console.clear()
    b.navigate(url)
    state = b.wait_for("document.body && document.body.dataset.state === 'ready' && 'ready'", timeout=120)
    ok(state == "ready", f"{label}: the page loaded its analyzer",
       b.evaluate("document.body && document.body.dataset.state") if state is None else "")
    if state is None:
        return
    b.drop_files(files)
    end = b.wait_for("['done', 'error'].includes(document.body.dataset.state) && document.body.dataset.state",
                     timeout=timeout)
    errtext = b.evaluate("document.getElementById('error').textContent")
    if expect_error:
        ok(end == "error" and expect_error in errtext, f"{label}: the page says why it cannot read the file",
           f"state {end}, error box: {errtext!r}, expected {expect_error!r}")
        ok(b.evaluate("document.getElementById('pick') !== null && !document.getElementById('pick').disabled"),
           f"{label}: the page stays usable")
    else:
        ok(end == "done", f"{label}: analyzed ({' + '.join(os.path.basename(f) for f in files)})",
           f"state {end}, error box: {errtext!r}")
        if end != "done":
            return
        report = b.evaluate("window.fsdpaViewer.report")
        rc, want, err = cli_report(cli, files)
        ok(rc == 0 and report == want, f"{label}: the page's report is the bytes `fsdpa analyze -f html` writes",
           f"cli exit {rc} {err}; page {len(report or '')} bytes, cli {len(want)} bytes")
        cards = b.evaluate("document.querySelectorAll('#findings .finding').length")
        nfind = b.evaluate("window.fsdpaViewer.findings.length")
        want_n = len(json.loads(cli_report(cli, files, "json")[1])["findings"])
        ok(cards == nfind == want_n, f"{label}: {cards} finding cards, one per finding of the report",
           f"{cards} cards, {nfind} findings in the page, {want_n} in the CLI's report")
        bars = b.evaluate("document.querySelectorAll('#charts .step-bar').length")
        ok(bars > 0, f"{label}: the per-step chart has {bars} bars")
        progress = b.evaluate("Array.from(document.querySelectorAll('#files progress')).every(p => p.value === p.max)")
        ok(progress, f"{label}: every file's progress bar is full")
        ok(b.evaluate("document.getElementById('report').srcdoc.length") == len(report),
           f"{label}: the report is shown in the page")
        if interim:
            k = b.evaluate("window.fsdpaViewer.interim")
            msgs = b.evaluate("window.fsdpaViewer.messages.indexOf('interim') < window.fsdpaViewer.messages.lastIndexOf('progress')")
            ok(k >= 4 and msgs, f"{label}: findings and charts shown {k} times while streaming (at least at each "
               f"quarter of the file and at its end)")
    b.pump(0.5)
    bad = [c for c in b.console if c[1] in ("error", "assert", "exception", "log-error")]
    ok(not bad, f"{label}: no console error, uncaught exception or blocked request",
       "\n".join(f"{w}: {lvl}: {t}" for w, lvl, t in bad))
    warn = [c for c in b.console if c not in bad]
    if warn:
        say(f"{label}: console warnings: " + "; ".join(t for _w, _l, t in warn)[:500])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--page", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--source", default=".")
    ap.add_argument("--chromium")
    a = ap.parse_args()
    a.cli = os.path.abspath(a.cli)
    chromium = cdp.find_chromium(a.chromium)
    if not chromium:
        print("1..0 # SKIP no Chromium (apt-get install chromium)")
        return 77
    page = os.path.abspath(a.page)
    static_checks(page)
    src = os.path.abspath(a.source)
    sample = os.path.join(src, "tests/data/sample/fsdp2_sample.json.gz")
    corpus = os.environ.get("FSDPA_TRACE_CORPUS") or os.path.join(src, "..", "shared", "traces")

    tmp = tempfile.mkdtemp(prefix="fsdpa-page-")
    notrace = os.path.join(tmp, "notes.json")
    with open(notrace, "w") as f:
        f.write('{"schema": "not a trace", "nodes": [1, 2, 3]}')
    rc, _o, err = cli_report(a.cli, [notrace], "json")
    cli_msg = err.strip().split(": ", 1)[1] if rc == 3 else "?"

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(
        QuietHandler, directory=os.path.dirname(page)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    urls = [("file://", "file://" + page),
            ("http://127.0.0.1", f"http://127.0.0.1:{server.server_address[1]}/{os.path.basename(page)}")]
    b = cdp.Browser(chromium)
    try:
        say(f"{chromium}: {b.call('Browser.getVersion')['product']}")
        for where, url in urls:
            run_case(b, url, [sample], a.cli, f"{where}: sample")
        run_case(b, urls[0][1], [notrace], a.cli, "file://: not a trace", expect_error=cli_msg.split(": byte")[0])
        ranks = [os.path.join(corpus, "hta/trace_filter", f"sampled_rank-{r}.json.gz") for r in (0, 1)]
        if all(os.path.exists(r) for r in ranks):
            run_case(b, urls[0][1], ranks, a.cli, "file://: two ranks")
            big = max((os.path.join(d, f) for d, _s, fs in os.walk(corpus) for f in fs
                       if f.endswith((".json", ".json.gz"))), key=json_size)
            # ?interims=3: updates at each quarter of the file besides the time-gated ones, so
            # the count does not depend on how fast (how loaded) the machine is.
            run_case(b, urls[1][1] + "?interims=3", [big], a.cli,
                     f"http: the corpus' largest trace ({json_size(big) >> 20} MiB of JSON)", interim=True)
        else:
            say(f"SKIP the corpus cases: no trace corpus at {corpus}")
    finally:
        b.close()
        server.shutdown()
    print(f"1..{n}")
    print(f"{n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
