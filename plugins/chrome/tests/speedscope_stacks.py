#!/usr/bin/env python3
"""perf captures written as Chrome JSON, opened in speedscope: the frames it shows per thread are
the capture's stacks, in the capture's order.

usage: speedscope_stacks.py TCONV CHROMIUM SPEEDSCOPE_RELEASE_DIR WORKDIR CAPTURE...

For each `perf script` capture, `tconv -o out.json CAPTURE` is loaded into speedscope's index.html
as its command line loads a file, in headless chromium driven over the DevTools protocol
(plugins/html/tests/cdp.py). speedscope's own importer builds the profile; its own Export
(the toolbar button, with the download caught in the page) gives, per thread, every frame it
opened and closed and when. From that, the stack open just after each sample's time is compared
with the sample's stack as this script reads it from the capture (header, frames leaf first,
names by the perf reader's rules: `+0x` offsets cut, `[unknown]` named after its dso, the comm as
root). A capture without times lays its samples 1 µs apart, as docs/chrome.md says.
Fails on any console warning or error of speedscope's ("Tried to end ...", "... still open"),
an exception, a thread speedscope lacks, or a stack that differs.
Exit 0 when all hold, 1 when one fails, 77 when chromium, speedscope or every capture is missing.
"""
import base64
import json
import os
import pathlib
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "html", "tests"))
import cdp  # noqa: E402

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


HEADER = re.compile(r"^(?P<comm>\S.*?)\s+(?:(?P<pid>\d+)/)?(?P<tid>\d+)\s+(?:\[\d+\]\s+)?"
                    r"(?:(?P<time>\d+\.\d+):\s)?")
FRAME = re.compile(r"^\s+[0-9a-fA-F]+\s+(?P<sym>.*?)(?:\s*\((?P<dso>[^()]*)\))?\s*$")


def ns(text):
    whole, frac = text.split(".")
    return int(whole) * 10**9 + int((frac + "000000000")[:9])


def tidy(sym, comm):
    """A frame's name as the perf reader gives it (docs/perf.md, "Frame names"): the argument
    list cut at its first top-level `(` (kept in Go's `pkg.(*T).M`, `(anonymous namespace)` and
    inside <>, {}, []), `;` as `:`, and Java's `Lpkg/Class;` without its `L`."""
    depth = 0
    for i, c in enumerate(sym):
        if c in "<{[":
            depth += 1
        elif c in ">}]" and depth:
            depth -= 1
        elif c == "(" and depth == 0 and i > 0 and sym[i - 1] != "." \
                and not sym.startswith("(anonymous namespace)", i):
            sym = sym[:i]
            break
    if comm.startswith("java") and sym.startswith("L") and "/" in sym:
        sym = sym[1:]
    return sym.replace(";", ":")


def perf_samples(path):
    """Per (pid, tid): [(time in ns or None, [root frame, ..., leaf])], in file order."""
    import gzip
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    threads = {}
    cur = None
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                cur = None
                continue
            if line.startswith("#"):
                continue
            if not line[0].isspace():
                m = HEADER.match(line)
                if not m:
                    raise ValueError("%s: cannot read the header %r" % (path, line))
                key = (int(m.group("pid")) if m.group("pid") else 0, int(m.group("tid")))
                t = ns(m.group("time")) if m.group("time") else None
                cur = [m.group("comm").strip()]
                threads.setdefault(key, []).append((t, cur))
                continue
            m = FRAME.match(line)
            if not m or cur is None:
                continue
            sym, dso = re.sub(r"\+0x[0-9a-fA-F]+$", "", m.group("sym")), m.group("dso")
            if not sym:
                sym = " " if dso is not None else "[unknown]"  # "addr  (dso)": a blank name
            if sym.startswith("("):
                continue
            if sym == "[unknown]" and dso and dso != "[unknown]":
                sym = "[%s]" % os.path.basename(dso)
            cur.insert(1, tidy(sym, cur[0]))
    # A sample without frames is no stack (the reader skips it, as stackcollapse-perf does).
    return {k: [x for x in v if len(x[1]) > 1] for k, v in threads.items()}


EXPORT_JS = """(async function () {
  var tab = Array.from(document.querySelectorAll('div')).find(function (d) {
    return d.children.length === 1 && d.textContent.trim().endsWith('Export'); });
  if (!tab) return null;
  var blob = null, url = URL.createObjectURL, click = HTMLAnchorElement.prototype.click;
  URL.createObjectURL = function (b) { blob = b; return 'about:blank'; };
  HTMLAnchorElement.prototype.click = function () {};
  try { tab.click(); } finally {
    URL.createObjectURL = url; HTMLAnchorElement.prototype.click = click; }
  return blob ? await blob.text() : null;
})()"""


def speedscope_export(b, release, work, name, data):
    """speedscope's export of the profile it imported from data, and the console's warnings."""
    js = os.path.join(work, name + ".js")
    with open(js, "w") as f:
        f.write("speedscope.loadFileFromBase64(%s, %s)" %
                (json.dumps(name + ".json"), json.dumps(base64.b64encode(data).decode())))
    s = b.open_page()
    url = pathlib.Path(release, "index.html").resolve().as_uri() + "#localProfilePath=" + js
    b.send("Page.navigate", {"url": url}, session=s)
    exported = None
    end = time.time() + 120
    while time.time() < end and exported is None:
        b.pump(0.3)
        exported = b.evaluate(s, EXPORT_JS, timeout=120)
    complaints = []
    for e in b.events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("warning", "error", "assert"):
            complaints.append(" ".join(str(a.get("value", a.get("description", "")))
                                       for a in p.get("args", [])))
        elif m == "Runtime.exceptionThrown":
            complaints.append("exception: %s" % p.get("exceptionDetails", {}).get("text"))
    return (json.loads(exported) if exported else None), complaints


def stacks_at(profile, frames, times):
    """The names of the frames open just after each time (µs from the thread's start)."""
    events = profile["events"]
    out, stack, i = [], [], 0
    for t in times:
        while i < len(events) and events[i]["at"] <= t + 1e-6:
            ev = events[i]
            if ev["type"] == "O":
                stack.append(frames[ev["frame"]]["name"])
            elif stack:
                stack.pop()
            i += 1
        out.append(list(stack))
    return out


def check(b, tconv, release, work, inp):
    import subprocess
    name = os.path.basename(inp)
    out = os.path.join(work, name + ".json")
    p = subprocess.run([tconv, "-q", "-o", out, inp], stderr=subprocess.PIPE)
    if p.returncode != 0:
        fail("%s: tconv exit %d: %s" % (name, p.returncode, p.stderr.decode()[:300]))
        return
    exported, complaints = speedscope_export(b, release, work, name, open(out, "rb").read())
    if complaints:
        fail("%s: speedscope: %d console complaints, first: %s" %
             (name, len(complaints), complaints[0][:300]))
    if not exported:
        fail("%s: speedscope did not export a profile" % name)
        return
    frames = exported["shared"]["frames"]
    profiles = {}
    for prof in exported["profiles"]:
        m = re.search(r"pid (\d+)[,)].*?tid (\d+)\)", prof["name"])
        if m:
            profiles[(int(m.group(1)), int(m.group(2)))] = prof
    want = perf_samples(inp)
    bad = 0
    nsamples = 0
    for key, samples in sorted(want.items()):
        prof = profiles.get(key)
        if prof is None:
            fail("%s: speedscope has no thread pid %d, tid %d" % (name, key[0], key[1]))
            continue
        # The writer's times: a sample not after the previous one starts 1 µs after it.
        eff = []
        for t, _ in samples:
            t = t or 0
            eff.append(t if not eff or t > eff[-1] else eff[-1] + 1000)
        times = [(t - eff[0]) / 1000.0 for t in eff]
        got = stacks_at(prof, frames, times)
        for k, (g, (_, w)) in enumerate(zip(got, samples)):
            nsamples += 1
            if g != w:
                bad += 1
                if bad <= 3:
                    fail("%s: pid %d tid %d sample %d at %.3f µs: speedscope shows %s, the "
                         "capture has %s" % (name, key[0], key[1], k, times[k], g, w))
    if bad:
        fail("%s: %d of %d samples differ" % (name, bad, nsamples))
    else:
        print("%s: %d threads, %d samples, every stack as in the capture" %
              (name, len(want), nsamples))


def main():
    tconv, chromium, release, work = sys.argv[1:5]
    chromium = shutil.which(chromium) or chromium
    if not os.path.exists(chromium):
        print("chromium not installed (.ci/install-deps installs it): skipped")
        return 77
    if not os.path.exists(os.path.join(release, "index.html")):
        print("speedscope not installed at %s (.ci/install-deps installs it): skipped" % release)
        return 77
    inputs = [i for i in sys.argv[5:] if os.path.exists(i)]
    for i in sys.argv[5:]:
        if i not in inputs:
            print("absent, not checked: " + i)
    if not inputs:
        return 77
    os.makedirs(work, exist_ok=True)
    for inp in inputs:
        b = cdp.Chromium(chromium, work)
        try:
            check(b, tconv, release, work, inp)
        finally:
            b.close()
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
