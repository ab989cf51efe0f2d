#!/usr/bin/env bash
# One conformance case of conformance.txt: tconv -r perf -w folded on a corpus capture must
# reproduce the folded output of stackcollapse-perf.pl or inferno-collapse-perf.
# usage: conformance.sh TCONV CORPUS MODE OPTION INPUT EXPECTED
set -euo pipefail
tconv=$1 corpus=$2 mode=$3 option=$4 input=$5 expected=$6

for f in "$input" "$expected"; do
    if [ "$f" != - ] && [ ! -f "$corpus/$f" ]; then
        echo "corpus file $f absent from $corpus: skipped"
        exit 77
    fi
done
args=(-r perf -w folded)
[ "$option" != - ] && args+=(-R "$option")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# stackcollapse-perf.pl emits a sample when it reads the blank line after it; a capture that ends
# without one loses its last sample there. Cut the input at its last blank line to compare.
cut_last_sample() {
    awk '{ line[NR] = $0 } /^[ \t\r]*$/ { last = NR } END { for (i = 1; i <= last; i++) print line[i] }'
}

# The Perl script cuts every name at its first '(' (Go methods and "(anonymous namespace)" aside);
# tconv, like inferno, keeps parentheses nested in <...>, {...} and [...]. Applying the Perl rule to
# tconv's names (and merging the stacks that become equal) must give the Perl output.
perl_parens() {
    perl -ne 'chomp; /^(.*) (\S+)$/ or die "bad line: $_\n"; my ($s, $v) = ($1, $2);
        my @f = split /;/, $s, -1;
        for (@f) { s/\((?!anonymous namespace\)).*// unless /\.\(.*\)\./ }
        $sum{join(";", @f)} += $v;
        END { print "$_ $sum{$_}\n" for sort keys %sum }'
}

case $mode in
exact)
    "$tconv" "${args[@]}" "$corpus/$input" >"$tmp/out"
    ;;
quotes)
    "$tconv" "${args[@]}" "$corpus/$input" | tr -d "\"'" >"$tmp/out"
    ;;
perl-last)
    gzip -dcf "$corpus/$input" | cut_last_sample >"$tmp/in"
    "$tconv" "${args[@]}" "$tmp/in" | tr -d "\"'" >"$tmp/out"
    # and the sample the Perl script drops is really there in tconv's output
    "$tconv" "${args[@]}" "$corpus/$input" | tr -d "\"'" >"$tmp/full"
    if cmp -s "$tmp/full" "$tmp/out"; then
        echo "FAIL: the last sample of $input makes no difference"
        exit 1
    fi
    ;;
perl-parens)
    "$tconv" "${args[@]}" "$corpus/$input" | tr -d "\"'" | perl_parens >"$tmp/out"
    ;;
warn:*)
    kind=${mode#warn:}
    count=${kind##*:}
    kind=${kind%:*}
    "$tconv" "${args[@]}" "$corpus/$input" >"$tmp/out" 2>"$tmp/err"
    if [ "$count" = 1 ]; then
        got=$(grep -c "\[$kind\]\$" "$tmp/err" || true)
    else
        got=$(grep -c "\[$kind, $count times; first shown\]\$" "$tmp/err" || true)
    fi
    if [ "$got" != 1 ]; then
        echo "FAIL: expected warning $kind $count time(s); stderr was:"
        cat "$tmp/err"
        exit 1
    fi
    echo "ok: $kind reported $count time(s)"
    exit 0
    ;;
*)
    echo "unknown mode $mode"
    exit 2
    ;;
esac

if ! cmp -s "$tmp/out" "$corpus/$expected"; then
    echo "FAIL: output differs from $expected"
    diff "$tmp/out" "$corpus/$expected" | head -20 | cut -c1-200
    exit 1
fi
echo "ok: $(wc -l <"$tmp/out") lines identical to $expected"
