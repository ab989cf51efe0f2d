#!/usr/bin/env bash
# Convert each case of a cases file with tconv -w pprof, have `go tool pprof` read the result
# (-raw, -top, -traces must succeed) and compare -top and -traces with the golden files.
# Usage: pprof_golden.sh TCONV PLUGIN_DIR CASES DATA_DIR GOLDEN_DIR
# A case line: NAME READER INPUT [-W option]...  (INPUT relative to DATA_DIR, several inputs
# joined with '+'; '#' comments)
# UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
set -euo pipefail

tconv=$1 plugin_dir=$2 cases=$3 data=$4 golden=$5

if ! command -v go >/dev/null 2>&1; then
    echo "go is not installed: skipping" >&2
    exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# go tool pprof must work on a clean machine without network; the dates it prints depend on TZ.
export HOME=$tmp/home GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOFLAGS= GOPROXY=off TZ=UTC
export PPROF_TMPDIR=$tmp/pprof PPROF_BINARY_PATH=$tmp/nobinaries
mkdir -p "$HOME"
export TCONV_PLUGIN_PATH=$plugin_dir

failed=0
ncases=0
while read -r name reader input opts; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    ncases=$((ncases + 1))
    out=$tmp/$name.pb.gz
    # shellcheck disable=SC2086 # the options are words on purpose
    inputs=()
    IFS=+ read -ra parts <<<"$input"
    for part in "${parts[@]}"; do inputs+=("$data/$part"); done
    "$tconv" -q -r "$reader" -w pprof $opts -o "$out" "${inputs[@]}"
    go tool pprof -symbolize=none -raw "$out" >"$tmp/$name.raw" 2>"$tmp/$name.err"
    grep -q '^Samples:' "$tmp/$name.raw"
    for view in top traces; do
        go tool pprof -symbolize=none "-$view" "$out" >"$tmp/$name.$view" 2>>"$tmp/$name.err"
        if [[ "${UPDATE_GOLDEN:-}" == 1 ]]; then
            cp "$tmp/$name.$view" "$golden/$name.$view"
        elif ! diff -u "$golden/$name.$view" "$tmp/$name.$view"; then
            echo "FAIL: $name -$view differs from $golden/$name.$view" >&2
            failed=1
        fi
    done
done <"$cases"

[[ $ncases -gt 0 ]] || { echo "no cases in $cases" >&2; exit 1; }
exit $failed
