#!/usr/bin/env python3
"""Checks a flamegraph SVG against the folded writer's output for the same input and options.

usage: check_svg.py SVG FOLDED [MINWIDTH]

- the SVG is well-formed XML (xml.etree), with one frame element per drawn frame;
- the root frame's value is the sum of all folded values, and its rect spans the inner width;
- every frame's value is the sum of the folded lines under its stack, and every stack prefix
  whose frame is at least MINWIDTH pixels wide (default 0: all) is drawn, and no other;
- siblings are ordered by name (bytewise) and laid side by side from their parent's offset;
- each rect's x and width are the offset and value scaled to pixels.
Names are compared as both can hold them (folded_name). A GPU stream's root frame (data-stream),
which the folded lines do not have, is taken out of the stacks under it; where such stacks meet
others of the same frames, frames left out for their width are only bounded (never over the
folded sum), as the folded lines cannot say which part was drawn.
Exit 0 and one summary line when all hold; 1 and the first differences otherwise.
"""
import bisect
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def folded_name(s):
    """A name as both outputs can hold it: ';' and line breaks as the folded writer makes them
    safe, the rest as XML can hold it (tab a space, controls and U+FFFE/U+FFFF as U+FFFD)."""
    s = s.replace(";", ":")
    out = []
    for c in s:
        if c in "\t\n\r":
            c = " "
        elif ord(c) < 0x20 or c in "\ufffe\uffff":
            c = "\ufffd"
        out.append(c)
    return "".join(out)


def main():
    svg_path, folded_path = sys.argv[1], sys.argv[2]
    minwidth = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    errors = []
    root = ET.parse(svg_path).getroot()
    if root.tag != NS + "svg":
        print("FAIL: root element is %s, not svg" % root.tag)
        return 1
    total = int(root.get("data-total"))
    inner = float(root.get("data-inner"))
    xpad = float(root.get("data-xpad"))
    icicle = root.get("data-icicle") == "1"
    box = [g for g in root.iter(NS + "g") if g.get("id") == "frames"]
    if len(box) != 1:
        print("FAIL: expected one <g id=\"frames\">")
        return 1
    frames = []
    for g in box[0]:
        title = g.find(NS + "title").text or ""
        rect = g.find(NS + "rect")
        name = title[: title.rfind(" (")]
        frames.append({
            "name": name, "o": int(g.get("data-o")), "v": int(g.get("data-v")),
            "y": int(rect.get("y")), "x": float(rect.get("x")), "w": float(rect.get("width")),
            "stream": g.get("data-stream") == "1",
        })

    # the folded side: every prefix of every stack, summed
    want = {}
    folded_total = 0
    with open(folded_path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            stack, _, value = line.rpartition(" ")
            v = int(value)
            folded_total += v
            if v <= 0:
                continue
            parts = [folded_name(p) for p in stack.split(";")]
            for i in range(1, len(parts) + 1):
                key = tuple(parts[:i])
                want[key] = want.get(key, 0) + v
    if total != folded_total:
        errors.append("total %d, folded lines sum to %d" % (total, folded_total))
    if not frames:
        if total:
            errors.append("no frames drawn for a total of %d" % total)
        return report(errors, 0)

    # rebuild each frame's stack from the geometry: depth from y, parent the frame one level
    # closer to the root whose range holds the frame's offset
    root_y = frames[0]["y"]
    if frames[0]["o"] != 0 or frames[0]["v"] != total or frames[0]["name"] != "all":
        errors.append("the first frame is not the root 'all' spanning the total")
    if abs(frames[0]["w"] - inner) > 0.05:
        errors.append("root width %.1f, expected the inner width %.1f" % (frames[0]["w"], inner))
    levels = {}
    for fr in frames:
        d = (fr["y"] - root_y) // 16 if icicle else (root_y - fr["y"]) // 16
        fr["d"] = d
        levels.setdefault(d, []).append(fr)
    for d in levels:
        levels[d].sort(key=lambda fr: fr["o"])
    scale = inner / total
    got = {}
    children = {}
    spliced = set()
    for d in sorted(levels):
        if d == 0:
            for fr in levels[0]:
                fr["path"] = ()
            continue
        starts = [p["o"] for p in levels.get(d - 1, [])]
        for fr in levels[d]:
            i = bisect.bisect_right(starts, fr["o"]) - 1
            parent = levels[d - 1][i] if i >= 0 else None
            if parent is None or fr["o"] + fr["v"] > parent["o"] + parent["v"]:
                errors.append("frame %r at depth %d lies outside any parent" % (fr["name"], d))
                continue
            children.setdefault(id(parent), (parent, []))[1].append(fr)
            fr["under"] = parent.get("under", False) or parent.get("stream", False)
            if fr["stream"]:
                if d != 1:
                    errors.append("stream frame %r at depth %d, not under the root" % (fr["name"], d))
                fr["path"] = parent["path"]
                continue
            fr["path"] = parent["path"] + (fr["name"],)
            key = tuple(folded_name(n) for n in fr["path"])
            got[key] = got.get(key, 0) + fr["v"]
            if fr["under"]:
                spliced.add(key)
    for fr in frames:
        x = xpad + fr["o"] * scale
        if abs(fr["x"] - x) > 0.051 or abs(fr["w"] - fr["v"] * scale) > 0.051:
            errors.append("frame %r drawn at x=%.1f w=%.1f, expected %.2f %.2f"
                          % (fr["name"], fr["x"], fr["w"], x, fr["v"] * scale))
    for parent, kids in children.values():
        at = parent["o"]
        for k, fr in enumerate(kids):
            # side by side; with frames left out for their width, gaps are theirs
            if fr["o"] != at if minwidth == 0 else fr["o"] < at:
                errors.append("%r starts at %d, its earlier siblings end at %d"
                              % (fr["name"], fr["o"], at))
            at = fr["o"] + fr["v"]
            if k and kids[k - 1]["name"].encode() >= fr["name"].encode():
                errors.append("siblings out of name order: %r then %r"
                              % (kids[k - 1]["name"], fr["name"]))
        if at > parent["o"] + parent["v"]:
            errors.append("children of %r exceed it" % parent["name"])

    drawn = {k: v for k, v in want.items() if v * scale >= minwidth}
    for k in sorted(set(drawn) | set(got)):
        if minwidth > 0 and k in spliced and got.get(k, 0) <= want.get(k, 0):
            continue
        if drawn.get(k) != got.get(k):
            errors.append("%s: folded %s, svg %s" % (";".join(k), drawn.get(k), got.get(k)))
    return report(errors, len(frames))


def report(errors, n):
    if errors:
        for e in errors[:10]:
            print("FAIL: " + e)
        if len(errors) > 10:
            print("... %d more" % (len(errors) - 10))
        return 1
    print("ok: %d frames agree with the folded stacks" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
