"""A minimal DevTools protocol client over --remote-debugging-pipe (no modules beyond Python's):
headless chromium reads commands on fd 3 and writes replies and events on fd 4, each message
JSON ended by a NUL byte. Frames of other processes (the report's sandboxed flame graph) are
attached as they appear and paused until their console and network are watched."""
import json
import os
import select
import shutil
import tempfile
import time


class Chromium:
    def __init__(self, binary, workdir):
        self.profile = tempfile.mkdtemp(dir=workdir)
        r1, w1 = os.pipe()
        r2, w2 = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.dup2(r1, 3)
            os.dup2(w2, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.execv(binary, [binary, "--headless", "--no-sandbox", "--disable-gpu",
                              "--no-first-run", "--user-data-dir=" + self.profile,
                              "--remote-debugging-pipe", "about:blank"])
        os.close(r1)
        os.close(w2)
        self.pid, self.w, self.r = pid, w1, r2
        self.buf, self.id, self.events, self.sessions = b"", 0, [], {}

    def _read(self, timeout):
        while b"\0" not in self.buf:
            if timeout <= 0:
                return None
            ready, _, _ = select.select([self.r], [], [], timeout)
            if not ready:
                return None
            more = os.read(self.r, 1 << 20)
            if not more:
                raise EOFError("chromium closed the pipe")
            self.buf += more
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def _post(self, method, params, session):
        self.id += 1
        msg = {"id": self.id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        return self.id

    def _event(self, m):
        self.events.append(m)
        if m.get("method") == "Target.attachedToTarget":
            s = m["params"]["sessionId"]
            self.sessions[s] = m["params"]["targetInfo"]
            self._watch(s)
            self._post("Runtime.runIfWaitingForDebugger", None, s)

    def send(self, method, params=None, session=None, timeout=60):
        want = self._post(method, params, session)
        end = time.time() + timeout
        while True:
            m = self._read(end - time.time())
            if m is None:
                raise TimeoutError(method)
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self._event(m)

    def pump(self, seconds):
        end = time.time() + seconds
        while True:
            m = self._read(end - time.time())
            if m is None:
                return
            if "method" in m:
                self._event(m)

    def _watch(self, session):
        # replies are not waited for here: this runs inside the reading loop
        for method in ("Runtime.enable", "Log.enable", "Network.enable"):
            self._post(method, None, session)
        self._post("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                            "flatten": True}, session)

    def open_page(self):
        targets = self.send("Target.getTargets")["targetInfos"]
        page = [t for t in targets if t["type"] == "page"][0]
        s = self.send("Target.attachToTarget", {"targetId": page["targetId"],
                                                "flatten": True})["sessionId"]
        self.sessions[s] = page
        for method in ("Runtime.enable", "Log.enable", "Network.enable", "Page.enable"):
            self.send(method, session=s)
        self.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                           "flatten": True}, session=s)
        return s

    def evaluate(self, session, expr, timeout=60):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True}, session, timeout)
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr[:60], r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def close(self):
        try:
            self._post("Browser.close", None, None)
            self.pump(2)
        except (OSError, EOFError):
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        os.close(self.w)
        os.close(self.r)
        shutil.rmtree(self.profile, ignore_errors=True)
