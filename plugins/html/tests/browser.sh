#!/usr/bin/env bash
# HTML reports in a real browser (headless chromium): see browser.py. The reports and their
# screenshots stay in the build folder (html-browser/) as artifacts.
# usage: browser.sh TCONV TESTDIR BUILDDIR NAME=INPUT[+INPUT...]...
# An INPUT that does not exist (a corpus file) makes the test skip (77) when it is the only one.
set -euo pipefail
tconv=$1 dir=$2 build=$3
shift 3
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "chromium not installed (.ci/install-deps installs it): skipped"
    exit 77
fi
cases=()
for c in "$@"; do
    here=1
    IFS=+ read -ra files <<<"${c#*=}"
    for f in "${files[@]}"; do [ -f "$f" ] || here=0; done
    if [ $here = 1 ]; then cases+=("$c"); else echo "absent, not checked: ${c#*=}"; fi
done
if [ ${#cases[@]} -eq 0 ]; then
    echo "none of the inputs is here: skipped"
    exit 77
fi
exec python3 "$dir/browser.py" "$chromium" "$tconv" "$build/html-browser" "${cases[@]}"
