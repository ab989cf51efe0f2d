"""Normalises a text-ordered dump for the chrome writer's round trip.
- Flow ids, which the Chrome reader hashes from (category, name, id text) and the writer writes
  as the hash, are renumbered in order of first use.
- Tracks are named by (input, pid, tid) rather than by id, and each track's events are compared
  as a block in that order: the writer writes the ordering stage's lanes of a GPU stream as
  tids of their own ("stream 7 #2"), which read back as tracks created where they first occur
  rather than after all others, so ids and the order of the blocks shift.
- The thread_name metadata the writer writes for such a lane is left out: the ordering stage
  names its lanes without an event.
- A process or thread name given without args (systemTraceEvents' p and t records) is written
  as an M event, which carries them: args {"name": <the name>} are dropped from such lines.
Everything else is compared as it is.
usage: roundtrip_norm.py IN OUT"""
import re
import sys

Q = r'"((?:[^"\\]|\\.)*)"'
TRACK = re.compile(r"^track T(\d+) input=(\d+) kind=\S+ pid=" + Q + " tid=" + Q)
REF = re.compile(r" T(\d+)\b")
NAMEARGS = re.compile(r'name="(?:process|thread)_name" text=' + Q + ' args=\{"name":' + Q + r"\}$")
LANE = re.compile(r" #\d+$")

lines = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read().split("\n")
keys = {}
for line in lines:
    m = TRACK.match(line)
    if m:
        keys[m.group(1)] = "T[%s|%s|%s]" % (m.group(2), m.group(3), m.group(4))
ids = {}


def renumber(m):
    return "id=f%d" % ids.setdefault(m.group(1), len(ids))


meta, blocks, tracks, rest = [], {}, [], []
for line in lines:
    if not line:
        continue
    m = REF.search(line)
    key = keys.get(m.group(1), m.group(0)) if m else None
    if line.startswith("flow-"):
        line = re.sub(r"\bid=(\d+)", renumber, line)
    if m:
        line = line[: m.start()] + " " + key + line[m.end():]
    if line.startswith("track "):
        tracks.append(line)
    elif line.startswith("metadata "):
        tid = key.rsplit("|", 1)[-1][:-1] if key else ""
        if 'name="thread_name"' in line and LANE.search(tid):
            continue
        m2 = NAMEARGS.search(line)
        if m2 and m2.group(1) == m2.group(2):
            line = line[: m2.start(2) - len(' args={"name":"')] + line[m2.end(2) + 2:]
        meta.append(line)
    elif key:
        blocks.setdefault(key, []).append(line)
    else:
        rest.append(line)
with open(sys.argv[2], "w", encoding="utf-8", errors="surrogateescape") as out:
    for part in [meta] + [blocks[k] for k in sorted(blocks)] + [sorted(tracks), rest]:
        for line in part:
            out.write(line + "\n")
