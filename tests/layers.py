#!/usr/bin/env python3
"""The core's layers, checked: every #include between core files, and the rule of
core/CMakeLists.txt (a file includes headers of its own layer and of the layers below it, never
above). Fails, naming them, on an edge that goes up, on a header of a layer that a program
(core/cli, core/check) includes, on a header name two folders share, on an include of a core
header that does not exist, and on a cycle of includes.

    tests/layers.py [SRC]        check SRC (default: this source tree)
    tests/layers.py --self-test  see it fail on a tree with a wrong-way edge, and on a cycle
"""
import os
import re
import shutil
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layers_of(src):
    text = open(os.path.join(src, "core", "CMakeLists.txt")).read()
    m = re.search(r"^set\(TCONV_LAYERS ([^)]*)\)", text, re.M)
    if not m:
        sys.exit("layers: no set(TCONV_LAYERS ...) in core/CMakeLists.txt")
    return m.group(1).split()


def check(src):
    core = os.path.join(src, "core")
    layers = layers_of(src)
    rank = {name: i for i, name in enumerate(layers)}
    programs = ["cli", "check"]
    files = {}  # path relative to core -> its folder
    headers = {}  # header name -> path
    problems = []
    for folder in layers + programs:
        d = os.path.join(core, folder)
        if not os.path.isdir(d):
            problems.append("core/%s: the layer's folder is missing" % folder)
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith((".c", ".h")):
                continue
            rel = folder + "/" + name
            files[rel] = folder
            if name.endswith(".h"):
                if name in headers:
                    problems.append("%s and %s: two headers of one name" % (headers[name], rel))
                headers[name] = rel
    stray = [n for n in os.listdir(core) if n.endswith((".c", ".h"))]
    for name in sorted(stray):
        problems.append("core/%s: in no layer's folder" % name)
    edges = {rel: [] for rel in files}
    for rel, folder in files.items():
        text = open(os.path.join(core, rel), errors="replace").read()
        for inc in INCLUDE.findall(text):
            if inc.startswith("tconv/"):
                continue  # the public headers: the contract every layer may use
            target = headers.get(os.path.basename(inc))
            if not target:
                problems.append("core/%s includes \"%s\", which is no core header" % (rel, inc))
                continue
            to = files[target]
            edges[rel].append(target)
            if folder in programs:
                if to != folder:
                    problems.append("core/%s (a program) includes core/%s: programs see the "
                                    "public headers only" % (rel, target))
            elif to in programs or rank[to] > rank[folder]:
                problems.append("core/%s (%s) includes core/%s (%s), a layer above it"
                                % (rel, folder, target, to))
    # cycles: a depth-first walk that meets a file on its own path
    state = {}
    def visit(node, path):
        state[node] = 1
        for nxt in edges[node]:
            if state.get(nxt) == 1:
                cyc = path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
                problems.append("a cycle of includes: " + " -> ".join("core/" + c for c in cyc))
            elif not state.get(nxt):
                visit(nxt, path + [nxt])
        state[node] = 2
    for node in sorted(edges):
        if not state.get(node):
            visit(node, [node])
    nedges = sum(len(v) for v in edges.values())
    return problems, len(files), nedges, layers


def main_check(src):
    problems, nfiles, nedges, layers = check(src)
    for p in problems:
        print("FAIL: " + p)
    if problems:
        return 1
    print("layers: %d files, %d #include edges between core files, none up a layer and no cycle "
          "(%s)" % (nfiles, nedges, " < ".join(layers)))
    return 0


def self_test():
    """The check must fail on a wrong-way include and on a cycle: build trees that have one."""
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.dirname(here)
    failures = 0
    for case in ("up", "cycle", "program"):
        tmp = tempfile.mkdtemp()
        try:
            shutil.copytree(os.path.join(src, "core"), os.path.join(tmp, "core"))
            core = os.path.join(tmp, "core")
            if case == "up":  # the context reaching into the pipeline
                with open(os.path.join(core, "context", "ctx.c"), "a") as f:
                    f.write('\n#include "pipeline.h"\n')
            elif case == "cycle":  # two headers of one layer that include each other
                with open(os.path.join(core, "util", "a_cycle.h"), "w") as f:
                    f.write('#include "b_cycle.h"\n')
                with open(os.path.join(core, "util", "b_cycle.h"), "w") as f:
                    f.write('#include "a_cycle.h"\n')
            else:  # the program seeing the core's insides
                with open(os.path.join(core, "cli", "main.c"), "a") as f:
                    f.write('\n#include "util.h"\n')
            problems, _, _, _ = check(tmp)
            want = {"up": "a layer above it", "cycle": "a cycle of includes",
                    "program": "programs see the public headers only"}[case]
            if not any(want in p for p in problems):
                print("FAIL: self-test %s: not caught (%s)" % (case, problems))
                failures += 1
            else:
                print("self-test %s: caught" % case)
        finally:
            shutil.rmtree(tmp)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main_check(root))
