#!/usr/bin/env python3
"""make webtest: the page of `make web` in headless Chromium, against build/demo_order.

It serves build/web/ on 127.0.0.1 (a port the system picks), opens the page
in Debian's Chromium, types sentences, clicks Shuffle and Reverse, selects
every scheme, reads the table from the DOM and holds its figures against
`demo_order --csv` for the same options (to 1e-5); it gives the page bad
input (an empty box, a second sentence that is not a reordering, heads that
do not divide d_model) and expects demo_order's own message, then good input
again; it moves the mouse over the pictures and reads the values; it moves
the sliders of section 4 and holds its numbers to `pe_report --shift`; it
saves a screenshot of each section; and it times one demo in the browser.
webtest_train.py does section 5, training.

The driver is Chromium's DevTools protocol over --remote-debugging-pipe,
from Python's standard library. Why not puppeteer-core: it is an npm
package with a dependency tree to install and pin, whose protocol version
must keep up with Debian's Chromium; the pipe needs nothing but Chromium and
python3, opens no debugging port (the DevTools messages travel over two
file descriptors, not a socket), and the dozen protocol methods used here
have been stable for years.

Prints one line per check and closes with "N passed, N failed"; exits 1 if
any failed.
"""

import argparse
import base64
import fcntl
import functools
import http.server
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import webtest_train

TOL = 1e-5  # the bound for page against program
BLIND_TOL = 1e-4  # ORDER_BLIND_TOL of src/text/order.h


class Chromium:
    """Headless Chromium driven over the DevTools pipe (fd 3 in, fd 4 out)."""

    def __init__(self, binary, width=1280, height=1000):
        self.profile = tempfile.mkdtemp(prefix="posenc-webtest-")
        to_r, to_w = os.pipe()      # we write commands, Chromium reads fd 3
        from_r, from_w = os.pipe()  # Chromium writes fd 4, we read replies
        # Chromium's ends move above fd 4 first: were one of them 3 or 4
        # itself, the redirections below would close it again, and
        # Chromium would exit with "pipe file descriptors are not open".
        to_r, from_w = (self._above_4(to_r), self._above_4(from_w))
        flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--mute-audio",
            "--hide-scrollbars", f"--user-data-dir={self.profile}",
            f"--window-size={width},{height}", "--remote-debugging-pipe", "about:blank",
        ]
        # The shell puts the pipe's ends on fds 3 and 4, where Chromium
        # looks for them, without a preexec_fn (unsafe beside the server's
        # thread).
        script = f'exec "$0" "$@" 3<&{to_r} 4>&{from_w} {to_r}<&- {from_w}>&-'
        self.proc = subprocess.Popen(["sh", "-c", script, binary] + flags,
                                     pass_fds=(to_r, from_w), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(to_r)
        os.close(from_w)
        self.out = os.fdopen(to_w, "wb", buffering=0)
        self.inp = os.fdopen(from_r, "rb", buffering=0)
        self.next_id = 0
        self.replies = {}
        self.events = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.stderr = []
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self.session = None

    @staticmethod
    def _above_4(fd):
        high = fcntl.fcntl(fd, fcntl.F_DUPFD, 5)
        os.close(fd)
        if high > 9:  # sh redirects single-digit descriptors only
            raise RuntimeError("no free file descriptor in 5..9 for Chromium's pipe")
        return high

    def _drain_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode(errors="replace"))

    def _read(self):
        buf = b""
        while True:
            chunk = self.inp.read(1 << 16)
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                m = json.loads(msg)
                with self.cond:
                    if "id" in m:
                        self.replies[m["id"]] = m
                    else:
                        self.events.append(m)
                    self.cond.notify_all()
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def send(self, method, params=None, session=True, timeout=60):
        """session: True for the page's, False for the browser's, or the id of another
        target's session (window())."""
        self.next_id += 1
        mid = self.next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if isinstance(session, str):
            msg["sessionId"] = session
        elif session and self.session:
            msg["sessionId"] = self.session
        self.out.write(json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self.cond:
            while mid not in self.replies:
                left = deadline - time.monotonic()
                if left <= 0 or getattr(self, "closed", False):
                    raise RuntimeError(f"no reply to {method} from Chromium")
                self.cond.wait(left)
            reply = self.replies.pop(mid)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def open(self, url):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.navigate", {"url": url})

    def window(self, url="about:blank"):
        """Opens url in a window of its own, beside the page (a tab of the page's window
        would hide the page, and a hidden page draws no frames): the id of its session,
        for send and js."""
        target = self.send("Target.createTarget", {"url": url, "newWindow": True},
                           session=False)
        return self.send("Target.attachToTarget", {"targetId": target["targetId"],
                                                   "flatten": True},
                         session=False)["sessionId"], target["targetId"]

    def js(self, expr, await_promise=False, session=True):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": await_promise}, session=session)
        if "exceptionDetails" in r:
            raise RuntimeError(f"page script failed: {r['exceptionDetails']}")
        return r["result"].get("value")

    def page_errors(self):
        """Uncaught exceptions and console errors the page reported so far."""
        out = []
        with self.cond:
            for ev in self.events:
                if ev.get("method") == "Runtime.exceptionThrown":
                    d = ev["params"]["exceptionDetails"]
                    out.append(d.get("exception", {}).get("description") or d.get("text"))
                elif (ev.get("method") == "Runtime.consoleAPICalled"
                      and ev["params"]["type"] == "error"):
                    out.append(" ".join(str(a.get("value", a.get("description")))
                                        for a in ev["params"]["args"]))
        return out

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # our own child, by its handle
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    """What a person does on the page: types, clicks, picks, points, reads."""

    def __init__(self, browser):
        self.b = browser

    def wait_ready(self, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.b.js("document.body && document.body.dataset.ready") == "1":
                return
            errs = self.b.page_errors()
            if errs:
                raise RuntimeError("the page failed to start: " + "; ".join(errs))
            time.sleep(0.1)
        raise RuntimeError("the page did not finish loading in %d s" % timeout)

    def center(self, sel):
        r = self.b.js(f"""(() => {{ const e = document.querySelector({json.dumps(sel)});
            e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")
        return r

    def click(self, sel):
        x, y = self.center(sel)
        for kind in ("mousePressed", "mouseReleased"):
            self.b.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y,
                                                     "button": "left", "clickCount": 1})

    def hover(self, sel, fx=0.5, fy=0.5):
        """Moves the mouse to the fraction (fx, fy) of the element's box."""
        x, y = self.b.js(f"""(() => {{ const e = document.querySelector({json.dumps(sel)});
            e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect();
            return [r.left + {fx} * r.width, r.top + {fy} * r.height]; }})()""")
        self.b.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})

    def type(self, sel, text):
        """Replaces the box's text as typing would: select all, then type or delete."""
        self.b.js(f"""(() => {{ const e = document.querySelector({json.dumps(sel)});
            e.focus(); e.select(); }})()""")
        if text:
            self.b.send("Input.insertText", {"text": text})
        else:
            for kind in ("keyDown", "keyUp"):
                self.b.send("Input.dispatchKeyEvent", {"type": kind, "key": "Backspace",
                                                       "code": "Backspace",
                                                       "windowsVirtualKeyCode": 8})

    def select(self, sel, value):
        self.b.js(f"""(() => {{ const e = document.querySelector({json.dumps(sel)});
            e.value = {json.dumps(value)}; e.dispatchEvent(new Event('change')); }})()""")

    def slide(self, sel, value):
        """Puts a slider at value, as dragging it there would (an input event)."""
        self.b.js(f"""(() => {{ const e = document.querySelector({json.dumps(sel)});
            e.value = {json.dumps(str(value))}; e.dispatchEvent(new Event('input')); }})()""")

    def press(self, sel, key, times=1):
        """Focuses the element and presses a key (e.g. ArrowRight) on it."""
        codes = {"ArrowRight": 39, "ArrowLeft": 37, "ArrowUp": 38, "ArrowDown": 40}
        self.b.js(f"document.querySelector({json.dumps(sel)}).focus()")
        for _ in range(times):
            for kind in ("rawKeyDown", "keyUp"):
                self.b.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": key,
                                                       "windowsVirtualKeyCode": codes[key]})

    def text(self, sel):
        return self.b.js(f"document.querySelector({json.dumps(sel)}).textContent")

    def value(self, sel):
        return self.b.js(f"document.querySelector({json.dumps(sel)}).value")

    def visible(self, sel):
        return self.b.js(f"document.querySelector({json.dumps(sel)}).offsetParent !== null")

    def table(self):
        return self.b.js("""[...document.querySelectorAll('#order-table tbody tr')].map(tr => ({
            scheme: tr.dataset.scheme, max_diff: Number(tr.dataset.maxDiff),
            cos: Number(tr.dataset.cosine), verdict: tr.cells[3].textContent,
            shown: [tr.cells[1].textContent, tr.cells[2].textContent]}))""")

    def screenshot(self, sel, path):
        """A PNG of the element, however far down the page it is."""
        box = self.b.js(f"""(() => {{ const e = document.querySelector({json.dumps(sel)});
            const r = e.getBoundingClientRect();
            return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }})()""")
        shot = self.b.send("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": box[0], "y": box[1], "width": box[2], "height": box[3], "scale": 1}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"ok - {what}")
        else:
            self.failed += 1
            print(f"not ok - {what}" + (f": {detail}" if detail else ""))
        sys.stdout.flush()
        return ok


def native(demo, args):
    """demo_order --csv args: {scheme: (max_diff, cos)}, or its message."""
    r = subprocess.run([demo, "--csv"] + args, capture_output=True, text=True)
    if r.returncode != 0:
        # "demo_order: MESSAGE\nTry 'demo_order --help'.\n" -> MESSAGE
        first = r.stderr.splitlines()[0]
        return None, first.split(": ", 1)[1]
    rows = {}
    for line in r.stdout.strip().splitlines()[1:]:
        name, d, c = line.split(",")
        rows[name] = (float(d), float(c))
    return rows, None


def compare(ck, page, want, label):
    """The page's table against demo_order's CSV, scheme by scheme."""
    got = {r["scheme"]: r for r in page}
    ck.check(list(got) == list(want), f"{label}: the page lists demo_order's schemes",
             f"page {list(got)}, demo_order {list(want)}")
    worst = 0.0
    for name, (d, c) in want.items():
        r = got.get(name)
        if not r:
            continue
        err = max(abs(r["max_diff"] - d), abs(r["cos"] - c))
        worst = max(worst, err)
        ck.check(err <= TOL, f"{label}: {name} max_abs_diff {r['max_diff']:.6e} "
                 f"cosine {r['cos']:.9f} (demo_order {d:.6e} {c:.9f})", f"differs by {err:.2e}")
        want_verdict = "order-blind" if d <= BLIND_TOL else "order-sensitive"
        ck.check(r["verdict"] == want_verdict, f"{label}: {name} is {want_verdict}",
                 f"page says {r['verdict']}")
    if "none" in got:
        ck.check(got["none"]["max_diff"] <= BLIND_TOL and got["none"]["verdict"] == "order-blind",
                 f"{label}: none is order-blind on the page")
    return worst


def sinusoid(pos, c, d, base=10000.0):
    i = c // 2
    a = pos / base ** (2 * i / d)
    return math.cos(a) if c % 2 else math.sin(a)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--page", default="build/web")
    ap.add_argument("--demo", default="build/demo_order")
    ap.add_argument("--bin", default="build", help="where build/train and build/evaluate are")
    ap.add_argument("--shots", default="build/web/shots")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--reps", type=int, default=200, help="demos timed in the browser")
    a = ap.parse_args()
    os.makedirs(a.shots, exist_ok=True)

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=a.page)
    # a module script needs a JavaScript type; wasm streams only as application/wasm
    handler.func.extensions_map = {**handler.func.extensions_map, ".js": "text/javascript",
                                   ".wasm": "application/wasm"}
    handler.func.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"

    ck = Checks()
    b = Chromium(a.chromium)
    try:
        run(ck, b, Page(b), url, a)
        webtest_train.run(ck, b, Page(b), a, dict(os.environ))
    except Exception as ex:  # a broken page must fail the run, with the reason
        ck.check(False, "the browser session ran to the end", repr(ex))
        if b.stderr:
            print("chromium said:\n" + "".join(b.stderr[-20:]), file=sys.stderr)
    finally:
        errs = b.page_errors()
        ck.check(not errs, "the page reported no script errors", "; ".join(errs))
        b.close()
        server.shutdown()
    print(f"{ck.passed} passed, {ck.failed} failed")
    return 1 if ck.failed else 0


def run(ck, b, p, url, a):
    t0 = time.monotonic()
    b.open(url)
    p.wait_ready()
    print(f"# page ready in {time.monotonic() - t0:.2f} s from {url}")

    schemes = b.js("window.posenc.schemes")
    code_options = b.js("[...document.querySelectorAll('#code-scheme option')].map(o => o.value)")
    ck.check(code_options == schemes and len(schemes) > 0,
             f"the code's selector lists the library's {len(schemes)} schemes: {', '.join(schemes)}")

    def order_options():
        return b.js("[...document.querySelectorAll('#scheme option')].map(o => o.value)")

    # 1. The defaults are demo_order's: its schemes (the seven the tutorial
    # opens with), in its order, with its figures.
    want, _ = native(a.demo, [])
    worst = compare(ck, p.table(), want, "defaults")
    print(f"# largest difference between the page's default table and demo_order's: {worst:.1e}")
    ck.check(order_options() == list(want),
             f"the demo's selector lists demo_order's {len(want)} schemes: {', '.join(want)}",
             f"{order_options()}")
    csv_page = p.text("#order-csv").splitlines()
    ck.check(csv_page[0] == "scheme,max_abs_diff,pooled_cosine" and len(csv_page) == len(want) + 1,
             "the page prints demo_order's CSV header and one line per scheme")

    # Every scheme (the box ticked): demo_order --pe all, and its command.
    p.click("#all-schemes")
    want_all, _ = native(a.demo, ["--pe", "all"])
    compare(ck, p.table(), want_all, "all schemes (--pe all)")
    ck.check(order_options() == schemes == list(want_all),
             f"ticked, the demo's selector lists all {len(schemes)} schemes", f"{order_options()}")
    ck.check(p.text("#order-command").startswith("$ build/demo_order --csv --pe all "),
             "ticked, the page's command says --pe all", p.text("#order-command"))

    # Each scheme, selected: its heading, its rows and its line agree with the table.
    for name in schemes:
        p.select("#scheme", name)
        head, line = p.text("#order-heading"), p.text("#order-line")
        rows = b.js("document.querySelectorAll('#order-rows tr.word').length")
        row = next(r for r in p.table() if r["scheme"] == name)
        ck.check(head.startswith(f"== {name} (") and rows == 4 and row["shown"][0] in line
                 and line.endswith(row["verdict"]),
                 f"selecting {name} shows its rows and '{line}'", f"heading '{head}', {rows} rows")
    p.select("#scheme", "none")
    p.screenshot("#order", os.path.join(a.shots, "order-none.png"))
    p.select("#scheme", next(n for n in schemes if n not in want))
    p.click("#all-schemes")  # back to the seven: a scheme of the rest gives way to the sinusoid
    compare(ck, p.table(), want, "the seven again, the box unticked")
    ck.check(order_options() == list(want) and p.value("#scheme") == "sinusoidal"
             and p.text("#order-heading").startswith("== sinusoidal ("),
             "unticked, the selector lists the seven again and shows the sinusoid",
             f"{order_options()}, selected {p.value('#scheme')}")
    ck.check(not p.text("#order-command").startswith("$ build/demo_order --csv --pe"),
             "unticked, the page's command is demo_order's default", p.text("#order-command"))
    p.screenshot("#order", os.path.join(a.shots, "order.png"))

    # 2. A sentence of its own and its reverse, typed.
    s = "the cat sat on the mat"
    p.type("#s1", s)
    p.type("#s2", " ".join(reversed(s.split())))
    want, _ = native(a.demo, [s])
    compare(ck, p.table(), want, "typed sentence and its reverse")

    # 3. The model options, typed, and the Reverse button.
    p.type("#s1", "Rohan killed the lion")
    p.click("#reverse")
    ck.check(p.value("#s2") == "lion the killed Rohan", "Reverse writes the first sentence backwards",
             p.value("#s2"))
    for sel, v in (("#d-model", "32"), ("#heads", "4"), ("#layers", "3"), ("#d-ff", "48"),
                   ("#seed", "7")):
        p.type(sel, v)
    p.select("#norm", "pre")
    want, _ = native(a.demo, ["--d-model", "32", "--heads", "4", "--layers", "3", "--d-ff", "48",
                              "--norm", "pre", "--seed", "7", "Rohan killed the lion",
                              "lion the killed Rohan"])
    compare(ck, p.table(), want, "d_model 32, 4 heads, 3 layers, d_ff 48, pre-norm, seed 7")
    for sel, v in (("#d-model", "16"), ("#heads", "2"), ("#layers", "2"), ("#d-ff", "64"),
                   ("#seed", "42")):
        p.type(sel, v)
    p.select("#norm", "post")

    # Shuffle: some reordering of the same words, and none still order-blind.
    p.click("#shuffle")
    s2 = p.value("#s2")
    ck.check(sorted(s2.split()) == sorted("Rohan killed the lion".split())
             and s2 != "Rohan killed the lion", f"Shuffle writes a reordering: '{s2}'")
    want, _ = native(a.demo, ["Rohan killed the lion", s2])
    compare(ck, p.table(), want, f"shuffled '{s2}'")

    # 4. Bad input: demo_order's message, then the page works again.
    bad = [
        ("an empty first box", [("#s1", "")], ["", "lion killed the Rohan"]),
        ("a second sentence that is not a reordering", [("#s2", "lion killed the tiger")],
         ["Rohan killed the lion", "lion killed the tiger"]),
        ("3 heads for d_model 16", [("#heads", "3")], ["--heads", "3"]),
    ]
    for what, edits, cli_args in bad:
        p.type("#s1", "Rohan killed the lion")
        p.type("#s2", "lion killed the Rohan")
        p.type("#heads", "2")
        for sel, v in edits:
            p.type(sel, v)
        _, msg = native(a.demo, cli_args)
        shown = p.text("#order-error")
        ck.check(msg is not None and shown == msg and p.visible("#order-error")
                 and not p.visible("#order-results"),
                 f"{what}: the page says demo_order's message '{msg}'", f"page says '{shown}'")
        if what.startswith("3 heads"):
            p.screenshot("#order", os.path.join(a.shots, "order-error.png"))
    p.type("#heads", "2")
    p.type("#s2", "lion killed the Rohan")
    want, _ = native(a.demo, [])
    ck.check(p.text("#order-error") == "" and p.visible("#order-results"),
             "after bad input, good input brings the results back")
    compare(ck, p.table(), want, "defaults again")

    # 5. The code itself: every scheme draws its similarity matrix.
    for name in schemes:
        p.select("#code-scheme", name)
        err = p.text("#code-error")
        title = b.js("document.querySelector('#code-dots').getContext('2d') && "
                     "document.querySelector('#code-results').offsetParent !== null")
        ck.check(not err and title, f"the code of {name} is drawn", err)
    p.select("#code-scheme", "sinusoidal")
    p.hover("#code-heatmap", 0.3, 0.4)
    read = p.text("#code-readout")
    ok = read.startswith("position ") and ": P = " in read
    if ok:  # "position 37, channel 23 (cos, i = 11): P = 0.123456"
        pos = int(read.split(",")[0].split()[1])
        ch = int(read.split(",")[1].split()[1])
        val = float(read.rsplit("P = ", 1)[1])
        exact = sinusoid(pos, ch, 128)
        ok = abs(val - exact) <= 1e-6
    ck.check(ok, f"the heatmap reads the sinusoid under the mouse: '{read}'")
    p.hover("#code-dots", 0.5, 0.5)
    read = p.text("#code-readout")
    ck.check(read.startswith("X_") and " = " in read, f"the dot products read under the mouse: '{read}'")
    for name in (n for n in schemes if b.js(f"window.posenc.inAttention({json.dumps(n)})")):
        p.select("#code-scheme", name)
        p.hover("#code-dots", 0.5, 0.5)
        read = p.text("#code-readout")
        ck.check(read.startswith("S(") and " = " in read,
                 f"{name}, inside attention: its logit reads under the mouse: '{read}'")
        p.screenshot("#code", os.path.join(a.shots, f"code-{name}.png"))
    p.select("#code-scheme", "sinusoidal")
    p.hover("#code-heatmap", 0.3, 0.4)
    p.screenshot("#code", os.path.join(a.shots, "code.png"))
    p.type("#code-d-model", "0")
    ck.check(p.text("#code-error").startswith("--d-model wants a whole number"),
             f"a bad d_model in the pictures says so: '{p.text('#code-error')}'")
    p.type("#code-d-model", "128")

    # 6. The rotation.
    line = p.text("#rot-line")
    err = float(b.js("document.querySelector('#rot-line').dataset.maxError"))
    ck.check(err <= 1e-6, f"rotation, t 5, k 3, d 16: {line}")
    p.type("#rot-t", "250")
    p.type("#rot-k", "40")
    p.type("#rot-d", "64")
    line = p.text("#rot-line")
    err = float(b.js("document.querySelector('#rot-line').dataset.maxError"))
    ck.check(err <= 1e-6, f"rotation, t 250, k 40, d 64: {line}")
    p.type("#rot-d", "15")
    ck.check("even" in p.text("#rot-error"), f"an odd d_model: '{p.text('#rot-error')}'")
    p.type("#rot-d", "16")
    p.hover("#rot-bars", 0.5, 0.3)
    read = p.text("#rot-readout")
    ck.check(read.startswith("channel ") and "M_k PE(t) = " in read,
             f"the bars read under the mouse: '{read}'")
    p.screenshot("#rotation", os.path.join(a.shots, "rotation.png"))

    # 7. RoPE against the added sinusoid: the sliders, against pe_report --shift.
    check_shift(ck, b, p, a)

    # 8. Size and time, for bench/README.md.
    p.type("#rot-t", "5")
    p.type("#rot-k", "3")
    wasm = os.path.getsize(os.path.join(a.page, "posenc.wasm"))
    js = os.path.getsize(os.path.join(a.page, "posenc.js"))
    first = b.js("window.posenc.firstDemoMs")
    t = b.js(f"window.posenc.timeDemo({a.reps})")
    print(f"# posenc.wasm {wasm} bytes ({wasm / 1024:.1f} KiB), posenc.js {js} bytes")
    print(f"# one demo ({len(b.js('window.posenc.demoDefaults'))} schemes, default sentences and "
          f"model) in the browser: "
          f"mean {t['mean']:.2f} ms, median {t['median']:.2f} ms, min {t['min']:.2f}, max {t['max']:.2f} over {t['reps']}; "
          f"the first, at load, {first:.1f} ms")


SHIFT_TOL = 2e-6  # pe_report prints 6 decimals; the page's float sums may round apart in the last


def pe_report_shift(bin_dir, command):
    """Runs the page's pe_report command: {scheme: {pair: row}} and the decay line's figures.
    A row is {'q': [[x, y] before, after], 'k': ..., 'score': [before, after]}; pair 'all' is
    the whole head's."""
    args = command.lstrip("$ ").split()
    r = subprocess.run([os.path.join(bin_dir, os.path.basename(args[0]))] + args[1:],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{command}: {r.stderr}")
    rows, decay = {}, None
    vec = lambda cell: [float(x) for x in cell.split(",")] if cell else None
    for line in r.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 8 and cells[0] != "scheme":
            pair = cells[1].split()[0]
            rows.setdefault(cells[0], {})[pair] = {
                "q": [vec(cells[2]), vec(cells[5])], "k": [vec(cells[3]), vec(cells[6])],
                "score": [float(cells[4]), float(cells[7])]}
        elif line.startswith("rope's long-term decay bound"):
            decay = {"offset": int(line.split("at the offset ")[1].split(",")[0]),
                     "bound": float(line.split(": ")[1].split()[0])}
    return rows, decay


def check_shift(ck, b, p, a):
    """Section 4: each setting of the sliders against pe_report --shift with the same numbers."""
    settings = [
        ("the defaults", {}),
        ("base 100, head 32, m 40, n 7, shift 25, pair 3",
         {"#sh-base": "2", "#sh-head": "32", "#sh-m": "40", "#sh-n": "7", "#sh-s": "25",
          "#sh-pair": "3"}),
        ("base 31600, head 64, the key after the query, pair 20",
         {"#sh-base": "4.5", "#sh-head": "64", "#sh-m": "3", "#sh-n": "90", "#sh-s": "100",
          "#sh-pair": "20"}),
    ]
    schemes = b.js("[...document.querySelectorAll('.sh-panel')].map(e => e.dataset.scheme)")
    for label, moves in settings + [("shift s moved by 5 with the arrow key", None)]:
        if moves is None:
            before = int(p.value("#sh-s"))
            p.press("#sh-s", "ArrowRight", 5)
            ck.check(int(p.value("#sh-s")) == before + 5, f"the shift slider moves with the "
                     f"keyboard: {before} -> {p.value('#sh-s')}")
        for sel, v in (moves or {}).items():
            p.slide(sel, v)
        command = p.text("#sh-command")
        want, decay = pe_report_shift(a.bin, command)
        ck.check(p.text("#sh-error") == "" and schemes == list(want),
                 f"section 4, {label}: the page shows {', '.join(schemes)}, pe_report's schemes",
                 f"page {schemes}, pe_report {list(want)}: {p.text('#sh-error')}")
        pair = p.value("#sh-pair")
        for name in schemes:
            r = json.loads(b.js(f"document.querySelector('.sh-panel[data-scheme=\"{name}\"]')"
                                ".dataset.values"))
            whole, part = want[name]["all"], want[name][pair]
            got = r["score"] + r["part"] + sum(r["q"] + r["k"], [])
            exp = whole["score"] + part["score"] + sum(part["q"] + part["k"], [])
            worst = max(abs(x - y) for x, y in zip(got, exp))
            change = abs(r["score"][1] - r["score"][0])
            same = change <= 1e-5
            # a rotation inside attention keeps q.k; a code added to the input does not
            keeps = b.js(f"window.posenc.inAttention({json.dumps(name)})")
            ck.check(worst <= SHIFT_TOL and same == keeps,
                f"section 4, {label}: {name}'s q.k {r['score'][0]:.6f} -> {r['score'][1]:.6f} "
                f"({'unchanged' if same else 'changed'}), pair {pair}'s vectors and part, within "
                f"{worst:.1e} of `{command.lstrip('$ ')}`")
        got = json.loads(b.js("document.querySelector('#sh-decay').dataset.values"))
        ck.check(decay and got["offset"] == decay["offset"]
                 and abs(got["bound"] - decay["bound"]) <= SHIFT_TOL,
                 f"section 4, {label}: RoPE's decay bound at offset {got['offset']} is "
                 f"{got['bound']:.6f}, pe_report's {decay and decay['bound']}")
    p.screenshot("#shift", os.path.join(a.shots, "shift.png"))


if __name__ == "__main__":
    sys.exit(main())
