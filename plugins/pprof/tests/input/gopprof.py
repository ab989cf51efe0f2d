"""go tool pprof's text views, parsed: the independent side of the pprof reader's tests.

Every call runs with -symbolize=none, so that pprof neither looks for the profiled binaries nor
rewrites names it takes for undemangled symbols: the names stay those of the profile, which is
what the reader reads. Values are asked in their base unit (-unit=ns, -unit=B) so that none is
rounded for display."""
import re
import subprocess

UNIT_FLAG = {"nanoseconds": "ns", "microseconds": "us", "milliseconds": "ms", "seconds": "s",
             "bytes": "B"}


def run(args):
    p = subprocess.run(["go", "tool", "pprof", "-symbolize=none"] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("go tool pprof %s: %s" % (" ".join(args), p.stderr.decode()[:400]))
    return p.stdout.decode("utf-8", "replace")


def sample_types(path):
    """[(type, unit), ...] from -raw's header line, and the default index pprof uses."""
    raw = run(["-raw", path])
    lines = raw.splitlines()
    i = lines.index("Samples:")
    # "[dflt]" marks a default_sample_type the profile names
    types = [tuple(t.replace("[dflt]", "").split("/", 1)) for t in lines[i + 1].split()]
    return types


def unit_args(unit):
    u = UNIT_FLAG.get(unit)
    return ["-unit=" + u] if u else []


def number(text):
    """A -top or -traces value in the base unit: "10000000ns", "6553600B", "190"."""
    m = re.fullmatch(r"(-?[0-9]+(?:\.[0-9]+)?)(ns|us|ms|s|B)?", text)
    if not m:
        raise ValueError("not a value: %r" % text)
    return int(m.group(1)) if "." not in m.group(1) else float(m.group(1))


def top(path, index, unit):
    """{function: (flat, cum)} from -top with every node shown."""
    out = run(["-top", "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0",
               "-sample_index=%d" % index] + unit_args(unit) + [path])
    res = {}
    body = False
    for line in out.splitlines():
        if re.match(r"\s*flat\s+flat%\s+sum%\s+cum\s+cum%", line):
            body = True
            continue
        if not body or not line.strip():
            continue
        parts = line.split(None, 5)
        name = parts[5]
        if name.endswith(" (inline)"):
            name = name[:-len(" (inline)")]
        flat, cum = number(parts[0]), number(parts[3])
        old = res.get(name, (0, 0))
        res[name] = (old[0] + flat, old[1] + cum)
    return res


def traces(path, index, unit):
    """[(value, [frame, ...] leaf first), ...] from -traces."""
    out = run(["-traces", "-sample_index=%d" % index] + unit_args(unit) + [path])
    blocks = out.split("-----------+-------------------------------------------------------")
    res = []
    for b in blocks[1:]:
        value, frames = None, []
        for line in b.splitlines():
            if not line.strip():
                continue
            if value is None:
                first, rest = line.split(None, 1) if len(line.split(None, 1)) == 2 else (line, "")
                if first.endswith(":"):
                    continue  # a label: "thread_id:  2115135"
                value = number(first)
                frames.append(rest.strip())
                continue
            frames.append(line.strip())
        if value is not None:
            # pprof marks an inlined call; the reader flags the frame instead
            res.append((value, [re.sub(r" \(inline\)$", "", f) for f in frames]))
    return res


def raw_samples(path, unsymbolized=None):
    """{(frame, ...) root first: [value per type]} summed, from -raw, each location's lines
    expanded (its inlined functions, caller first); a location without a function is named
    by unsymbolized[id] when given."""
    out = run(["-raw", path]).splitlines()
    i = out.index("Samples:") + 2
    samples = []
    while i < len(out) and out[i] != "Locations":
        m = re.match(r"\s*([-0-9 ]+):((?: [0-9]+)*) ?$", out[i])
        if m:
            samples.append(([int(v) for v in m.group(1).split()],
                            [int(x) for x in m.group(2).split()]))
        i += 1
    locs = {}
    i += 1
    cur = None
    while i < len(out) and out[i] != "Mappings":
        m = re.match(r"\s*([0-9]+): 0x[0-9a-f]+ (?:M=[0-9]+ )?(.*)$", out[i])
        if m:
            cur = int(m.group(1))
            if m.group(2).strip():
                locs[cur] = [m.group(2)]
            else:
                locs[cur] = [(unsymbolized or {}).get(cur, "?")]
        elif cur is not None and out[i].strip():
            locs[cur].append(out[i].strip())
        i += 1

    def func(line):
        # "name file:line s=start": the function name is all but the last two fields
        parts = line.rsplit(" ", 2)
        return parts[0] if len(parts) == 3 and parts[2].startswith("s=") else line

    res = {}
    for values, ids in samples:
        frames = []
        for lid in reversed(ids):
            frames.extend(func(l) for l in reversed(locs.get(lid, ["?"])))
        key = tuple(frames)
        old = res.get(key)
        res[key] = values if old is None else [a + b for a, b in zip(old, values)]
    return res
