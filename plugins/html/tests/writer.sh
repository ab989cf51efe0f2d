#!/usr/bin/env bash
# The html writer without a browser: -o *.html picks it; the same input gives the same bytes;
# the page has no markup it does not write itself (two scripts, one style, two frames, whatever
# the names), its data is JSON without a '<' and names nothing outside the file, its policy
# forbids fetching and runs only its two scripts, by hash; bad options exit 2.
# A CPU-only trace's page has no section it would leave empty (kernels, GPU graph, memory,
# ranks) nor a link to one; the tab is titled after the input.
# usage: writer.sh TCONV WORKDIR SMALL.json HOSTILE.json CPU_ONLY.json
set -euo pipefail
tconv=$1 work=$2/html-writer small=$3 hostile=$4 cpu=$5
mkdir -p "$work"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$tconv" -q -o "$work/a.html" "$small"
"$tconv" -q -o "$work/b.html" "$small"
cmp -s "$work/a.html" "$work/b.html" || fail "two runs on the same input differ"
"$tconv" -q -w html -o "$work/c.out" "$small"
cmp -s "$work/a.html" "$work/c.out" || fail "-o report.html does not pick the html writer"
"$tconv" -q -o "$work/hostile.html" "$hostile"

for page in "$work/a.html" "$work/hostile.html"; do
    python3 - "$page" <<'PY' || fail "$page: see above"
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
bad = []
tags = re.findall(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)", text)
opened = [t[1].lower() for t in tags if not t[0]]
for tag, want in (("script", 2), ("style", 1), ("iframe", 2), ("img", 0), ("svg", 0),
                  ("link", 0), ("object", 0), ("embed", 0), ("base", 0), ("form", 0)):
    if opened.count(tag) != want:
        bad.append("%d <%s> elements, expected %d" % (opened.count(tag), tag, want))
m = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S)
if not m:
    bad.append("no data element")
else:
    if "<" in m.group(1):
        bad.append("a '<' in the JSON data")
    try:
        json.loads(m.group(1))
    except ValueError as e:
        bad.append("the data is not JSON: %s" % e)
if re.search(r"(?i)(https?:|//[a-z]|@import|url\()", re.sub(r'src="data:[^"]*"|http://www\.w3\.org/2000/svg', "", text)):
    bad.append("something refers outside the file")
csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', text)
if not csp or not csp.group(1).startswith("default-src 'none';"):
    bad.append("no Content-Security-Policy that forbids fetching")
elif not re.search(r"script-src 'sha256-[A-Za-z0-9+/]{43}=' 'sha256-[A-Za-z0-9+/]{43}=';",
                   csp.group(1)) or "unsafe" in csp.group(1).split("script-src")[1].split(";")[0]:
    bad.append("the policy lets other scripts than the page's two run: %s" % csp.group(1))
for b in bad:
    print("FAIL: %s: %s" % (sys.argv[1], b))
sys.exit(1 if bad else 0)
PY
done

"$tconv" -q -o "$work/cpu.html" "$cpu"
python3 - "$work/cpu.html" "$(basename "$cpu")" <<'PY' || fail "CPU-only page: see above"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
bad = []
if text.count("<iframe ") != 1 or 'id="flame-cpu"' not in text:
    bad.append("%d flame graphs, expected the CPU one alone" % text.count("<iframe "))
for gone in ('id="kernels"', 'id="flame-gpu', 'id="memory"', 'id="ranks"', 'href="#kernels"',
             'href="#memory"', 'href="#ranks"', 'href="#flame-gpu-section"', "No samples"):
    if gone in text:
        bad.append("%s on a page without its data" % gone)
if "<title>%s - tconv report</title>" % sys.argv[2] not in text:
    bad.append("title %s" % re.search(r"<title>.*?</title>", text).group(0))
for b in bad:
    print("FAIL: %s: %s" % (sys.argv[1], b))
sys.exit(1 if bad else 0)
PY
"$tconv" -q -o "$work/titled.html" -W "title=A <b>&</b> run" "$small"
grep -qF "<title>A &lt;b&gt;&amp;&lt;/b&gt; run - tconv report</title>" "$work/titled.html" ||
    fail "-W title is not the escaped tab title"

set +e
"$tconv" -q -o "$work/x.html" -W width=10 "$small" 2>/dev/null
[ $? -eq 2 ] || fail "-W width=10 is not a usage error"
set -e

if [ $fails -ne 0 ]; then
    echo "$fails checks failed"
    exit 1
fi
echo "ok: html writer"
