"""browse.py - drive a real headless Chromium from the test suite.

The report tests (testsuite/cases/report/) open astra-cc's pages in
Debian's chromium and look at them the way a person's browser would: the
console, the DOM after layout, the links, a screenshot.  Chromium is
driven through its DevTools protocol over a pair of pipes
(--remote-debugging-pipe: JSON messages ended by NUL bytes on file
descriptors 3 and 4), so nothing listens on a port and nothing beyond
the Python standard library is needed.

    with Browser() as b:
        page = b.open("file:///tmp/r/index.html")
        page.errors       # console errors, exceptions, failed loads, CSP reports
        page.eval("document.title")
        page.screenshot("/tmp/index.png")

Browser() raises Unavailable when no chromium can be started; the caller
turns that into a skip.
"""

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


class Unavailable(Exception):
    pass


class ProtocolError(Exception):
    pass


def find_chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class Browser:
    def __init__(self, width=1280, height=900, timeout=60):
        exe = find_chromium()
        if not exe:
            raise Unavailable("no chromium on PATH (Debian: apt-get install chromium)")
        self.timeout = timeout
        self.width, self.height = width, height
        self.profile = tempfile.mkdtemp(prefix="astra-chromium-")
        to_child_r, self._to_child_w = os.pipe()
        self._from_child_r, from_child_w = os.pipe()

        def wire():
            # Out of the way first: the pipes may already sit on 3 or 4.
            r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--user-data-dir=" + self.profile, "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--mute-audio", "--hide-scrollbars",
                "--window-size=%d,%d" % (width, height), "about:blank"]
        self._log = open(os.path.join(self.profile, "chromium.log"), "w")
        try:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
                                         pass_fds=(3, 4, to_child_r, from_child_w), preexec_fn=wire)
        except OSError as e:
            raise Unavailable("cannot start %s: %s" % (exe, e))
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._next_id = 0
        self._events = []
        try:
            self.version = self.call("Browser.getVersion")["product"]
        except (ProtocolError, OSError) as e:
            with open(os.path.join(self.profile, "chromium.log")) as f:
                log = f.read()[-1500:]
            self.close()
            raise Unavailable("chromium did not answer on its DevTools pipe: %s\n%s" % (e, log))

    # -- the protocol

    def _send(self, method, params=None, session=None):
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_child_w, json.dumps(msg).encode() + b"\0")
        return self._next_id

    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.time()
            if left <= 0:
                raise ProtocolError("timed out waiting for chromium")
            r, _, _ = select.select([self._from_child_r], [], [], left)
            if not r:
                continue
            chunk = os.read(self._from_child_r, 1 << 16)
            if not chunk:
                raise ProtocolError("chromium closed its DevTools pipe (exit status %s)" % self.proc.poll())
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, session=None):
        want = self._send(method, params, session)
        deadline = time.time() + self.timeout
        while True:
            msg = self._read_message(deadline)
            if msg.get("id") == want:
                if "error" in msg:
                    raise ProtocolError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self._events.append(msg)

    def wait_event(self, method, session, deadline):
        while True:
            for i, ev in enumerate(self._events):
                if ev["method"] == method and ev.get("sessionId") == session:
                    return self._events.pop(i)
            self._events.append(self._read_message(deadline))

    def take_events(self, session):
        mine = [e for e in self._events if e.get("sessionId") == session]
        self._events = [e for e in self._events if e.get("sessionId") != session]
        return mine

    # -- pages

    def open(self, url):
        return Page(self, url)

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self._send("Browser.close")
                    self.proc.wait(timeout=10)
                except Exception:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            for fd in (self._to_child_w, self._from_child_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._log.close()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    """One tab, loaded with url; what the console said while it loaded."""

    def __init__(self, browser, url):
        self.b = browser
        self.url = url
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.target = target
        self.s = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            browser.call(domain + ".enable", session=self.s)
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": browser.width, "height": browser.height, "deviceScaleFactor": 1, "mobile": False},
                     session=self.s)
        browser.take_events(self.s)
        nav = browser.call("Page.navigate", {"url": url}, session=self.s)
        if nav.get("errorText"):
            raise ProtocolError("cannot load %s: %s" % (url, nav["errorText"]))
        browser.wait_event("Page.loadEventFired", self.s, time.time() + browser.timeout)
        # Late console messages (layout, CSP reports) come within moments.
        self.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", wait=True)
        time.sleep(0.2)
        self.errors = []
        self.messages = []
        for ev in browser.take_events(self.s):
            m, p = ev["method"], ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                self.errors.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:500])
            elif m == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
                self.messages.append("console.%s: %s" % (p.get("type"), text))
                if p.get("type") in ("error", "assert"):
                    self.errors.append("console.%s: %s" % (p.get("type"), text))
            elif m == "Log.entryAdded":
                e = p.get("entry", {})
                self.messages.append("log %s (%s): %s" % (e.get("level"), e.get("source"), e.get("text")))
                if e.get("level") == "error":
                    self.errors.append("log error (%s): %s %s" % (e.get("source"), e.get("text"), e.get("url", "")))

    def eval(self, expression, wait=False):
        r = self.b.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                             "awaitPromise": wait}, session=self.s)
        if "exceptionDetails" in r:
            raise ProtocolError("evaluating %s: %s" % (expression[:80], r["exceptionDetails"]))
        return r.get("result", {}).get("value")

    def screenshot(self, path, full_page=False):
        params = {"format": "png"}
        if full_page:
            w, h = self.eval("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": 0, "y": 0, "width": w, "height": min(h, 16000), "scale": 1}
        data = self.b.call("Page.captureScreenshot", params, session=self.s)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return os.path.getsize(path)

    def close(self):
        self.b.call("Target.closeTarget", {"targetId": self.target})
