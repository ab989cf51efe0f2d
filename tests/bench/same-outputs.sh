#!/usr/bin/env bash
# Do two builds of tconv write the same bytes? Runs both on every file under a corpus directory
# (and any further files named) with every writer, and compares output, stderr and exit status.
# For a change that must not change any output (a faster lexer, another inflater); on demand,
# not a CI test.
#
# usage: tests/bench/same-outputs.sh OLD_TCONV NEW_TCONV CORPUS_DIR [FILE...]
#   WRITERS="chrome pprof ..."  the writers (default: every writer of NEW_TCONV --list)
#   EXTRA_ARGS="..."            more arguments for both (e.g. "-r chrome")
#
# Prints one line per difference and a count at the end; exits 1 when any differ.
set -uo pipefail

if [ $# -lt 3 ]; then
    sed -n '2,12p' "$0"
    exit 2
fi
old=$1 new=$2 corpus=$3
shift 3
writers=${WRITERS:-$("$new" --list | awk '$1 == "writer" { print $2 }')}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run into $work/$1: output (a file or a directory), stderr with the tool's own path taken
# out, and the exit status.
run() {
    local tag=$1 bin=$2 w=$3 in=$4
    local d="$work/$tag"
    rm -rf "$d" && mkdir -p "$d"
    # shellcheck disable=SC2086
    (cd "$work" && "$bin" -q ${EXTRA_ARGS:-} -w "$w" -o "$work/out" "$in" >"$d/stdout" 2>"$d/stderr")
    echo $? >"$d/status"
    sed -i "s|$bin|TCONV|g" "$d/stderr"
    [ -e "$work/out" ] && mv "$work/out" "$d/out"
}

files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$corpus" -type f ! -name '*.md' -print0 | sort -z)
files+=("$@")

n=0 bad=0
for f in "${files[@]}"; do
    for w in $writers; do
        run old "$old" "$w" "$f"
        run new "$new" "$w" "$f"
        n=$((n + 1))
        if ! diff -r -q "$work/old" "$work/new" >/dev/null 2>&1; then
            bad=$((bad + 1))
            echo "DIFFERS: -w $w $f"
            diff -r -q "$work/old" "$work/new" 2>&1 | sed 's/^/    /' | head -5
        fi
    done
done
echo "same-outputs: $n runs, $bad differ (writers: $(echo $writers))"
[ "$bad" -eq 0 ]
