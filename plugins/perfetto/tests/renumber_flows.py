"""Second step of the perfetto writer's round-trip normalisation, after
plugins/chrome/tests/roundtrip_norm.py:
- flow ids are renumbered in the order of first use in the normalised dump, whose blocks are
  sorted by track key, so that two dumps compare flow ids by use whatever order their tracks
  were created in;
- the thread_sort_index metadata of a lane ("stream 7 #2") is left out, as the first step leaves
  out its thread_name: the ordering stage gives its lanes both without an event, and the read
  back trace gives them with one.
usage: renumber_flows.py IN OUT"""
import re
import sys

ids = {}
LANE = re.compile(r'^metadata +\S+ T\[[^]]*\|[^]|]* #\d+\] name="thread_sort_index"')


def renumber(m):
    return "id=g%d" % ids.setdefault(m.group(1), len(ids))


with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as f, open(
    sys.argv[2], "w", encoding="utf-8", errors="surrogateescape"
) as out:
    for line in f:
        if LANE.match(line):
            continue
        if line.startswith("flow-"):
            line = re.sub(r"\bid=(f\d+)", renumber, line)
        out.write(line)
