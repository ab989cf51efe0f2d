#!/usr/bin/env bash
# folded -> folded is the identity on sorted input: every folded result in the corpus (the
# stackcollapse-perf.pl and inferno expected outputs) must come back byte for byte.
# usage: identity.sh TCONV CORPUS
set -euo pipefail
tconv=$1 corpus=$2
if [ ! -d "$corpus" ]; then
    echo "corpus not found at $corpus: skipped"
    exit 77
fi
cd "$corpus"
files=(FlameGraph/test/results/*.txt inferno/tests/data/collapse-perf/results/*.txt)
while IFS= read -r f; do files+=("$f"); done < <(find _generated/stackcollapse-perf-41fee1f -name '*.txt' | sort)
pass=0 fail=0
for f in "${files[@]}"; do
    if "$tconv" -r folded -w folded "$f" | cmp -s - "$f"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $f"
        "$tconv" -r folded -w folded "$f" | diff - "$f" | head -6 | cut -c1-160
    fi
done
echo "$pass passed, $fail failed"
# 78 FlameGraph results, 15 inferno results, 28 generated with the Perl script
[ "$fail" = 0 ] && [ "$pass" = 121 ]
