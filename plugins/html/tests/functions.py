#!/usr/bin/env python3
"""The report of a profile (stack samples, no spans) in headless chromium: its flame graph is
drawn and its Top functions table holds every function with the flat and cumulative values the
folded writer's stacks give (flat: the stacks a function ends; cumulative: the stacks it is in,
once each), nothing on the console.

usage: functions.py TCONV CHROMIUM WORKDIR PROFILE...
Exit 0, 1 on a difference, 77 without chromium.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

FAILS = []
ROWS_JS = """(() => [...document.querySelectorAll('#functions-table tbody tr')].map(tr => {
  const td = tr.querySelectorAll('td');
  return [td[0].textContent, Number(td[1].getAttribute('data-v')),
          Number(td[3].getAttribute('data-v'))];
}))()"""


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def expected(tconv, path):
    out = subprocess.run([tconv, "-q", "-w", "folded", path], stdout=subprocess.PIPE,
                         check=True).stdout.decode("utf-8", "replace")
    res = {}
    for line in out.splitlines():
        stack, value = line.rsplit(" ", 1)
        frames = stack.split(";")
        res.setdefault(frames[-1], [0, 0])[0] += int(value)
        for f in set(frames):
            res.setdefault(f, [0, 0])[1] += int(value)
    return {k: tuple(v) for k, v in res.items()}


def check(tconv, browser, work, path):
    label = os.path.basename(path)
    page = os.path.join(work, label + ".html")
    subprocess.run([tconv, "-q", "-o", page, path], check=True)
    b = cdp.Chromium(browser, work)
    try:
        s = b.open_page()
        b.send("Page.navigate", {"url": pathlib.Path(page).resolve().as_uri()}, session=s)
        end = time.time() + 60
        while time.time() < end:
            b.pump(0.2)
            if b.evaluate(s, "document.body && document.body.getAttribute('data-ready')") == "1":
                break
        else:
            fail("%s: the page's script did not run to its end" % label)
            return
        rows = b.evaluate(s, ROWS_JS)
        shown = b.evaluate(s, "!document.getElementById('functions').hidden")
        frame = b.evaluate(s, "document.getElementById('flame-cpu').src.length")
        b.pump(1)
        for e in b.events:
            m, p = e.get("method"), e.get("params", {})
            if m in ("Runtime.consoleAPICalled", "Runtime.exceptionThrown"):
                fail("%s: %s: %s" % (label, m, str(p)[:200]))
    finally:
        b.close()
    want = expected(tconv, path)
    got = {r[0]: (r[1], r[2]) for r in rows}
    if not shown or not frame:
        fail("%s: the top functions (%s) or the flame graph (%s) is not shown" %
             (label, shown, frame))
    elif got != want:
        diff = [(k, got.get(k), want.get(k)) for k in sorted(set(got) | set(want))
                if got.get(k) != want.get(k)]
        fail("%s: %d functions shown, %d in the stacks; first differences %s" %
             (label, len(got), len(want), diff[:3]))
    elif rows and any(a[1] < b[1] for a, b in zip(rows, rows[1:])):
        fail("%s: the table is not by flat value, largest first" % label)
    else:
        print("%s: %d functions, flat and cumulative agree" % (label, len(got)))


def main():
    tconv, browser, work = sys.argv[1:4]
    browser = shutil.which(browser) or browser
    if not os.path.exists(browser):
        print("chromium not installed: skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    for path in sys.argv[4:]:
        if os.path.exists(path):
            check(tconv, browser, work, path)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
