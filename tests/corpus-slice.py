#!/usr/bin/env python3
"""Rebuilds tests/corpus/, the in-tree slice of the project's corpus, from a full corpus.

The slice keeps the full corpus's layout (<source>/<path inside the source's repository>) so that
test lists name the same paths in both; every file is a byte-exact copy. Which files: the list in
tests/corpus-slice.txt. Their provenance (repository, commit, license, and for generated
expected outputs the command that made them) is carried over from the full corpus's SOURCES.md
into tests/corpus/SOURCES.md, which must stay next to the data: the CDDL and MPL files keep their
attribution there.

usage: corpus-slice.py FULL_CORPUS_DIR
"""

import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIST = os.path.join(HERE, "corpus-slice.txt")
SLICE = os.path.join(HERE, "corpus")


def read_list():
    with open(LIST, encoding="utf-8") as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def parse_sources(text):
    """Source table, per-source headings, inventory rows and generated-file rows."""
    sources = {}  # dir -> (repository link, commit, license)
    for m in re.finditer(r"^\| `([^`/]+)/` \| (\[[^]]+\]\([^)]+\)) \| `([0-9a-f]+)` \| ([^|]+) \|",
                         text, re.M):
        sources[m.group(1)] = (m.group(2), m.group(3), m.group(4).strip())
    headings = {}  # dir -> the "Repository ..., commit ..., license ..." line
    rows = {}  # corpus path -> inventory table row
    current = None
    for line in text.splitlines():
        m = re.match(r"^### (\S+) — ", line)
        if m:
            current = m.group(1) if m.group(1) in sources else None
            continue
        if current and line.startswith("Repository "):
            headings[current] = line
        elif current and line.startswith("| `"):
            rel = line.split("`")[1]
            rows[current + "/" + rel] = line
    generated = {}  # corpus path -> (section title, table row)
    section = None
    for line in text.splitlines():
        if line.startswith("### "):
            section = line[4:]
        elif line.startswith("| `_generated/"):
            generated[line.split("`")[1]] = (section, line)
    return sources, headings, rows, generated


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    full = sys.argv[1]
    with open(os.path.join(full, "SOURCES.md"), encoding="utf-8") as f:
        sources, headings, rows, generated = parse_sources(f.read())
    files = read_list()
    missing = [p for p in files if not os.path.isfile(os.path.join(full, p))]
    unknown = [p for p in files if p not in rows and p not in generated]
    if missing or unknown:
        for p in missing:
            print("not in the full corpus: " + p, file=sys.stderr)
        for p in unknown:
            print("no provenance in its SOURCES.md: " + p, file=sys.stderr)
        return 1

    shutil.rmtree(SLICE, ignore_errors=True)
    for p in files:
        os.makedirs(os.path.dirname(os.path.join(SLICE, p)), exist_ok=True)
        shutil.copyfile(os.path.join(full, p), os.path.join(SLICE, p))

    total = sum(os.path.getsize(os.path.join(SLICE, p)) for p in files)
    used = sorted({p.split("/", 1)[0] for p in files} - {"_generated"})
    out = []
    out.append("# tconv in-tree test corpus — sources and licenses\n")
    out.append("A slice of the project's full corpus of real, public trace and profile files, so that "
               "the test suite\nmeans something on a fresh clone. Every file is a byte-exact copy of "
               "the file of the same path\nin the full corpus, which in turn is a byte-exact copy of "
               "a file of a public git repository\n(`<source>/<path in that repository>`), except "
               "`_generated/`: expected outputs made by the\nreference tools with the commands listed "
               "below. Nothing here is code.\n")
    out.append("Total: %d files, %d bytes. Listed in `tests/corpus-slice.txt`; rebuilt from a full "
               "corpus with\n`tests/corpus-slice.py FULL_CORPUS_DIR`.\n" % (len(files), total))
    out.append("Keep this file next to the data when redistributing: the CDDL-1.0 files (FlameGraph, "
               "inferno) and\nthe MPL-2.0 files (firefox-profiler) keep their source attribution "
               "here and are not relicensed;\nthe other sources are under MIT, BSD-3-Clause, "
               "Apache-2.0 and the Unlicense, as listed.\n")
    out.append("## Sources\n")
    out.append("| source dir | repository | commit | license | files |")
    out.append("|---|---|---|---|---:|")
    for s in used:
        repo, commit, lic = sources[s]
        n = sum(1 for p in files if p.startswith(s + "/"))
        out.append("| `%s/` | %s | `%s` | %s | %d |" % (s, repo, commit, lic, n))
    out.append("")
    gen = [p for p in files if p.startswith("_generated/")]
    if gen:
        out.append("## Generated expected outputs (`_generated/`)\n")
        out.append("Made locally from the corpus inputs named in each row, with FlameGraph "
                   "(CDDL-1.0) at the commit in\nthe section title; they are outputs of those "
                   "tools on the inputs and carry the inputs' licenses.\n")
        section = None
        for p in gen:
            title, row = generated[p]
            if title != section:
                section = title
                out.append("### " + title + "\n")
                out.append("| generated file | input | command | lines | bytes |")
                out.append("|---|---|---|---:|---:|")
            out.append(row)
        out.append("")
    out.append("## Files\n")
    for s in used:
        out.append("### " + s + "\n")
        out.append(headings[s] + "\n")
        out.append("| path (under `%s/`) | kind | bytes (stored) | bytes (uncompressed) | details "
                   "| paired expected output |" % s)
        out.append("|---|---|---:|---:|---|---|")
        for p in files:
            if p.startswith(s + "/"):
                out.append(rows[p])
        out.append("")
    with open(os.path.join(SLICE, "SOURCES.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    print("%d files, %d bytes in %s" % (len(files), total, os.path.relpath(SLICE)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
