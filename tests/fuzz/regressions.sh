#!/usr/bin/env bash
# regressions.sh TCONV REGRESSIONS_DIR: replays every input under REGRESSIONS_DIR/<reader>/ (each
# once an input that crashed a fuzz target or the CLI) through the CLI with that reader, with the
# -R options of a FILE.opts beside it, into a direct, an ordered and a stack writer. Each run must
# end with exit 0 or 1 within 60 s: no signal, no sanitizer report, no hang.
set -uo pipefail
TCONV=$1
DIR=$2
unset TCONV_PLUGIN_PATH
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0
bad=0
for f in "$DIR"/*/*; do
    case $f in *.opts | *.md) continue ;; esac
    reader=$(basename "$(dirname "$f")")
    opts=()
    [ -f "$f.opts" ] && read -r -a opts <"$f.opts"
    for w in text text-ordered text-stacks; do
        n=$((n + 1))
        timeout 60 "$TCONV" -r "$reader" "${opts[@]}" -w "$w" -o "$out/out" "$f" >/dev/null 2>"$out/err"
        rc=$?
        if { [ $rc -ne 0 ] && [ $rc -ne 1 ]; } || grep -qE 'runtime error|Sanitizer|LeakSanitizer' "$out/err"; then
            echo "FAIL: exit $rc: tconv -r $reader ${opts[*]} -w $w $f" >&2
            head -c 2000 "$out/err" >&2
            bad=$((bad + 1))
        fi
    done
done
echo "regressions: $n runs, $bad failed"
[ $bad -eq 0 ] && [ $n -gt 0 ]
