#!/usr/bin/env python3
"""Checks a differential flamegraph SVG (-W diff=true) against difffolded.pl's output for the
same two inputs: lines "stack count_before count_after" (difffolded.pl before after).

usage: check_diff.py SVG DIFFFOLDED [MINWIDTH]

- every drawn frame's before and after values (data-b, data-a) are the sums of the two columns
  over the lines under its stack, its width value (data-v) the column the graph is sized by
  (data-diff), and its own change (data-s) that of the line ending at it, as flamegraph.pl
  takes a frame's delta;
- its fill is flamegraph.pl's colour for that change: white, red (grew) or blue (shrank) in 210
  steps of the largest change of any line;
- every stack prefix whose sized value is at least MINWIDTH pixels wide (default 0) is drawn,
  and no other; the frames present only in the other profile are counted in the subtitle;
- each title starts with the frame's name and gives after, before, change and self.
Exit 0 and one summary line when all hold; 1 and the first differences otherwise.
"""
import bisect
import re
import sys
import xml.etree.ElementTree as ET

from check_svg import NS, folded_name, report


def colour_scale(value, maxdelta):
    """flamegraph.pl's color_scale, for one frame's delta."""
    r = g = b = 255
    if value > 0:
        g = b = int(210 * (maxdelta - value) / maxdelta)
    elif value < 0:
        r = g = int(210 * (maxdelta + value) / maxdelta)
    return "rgb(%d,%d,%d)" % (r, g, b)


def main():
    svg_path, diff_path = sys.argv[1], sys.argv[2]
    minwidth = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    errors = []
    root = ET.parse(svg_path).getroot()
    sized = root.get("data-diff")
    if sized not in ("after", "before"):
        print("FAIL: the svg is not a differential graph (data-diff=%r)" % sized)
        return 1
    total = int(root.get("data-total"))
    inner = float(root.get("data-inner"))
    icicle = root.get("data-icicle") == "1"

    # difffolded's side: both columns summed over every prefix, each line's own delta
    before, after, own = {(): 0}, {(): 0}, {}
    maxdelta = 1  # flamegraph.pl starts from 1
    with open(diff_path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            m = re.match(r"^(.*)\s+?(\d+)\s+?(\d+)$", line)
            if not m:
                errors.append("not a difffolded line: %r" % line)
                continue
            parts = tuple(folded_name(p) for p in m.group(1).split(";"))
            c1, c2 = int(m.group(2)), int(m.group(3))
            own[parts] = own.get(parts, 0) + c2 - c1
            maxdelta = max(maxdelta, abs(c2 - c1))
            for i in range(len(parts) + 1):
                before[parts[:i]] = before.get(parts[:i], 0) + c1
                after[parts[:i]] = after.get(parts[:i], 0) + c2
    width = after if sized == "after" else before
    other = before if sized == "after" else after

    frames = []
    box = [g for g in root.iter(NS + "g") if g.get("id") == "frames"][0]
    for g in box:
        title = g.find(NS + "title").text or ""
        rect = g.find(NS + "rect")
        frames.append({
            "title": title, "name": title[: title.rfind(" (")], "o": int(g.get("data-o")),
            "v": int(g.get("data-v")), "b": int(g.get("data-b")), "a": int(g.get("data-a")),
            "s": int(g.get("data-s")), "y": int(rect.get("y")), "fill": rect.get("fill"),
        })
    if total != width[()]:
        errors.append("total %d, the %s column sums to %d" % (total, sized, width[()]))
    if not frames:
        return report(errors + (["no frames"] if total else []), 0)

    # each frame's stack, from the geometry (depth from y, parent by offset)
    root_y = frames[0]["y"]
    levels = {}
    for fr in frames:
        d = (fr["y"] - root_y) // 16 if icicle else (root_y - fr["y"]) // 16
        levels.setdefault(d, []).append(fr)
    for d in levels:
        levels[d].sort(key=lambda fr: fr["o"])
    for fr in levels[0]:
        fr["path"] = ()
    for d in sorted(levels):
        if d == 0:
            continue
        starts = [p["o"] for p in levels.get(d - 1, [])]
        for fr in levels[d]:
            i = bisect.bisect_right(starts, fr["o"]) - 1
            if i < 0 or "path" not in levels[d - 1][i]:
                errors.append("frame %r at depth %d has no parent" % (fr["name"], d))
                fr["path"] = None
                continue
            fr["path"] = levels[d - 1][i]["path"] + (folded_name(fr["name"]),)

    scale = inner / total if total else 0
    got = set()
    for fr in frames:
        p = fr["path"]
        if p is None:
            continue
        got.add(p)
        label = ";".join(p) or "all"
        want = (before.get(p, 0), after.get(p, 0), width.get(p, 0), own.get(p, 0))
        if (fr["b"], fr["a"], fr["v"], fr["s"]) != want:
            errors.append("%s: svg before/after/width/self %s, difffolded %s"
                          % (label, (fr["b"], fr["a"], fr["v"], fr["s"]), want))
        if fr["fill"] != colour_scale(want[3], maxdelta):
            errors.append("%s: fill %s, flamegraph.pl's %s for %+d of %d"
                          % (label, fr["fill"], colour_scale(want[3], maxdelta), want[3], maxdelta))
        if not re.search(r" \(after [^;]*; before [^;]*; change [^;]*; self [-+]?[0-9]", fr["title"]):
            errors.append("%s: title %r" % (label, fr["title"]))
    drawn = {p for p, v in width.items() if v > 0 and v * scale >= minwidth}
    for p in sorted(drawn ^ got):
        errors.append("%s: %s" % (";".join(p) or "all",
                                  "drawn, but not in difffolded's %s column" % sized if p in got
                                  else "missing (width %d)" % width[p]))
    hidden = sum(1 for p, v in other.items()
                 if v > 0 and width.get(p, 0) == 0 and p and width.get(p[:-1], 0) > 0)
    sub = [e for e in root.iter(NS + "text") if e.get("id") == "subtitle"]
    text = sub[0].text if sub else ""
    m = re.search(r" (\d+) frames? only in (before|after)", text or "")
    if (int(m.group(1)) if m else 0) != hidden or (m and m.group(2) == sized):
        errors.append("subtitle %r, expected %d frames only in the other profile" % (text, hidden))
    if errors:
        return report(errors, len(frames))
    print("ok: %d frames agree with difffolded (%d only in the other profile)" % (len(frames), hidden))
    return 0


if __name__ == "__main__":
    sys.exit(main())
