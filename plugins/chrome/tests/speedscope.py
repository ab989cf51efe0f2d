#!/usr/bin/env python3
"""The chrome writer's output opened in speedscope (its own importer, in headless chromium).

usage: speedscope.py TCONV CHROMIUM SPEEDSCOPE_RELEASE_DIR WORKDIR INPUT...

For each INPUT, `tconv -o out.json INPUT` is loaded into speedscope's index.html the way its
command line does it (#localProfilePath= a script calling speedscope.loadFileFromBase64), and the
rendered page is dumped. Checks: speedscope imported it as a Trace Event Format profile with no
error and no complaint about how slices nest; its list of profiles has one row per thread, and
each thread's "Total Weight" is the thread's busy time, computed here independently from the
JSON file (the union of its slices, in µs as speedscope prints it).
Exit 0 when all hold, 1 when one fails, 77 when chromium or speedscope is missing.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def busy_us(events):
    """Per (pid, tid): the union of the slices' intervals, in µs."""
    spans = {}
    opened = {}
    for e in events:
        key = (e.get("pid"), e.get("tid"))
        ph = e.get("ph")
        if ph == "X":
            spans.setdefault(key, []).append((e["ts"], e["ts"] + e.get("dur", 0)))
        elif ph == "B":
            opened.setdefault(key, []).append(e["ts"])
        elif ph == "E" and opened.get(key):
            spans.setdefault(key, []).append((opened[key].pop(), e["ts"]))
    out = {}
    for key, iv in spans.items():
        iv.sort()
        total, cur_s, cur_e = 0.0, None, None
        for s, e in iv:
            if cur_e is None or s > cur_e:
                if cur_e is not None:
                    total += cur_e - cur_s
                cur_s, cur_e = s, e
            else:
                cur_e = max(cur_e, e)
        if cur_e is not None:
            total += cur_e - cur_s
        out[key] = total
    return out


def parse_weight(text):
    """speedscope's time format: 1.23s, 45.60ms, 7.00µs. The value in µs, and how far the true
    value may be from it: half of the last digit shown (1.63s is 1625000 to 1635000 µs)."""
    m = re.fullmatch(r"([0-9]+)(?:\.([0-9]+))?(s|ms|µs|ns)", text)
    if not m:
        return None, None
    unit = {"s": 1e6, "ms": 1e3, "µs": 1.0, "ns": 1e-3}[m.group(3)]
    value = float(m.group(1) + "." + (m.group(2) or "0")) * unit
    return value, 0.5 * 10.0 ** -len(m.group(2) or "") * unit


def check(tconv, chromium, release, work, inp):
    name = os.path.basename(inp)
    out = os.path.join(work, name + ".json")
    p = subprocess.run([tconv, "-q", "-o", out, inp], stderr=subprocess.PIPE)
    if p.returncode != 0:
        fail("%s: tconv exit %d: %s" % (name, p.returncode, p.stderr.decode()[:300]))
        return
    data = open(out, "rb").read()
    js = os.path.join(work, name + ".js")
    with open(js, "w") as f:
        f.write("speedscope.loadFileFromBase64(%s, %s)" %
                (json.dumps(name + ".json"), json.dumps(base64.b64encode(data).decode())))
    url = "file://%s/index.html#localProfilePath=%s" % (release, js)
    with tempfile.TemporaryDirectory(dir=work) as profile:
        r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                            "--no-first-run", "--user-data-dir=" + profile,
                            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000",
                            "--dump-dom", url], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=300)
    dom = r.stdout.decode("utf-8", "replace")
    console = [l for l in r.stderr.decode("utf-8", "replace").splitlines() if ":CONSOLE" in l]
    if not any("Importing as Trace Event Format profile" in l for l in console):
        fail("%s: speedscope did not import it as a Trace Event profile: %s" % (name, console[:3]))
    # "Ending X instead" (an E whose args differ from its B's) is speedscope ending the right
    # slice; "Doing nothing instead" and "still open" are slices it could not pair.
    bad = [l for l in console
           if "Failed" in l or "Doing nothing instead" in l or "still open" in l]
    if bad:
        fail("%s: speedscope: %d complaints, first: %s" % (name, len(bad), bad[0][:300]))
    if "Something went wrong" in dom:
        fail("%s: speedscope shows an error" % name)
    # The profile list: '#', 'Name', 'Total Weight', then rows of index, name, weight.
    text = [t.strip() for t in re.sub(r"<[^>]+>", "\n", dom).split("\n") if t.strip()]
    events = json.load(open(out))["traceEvents"]
    want = {k: v for k, v in busy_us(events).items() if v > 0}
    if "Total Weight" not in text:
        # One thread: speedscope shows its label, and no list.
        labels = [t for t in text if re.search(r"pid [^,)\s]+.*?tid [^,)\s]+", t)]
        if len(want) != 1 or len(labels) != 1:
            fail("%s: speedscope shows %d thread labels, the file has %d threads with slices" %
                 (name, len(labels), len(want)))
        else:
            print("%s: 1 thread: %s" % (name, labels[0]))
        return
    at = text.index("Total Weight") + 1
    rows = []
    while at + 2 < len(text) and text[at].isdigit():
        rows.append((text[at + 1],) + parse_weight(text[at + 2]))
        at += 3
    if len(rows) != len(want):
        fail("%s: speedscope lists %d threads, the file has %d with slices" %
             (name, len(rows), len(want)))
    for label, weight, slack in rows:
        m = re.search(r"pid ([^,)\s]+).*?tid ([^,)\s]+)", label)
        if not m or weight is None:
            fail("%s: cannot read the row %r %r" % (name, label, weight))
            continue
        pid, tid = m.group(1), m.group(2)
        match = [v for (p, t), v in want.items() if str(p) == pid and str(t) == tid]
        if not match:
            fail("%s: speedscope lists %s, which the file does not have" % (name, label))
        elif abs(match[0] - weight) > slack * (1 + 1e-9):
            fail("%s: %s: speedscope's total %.3f µs (± %g as shown), busy time %.3f µs" %
                 (name, label, weight, slack, match[0]))
    print("%s: %d threads, totals agree" % (name, len(rows)))


def main():
    tconv, chromium, release, work = sys.argv[1:5]
    if not shutil.which(chromium) and not os.path.exists(chromium):
        print("chromium not installed (.ci/install-deps installs it): skipped")
        return 77
    if not os.path.exists(os.path.join(release, "index.html")):
        print("speedscope not installed at %s (.ci/install-deps installs it): skipped" % release)
        return 77
    os.makedirs(work, exist_ok=True)
    for inp in sys.argv[5:]:
        if os.path.exists(inp):
            check(tconv, chromium, release, work, inp)
        else:
            print("absent, not checked: " + inp)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
