#!/usr/bin/env python3
"""The speedscope writer's output in speedscope 1.25 itself, against speedscope's own import of
the source file.

usage: viewer.py TCONV CHROMIUM SPEEDSCOPE_RELEASE_DIR WORKDIR [--totals] INPUT...

For each INPUT, `tconv -o out.speedscope.json INPUT`. Then speedscope (headless chromium, over the
DevTools protocol) opens the source file with its own importer and the conversion with its
speedscope importer, and each time exports what it loaded (its Export button: every profile as
the open and close events of its call tree, in time order, with the profile's total weight).
The two exports must list the same profiles by name, each with the same total weight and the
same sequence of frames opened and closed ("frame order"), with times equal to the nanosecond
after units are made the same. A frame of a Chrome trace whose event has args is named by
speedscope with the args appended ("op {"id": 3}"); tconv names it "op", which counts as equal.
Inputs after --totals (pprof profiles, whose inlined and unsymbolized frames speedscope's pprof
importer drops) are compared by the sum of their profiles' totals only. The conversion must load
without a console warning or error. Exit 0 when all agree, 1 when one does not, 77 without
chromium or speedscope.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "html",
                                "tests"))
import cdp  # noqa: E402

FAILS = []
UNIT_NS = {"nanoseconds": 1, "microseconds": 1e3, "milliseconds": 1e6, "seconds": 1e9}

HOOK_JS = """(() => {
  window.__blobs = [];
  const create = URL.createObjectURL;
  URL.createObjectURL = function (b) { window.__blobs.push(b); return create.call(URL, b); };
  return true;
})()"""

CLICK_JS = """(() => {
  const tabs = [...document.querySelectorAll('div')].filter(
      d => d.children.length <= 1 && d.textContent.trim().endsWith('Export'));
  if (!tabs.length) return false;
  tabs[tabs.length - 1].click();
  return true;
})()"""


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


class Browser(cdp.Chromium):
    """Dismisses the alerts speedscope shows on a file it cannot import (a dialog would block
    every evaluation) and keeps their text as console messages."""

    def _event(self, m):
        super()._event(m)
        if m.get("method") == "Page.javascriptDialogOpening":
            self.dialogs.append(m["params"].get("message", ""))
            self._post("Page.handleJavaScriptDialog", {"accept": True}, m.get("sessionId"))


def console_of(b):
    """The page's console warnings and errors, and its exceptions."""
    out = ["alert: " + d for d in b.dialogs]
    for e in b.events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", "")))
                            for a in p.get("args", []))
            # speedscope logs a failed import with console.log
            if p.get("type") in ("warning", "error") or text.startswith("Failed"):
                out.append(text)
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: %s %s" % (d.get("text"),
                                             d.get("exception", {}).get("description", "")))
    return out


def export(browser, release, work, name, data):
    """speedscope's export of the file, and its console messages."""
    js = os.path.join(work, name + ".js")
    with open(js, "w") as f:
        f.write("speedscope.loadFileFromBase64(%s, %s)" %
                (json.dumps(name), json.dumps(base64.b64encode(data).decode())))
    url = "file://%s/index.html#localProfilePath=%s" % (release, js)
    b = Browser(browser, work)
    b.dialogs = []
    try:
        s = b.open_page()
        b.send("Page.navigate", {"url": url}, session=s)
        end = time.time() + 60
        while time.time() < end:
            b.pump(0.2)
            if b.evaluate(s, "!![...document.querySelectorAll('div')].find("
                             "d => d.children.length <= 1 && "
                             "d.textContent.trim().endsWith('Export'))"):
                break
        else:
            return None, ["speedscope did not load the profile"] + console_of(b)
        b.evaluate(s, HOOK_JS)
        if not b.evaluate(s, CLICK_JS):
            return None, ["no Export button"]
        text = None
        end = time.time() + 30
        while time.time() < end and text is None:
            b.pump(0.2)
            text = b.evaluate(s, "window.__blobs.length ? window.__blobs[0].text() : null")
        return (json.loads(text) if text else None), console_of(b)
    finally:
        b.close()


def calls(doc, prof):
    """[(O or C, frame name, at in ns from the profile's start)], total weight in ns."""
    scale = UNIT_NS.get(prof.get("unit"), 1)
    frames = doc["shared"]["frames"]
    seq = [(e["type"], frames[e["frame"]]["name"], (e["at"] - prof["startValue"]) * scale)
           for e in prof["events"]]
    return seq, (prof["endValue"] - prof["startValue"]) * scale


def same_name(theirs, ours):
    return theirs == ours or (theirs.startswith(ours + " {") and theirs.endswith("}"))


def compare(label, src, out, totals_only):
    if totals_only:
        a = sum(calls(src, p)[1] for p in src["profiles"])
        b = sum(calls(out, p)[1] for p in out["profiles"])
        if abs(a - b) > 0.5:
            fail("%s: speedscope's total %s, the conversion's %s" % (label, a, b))
        else:
            print("%s: totals agree (%d profiles, %d)" % (label, len(src["profiles"]),
                                                          len(out["profiles"])))
        return
    want = {p["name"]: p for p in src["profiles"] if calls(src, p)[1] > 0}
    # A trace with stack samples: speedscope shows the samples and drops the spans, which the
    # conversion keeps apart as "<thread> (spans)".
    got = {p["name"]: p for p in out["profiles"] if calls(out, p)[1] > 0 and
           not (p["name"].endswith(" (spans)") and p["name"][:-8] in want)}
    if sorted(want) != sorted(got):
        fail("%s: speedscope lists %s, the conversion %s" % (label, sorted(want), sorted(got)))
        return
    before = len(FAILS)
    for name in want:
        (sa, ta), (sb, tb) = calls(src, want[name]), calls(out, got[name])
        if abs(ta - tb) > 0.5:
            fail("%s: %s: total %s ns, conversion %s ns" % (label, name, ta, tb))
        elif len(sa) != len(sb) or any(
                x[0] != y[0] or not same_name(x[1], y[1]) or abs(x[2] - y[2]) > 0.5
                for x, y in zip(sa, sb)):
            at = next((i for i, (x, y) in enumerate(zip(sa, sb))
                       if x[0] != y[0] or not same_name(x[1], y[1]) or abs(x[2] - y[2]) > 0.5),
                      min(len(sa), len(sb)))
            fail("%s: %s: frame order differs at event %d of %d/%d: %s vs %s" %
                 (label, name, at, len(sa), len(sb), sa[at:at + 2], sb[at:at + 2]))
    if len(FAILS) == before:
        print("%s: %d profiles, totals and frame order agree" % (label, len(want)))


def check(tconv, browser, release, work, inp, totals_only):
    label = os.path.basename(inp)
    out = os.path.join(work, label + ".speedscope.json")
    p = subprocess.run([tconv, "-q", "-o", out, inp], stderr=subprocess.PIPE)
    if p.returncode != 0:
        fail("%s: tconv exit %d: %s" % (label, p.returncode, p.stderr.decode()[:300]))
        return
    data = open(inp, "rb").read()
    if data[:2] == b"\x1f\x8b":
        import gzip
        data = gzip.decompress(data)
    src, src_console = export(browser, release, work, label, data)
    conv, conv_console = export(browser, release, work, label + ".speedscope.json",
                                open(out, "rb").read())
    if conv is None:
        fail("%s: speedscope did not export the conversion: %s" % (label, conv_console[:3]))
        return
    if conv_console:
        fail("%s: speedscope complained about the conversion: %s" % (label, conv_console[:3]))
    if src is None:
        # nothing to compare with; the conversion's own loading was checked above
        print("%s: speedscope cannot load the source itself (%s); the conversion loads" %
              (label, "; ".join(src_console)[:200]))
        return
    compare(label, src, conv, totals_only)


def main():
    tconv, browser, release, work = sys.argv[1:5]
    if not shutil.which(browser) and not os.path.exists(browser):
        print("chromium not installed (.ci/install-deps installs it): skipped")
        return 77
    if not os.path.exists(os.path.join(release, "index.html")):
        print("speedscope not installed at %s (.ci/install-deps installs it): skipped" % release)
        return 77
    browser = shutil.which(browser) or browser
    os.makedirs(work, exist_ok=True)
    totals_only = False
    n = 0
    for inp in sys.argv[5:]:
        if inp == "--totals":
            totals_only = True
        elif os.path.exists(inp):
            n += 1
            check(tconv, browser, release, work, inp, totals_only)
        else:
            print("absent, not checked: " + inp)
    if n == 0:
        return 77
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
