"""A small Chrome DevTools Protocol client over --remote-debugging-pipe
(stdlib only): headless Chromium with one page, its console and exceptions
and those of the workers it starts, Runtime.evaluate, drag-and-drop of files.

Used by tests/wasm/page_test.py and bench/wasm_bench.py.
"""
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--disable-extensions", "--mute-audio", "--window-size=1400,1000"]


def find_chromium(given=None):
    for c in [given, os.environ.get("FSDPA_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
              shutil.which("chromium-browser"), shutil.which("google-chrome")]:
        if c and os.path.exists(c):
            return c
    return None


class CDPError(Exception):
    pass


class Browser:
    """One headless Chromium; `page` is the session of its one tab."""

    def __init__(self, chromium, extra_flags=()):
        self.profile = tempfile.mkdtemp(prefix="fsdpa-cdp-")
        to_child_r, self._w = os.pipe()
        self._r, from_child_w = os.pipe()

        def fds():
            # Chromium talks on fds 3 and 4.  Copies above 10 first: dup2 onto
            # the same number would leave the pipe's close-on-exec flag set.
            a = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [chromium, *FLAGS, *extra_flags, "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=fds, close_fds=False)
        os.close(to_child_r)
        os.close(from_child_w)
        self.stderr = []
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self._buf = b""
        self._id = 0
        self.events = []        # (sessionId, method, params), in arrival order
        self.console = []       # (where, level, text) of errors and warnings
        self.sessions = {}      # sessionId -> "page" | "worker <url>"
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.page = self.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        self.sessions[self.page] = "page"
        for m in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.call(m, session=self.page)
        self.call("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True},
                  session=self.page)

    def _drain_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace").rstrip())

    def _send(self, msg):
        os.write(self._w, json.dumps(msg).encode() + b"\0")

    def _recv(self, timeout):
        import select
        end = time.time() + timeout
        while b"\0" not in self._buf:
            left = end - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([self._r], [], [], left)
            if r:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise CDPError("Chromium closed the DevTools pipe: " + " | ".join(self.stderr[-5:]))
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def _event(self, m):
        sid, method, p = m.get("sessionId"), m["method"], m.get("params", {})
        self.events.append((sid, method, p))
        where = self.sessions.get(sid, "browser")
        if method == "Target.attachedToTarget":
            ws = p["sessionId"]
            self.sessions[ws] = f"{p['targetInfo']['type']} {p['targetInfo'].get('url', '')[:60]}"
            for mm in ("Runtime.enable", "Log.enable"):
                self._send({"id": self._next(), "method": mm, "sessionId": ws})
            self._send({"id": self._next(), "method": "Runtime.runIfWaitingForDebugger", "sessionId": ws})
        elif method == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert", "warning"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            self.console.append((where, p["type"], text))
        elif method == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            text = d.get("exception", {}).get("description") or d.get("text", "")
            self.console.append((where, "exception", text))
        elif method == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
            e = p["entry"]
            self.console.append((where, "log-" + e["level"], f"{e.get('source')}: {e.get('text')} {e.get('url', '')}"))

    def _next(self):
        self._id += 1
        return self._id

    def call(self, method, params=None, session=None, timeout=60):
        mid = self._next()
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._send(msg)
        end = time.time() + timeout
        while True:
            m = self._recv(max(0.0, end - time.time()))
            if m is None:
                raise CDPError(f"{method}: no answer in {timeout} s")
            if "method" in m:
                self._event(m)
            elif m.get("id") == mid:
                if "error" in m:
                    raise CDPError(f"{method}: {m['error'].get('message')}")
                return m.get("result", {})

    def pump(self, seconds):
        """Receive events for `seconds`."""
        end = time.time() + seconds
        while time.time() < end:
            m = self._recv(end - time.time())
            if m and "method" in m:
                self._event(m)

    def evaluate(self, expr, timeout=60):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
                      session=self.page, timeout=timeout)
        if "exceptionDetails" in r:
            raise CDPError(f"evaluate {expr[:60]}: {r['exceptionDetails'].get('text')}")
        return r["result"].get("value")

    def navigate(self, url):
        self.call("Page.navigate", {"url": url}, session=self.page)

    def wait_for(self, expr, timeout=120, poll=0.2):
        """Poll `expr` until it is truthy; returns its value (None on timeout)."""
        end = time.time() + timeout
        while time.time() < end:
            try:
                v = self.evaluate(expr, timeout=max(1, end - time.time()))
            except CDPError:
                v = None
            if v:
                return v
            self.pump(poll)
        return None

    def drop_files(self, paths, x=200, y=150):
        """Drag files from outside the browser and drop them at (x, y)."""
        data = {"items": [], "files": [os.path.abspath(p) for p in paths], "dragOperationsMask": 1}
        for t in ("dragEnter", "dragOver", "drop"):
            self.call("Input.dispatchDragEvent", {"type": t, "x": x, "y": y, "data": data}, session=self.page)

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:  # noqa: BLE001 - it may be gone already
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._w)
        os.close(self._r)
        shutil.rmtree(self.profile, ignore_errors=True)
