#!/usr/bin/env python3
"""tests/serve_check.py -- --serve from the outside: a kit script (python3's
standard library only) that starts a program with --serve 0, reads the URL it
prints, and checks the server as a browser and as hostile clients would.

    python3 tests/serve_check.py CHECK PROGRAM [ARGS...]

CHECK is one of
  http      the token (no token, a wrong one: 403), paths (404, '..' too),
            methods (405), a huge header, a huge URL, garbage, a bad
            WebSocket request, another site's page: all refused, and the
            server still answers; 'q' over the WebSocket ends the program
            (exit 0) and the port is closed after it
  browser   Debian's chromium, headless, driven through the DevTools protocol
            on a pipe (--remote-debugging-pipe): the page loads, the picture
            appears and changes, pause stops the step counter, one step
            moves it by one, a drag and the wheel change the picture, the
            screenshot button downloads nbody_<program>_<step>.png, which
            must be the same bytes as the --render frame of that step
            (PROGRAM run again), and the stop button ends the program
  viewers   two viewers get frames at once; a third that never reads does
            not stop the run (the steps go on and the other viewer gets its
            frames; its own are skipped); with every viewer gone the run
            goes on; a new one sees a later step
  interrupt SIGINT mid-run: exit 0, the report says so, --save's file holds
            every body, the port is closed
  measure SECONDS   one viewer on localhost for SECONDS: frames/s it received,
            bytes a frame, steps/s (the GPU check's figure)
Prints one line per check ('ok: ...' or 'FAIL: ...'), exits 0 when all
pass, 1 when one fails, 77 when the check cannot run here (no chromium).
No check asserts a speed: each counts frames and steps, and every wait on
the program or the browser is a hang detector, far longer than what it
waits for takes on a loaded machine (speed is `make bench`'s).
"""
import base64, ctypes, hashlib, json, os, re, select, signal, socket, struct, subprocess, sys
import tempfile, threading, time

FAILED = []


def ok(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        FAILED.append(what)
    return cond


def die_with_parent():
    """Children die with this script (the runner kills only its own child)."""
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)      # PR_SET_PDEATHSIG
    except Exception:
        pass


class Program:
    """The program under test, with --serve 0: its URL, port and token."""

    def __init__(self, argv, cwd=None):
        self.p = subprocess.Popen(argv + ["--serve", "0"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=cwd, preexec_fn=die_with_parent)
        self.err = b""
        self.out = b""
        self.url = None
        t_end = time.time() + 120
        while time.time() < t_end and self.url is None:
            r, _, _ = select.select([self.p.stderr], [], [], 0.5)
            if r:
                chunk = os.read(self.p.stderr.fileno(), 65536)
                if not chunk:
                    break
                self.err += chunk
                m = re.search(rb"serving the view on (http://[^ \n]+)", self.err)
                if m:
                    self.url = m.group(1).decode()
            elif self.p.poll() is not None:
                break
        if self.url is None:
            self.kill()
            raise SystemExit("FAIL: the program printed no URL: " + self.err.decode(errors="replace")[-400:])
        m = re.match(r"http://([^/]+):(\d+)/\?token=([0-9a-f]{32})$", self.url)
        self.host = m.group(1).strip("[]")
        self.port = int(m.group(2))
        self.token = m.group(3)
        self.readers = [threading.Thread(target=self._drain, args=(f, k), daemon=True)
                        for k, f in (("out", self.p.stdout), ("err", self.p.stderr))]
        for t in self.readers:
            t.start()

    def _drain(self, f, k):
        while True:
            chunk = os.read(f.fileno(), 65536)
            if not chunk:
                return
            setattr(self, k, getattr(self, k) + chunk)

    def wait(self, timeout):
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        for t in self.readers:
            t.join(5)
        return self.p.returncode

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def http(prog, raw, timeout=30):
    """Send raw bytes, return (status code or None, the whole answer)."""
    s = socket.create_connection((prog.host, prog.port), timeout=timeout)
    try:
        s.sendall(raw)
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data and b"Content-Length" not in data.split(b"\r\n\r\n")[0]:
                break
            head, _, body = data.partition(b"\r\n\r\n")
            m = re.search(rb"Content-Length: (\d+)", head)
            if m and len(body) >= int(m.group(1)):
                break
    except (BrokenPipeError, ConnectionResetError):
        data = b""
    finally:
        s.close()
    m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    return (int(m.group(1)) if m else None), data


def get(prog, path, extra=b""):
    return http(prog, b"GET " + path.encode() + b" HTTP/1.1\r\nHost: localhost:%d\r\n" % prog.port +
                extra + b"Connection: close\r\n\r\n")


class WS:
    """A WebSocket client of the page's protocol (RFC 6455, client side)."""

    def __init__(self, prog, token=None, rcvbuf=None, origin=True):
        self.s = socket.socket(socket.AF_INET6 if ":" in prog.host else socket.AF_INET)
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.settimeout(60)
        self.s.connect((prog.host, prog.port))
        key = base64.b64encode(os.urandom(16))
        host = b"localhost:%d" % prog.port
        req = (b"GET /ws?token=" + (token or prog.token).encode() + b" HTTP/1.1\r\nHost: " + host +
               b"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
               b"Sec-WebSocket-Key: " + key + b"\r\n" + (b"Origin: http://" + host + b"\r\n" if origin else b"") +
               b"\r\n")
        self.s.sendall(req)
        head = b""
        while b"\r\n\r\n" not in head:
            c = self.s.recv(1)
            if not c:
                break
            head += c
        self.status = int(head[9:12]) if head.startswith(b"HTTP/1.1 ") else None
        want = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
        self.accepted = self.status == 101 and (b"Sec-WebSocket-Accept: " + want) in head
        self.buf = b""

    def _need(self, n):
        while len(self.buf) < n:
            c = self.s.recv(1 << 20)
            if not c:
                raise EOFError
            self.buf += c
        d, self.buf = self.buf[:n], self.buf[n:]
        return d

    def recv(self):
        """One message: (opcode, payload)."""
        b0, b1 = self._need(2)
        n = b1 & 0x7f
        if n == 126:
            n = struct.unpack(">H", self._need(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", self._need(8))[0]
        return b0 & 0x0f, self._need(n)

    def send(self, text):
        p = text.encode()
        mask = os.urandom(4)
        hdr = bytes([0x81, 0x80 | len(p)]) if len(p) < 126 else bytes([0x81, 0xfe]) + struct.pack(">H", len(p))
        self.s.sendall(hdr + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(p)))

    def frame(self):
        """The next picture: (status dict, JPEG bytes)."""
        while True:
            op, p = self.recv()
            if op == 1:
                m = json.loads(p)
                if m.get("type") == "end":
                    raise EOFError(m.get("why"))
                if m.get("type") == "frame":
                    op2, jpeg = self.recv()
                    return m, jpeg
            elif op == 8:
                raise EOFError("closed")

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


def refused(prog):
    try:
        socket.create_connection((prog.host, prog.port), timeout=3).close()
        return False
    except OSError:
        return True


# ---- the checks -------------------------------------------------------------------

def check_http(argv):
    prog = Program(argv)
    tok = prog.token
    code, body = get(prog, "/")
    ok(code == 403, "no token: %s (403 expected)" % code)
    code, _ = get(prog, "/?token=" + "0" * 32)
    ok(code == 403, "a wrong token of the right length: %s" % code)
    code, _ = get(prog, "/?token=" + tok[:-1])
    ok(code == 403, "the token less its last character: %s" % code)
    code, _ = get(prog, "/ws")
    ok(code == 403, "the WebSocket without the token: %s" % code)
    code, body = get(prog, "/?token=" + tok)
    ok(code == 200 and b'<img id="pic"' in body and b"no-referrer" in body.split(b"\r\n\r\n")[0],
       "the page with the token: %s, %d bytes, no-referrer policy" % (code, len(body)))
    for path in ["/nope?token=" + tok, "/../etc/passwd?token=" + tok, "/%2e%2e/%2e%2e/etc/passwd?token=" + tok,
                 "/..?token=" + tok, "//etc/passwd?token=" + tok, "/ws/../?token=" + tok]:
        code, body = get(prog, path)
        ok(code == 404 and b"root:" not in body, "GET %s: %s (404 expected)" % (path.split("?")[0], code))
    code, _ = http(prog, b"POST /?token=" + tok.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                   b"Connection: close\r\n\r\nabc")
    ok(code == 405, "POST: %s (405 expected)" % code)
    code, _ = http(prog, b"DELETE /?token=" + tok.encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    ok(code == 405, "DELETE: %s (405 expected)" % code)
    code, _ = get(prog, "/?token=" + tok, b"X-Huge: " + b"a" * 200000 + b"\r\n")
    ok(code is None or code >= 400, "a header of 200 kB: %s (refused)" % code)
    code, _ = get(prog, "/?token=" + tok + "&pad=" + "b" * 100000)
    ok(code is None or code >= 400, "a URL of 100 kB: %s (refused)" % code)
    # (the server may keep such a connection open, saying nothing: the
    # short wait is no bound, since no answer passes as well)
    code, _ = http(prog, b"\x00\x01\x02garbage\xff\r\n\r\n", timeout=3)
    ok(code is None or code == 400, "garbage bytes: %s (400, closed or no answer)" % code)
    code, _ = get(prog, "/ws?token=" + tok)
    ok(code == 400, "/ws without an Upgrade: %s (400 expected)" % code)
    code, _ = get(prog, "/ws?token=" + tok, b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                  b"Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\nOrigin: http://evil.example\r\n")
    ok(code == 403, "the WebSocket from another site's page: %s (403 expected)" % code)
    ws = WS(prog, token="f" * 32)
    ok(ws.status == 403, "the WebSocket with a wrong token: %s" % ws.status)
    ws.close()
    # a control that is not the page's: that viewer is closed, the run goes on
    ws = WS(prog)
    ws.frame()
    ws.send("bench:100000")
    try:
        while True:
            ws.frame()
    except (EOFError, OSError):
        pass
    ws.close()
    code, _ = get(prog, "/?token=" + tok)
    ok(code == 200 and prog.p.poll() is None, "still serving after all that: %s" % code)
    ws = WS(prog)
    ok(ws.accepted, "the WebSocket's handshake (Sec-WebSocket-Accept)")
    st, jpeg = ws.frame()
    ok(jpeg[:2] == b"\xff\xd8" and jpeg[-2:] == b"\xff\xd9", "a JPEG frame of step %d" % st["step"])
    ws.send("q")
    rc = prog.wait(120)
    ok(rc == 0, "'q' from the page ends the program: exit %s" % rc)
    ok(refused(prog), "the port is closed after the program")
    prog.kill()


class Chromium:
    """Debian's chromium, headless, driven through the DevTools protocol on
    a pipe (NUL-separated JSON messages on fds 3 and 4)."""

    def __init__(self, prof, downloads):
        exe = os.environ.get("CHROMIUM") or next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser")
                                                 if os.access(p, os.X_OK)), None)
        if not exe:
            print("skip: chromium is not installed (scripts/setup/ensure_deps.sh chromium)")
            sys.exit(77)
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()
        log = os.open(os.path.join(prof, "chromium.log"), os.O_WRONLY | os.O_CREAT, 0o600)
        null = os.open(os.devnull, os.O_RDWR)
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + os.path.join(prof, "profile"), "--remote-debugging-pipe",
                "--window-size=1000,900", "about:blank"]
        self.p = subprocess.Popen(args, stdin=null, stdout=log, stderr=log,
                                  pass_fds=(3, 4), preexec_fn=lambda: (os.dup2(to_r, 3), os.dup2(from_w, 4),
                                                                               die_with_parent()))
        os.close(to_r)
        os.close(from_w)
        os.close(log)
        os.close(null)
        self.n = 0
        self.buf = b""
        self.sid = None
        t = self.cmd("Target.createTarget", url="about:blank")
        sid = self.cmd("Target.attachToTarget", targetId=t["targetId"], flatten=True)["sessionId"]
        self.cmd("Browser.setDownloadBehavior", behavior="allow", downloadPath=downloads)
        self.sid = sid
        self.cmd("Page.enable")
        self.cmd("Runtime.enable")

    def cmd(self, method, **params):
        self.n += 1
        msg = {"id": self.n, "method": method, "params": params}
        if self.sid:
            msg["sessionId"] = self.sid
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        t_end = time.time() + 120
        while time.time() < t_end:
            while b"\0" in self.buf:
                one, self.buf = self.buf.split(b"\0", 1)
                m = json.loads(one)
                if m.get("id") == self.n:
                    if "error" in m:
                        raise RuntimeError("%s: %s" % (method, m["error"]))
                    return m.get("result", {})
            r, _, _ = select.select([self.from_r], [], [], 1)
            if r:
                chunk = os.read(self.from_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium went away")
                self.buf += chunk
        raise RuntimeError(method + ": no answer in 120 s")

    def js(self, expr):
        r = self.cmd("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr[:60], r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def until(self, expr, seconds, every=0.1):
        t_end = time.time() + seconds
        while time.time() < t_end:
            try:
                v = self.js(expr)
            except RuntimeError:        # the page not there yet
                v = None
            if v:
                return v
            time.sleep(every)
        return None

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


# decode() rejects when the page swaps the picture's source while it decodes
# (a new frame came): then the next one is taken, a few times at most
PIC_HASH = """(async () => { const p = document.getElementById('pic');
  for (let k = 0; ; k++) { try { await p.decode(); break; }
    catch (e) { if (k >= 20) throw e; await new Promise(r => setTimeout(r, 50)); } }
  const c = document.createElement('canvas'); c.width = p.naturalWidth; c.height = p.naturalHeight;
  const g = c.getContext('2d'); g.drawImage(p, 0, 0); const d = g.getImageData(0, 0, c.width, c.height).data;
  let h = 0, lit = 0; for (let i = 0; i < d.length; i += 4) { h = (h * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2]) >>> 0;
  if (d[i] + d[i + 1] + d[i + 2] > 60) lit++; } return [h, lit, c.width, c.height, nb.frames]; })()"""


def check_browser(argv, size):
    tmp = tempfile.mkdtemp(prefix="nb-serve-")
    downloads = os.path.join(tmp, "downloads")
    os.mkdir(downloads)
    prog = Program(argv, cwd=tmp)
    br = None
    try:
        br = Chromium(tmp, downloads)
        br.cmd("Page.navigate", url=prog.url)
        ok(br.until("window.nb && nb.frames >= 3", 120), "the page loads and shows frames (%s received)" %
           br.until("window.nb && String(nb.frames)", 1))
        h1 = br.js(PIC_HASH)
        ok(h1[1] > 50 and h1[2] == size and h1[3] == size,
           "the picture appears: %dx%d, %d lit pixels" % (h1[2], h1[3], h1[1]))
        s1 = br.js("nb.state.step")
        br.until("nb.frames >= %d && nb.state.step > %d" % (h1[4] + 5, s1), 120)
        h2 = br.js(PIC_HASH)
        s2 = br.js("nb.state.step")
        ok(h2[0] != h1[0] and s2 > s1, "the picture changes as the run goes: step %d -> %d" % (s1, s2))
        hud = br.js("document.getElementById('hud').textContent")
        ok(re.search(r"step \d+ of \d+ .*N = \d+ .*ms/step .*G interactions/s .*\|\u0394E/E\u2080\|", hud) is not None,
           "the heads-up line: %s" % hud.split("\n")[0][:100])
        # pause: the step counter stops; one step moves it by exactly one
        br.js("document.getElementById('pause').click()")
        ok(br.until("nb.state.state === 'paused'", 120), "pause: the page says paused")
        p1 = br.js("nb.state.step")
        time.sleep(1.5)                 # (time for a counter that was not stopped to move)
        br.js("document.getElementById('step').click()")
        ok(br.until("nb.state.step !== %d" % p1, 120), "one step: a frame of a new step")
        p2 = br.js("nb.state.step")
        ok(p2 == p1 + 1, "pause stops the step counter, one step moves it by one: %d -> %d" % (p1, p2))
        # the camera, by mouse: a drag, then the wheel, each a new picture
        r = br.js("JSON.stringify(document.getElementById('pic').getBoundingClientRect())")
        r = json.loads(r)
        x, y = r["x"] + r["width"] / 2, r["y"] + r["height"] / 2
        for name, events in [("a drag", [("mousePressed", x, y), ("mouseMoved", x + 40, y + 25),
                                         ("mouseReleased", x + 40, y + 25)]),
                             ("the wheel", [("mouseWheel", x, y)])]:
            before = br.js(PIC_HASH)
            for kind, ex, ey in events:
                extra = {"deltaX": 0, "deltaY": -120} if kind == "mouseWheel" else {"clickCount": 1}
                br.cmd("Input.dispatchMouseEvent", type=kind, x=ex, y=ey, button="left" if kind != "mouseWheel" else "none",
                       buttons=1 if kind in ("mousePressed", "mouseMoved") else 0, **extra)
            t_end = time.time() + 120     # the frames until one shows the camera moved
            after = br.js(PIC_HASH)
            while after[0] == before[0] and time.time() < t_end:
                br.until("nb.frames > %d" % after[4], 5)
                after = br.js(PIC_HASH)
            ok(after[0] != before[0] and br.js("nb.state.step") == p2,
               "%s turns or zooms the camera: a new picture of the same step" % name)
        br.js("document.getElementById('reset').click()")
        br.until("nb.frames > %d" % br.js("nb.frames"), 60)
        # the screenshot: downloaded by the browser, the --render frame of that step
        br.js("document.getElementById('shot').click()")
        want = "nbody_%s_%06d.png" % (br.js("nb.state.program"), p2)
        path = os.path.join(downloads, want)
        t_end = time.time() + 120
        while time.time() < t_end and not os.path.exists(path):
            time.sleep(0.1)
        time.sleep(0.3)
        ok(os.path.exists(path), "the screenshot button downloads %s (got %s)" % (want, os.listdir(downloads)))
        ok(not os.path.exists(os.path.join(tmp, want)), "the server wrote no file of its own")
        br.js("document.getElementById('quit').click()")
        rc = prog.wait(120)
        ok(rc == 0, "the stop button ends the program: exit %s" % rc)
        ended = br.until("nb.ended.indexOf('stopped at step %d') >= 0 && !nb.open" % p2, 120)
        ok(ended, "the page says the run has ended, and where: %s" % br.js("document.getElementById('conn').textContent"))
        ok(refused(prog), "the port is closed after the program")
        out = prog.out.decode(errors="replace")
        ok(re.search(r"viewer 1: \d+ frames", out) is not None, "the report lists the viewer")
        if os.path.exists(path):
            frames = os.path.join(tmp, "frames")
            r = subprocess.run(argv + ["-s", str(p2), "--render", frames, "--render-every", str(max(p2, 1)),
                                       "--render-size", str(size)], capture_output=True, timeout=120,
                               preexec_fn=die_with_parent)
            ref = os.path.join(frames, "frame_%06d.png" % (1 if p2 > 0 else 0))
            same = r.returncode == 0 and os.path.exists(ref) and open(ref, "rb").read() == open(path, "rb").read()
            ok(same, "the screenshot is the --render frame of step %d, byte for byte" % p2)
    finally:
        if br:
            br.close()
        prog.kill()
        subprocess.run(["rm", "-rf", tmp])


def frames(ws, n):
    """Read n frames: (how many came before a time-out or the end, the last status)."""
    got, st = 0, None
    try:
        for _ in range(n):
            st, _ = ws.frame()
            got += 1
    except (EOFError, OSError) as e:          # socket.timeout is an OSError
        print("viewer: %s after %d frames" % (e or type(e).__name__, got))
    return got, st


def check_viewers(argv):
    prog = Program(argv)
    a, b = WS(prog), WS(prog)
    fa = fb = 0
    for _ in range(5):                        # in turn: both served at once
        fa += frames(a, 1)[0]
        fb += frames(b, 1)[0]
    ok(fa == 5 and fb == 5, "two viewers at once: %d and %d frames of 5" % (fa, fb))
    b.close()
    _, st0 = frames(a, 1)
    slow = WS(prog, rcvbuf=4096)          # connects, never reads
    slow.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    # while it is there the run goes on: the reading viewer gets its frames
    # and the steps advance (a server that waited for the slow viewer would
    # stop once its socket's buffers are full, a few frames in)
    want = 30
    got, st = frames(a, want)
    ok(got == want and st0 is not None and st is not None and st["step"] > st0["step"],
       "a viewer that never reads does not stop the run: the other got %d frames of %d, step %s -> %s" %
       (got, want, st0 and st0["step"], st and st["step"]))
    a.close()
    slow.close()
    s_left = st["step"] if st else 0
    time.sleep(2)
    c = WS(prog)
    _, st2 = frames(c, 1)
    ok(st2 is not None and st2["step"] > s_left and st2["state"] == "running",
       "with every viewer gone the run went on: step %d when they left, %s now" % (s_left, st2 and st2["step"]))
    c.send("q")
    rc = prog.wait(120)
    out = prog.out.decode(errors="replace")
    ok(rc == 0, "'q' ends it: exit %s" % rc)
    skipped = [int(x) for x in re.findall(r"viewer \d+: \d+ frames in [0-9.]+ s \([0-9.]+ frames/s\), (\d+) skipped", out)]
    # the server made at least the 30 frames the reading viewer got while
    # the slow one was there, less the few the sockets' buffers took in (11
    # of 20 under the sanitizers here): it must have skipped at least 3 (a
    # server that queues every frame, or blocks, skips none)
    ok(len(skipped) == 4 and max(skipped) >= 3,
       "the report lists 4 viewers, the one that never read skipped frames: %s (at least 3 of the %d or "
       "more made while it was there)" % (skipped, want))
    prog.kill()


def check_interrupt(argv):
    tmp = tempfile.mkdtemp(prefix="nb-serve-")
    save = os.path.join(tmp, "state.txt")
    prog = Program(argv + ["--save", save])
    ws = WS(prog)
    st = ws.frame()[0]
    while st["step"] < 5:
        st = ws.frame()[0]
    prog.p.send_signal(signal.SIGINT)
    rc = prog.wait(120)
    out = prog.out.decode(errors="replace")
    ok(rc == 0, "Ctrl-C (SIGINT) stops the run cleanly: exit %s" % rc)
    m = re.search(r"view: stopped at step (\d+) of \d+ \(interrupted: Ctrl-C\)", out)
    ok(m is not None, "the report says where it stopped and why")
    n = int(re.search(r"bodies (\d+)", out).group(1)) if re.search(r"bodies (\d+)", out) else -1
    lines = [l for l in open(save).read().splitlines() if l and not l.startswith("#")] if os.path.exists(save) else []
    ok(len(lines) == n and n > 0, "--save still writes: %d bodies in the file, %d in the run" % (len(lines), n))
    ok(refused(prog), "the port is closed after the program")
    ws.close()
    prog.kill()
    subprocess.run(["rm", "-rf", tmp])


def check_measure(argv, seconds):
    prog = Program(argv)
    ws = WS(prog)
    st0, _ = ws.frame()
    t0 = time.time()
    frames = nbytes = 0
    st = st0
    while time.time() - t0 < seconds:
        st, jpeg = ws.frame()
        frames += 1
        nbytes += len(jpeg)
    dt = time.time() - t0
    print("measure: one viewer on localhost: %d frames in %.2f s = %.1f frames/s, %.0f kB a frame (%dx%d), "
          "%.1f steps/s (step %d -> %d), %s ms/step" % (frames, dt, frames / dt, nbytes / max(frames, 1) / 1024,
                                                        st["w"], st["h"], (st["step"] - st0["step"]) / dt,
                                                        st0["step"], st["step"], st["ms"]), flush=True)
    ws.send("q")
    rc = prog.wait(120)
    print(prog.out.decode(errors="replace"), end="")
    ok(rc == 0, "exit %s" % rc)
    prog.kill()


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    check, argv = sys.argv[1], sys.argv[2:]
    i = 1 if check == "measure" else 0
    if "/" in argv[i]:
        argv[i] = os.path.abspath(argv[i])
    signal.alarm(int(os.environ.get("NB_SERVE_CHECK_TIMEOUT", "240")))
    if check == "http":
        check_http(argv)
    elif check == "browser":
        size = 256
        check_browser(argv + ["--view-size", "%dx%d" % (size, size)], size)
    elif check == "viewers":
        check_viewers(argv)
    elif check == "interrupt":
        check_interrupt(argv)
    elif check == "measure":
        check_measure(argv[1:], float(argv[0]))
    else:
        print("unknown check " + check)
        return 2
    print("%s: %s" % (check, "FAIL (%d)" % len(FAILED) if FAILED else "all passed"))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
