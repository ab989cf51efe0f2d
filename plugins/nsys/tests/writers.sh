#!/usr/bin/env bash
# Every export (kept beside the tests, and the corpus's) through the writers its users reach
# for, read back by their consumers:
#   - OTF2: one archive of all the exports as ranks, which otf2-print reads without a word on
#     stderr, with as many ENTER and LEAVE events as the csv writer has spans; each export's
#     own archive likewise;
#   - pprof in its default view (go tool pprof -top) and with GPU attribution (-sample_index=gpu);
#   - the HTML report (written; the browser test looks inside);
#   - the same bytes twice (OTF2's definitions and events, the report, the profile).
# usage: writers.sh TCONV SRC WORK CORPUS GLOB
# GLOB: the corpus files to add ("nsys/*.sqlite").
TCONV=$1 SRC=$2 WORK=$3/writers-$(basename "$5" | tr -c 'a-z0-9\n' _) CORPUS=$4 GLOB=$5
. "$(dirname "$0")/lib.sh"
need otf2-print
need go
files=()
for f in "$SRC"/data/*; do case $f in *.md) ;; *) files+=("$f") ;; esac; done
for f in $CORPUS/$GLOB; do [ -f "$f" ] && files+=("$f"); done

spans() { "$TCONV" -q -w csv -W table=events "$@" | grep -c '^span,' || true; }
enters() { otf2-print "$1/traces.otf2" 2>"$TMP/otf2.err" | grep -c "^$2 " || true; }

total=0
for f in "${files[@]}"; do
    b=$(basename "$f")
    n=$(spans "$f")
    total=$((total + n))
    run 0 "$TCONV" -q -w otf2 -o "$TMP/$b.otf2" "$f" || continue
    e=$(enters "$TMP/$b.otf2" ENTER)
    l=$(enters "$TMP/$b.otf2" LEAVE)
    [ -s "$TMP/otf2.err" ] && fail "$b: otf2-print wrote to stderr: $(head -c 300 "$TMP/otf2.err")"
    [ "$e" = "$n" ] && [ "$l" = "$n" ] || fail "$b: OTF2 has $e ENTER and $l LEAVE, $n spans"
    run 0 "$TCONV" -q -w otf2 -o "$TMP/$b.again.otf2" "$f" &&
        (diff -r "$TMP/$b.otf2" "$TMP/$b.again.otf2" >/dev/null || fail "$b: two OTF2 archives differ")

    run 0 "$TCONV" -q -w pprof -o "$TMP/$b.pb.gz" "$f" || continue
    go tool pprof -top "$TMP/$b.pb.gz" >"$TMP/top" 2>&1 || fail "$b: go tool pprof -top: $(head -c 300 "$TMP/top")"
    grep -q '^Showing nodes accounting for' "$TMP/top" || fail "$b: pprof -top shows no nodes"
    run 0 "$TCONV" -q -w pprof -o "$TMP/$b.again.pb.gz" "$f" &&
        (cmp -s "$TMP/$b.pb.gz" "$TMP/$b.again.pb.gz" || fail "$b: two profiles differ")
    run 0 "$TCONV" -q -w pprof -W gpu=attribute -o "$TMP/$b.gpu.pb.gz" "$f" || continue
    go tool pprof -sample_index=gpu -top "$TMP/$b.gpu.pb.gz" >"$TMP/top" 2>&1 ||
        fail "$b: go tool pprof -sample_index=gpu: $(head -c 300 "$TMP/top")"

    run 0 "$TCONV" -q -o "$TMP/$b.html" "$f" || continue
    run 0 "$TCONV" -q -o "$TMP/$b.again.html" "$f" &&
        (cmp -s "$TMP/$b.html" "$TMP/$b.again.html" || fail "$b: two reports differ")
    grep -q '<script type="application/json" id="data">' "$TMP/$b.html" || fail "$b: no report data"
done

# all of them as the ranks of one run
run 0 "$TCONV" -q -w otf2 -o "$TMP/all.otf2" "${files[@]}"
e=$(enters "$TMP/all.otf2" ENTER)
[ -s "$TMP/otf2.err" ] && fail "all: otf2-print wrote to stderr: $(head -c 300 "$TMP/otf2.err")"
[ "$e" = "$total" ] || fail "the archive of ${#files[@]} inputs has $e ENTER events, $total spans"
echo "${#files[@]} inputs, $total spans"
finish
