#!/usr/bin/env python3
"""Flame graphs in a real browser: headless chromium loads each SVG from file://, runs its script
and prints the DOM (--dump-dom), which is then checked against what the SVG file says.

usage: browser.py CHROMIUM WORKDIR SMALL.svg ICICLE.svg HOSTILE.svg DIFF.svg [CORPUS.svg]

Checks: the script ran to its end (data-ready) with nothing on the console; ?s= highlights
exactly the frames whose names match and shows their share counted once; ?x=&y= zooms (the
frame spans the width, its ancestors stay as parents, the rest hides); a term that is not a
regular expression is matched as text; the hostile names stay text (no element, attribute or
script of theirs exists in the DOM); a differential graph draws every frame of the file, grown
frames red, shrunk ones blue and unchanged ones white, and searches its names. Search is the
graph's own text box: text typed into it (over the DevTools protocol, as keystrokes) highlights
the matching frames as it comes, Escape clears it, and no dialog is ever opened nor anything
written on the console; the legend names the colour classes drawn. Screenshots go to WORKDIR as
artifacts.
Exit 0 when all hold, 1 when one fails, 77 when chromium cannot run here.
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def chromium(binary, workdir, url, extra):
    with tempfile.TemporaryDirectory(dir=workdir) as profile:
        cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
               "--virtual-time-budget=5000"] + extra + [url]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def load(binary, workdir, svg, params):
    """The DOM after the script ran, parsed; None (and a failure) when it cannot be had."""
    url = pathlib.Path(svg).resolve().as_uri()
    if params:
        url += "?" + urllib.parse.urlencode(params)
    rc, out, err = chromium(binary, workdir, url, ["--dump-dom"])
    console = [l for l in err.splitlines() if ":CONSOLE" in l]
    if console:
        fail("%s %s: console output: %s" % (os.path.basename(svg), params, console[:3]))
    start = out.find("<svg")
    if rc != 0 or start < 0:
        fail("%s: chromium exit %d, no DOM" % (svg, rc))
        return None
    try:
        return ET.fromstring(out[start:])
    except ET.ParseError as e:
        fail("%s: the dumped DOM does not parse: %s" % (svg, e))
        return None


def frames_of(root):
    box = [g for g in root.iter(NS + "g") if g.get("id") == "frames"][0]
    out = []
    for g in box:
        title = g.find(NS + "title").text or ""
        rect = g.find(NS + "rect")
        out.append({
            "name": title[: title.rfind(" (")], "title": title, "o": int(g.get("data-o")),
            "v": int(g.get("data-v")), "y": int(rect.get("y")), "x": float(rect.get("x")),
            "w": float(rect.get("width")), "fill": rect.get("fill"),
            "cls": set((g.get("class") or "").split()),
        })
    return out


def by_id(root, ident):
    for e in root.iter():
        if e.get("id") == ident:
            return e
    return None


def covered(frames):
    """The value the frames cover, each time counted once (nested frames inside an outer one)."""
    total, end = 0, -1
    for f in sorted(frames, key=lambda f: (f["o"], -f["v"])):
        if f["o"] < end:
            continue
        total += f["v"]
        end = f["o"] + f["v"]
    return total


def check_ready(label, dom):
    if dom.get("data-ready") != "1":
        fail("%s: the script did not run to its end" % label)


def check_search(label, dom, before, matches):
    """matches(name) -> bool says which frames the search must highlight."""
    after = frames_of(dom)
    total = int(dom.get("data-total"))
    want = [f for f in before if matches(f["name"])]
    got = [f for f in after if "match" in f["cls"]]
    if sorted(f["title"] for f in got) != sorted(f["title"] for f in want):
        fail("%s: highlighted %s, expected %s" % (label, [f["name"] for f in got],
                                                    [f["name"] for f in want]))
    for f in got:
        if f["fill"] != "rgb(230,0,230)":
            fail("%s: %r is marked but not drawn highlighted" % (label, f["name"]))
    share = covered(want)
    m = by_id(dom, "matched")
    if m is None or m.get("data-v") != str(share):
        fail("%s: matched value %s, expected %d" % (label, m.get("data-v") if m is not None else None,
                                                    share))
    text = "Matched: %.1f%%" % (100.0 * share / total)
    if m is None or (m.text or "") != text:
        fail("%s: shows %r, expected %r" % (label, m.text if m is not None else None, text))
    return want


def check_zoom(label, dom, before, target, icicle):
    after = frames_of(dom)
    inner = float(dom.get("data-inner"))
    xpad = float(dom.get("data-xpad"))
    scale = inner / target["v"]
    for b, a in zip(before, after):
        beyond = a["y"] < target["y"] if icicle else a["y"] > target["y"]
        covers = b["o"] <= target["o"] and b["o"] + b["v"] >= target["o"] + target["v"]
        inside = not beyond and b["o"] >= target["o"] and b["o"] + b["v"] <= target["o"] + target["v"]
        if beyond and covers:
            ok = "parent" in a["cls"] and "hide" not in a["cls"] and abs(a["w"] - inner) < 0.06
        elif inside:
            ok = ("hide" not in a["cls"] and abs(a["x"] - (xpad + (b["o"] - target["o"]) * scale)) < 0.06
                  and abs(a["w"] - b["v"] * scale) < 0.06)
        else:
            ok = "hide" in a["cls"]
        if not ok:
            fail("%s: after zooming to %r, %r is drawn x=%.1f w=%.1f class=%s"
                 % (label, target["name"], a["name"], a["x"], a["w"], sorted(a["cls"])))
    unzoom = by_id(dom, "unzoom")
    if unzoom is None or "hide" in (unzoom.get("class") or "").split():
        fail("%s: Reset Zoom is not shown while zoomed" % label)


def self_contained(svg):
    """Nothing in the file's markup or style refers outside it (the browser would fetch it)."""
    for e in ET.parse(svg).getroot().iter():
        for k, v in e.attrib.items():
            if k.split("}")[-1] in ("href", "src") or re.search(r"url\((?!#)", v):
                fail("%s: <%s %s=%r> refers outside the file" % (svg, e.tag, k, v))
        if e.tag == NS + "style" and re.search(r"@import|url\((?!#)", e.text or ""):
            fail("%s: its style refers outside the file" % svg)


TYPE_JS = """(function () {
  var m = document.getElementById('matched');
  var t = document.getElementById('term');
  return {value: t ? t.value : null, matched: m.getAttribute('data-v'),
          text: m.textContent, focused: document.activeElement && document.activeElement.id,
          hits: Array.from(document.querySelectorAll('#frames > g.match')).map(function (g) {
            return g.querySelector('title').textContent; })};
})()"""


def check_typing(binary, workdir, svg):
    """Keystrokes into the search box highlight as they come; Escape clears; no dialog."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "html", "tests"))
    import cdp
    before = frames_of(ET.parse(svg).getroot())
    b = cdp.Chromium(binary, workdir)
    try:
        s = b.open_page()
        b.send("Page.navigate", {"url": pathlib.Path(svg).resolve().as_uri()}, session=s)
        for _ in range(100):
            b.pump(0.1)
            if b.evaluate(s, "document.documentElement.getAttribute('data-ready')") == "1":
                break
        # Ctrl+F gives the box the focus, as flamegraph.pl's graphs do
        for kind in ("rawKeyDown", "keyUp"):
            b.send("Input.dispatchKeyEvent", {"type": kind, "key": "f", "code": "KeyF",
                                              "windowsVirtualKeyCode": 70, "modifiers": 2},
                   session=s)
        b.send("Input.insertText", {"text": "aten"}, session=s)
        got = b.evaluate(s, TYPE_JS)
        want = [f for f in before if "aten" in f["name"]]
        if got["focused"] != "term" or got["value"] != "aten" or \
                sorted(got["hits"]) != sorted(f["title"] for f in want) or \
                got["matched"] != str(covered(want)):
            fail("typing 'aten' into the search box: %s, expected %d frames, %d"
                 % (got, len(want), covered(want)))
        for kind in ("rawKeyDown", "keyUp"):
            b.send("Input.dispatchKeyEvent", {"type": kind, "key": "Escape", "code": "Escape",
                                              "windowsVirtualKeyCode": 27}, session=s)
        got = b.evaluate(s, TYPE_JS)
        if got["value"] != "" or got["hits"] or got["matched"] is not None:
            fail("Escape did not clear the search: %s" % got)
        for e in b.events:
            m, p = e.get("method"), e.get("params", {})
            if m in ("Runtime.consoleAPICalled", "Runtime.exceptionThrown",
                     "Page.javascriptDialogOpening") or \
                    (m == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning")):
                fail("typing: %s %s" % (m, json.dumps(p)[:300]))
        print("typing: 'aten' highlights %d frames, Escape clears" % len(want))
    except TimeoutError as e:
        dialogs = [m for m in b.events if m.get("method") == "Page.javascriptDialogOpening"]
        fail("typing: the page stopped answering (%s)%s" % (e, ", a dialog opened: %s" % dialogs[0]
                                                            if dialogs else ""))
    finally:
        b.close()


def main():
    binary, workdir, small, icicle, hostile, diff = sys.argv[1:7]
    corpus = sys.argv[7] if len(sys.argv) > 7 else None
    os.makedirs(workdir, exist_ok=True)
    for svg in sys.argv[3:]:
        self_contained(svg)

    # can chromium run here at all?
    probe = os.path.join(workdir, "probe.svg")
    with open(probe, "w") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg"><script><![CDATA['
                'document.documentElement.setAttribute("data-ran","1");]]></script></svg>\n')
    try:
        rc, out, err = chromium(binary, workdir, pathlib.Path(probe).resolve().as_uri(), ["--dump-dom"])
    except (OSError, subprocess.TimeoutExpired) as e:
        print("chromium cannot run here (%s): skipped" % e)
        return 77
    if 'data-ran="1"' not in out:
        print("chromium does not run scripts here (exit %d): skipped\n%s" % (rc, err[-2000:]))
        return 77

    # 1. search with a regular expression while zoomed into aten::addmm
    before = frames_of(ET.parse(small).getroot())
    target = [f for f in before if f["name"] == "aten::addmm"][0]
    dom = load(binary, workdir, small, {"s": "^cu", "x": target["o"], "y": target["y"]})
    if dom is not None:
        check_ready("small", dom)
        if len(check_search("small ^cu", dom, before, lambda n: re.search("^cu", n))) != 4:
            fail("small ^cu: expected the four runtime and driver calls")
        check_zoom("small", dom, before, target, False)

    # 2. icicle: a term that is no regular expression is text; zoom into aten::linear
    before = frames_of(ET.parse(icicle).getroot())
    target = [f for f in before if f["name"] == "aten::linear"][0]
    dom = load(binary, workdir, icicle, {"s": "(12", "x": target["o"], "y": target["y"]})
    if dom is not None:
        check_ready("icicle", dom)
        if len(check_search("icicle (12", dom, before, lambda n: "(12" in n)) != 1:
            fail("icicle (12: expected one frame")
        check_zoom("icicle", dom, before, target, True)

    # 3. hostile names: text, never markup or script
    src = ET.parse(hostile).getroot()
    before = frames_of(src)
    dom = load(binary, workdir, hostile, {"s": "<script>"})
    if dom is not None:
        check_ready("hostile", dom)
        check_search("hostile <script>", dom, before, lambda n: "<script>" in n)
        own_box = [e for e in dom.iter() if e.get("id") == "searchbox"]
        for e in dom.iter():
            tag = e.tag.split("}")[-1]
            if any(k == "data-pwned" or k.lower().startswith("on") for k in e.attrib):
                fail("hostile: an element carries %s" % sorted(e.attrib))
            if tag in ("img", "foreignObject", "body", "svg") and e is not dom and \
                    e not in own_box:
                fail("hostile: a <%s> element appeared" % tag)
        if len(own_box) != 1 or [c.tag.split("}")[-1] for c in own_box[0].iter()] != \
                ["foreignObject", "input"]:
            fail("hostile: the search box is not the graph's one input")
        if len([e for e in dom.iter() if e.tag.split("}")[-1] == "script"]) != 1:
            fail("hostile: more than the graph's own script")
        names = sorted(f["title"] for f in frames_of(dom))
        if names != sorted(f["title"] for f in before):
            fail("hostile: the titles in the browser differ from the file's")
        if not any("</script>" in n for n in names) or not any("]]>" in n for n in names):
            fail("hostile: the hostile names are not shown as text")

    # 4. a differential graph: every frame drawn, coloured by its own change, names searchable
    src = ET.parse(diff).getroot()
    before = frames_of(src)
    change = {}
    for g in [g for g in src.iter(NS + "g") if g.get("id") == "frames"][0]:
        change[g.find(NS + "title").text] = int(g.get("data-s"))
    dom = load(binary, workdir, diff, {})
    if dom is not None:
        check_ready("diff", dom)
        after = frames_of(dom)
        if len(after) != len(before) or len(after) < 10:
            fail("diff: %d frames in the browser, %d in the file" % (len(after), len(before)))
        kinds = set()
        for f in after:
            r, g, b = map(int, re.findall(r"\d+", f["fill"]))
            s = change.get(f["title"])
            kind = "red" if r == 255 and g == b < 255 else "blue" if b == 255 and r == g < 255 \
                else "white" if r == g == b == 255 else "other"
            want = "red" if s > 0 else "blue" if s < 0 else "white"
            kinds.add(kind)
            if kind != want:
                fail("diff: %r changed by %d is drawn %s (%s)" % (f["name"], s, kind, f["fill"]))
        if kinds != {"red", "blue", "white"}:
            fail("diff: expected red, blue and white frames, got %s" % sorted(kinds))
    dom = load(binary, workdir, diff, {"s": "aten::"})
    if dom is not None:
        check_ready("diff aten::", dom)
        if len(check_search("diff aten::", dom, before, lambda n: "aten::" in n)) != 3:
            fail("diff aten::: expected aten::linear, aten::addmm and aten::relu")

    # 5. search by typing into the graph's own box, over the DevTools protocol
    check_typing(binary, workdir, small)

    # 6. the legend names the colour classes of the frames drawn
    legend = by_id(ET.parse(small).getroot(), "legend")
    names = [t.text for t in legend.iter(NS + "text")] if legend is not None else []
    if names[:3] != ["CPU", "Python", "annotation, step"] or "kernel" not in names:
        fail("small: the legend says %s" % names)

    # 7. screenshots, kept as artifacts
    shots = [(small, "flamegraph-small.png"), (diff, "flamegraph-diff.png")]
    if corpus:
        shots.append((corpus, "flamegraph-kineto.png"))
    for svg, png in shots:
        out = os.path.join(workdir, png)
        if os.path.exists(out):
            os.remove(out)
        height = int(ET.parse(svg).getroot().get("height"))
        chromium(binary, workdir, pathlib.Path(svg).resolve().as_uri(),
                 ["--screenshot=" + out, "--window-size=1200,%d" % min(height, 4000),
                  "--hide-scrollbars"])
        with open(out, "rb") if os.path.exists(out) else open(os.devnull, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                fail("no screenshot of %s" % svg)
            else:
                print("screenshot: %s" % out)

    if FAILS:
        print("%d checks failed" % len(FAILS))
        return 1
    print("ok: search, zoom, hostile names and screenshots in %s" % binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
