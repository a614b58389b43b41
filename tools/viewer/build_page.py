#!/usr/bin/env python3
"""Make the viewer's one self-contained page.

    build_page.py viewer.html fsdpa-worker.js worker.js OUT.html

Inlines the worker's code (the wasm module as one classic script with the
wasm in it, then the viewer's worker.js) into the page's
<script type="text/plain" id="fsdpa-worker-src">, which the page turns into a
Blob URL for its Web Worker: no file beside the page is needed, so it works
from file:// (where Chromium gives module scripts and workers from URLs no
origin) as from any static server.
"""
import re
import sys

MARK = "/*@FSDPA_WORKER@*/"


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    page, module, worker, out = sys.argv[1:]
    html = open(page, encoding="utf-8").read()
    if html.count(MARK) != 1:
        raise SystemExit(f"build_page: {page} must hold {MARK} once")
    code = open(module, encoding="utf-8").read() + "\n" + open(worker, encoding="utf-8").read()
    # the script element ends at the first "</script" whatever its type; in
    # JavaScript "<\/" means "</" inside strings, regular expressions and
    # comments, the only places the code has it
    code = re.sub(r"</(script)", r"<\\/\1", code, flags=re.I)
    if "<!--" in code:
        code = code.replace("<!--", "<\\!--")
    with open(out, "w", encoding="utf-8") as f:
        f.write(html.replace(MARK, code))


if __name__ == "__main__":
    main()
